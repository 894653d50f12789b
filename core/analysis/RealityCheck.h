// Reality check: the step-time model against measured, published training runs
// (resources/reference/published_runs.json, the team's reference set).
//
// Every case with enough information becomes a plan on the A100 SXM 80GB preset (Selene: 8 GPUs
// per node, NVLink 300 GB/s per direction, 8 x 200 Gb/s HDR per node = 25 GB/s per GPU; 312
// TFLOP/s) and is compared with the measured figure in the source's own convention:
//   Narayanan et al. 2021 (Tables 1-2): TFLOP/s per GPU counted with Eq. 3, i.e. the hardware
//     FLOPs of full activation recomputation, 96 B s l h^2 (1 + s/6h + V/16lh) per iteration,
//     which is the estimate's flops.hardware with recompute = full (Estimator.cpp).
//   Korthikanti et al. 2022 (Table 5, Sec. 6.3): MFU (Eq. 7, the estimate's flops.total) of the
//     present work (selective recompute + sequence parallelism), and the iteration time (or, for
//     530B-dp8, the MFU) of the full-recompute baseline (tensor parallelism without SP).
//   Korthikanti Table 4: one 22B layer's forward + backward time in five recompute/SP settings.
// Rules applied to every row alike (no per-row constants):
//   - Micro-batch not published (Narayanan Table 1): 1, the micro-batch both papers publish for
//     every PTD-P run at this scale (Narayanan Table 2; Korthikanti Table 3). ("Largest that
//     fits" was tried: it fills memory with full recompute, leaves few micro-batches and
//     under-predicts the pipelined rows by up to 23 %.)
//   - Schedule not published: Megatron's 1F1B without interleaving. Table 2's fall in throughput
//     as DP grows at fixed batch (174.6B: 153 -> 141 TFLOP/s, 529.6B: 171 -> 159) is the
//     non-interleaved bubble (p-1)/(m+p-1); Korthikanti states interleaving (v = 3) for 175B/530B.
//   - Table 2 PTD-P layouts: TP = 8 (one DGX node), PP = model-parallel size / 8, DP = GPUs /
//     (TP PP); model shapes from the note in the data (174.6B = GPT-3 = Korthikanti's 175B shape,
//     529.6B = Table 1's 530B shape). Table 2's ZeRO-3 rows (DeepSpeed, TP = PP = 1) are
//     evaluated but not gated: DeepSpeed's gather and bucketing are not Megatron's.
//   - Software of 2021-2022 Megatron-LM (realityCheckFramework()): no overlap of the gradient
//     all-reduce with the backward (the data's grad_allreduce_overlap: false), no ZeRO (stage 0),
//     no FlashAttention, GPT-3 dropout; mixed precision with FP32 master weights and Adam.
#pragma once

#include <array>
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/estimate/MemoryFit.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

enum class RealityMetric {
    HardwareTflopsPerGpu,  // Narayanan's Eq. 3 TFLOP/s per GPU (PredictedStep::hardwareTflopsPerGpu)
    Mfu,                   // Korthikanti's MFU (PredictedStep::mfu)
    IterationSeconds,      // PredictedStep::stepSeconds
    LayerMilliseconds,     // one layer's forward + backward, one micro-batch (PredictedStep::layer)
    PeakMemoryGib,         // the estimate's fullest GPU, GiB (Estimate::perGpu.total / 2^30)
    TokensPerSecondPerGpu, // PredictedStep's tokens per second per GPU (the MoE reference runs)
};

// Whether a metric is a throughput (higher predicted = optimistic) or a duration / memory.
bool isThroughputMetric(RealityMetric metric);

struct RealityCase {
    std::string id;        // the data's case id, plus " full" or the Table 4 setting
    std::string location;  // paper and table, from the data
    Plan plan;
    RealityMetric metric = RealityMetric::Mfu;
    double measured = 0;   // in the metric's unit (MFU as a fraction)
    bool gated = true;     // counted in the median and the worst case
    std::string family;    // the source (paper or stack) a leave-one-family-out fold leaves out
    std::string accelerator;  // preset name, for the per-accelerator error
    std::string framework;    // the plan's framework profile, or "unstated"
    // A layout that really trained. Korthikanti et al.'s Table 4 timed one layer of the 22B model
    // under each setting: its rows without recompute are settings the paper's own Figure 1 shows
    // exceed 80 GB for the whole model (45.6 + 59.3 GiB), so their verdict is no miss.
    bool trainedLayout = true;
};

struct RealityRow {
    std::string id;
    std::string location;
    std::string family;
    RealityMetric metric = RealityMetric::Mfu;
    double predicted = 0;
    double measured = 0;
    double error = 0;      // (predicted - measured) / measured
    bool gated = true;
    bool fits = true;      // the estimate's point figure within capacity (Table 4 ran single layers)
    bool trainedLayout = true;  // RealityCase::trainedLayout
    MemoryFit memoryFit = MemoryFit::Fits;  // the memory range's verdict (MemoryFit.h), as every view gives it
    // The prediction's range in the metric's unit (equal to predicted for memory) and whether
    // the measured figure lies inside it.
    double low = 0, high = 0;
    bool inRange = true;
    // In the step's direction, for the model-error band (StepErrorBand): ln(measured step /
    // predicted step) (a throughput's ratio inverted), and the unknowns together on the log scale
    // (PredictedRange::unknownsLogFaster, negated, <= 0 <= unknownsLogSlower). Zero for memory rows.
    double logStepResidual = 0;
    double logStepFastest = 0, logStepSlowest = 0;
};

struct RealitySummary {
    std::vector<RealityRow> rows;
    int gatedCount = 0;
    double medianAbsError = 0;  // over gated rows
    double worstAbsError = 0;
    std::string worstId;
    // The gated step-time rows (not memory) against their predicted range (rangeScore() with the
    // shipped band): the share inside and the median high / low.
    int rangeCount = 0;
    double rangeCoverage = 0;
    double medianRangeWidth = 0;
};

// Megatron-LM as the 2021-2022 papers ran it (see the rules above).
FrameworkOptions realityCheckFramework();

// The few global figures a calibration fits (everything else is datasheet or microbenchmark):
// a scale on every accelerator's large-GEMM efficiency and the per-kernel fixed cost.
struct CalibrationKnobs {
    double matmulScale = 1.0;
    double kernelOverheadSeconds = -1.0;  // < 0: the preset's
    bool operator==(const CalibrationKnobs&) const = default;
};

// The cases of a published_runs.json document (its "cases" array), by the rules above.
std::vector<RealityCase> realityCases(const nlohmann::json& publishedRuns);
// The cases of a calibration_runs.json document (CalibrationRuns.cpp): each published layout as
// a plan, with the data's stated values and its "assumed" fills; what the data leaves unknown
// stays unknown in the plan's framework section (so it widens the range). Rows of a modified
// workload the plan cannot describe (MegaScale's own system: parallel transformer block,
// sliding-window attention) are evaluated but not gated. Peak memory, where published, is its
// own ungated-for-throughput row (metric PeakMemoryGib).
std::vector<RealityCase> calibrationCases(const nlohmann::json& calibrationRuns);
// calibration_runs.json's moe_cases as plans: the mixture-of-experts runs, each predicted as
// tokens per second per GPU, ungated (the dense rows alone set the band; these are out of sample).
std::vector<RealityCase> calibrationMoeCases(const nlohmann::json& calibrationRuns);
RealityRow evaluateRealityCase(const RealityCase& realityCase, const CalibrationKnobs& knobs = {});
RealitySummary realityCheck(const nlohmann::json& publishedRuns);
// Both files' cases (published first).
RealitySummary realityCheck(const nlohmann::json& publishedRuns, const nlohmann::json& calibrationRuns);

// Median and 90th percentile of |error| over a set of rows.
struct ErrorStats {
    int count = 0;
    double median = 0;
    double p90 = 0;
    double meanSigned = 0;  // > 0: optimistic on throughput on average
};

struct FamilyFold {
    std::string family;
    CalibrationKnobs fitted;  // fitted without this family
    ErrorStats heldOut;       // this family's gated throughput rows, predicted with those knobs
};

// One gated row's residual and unknowns' envelope in the step's log (RealityRow's log fields).
struct StepResidual {
    std::string id;
    std::string family;
    double log = 0;         // ln(measured step / predicted step)
    double logFastest = 0;  // the unknowns' combined extent on the fast side, <= 0 (RealityRow)
    double logSlowest = 0;  // and on the slow side, >= 0
};
StepResidual stepResidual(const RealityRow& row);

// The split-conformal band of a set of residuals at a two-sided coverage 1 - alpha (Lei et al.
// 2018, JASA 113:1094, Sec. 2.2; with leave-one-family-out residuals it is CV+ by groups, Barber,
// Candes, Ramdas & Tibshirani 2021, Ann. Statist. 49:486): the upper end is the smallest residual
// whose cumulative weight reaches (1 - alpha/2)(n + 1), the lower end the mirror image, so with
// equal weights they are the ceil((n+1)(1-alpha/2))-th smallest and floor((n+1) alpha/2)-th
// smallest residuals. Too few residuals for the level give an unbounded end (+-infinity).
// PerFamily weighs each row 1 / (rows of its family), rescaled to sum to n, so that a source with
// many rows does not set the band alone; StepTimeRange.cpp says why the shipped band does not.
enum class ConformalWeights { PerRow, PerFamily };
StepErrorBand conformalBand(
    const std::vector<StepResidual>& residuals, double coverage, ConformalWeights weights = ConformalWeights::PerRow);

// How a band does on rows: the share whose measured step lies inside [fastest x e^logLow,
// slowest x e^logHigh] (the range setPredictedRange() gives) and the median high / low of it.
struct RangeScore {
    int count = 0;
    double coverage = 0;
    double medianWidth = 0;
};
RangeScore rangeScore(const std::vector<StepResidual>& residuals, const StepErrorBand& band);

// In-sample (fitted on every gated throughput row, evaluated on them) and leave-one-family-out
// (each family predicted with knobs fitted on the others) error, overall and per accelerator and
// framework profile: what the reality-check view shows beside the table.
struct ModelValidation {
    CalibrationKnobs fitted;        // on all gated throughput rows
    ErrorStats inSample;
    ErrorStats outOfSample;         // over every held-out row of every fold
    std::vector<FamilyFold> folds;
    std::vector<std::pair<std::string, ErrorStats>> inSampleByAccelerator, outOfSampleByAccelerator;
    std::vector<std::pair<std::string, ErrorStats>> inSampleByFramework, outOfSampleByFramework;
    std::vector<std::pair<std::string, ErrorStats>> inSampleByFamily;  // out of sample: folds[].heldOut
    // The step-time range. Residuals of every gated row as the app predicts it (fitted knobs)
    // and of every held-out row of the folds; band: conformalBand() of the held-out residuals at
    // the shipped band's coverage, what stepErrorBand() must equal (tst_realitycheck).
    std::vector<StepResidual> inSampleResiduals, heldOutResiduals;
    StepErrorBand band;
    RangeScore inSampleRange;  // the shipped band on the rows as the app predicts them
    // Each family's held-out rows against the band of the other families' held-out residuals
    // alone: nothing of the family judged went into its range.
    RangeScore outOfSampleRange;
};

// The knob grid the fit searches (matmul scale x kernel overhead), minimising each family's median
// |error| averaged over the families. cancel (optional, polled between grid points): when it turns
// true the validation stops and returns what it has, incomplete.
ModelValidation validateModel(const std::vector<RealityCase>& cases, const std::atomic<bool>* cancel = nullptr);
ErrorStats errorStats(const std::vector<RealityRow>& rows);
nlohmann::json modelValidationToJson(const ModelValidation& validation);

const char* realityMetricName(RealityMetric metric);

// {"reality_check": {gated, median_abs_error, worst_abs_error, worst_id, range_count,
// range_coverage, median_range_width, step_error_band: {coverage, log_low, log_high}, rows: [{id,
// location, family, metric, predicted, measured, error, low, high, in_range, gated, fits}]}}: the
// table and scatter plot's data.
nlohmann::json realityCheckToJson(const RealitySummary& summary);

// How many distinct published layouts that trained (rows by id, RealityCase::trainedLayout) get
// each memory verdict, by MemoryFit value: "does not fit" is the model's miss (issue 22).
std::array<int, 3> realityFitCounts(const RealitySummary& summary);

}  // namespace trainplan
