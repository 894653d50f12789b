// Predicted step time: what a layout will reach, instead of the MFU a person assumes.
//
// The step is built from the work one GPU does (Calculon-style: every part a named component,
// the parts sum to the total):
//   per layer and micro-batch (StepTimeCosts.cpp): matrix multiplies at a shape-dependent
//   efficiency, the attention core, memory-bound element-wise work at HBM bandwidth, recompute,
//   exposed TP / CP / ZeRO collectives;
//   per step (StepTimeModel.cpp): the pipeline (schedule simulator of Schedule.h fed with these
//   costs, or its closed form), PP sends, the exposed data-parallel tail, the optimizer step.
// Inputs are the plan, its estimate (volumes, stages, link choice) and the accelerator's
// sustained efficiencies (AcceleratorEfficiency.h, from the presets).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/estimate/Estimate.h"
#include "core/plan/FrameworkSpec.h"
#include "core/presets/AcceleratorEfficiency.h"
#include "core/schedule/Schedule.h"

namespace trainplan {

struct AcceleratorPreset;

// What the training framework overlaps and runs: software, not hardware. Each switch acts
// through one mechanism in StepTimeCosts.cpp / StepTimeModel.cpp (its comment cites the source).
// The defaults are what a plan gets for a switch it leaves unknown (frameworkOptionsFor()).
struct FrameworkOptions {
    // Bucketed gradient reduce-scatter/all-reduce under the last micro-batch's backward
    // (Megatron-Core DistributedDataParallelConfig.overlap_grad_reduce; PyTorch DDP/FSDP buckets).
    bool overlapGradientReduce = true;
    // ZeRO parameter all-gathers under compute (overlap_param_gather; ZeRO-3/FSDP prefetch).
    bool overlapParamGather = true;
    // TP all-gathers / reduce-scatters pipelined with the GEMMs beside them (TransformerEngine
    // userbuffers, Megatron --tp-comm-overlap); acts only with sequence parallelism and TP >= 2.
    bool tpCommOverlap = false;
    // Fused bias-activation, bias-dropout-add, softmax and norm kernels: fewer HBM passes and
    // fewer kernels per layer.
    bool fusedKernels = true;
    // The attention kernel: FlashAttention-2 or -3, or unfused ("none").
    FlashAttentionVersion flashAttention = kUnknownFlashAttentionExpected;
    OptimizerImplementation optimizer = OptimizerImplementation::Fused;
    // Each layer's kernels replayed as a CUDA graph: no CPU launch floor.
    bool cudaGraphs = false;
    // GPT-3-style dropout after attention and in the residual path: extra mask traffic.
    bool dropout = false;
    // Gradients accumulated and reduced in FP32 (twice the data-parallel bytes of BF16 ones).
    bool fp32Gradients = false;
    // How micro-batch gradients are accumulated (FrameworkSpec.h): fused into the weight-gradient
    // GEMMs, PyTorch autograd (with FSDP2's copies when sharded), or DeepSpeed's FP32 copy.
    GradientAccumulation gradientAccumulation = GradientAccumulation::Autograd;
    // Mixture-of-experts layers (act only on a model with MoE layers): how tokens reach their
    // experts, whether a rank's experts run as one grouped GEMM, and whether the all-to-all hides
    // under another micro-batch's compute (DualPipe; Megatron-Core's 1F1B all-to-all overlap).
    MoeDispatcher moeDispatcher = MoeDispatcher::AllToAll;
    bool moeGroupedGemm = true;
    bool moeCommOverlap = false;
    // Gradient bucket size in parameters; 0 = Megatron-Core's default max(40e6, 1e6 x DP)
    // (DistributedDataParallelConfig.bucket_size).
    double bucketParameters = 0.0;

    bool operator==(const FrameworkOptions&) const = default;
};

// The plan's framework (profile, then its own switches) as options: expected uses each known
// switch and the defaults above for unknown ones; unknownSwitches counts the unknown ones (the
// range takes each alone to its faster and slower value: StepTimeRange.h).
struct FrameworkChoices {
    FrameworkOptions expected;
    int unknownSwitches = 0;
};
FrameworkChoices frameworkChoicesFor(const Plan& plan);
FrameworkOptions frameworkOptionsFor(const Plan& plan);

// One framework switch, as frameworkChoicesFor() and the list of a plan's unknowns
// (analysis/PlanUnknowns.h) both read it: its name and plan field, whether the plan (or its
// profile) sets it, and how it sets the options: to the plan's value, or to its faster or slower
// value. The table is the one place that says which value of a switch is the faster.
struct FrameworkSwitch {
    const char* label;  // "TP communication overlap"
    const char* field;  // "framework.tp_comm_overlap"
    bool (*known)(const FrameworkSpec& resolved);
    void (*setKnown)(const FrameworkSpec& resolved, FrameworkOptions& options);
    void (*setEnd)(FrameworkOptions& options, bool fast);
    std::string (*valueName)(const FrameworkOptions& options);  // "on", "fused", "3"
    // Whether the switch can act on the plan (nullptr: always); one that cannot is neither known
    // nor unknown (the MoE switches on a dense model).
    bool (*actsOn)(const Plan& plan) = nullptr;
    bool appliesTo(const Plan& plan) const { return !actsOn || actsOn(plan); }
};
const std::vector<FrameworkSwitch>& frameworkSwitches();

enum class PipelineMethod {
    Simulate,    // simulateSchedule() with the model's per-stage costs (exact for the model)
    ClosedForm,  // pipelineComputeSecondsClosedForm(): microseconds, for the layout search
};

struct StepTimeOptions {
    AcceleratorEfficiency efficiency;  // stepTimeOptionsFor() fills it from the presets
    FrameworkOptions framework;
    PipelineMethod pipeline = PipelineMethod::Simulate;
    // Dense peak the layers' GEMMs run at in training.matmul_precision's low-precision format
    // (FP8 or FP4; 0: BF16, or the part has no peak for it): formatPeakFlopsPerGpu().
    double formatPeakFlopsPerGpu = 0;
    // Where the efficiency came from: the preset's name (static storage), or nullptr if set by hand.
    const char* efficiencySource = nullptr;
};

// The preset the step-time figures start from: the one the label names (cluster.accelerator), else
// the one whose hardware figures the cluster carries, else the one with the nearest dense BF16 peak
// (borrowed: the plan describes a part that is no preset, e.g. worked example B's "80 GB, 1 PFLOP/s
// BF16", so the figures it does not give itself are assumed: analysis/PlanUnknowns.h).
const AcceleratorPreset* efficiencyPresetFor(const ClusterSpec& cluster, bool* borrowed = nullptr);
// Whether some of the step-time figures are borrowed: the part is no preset and the plan does not
// give every figure itself (cluster.efficiency).
bool efficienciesBorrowed(const ClusterSpec& cluster);
// That preset's efficiencies with the plan's own figures (cluster.efficiency) in their place.
// sourceName receives the preset's name.
AcceleratorEfficiency efficiencyFor(const ClusterSpec& cluster, const char** sourceName = nullptr);
StepTimeOptions stepTimeOptionsFor(const Plan& plan);

// Seconds of one transformer layer for one micro-batch on one GPU. Exposed collectives only.
struct LayerTimes {
    double forwardMatmul = 0;     // QKV, output, FFN projections
    double forwardAttention = 0;  // attention core (scores and weighted values)
    double forwardMemory = 0;     // norms, residual adds, activation function, softmax, RoPE
    double forwardTp = 0;         // exposed TP collectives
    double forwardCp = 0;         // exposed ring-attention exchange
    double forwardZero = 0;       // exposed ZeRO-3 parameter gather
    double backwardMatmul = 0;    // input and weight gradients of the projections
    double backwardAttention = 0;
    double backwardMemory = 0;
    double backwardTp = 0;
    double backwardCp = 0;
    double backwardZero = 0;      // exposed ZeRO-3 gather and ZeRO-2/3 per-micro-batch reduce-scatter
    double forwardFixed = 0;      // per-kernel fixed costs and the CPU launch floor
    double backwardFixed = 0;
    double recompute = 0;         // forward work repeated before the backward
    double weightGradMatmul = 0;  // the weight-gradient part of backwardMatmul (ZB-H1's W)
    // MoE layers: the exposed expert-parallel dispatch and combine at a balanced load, and what the
    // busiest rank spends beyond the balanced load (its experts' GEMMs and its share of the
    // all-to-all): the step waits for that rank.
    double forwardAllToAll = 0;
    double backwardAllToAll = 0;
    double forwardImbalance = 0;
    double backwardImbalance = 0;

    double forward() const
    {
        return forwardMatmul + forwardAttention + forwardMemory + forwardTp + forwardCp + forwardZero + forwardFixed + forwardAllToAll
            + forwardImbalance;
    }
    double backward() const
    {
        return backwardMatmul + backwardAttention + backwardMemory + backwardTp + backwardCp + backwardZero + backwardFixed + recompute
            + backwardAllToAll + backwardImbalance;
    }
};

// Named parts of the step on its reference stage (the busiest pipeline stage), seconds.
// total() == PredictedStep::stepSeconds.
struct PredictedComponents {
    double forwardCompute = 0;   // matmuls and attention core, forward (incl. LM head)
    double backwardCompute = 0;  // matmuls and attention core, backward
    double memoryBound = 0;      // element-wise work, embedding, loss (forward and backward)
    double recompute = 0;        // activation recomputation (selective: attention core; full: the forward)
    double tpCommunication = 0;  // exposed tensor-parallel collectives
    double cpCommunication = 0;  // exposed context-parallel ring exchange
    double zeroCommunication = 0;  // exposed ZeRO-3 gathers, ZeRO-2/3 per-micro-batch reduce-scatters
    double epCommunication = 0;  // exposed expert-parallel all-to-all (dispatch and combine), balanced load
    double expertImbalance = 0;  // the busiest expert rank's extra GEMM and all-to-all time
    double ppSend = 0;           // stage-to-stage sends on the critical path
    double pipelineBubble = 0;   // the reference stage idle, waiting for other stages
    double dpCommunication = 0;  // exposed gradient-reduction tail and parameter all-gather
    double optimizer = 0;        // optimizer step (memory-bound)
    double kernelOverhead = 0;   // fixed cost of every kernel and the CPU launch floor (forward and backward)

    double total() const
    {
        return forwardCompute + backwardCompute + memoryBound + recompute + tpCommunication + cpCommunication
            + zeroCommunication + epCommunication + expertImbalance + ppSend + pipelineBubble + dpCommunication + optimizer
            + kernelOverhead;
    }
};

// One end of a predicted range: the figures a view quotes.
struct PredictedFigures {
    double stepSeconds = 0;
    double mfu = 0;
    double tflopsPerGpu = 0;
    double tokensPerSecondPerGpu = 0;
    double days = 0;
    double gpuHours = 0;
};

// What one unknown input does to the step on its own: the step with that input at its slower and
// at its faster value, every other input as the analysis expects it (analysis/PlanUnknowns.h).
struct UnknownEffect {
    std::string field;  // the plan path a person would set: "framework.tp_comm_overlap"
    std::string label;  // "TP communication overlap"
    std::string slowerValue, fasterValue;
    double slowerFactor = 1.0;  // step at the slower value / predicted step (>= 1)
    double fasterFactor = 1.0;  // step at the faster value / predicted step (<= 1)
};

// low = the pessimistic end (longest step, lowest MFU), high = the optimistic end. Two sources
// (StepTimeRange.cpp): what the plan leaves unknown (framework switches, layout fields the file
// left out: analysis/PlanUnknowns.h), each measured alone (UnknownEffect), and the model's own
// error measured out of sample, a conformal band of the leave-one-family-out residuals
// ln(measured step / predicted step) over the reference runs (StepErrorBand). Independent
// sources add in quadrature on the log scale (combinedLogExtent()): a plan whose inputs are all
// known spans only the model's error, and ten small unknowns do not stack as if all ten were
// certain to go the same way.
struct PredictedRange {
    PredictedFigures low, high;
    double modelErrorSlower = 0;    // fraction: the model's own band on the slow side (e^logHigh - 1)
    double modelErrorFaster = 0;    // and on the fast side (1 - e^logLow)
    double coverage = 0;            // the model-error band's two-sided level (StepErrorBand::coverage)
    std::vector<UnknownEffect> unknownEffects;  // each unknown input alone, in unknownInputs() order
    double unknownsLogSlower = 0;   // sqrt(sum of ln(slowerFactor)^2): the unknowns together, slow side
    double unknownsLogFaster = 0;   // sqrt(sum of ln(fasterFactor)^2), as a magnitude: fast side
    int unknownSwitches = 0;       // framework switches neither the plan nor its profile sets
    unsigned unknownLayoutFields = 0;  // LayoutUnknown bits that act on the plan
    bool unknownLoadImbalance = false;  // MoE: model.moe.load_imbalance left out
    bool unknownEfficiencies = false;   // a part that is no preset: figures cluster.efficiency leaves out are assumed
    int unknownInputs() const;     // all of them together
};

struct PredictedStep {
    double stepSeconds = 0;
    PredictedComponents components;
    double modelFlopsPerStep = 0;      // estimate's convention (flops.total per step: 6N + attention)
    double hardwareFlopsPerStep = 0;   // flops.hardware per step: with recompute
    double mfu = 0;                    // model FLOPs / (step x GPUs x peak)
    double hfu = 0;                    // hardware FLOPs / (step x GPUs x peak)
    // HFU against the peak of the format the GEMMs run in (FP8 or FP4); equals hfu in BF16. MFU
    // and hfu keep the BF16 peak, the convention published MFUs use, so FP8 runs compare.
    double hfuAtFormatPeak = 0;
    double tflopsPerGpu = 0;           // achieved model FLOP/s per GPU / 1e12
    double hardwareTflopsPerGpu = 0;   // achieved hardware FLOP/s per GPU / 1e12
    double tokensPerSecondPerGpu = 0;
    double totalSeconds = 0;           // steps (exact) x step: compute time, no failures
    double days = 0;
    double gpuHours = 0;
    double bubbleFraction = 0;         // (bubble + PP sends) / pipeline time of the reference stage
    double matmulEfficiency = 0;       // FLOP-weighted efficiency of the layers' projections
    int referenceStage = 0;
    std::vector<LayerTimes> layers;    // one layer of each kind (ModelSpec::kind(k)), one micro-batch
    bool simulated = false;            // pipeline from the simulator (else the closed form)
    const char* efficiencySource = nullptr;
    PredictedRange range;
};

// The step-time model's error distribution out of sample: quantiles of the signed log residual
// r = ln(measured step / predicted step) over the held-out rows of the reality check's
// leave-one-family-out folds (StepTimeRange.cpp gives the figures and their source;
// analysis/RealityCheck.h conformalBand() derives them; tst_realitycheck recomputes them).
struct StepErrorBand {
    double coverage = 0;  // two-sided level: the share of runs like the reference ones whose step falls inside
    double logLow = 0;    // lower quantile of r (<= 0): the step can be e^logLow times the prediction
    double logHigh = 0;   // upper quantile of r (>= 0)
};
const StepErrorBand& stepErrorBand();
// The band of a plan calibrated on a run of its own cluster (Plan.h, ClusterSpec::calibrationApplies()):
// the residuals of reference rows predicted with the figures fitted on another run of their family
// (calibration/CalibrationValidation.h; StepTimeRange.cpp gives the figures).
const StepErrorBand& calibratedStepErrorBand();
// Whether a plan's range takes that band: its calibration applies and fitted the GEMM efficiency.
bool usesCalibratedStepBand(const Plan& plan);

// Two independent spreads on the log scale, each a half-width at the band's level, combined in
// quadrature (JCGM 100:2008, the GUM, Sec. 5.1.2: uncorrelated inputs add as squares). The one
// formula setPredictedRange() and the reality check's scoring share.
double combinedLogExtent(double unknowns, double modelError);

// Fills predicted.range from each unknown input's effect alone (empty when none is unknown) and
// the model-error band: the step spans predicted x e^-sqrt(Ff^2 + lo^2) to predicted x
// e^sqrt(Fs^2 + hi^2), Fs and Ff the root-sum-square of the effects' logs on each side.
void setPredictedRange(const Plan& plan, const Estimate& est, const std::vector<UnknownEffect>& effects, int unknownSwitches,
    unsigned unknownLayoutFields, bool unknownLoadImbalance, PredictedStep& p);

// Pure: same plan in, same numbers out; never throws. est must be estimate(plan). A pipeline the
// simulator cannot run (pipelineProblem(): interleaving with m % p != 0, too many micro-batches)
// falls back to the closed form, and PredictedStep::simulated says which was used.
PredictedStep predictStep(const Plan& plan, const Estimate& est);
PredictedStep predictStep(const Plan& plan, const Estimate& est, const StepTimeOptions& options);

// The plan's own layout.schedule simulated with its predicted costs (predictedScheduleCosts, the
// plan's own step-time options). Throws PlanError, naming the field, when the plan's pipeline
// cannot be scheduled (interleaving without v >= 2 or with m % p != 0; a step too large to
// simulate).
ScheduleResult simulatePredictedSchedule(const Plan& plan, const Estimate& est);

// Reusable scratch for repeated predictions (the layout search): one instance per thread.
class StepTimeWorkspace {
public:
    StepTimeWorkspace();
    ~StepTimeWorkspace();
    StepTimeWorkspace(StepTimeWorkspace&&) noexcept;
    StepTimeWorkspace& operator=(StepTimeWorkspace&&) noexcept;
    // family: a caller predicting many layouts that differ only in the ZeRO stage and recompute
    // (the layout search) passes one nonzero number for all of them and a new number whenever
    // anything else changes (plan, estimate's model, options); the layer times those two leave
    // alone are then computed once per family (microbatchCostsInto's sameBeforeSharding). 0: none.
    // schedule: whether the pipeline's simulation keeps its events for swapLastSchedule(); a
    // prediction reads only its totals, so the many that no view draws skip storing them.
    void predict(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out, std::uint64_t family = 0,
                 ScheduleDetail schedule = ScheduleDetail::TimesOnly);
    // predict()'s step from one pipeline simulation instead of two: the one without sends only
    // tells the bubble from the sends, so here components.pipelineBubble holds both (ppSend 0).
    // The step equals predict()'s up to rounding (tst_steptime); the range's variants, which
    // read nothing else, call this. DualPipe, whose pairs read both runs, still simulates twice.
    void predictStepOnly(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out);
    // After a predict() with ScheduleDetail::Events whose pipeline was simulated
    // (PredictedStep::simulated): hands over that simulation (with sends and the DP tail, events
    // included) by swapping storage with other. Throws std::logic_error after any other predict().
    void swapLastSchedule(ScheduleResult& other);

    struct Scratch;

private:
    void predictInto(const Plan& plan, const Estimate& est, const StepTimeOptions& options, PredictedStep& out, std::uint64_t family,
                     ScheduleDetail schedule, bool splitSendsFromBubble);

    std::unique_ptr<Scratch> scratch_;
};

// The schedule simulator's costs (Schedule.h) with the step-time model's durations instead of
// the assumed MFU: per virtual stage forward, backward (incl. recompute and exposed collectives)
// and W, the send time over the achieved link bandwidth, and as DP sync the exposed gradient
// reduction after a stage's last backward. simulateSchedule() of these draws the predicted
// timeline; predictStep() runs the same costs.
ScheduleCosts predictedScheduleCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options);
// The same for another schedule kind (the timeline's comparison lanes).
ScheduleCosts predictedScheduleCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options, ScheduleKind kind);

// Compute time of one step's pipeline (no DP tail) from per-stage costs, in closed form:
//   GPipe / 1F1B:  sum_i (F_i + B_i) + (m - 1) max_i (F_i + B_i) + 2 (p - 1) send
//   interleaved:   m max_i (F_i + B_i) + (p - 1) mean_i (F_i + B_i) / v + 2 (p - 1) send
//   ZB-H1:         m max_i (F_i + B_i) + (p - 1) mean_i (F_i + B_i - 2 W_i) + 2 (p - 1) send
// with F_i, B_i a whole stage's forward and backward for one micro-batch (all its chunks), W_i
// its deferred weight-gradient part (Narayanan et al. 2021, Sec. 2.2; Qi et al. 2023, Sec. 3.1).
// For equal stages these are the bubbles of PipelineModel.h; tst_steptime checks them against
// the simulator on uneven stages.
double pipelineComputeSecondsClosedForm(const ScheduleCosts& costs, ScheduleKind kind);

// The plan with training.mfu set to the predicted MFU: estimate() of it gives days, GPU-hours,
// cost and the failure-padded days at the predicted speed (the "use predicted MFU" switch).
Plan withPredictedMfu(const Plan& plan, const PredictedStep& predicted);

// The object for `estimate --json` under "predicted" (docs/plan-format.md): step_seconds, mfu, hfu,
// tflops_per_gpu, tokens_per_second_per_gpu, components{...} (seconds, summing to step_seconds),
// plus days, gpu_hours, bubble_fraction, matmul_efficiency, layer{...}, efficiency_source.
nlohmann::json predictedToJson(const PredictedStep& predicted, const ModelSpec& model);

}  // namespace trainplan
