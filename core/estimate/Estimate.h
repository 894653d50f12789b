// What estimate(plan) returns: numbers only (bytes, FLOPs, seconds), no text.
// Text (the derivation, warning messages, reports) is produced on demand from these
// numbers by Derivation.h, Warning.h and the report writers.
#pragma once

#include <cstdint>
#include <vector>

#include "core/estimate/Warning.h"
#include "core/plan/Plan.h"

namespace trainplan {

// One layer of one kind (LayerKind.h), all TP ranks together.
struct LayerParameters {
    double attention = 0;  // Q, K, V, O projections (+ biases), or MLA's projections and latent norms
    double ffn = 0;        // two or three matrices (+ biases); an MoE layer's experts and router
    double norms = 0;      // two norms per layer
    double total = 0;
    double routedExperts = 0;  // of ffn, the routed experts: sharded by EP x ETP, not TP
    double active = 0;         // what one token touches (= total for a dense layer)
};

struct ParameterCounts {
    // One entry per layer kind, in the model's order (ModelSpec::kind(k)); one for a dense model.
    std::vector<LayerParameters> kinds;
    double layers = 0;             // every transformer layer: the sum of layers x per layer over kinds
    double wordEmbedding = 0;      // V h
    double embedding = 0;          // token embedding (+ learned positions)
    double lmHead = 0;             // zero when tied to the embedding
    double finalNorm = 0;
    double total = 0;
    double active = 0;             // parameters one token touches (= total for a dense model)
    // Multi-token prediction (model.mtp_layers): every depth's projection, norms and block, kept on
    // the last pipeline stage with the output layer (Megatron-Core's MTP sits in the post-process
    // stage). Counted in total and active.
    double mtp = 0;
    double mtpRoutedExperts = 0;   // of mtp, the routed experts of the MTP blocks
    double mtpActive = 0;

    // The largest layer of any kind: what ZeRO-3 gathers at once (ActivationModel.h).
    double largestLayer() const;
    // The same on one GPU of the layout: TP's share of the layer, and of its routed experts the
    // EP x ETP share (ShardingBuffers.h).
    double largestLayerPerGpu(const LayoutSpec& layout) const;
};

struct MemoryBreakdown {
    double weights = 0;
    double gradients = 0;
    double optimizer = 0;     // FP32 master copy + Adam moments, after ZeRO sharding
    double activations = 0;
    double shardingBuffers = 0;      // ZeRO-3's gathered parameters and unsharded gradients (ShardingBuffers.h)
    double modelAndActivations = 0;  // weights + gradients + optimizer + activations + sharding buffers
    // The runtime reserve, term by term (ReserveModel.h).
    double cudaContext = 0;
    double workspace = 0;
    double ncclBuffers = 0;
    double fragmentation = 0;
    double extraAllowance = 0;       // training.buffer_gb
    double buffers = 0;       // the whole reserve: the five terms above (JSON "reserve")
    double total = 0;         // model and activations + reserve
};

struct StageEstimate {
    int index = 0;
    int firstLayer = 0;        // 0-based index of the stage's first transformer layer
    int layers = 0;
    bool hasEmbedding = false;
    bool hasLmHead = false;
    double parameters = 0;         // the stage's whole share of the model (all TP ranks)
    double routedExpertParameters = 0;  // of parameters, the routed experts (all EP x ETP ranks)
    double parametersPerGpu = 0;   // (parameters - routed experts) / TP + routed experts / (EP x ETP)
    double microbatchesInFlight = 0;  // peak, in whole-stage micro-batch equivalents
    double activationsPerMicrobatch = 0;  // bytes, all the stage's layers, one micro-batch
    double activationExtras = 0;   // recompute working set and LM-head logits, bytes
    MemoryBreakdown memory;        // bytes per GPU of this stage
    double headroomBytes = 0;      // capacity - memory.total (negative when it does not fit)
    bool fits = true;
    bool withinMargin = false;     // fits, but with less free than training.memory_margin_fraction
    // False only in the scopes other than Full (the layout search's and the memory-only ones the
    // memory range and the EP placement check use; EstimateScope), for a stage that provably
    // holds no more than the one before it: its memory (total NaN), headroom, fits and
    // withinMargin are then not computed and must not be read.
    bool memoryEstimated = true;
};

struct FlopsEstimate {
    double model6nd = 0;          // 6 N D
    double attention = 0;         // 12 L h s D
    double embeddingLookup = 0;   // 6 N_lookup D: the part of 6ND an embedding gather never does
    double total = 0;             // model FLOPs = 6ND - embedding lookup + attention
    double recompute = 0;         // extra forward work from activation recompute
    double hardware = 0;          // total + recompute
    double perToken = 0;          // total / D
    double attentionPerToken = 0; // 12 L h s
};

struct TimeEstimate {
    double tokensPerStep = 0;
    double stepsExact = 0;        // tokens / tokens per step
    int64_t steps = 0;            // rounded up
    double peakClusterFlopsPerSecond = 0;
    double effectiveFlopsPerSecond = 0;  // peak * MFU
    double totalSeconds = 0;      // flops.total / (MFU * peak * GPUs)
    double days = 0;
    double gpuHours = 0;
    double stepSeconds = 0;
    double tokensPerSecondPerGpu = 0;
    double sixNdSeconds = 0;      // the worked examples' first cut: 6ND only
    double sixNdDays = 0;
};

struct ActivationEstimate {
    double perLayerPerMicrobatch = 0;  // bytes per GPU, Korthikanti et al. 2022 Table 2
    double linearCoefficient = 0;      // the bracket's constant part, e.g. 34/t
    double attentionScoreTerm = 0;     // 5as/(ht) when stored, else 0
    double sbh = 0;                    // s*b*h with s the per-CP-rank sequence
};

struct PipelineEstimate {
    int64_t microbatches = 0;          // per replica per step: B / (DP * b)
    int64_t gradientAccumulation = 0;  // same count, as frameworks call it
    double bubbleFraction = 0;         // (p-1)/(m+p-1), or (p-1)/(v m + p-1) interleaved
};

struct CommunicationEstimate {
    double tpMessageBytes = 0;         // b s h * 2 B, one TP collective
    int tpCollectivesPerLayer = 0;     // per micro-batch, all-reduce equivalents, fwd + bwd
    double tpSecondsPerCollective = 0; // ring all-reduce on the TP link
    double tpSecondsPerStep = 0;
    bool tpCrossesNodes = false;
    double ppBytesPerMicrobatch = 0;   // one stage-to-stage activation send
    double ppSecondsPerSend = 0;
    double ppSecondsPerStep = 0;
    bool ppCrossesNodes = false;
    double dpBytesPerGpu = 0;          // gradient bytes each GPU reduces per step (fullest stage)
    double dpBytesPerGpuMean = 0;      // averaged over stages: N * 2 B / (TP * PP)
    int dpGroupSize = 0;               // DP * CP
    double dpSeconds = 0;              // ring 2(n-1)/n * bytes / bandwidth
    bool dpCrossesNodes = false;
    double dpBackwardWindowSeconds = 0;
    bool dpHidden = true;
    double zero3AllGatherBytesPerStep = 0;
    double zero3SecondsPerStep = 0;
    double cpBytesPerLayer = 0;        // K and V blocks passed around the ring, per micro-batch
    double cpSecondsPerStep = 0;
    bool cpCrossesNodes = false;
};

struct ReliabilityEstimate {
    bool failuresModelled = false;
    double modelStateBytes = 0;
    double checkpointBytes = 0;        // weights + master + optimizer (gradients are not saved)
    double checkpointBytesPerGpu = 0;
    double checkpointWriteSeconds = 0;
    double clusterMtbfSeconds = 0;
    double checkpointIntervalSeconds = 0;  // Young/Daly sqrt(2 delta M)
    double computeSeconds = 0;         // time.totalSeconds * (1 + other overhead)
    double checkpointOverheadSeconds = 0;
    double lostSecondsPerFailure = 0;  // restart + half an interval of lost work
    double expectedFailures = 0;
    double failureLostSeconds = 0;
    double paddedSeconds = 0;
    double paddedDays = 0;
};

struct Estimate {
    int gpusUsed = 0;              // TP * PP * DP * CP
    int nodes = 0;                 // ceil(GPUs used / GPUs per node)
    ParameterCounts parameters;
    double parametersPerGpuMean = 0;   // N / (TP * PP), as worked example A computes it
    FlopsEstimate flops;
    TimeEstimate time;
    ActivationEstimate activation;
    std::vector<StageEstimate> stages;
    // Each stage's layers by kind (StageLayerSplit::kindsOf), for models beyond dense (MoE, MLA,
    // MTP) whose kinds store different activations; empty otherwise.
    std::vector<KindCounts> stageKinds;
    int fullestStage = 0;
    MemoryBreakdown perGpu;        // the fullest GPU
    double capacityBytes = 0;
    bool fits = true;
    double headroomBytes = 0;      // capacity - the fullest GPU's total
    double marginBytes = 0;        // training.memory_margin_fraction x capacity
    bool hasMargin = true;         // every stage keeps at least marginBytes free
    int ncclCommunicators = 0;     // communicators counted in the reserve
    double ncclBytesPerCommunicator = 0;
    PipelineEstimate pipeline;
    CommunicationEstimate communication;
    ReliabilityEstimate reliability;
    std::vector<Warning> warnings;

    bool hasErrors() const;
};

// The one pure entry point: same plan in, same numbers out; never throws for a plan
// that PlanReader accepted, never prints, never reads globals.
Estimate estimate(const Plan& plan);

// What an estimate computes: everything, or what the layout search ranks by (parameters,
// FLOPs, time, memory, volumes, and the warnings that make a layout invalid), leaving out the
// reliability section and the advisory red flags (warnings and notes) a person reads later.
// LayoutSearchSameModel is LayoutSearch for an `out` whose parameter counts already belong to
// this plan's model (a search worker re-estimating one model under many layouts): they depend
// on the model alone, so they are not counted again. MemoryOfSameModel computes only memory (the
// stages' memory as below, est.perGpu, fits, headroom and margin) for such an `out`, leaving its FLOPs,
// time, communication and warnings as they were: the memory range's variants and the expert
// placement check read nothing else, and the layout search asks for them per layout.
// LayoutSearchSameFamily is LayoutSearchSameModel for an `out` last estimated (in either scope)
// for the same plan but for the ZeRO stage and recompute: the stages' layers, kinds, parameters
// (per GPU too: TP, EP and ETP are the family's) and micro-batches in flight depend on neither,
// so they are kept.
// MemoryOfSameStages is MemoryOfSameModel for an `out` whose stages already hold this plan's
// layers, kinds, parameters and micro-batches in flight (copied from the estimate of a plan that
// differs in nothing those read: the memory range's variants of the same layout and schedule).
// Every scope but Full leaves out the memory of a stage that holds the parameters, activations
// per micro-batch and extras of the stage before it with no more micro-batches in flight (the
// middle stages of a deep pipeline): it holds no more than that stage, so est.perGpu, the
// fullest stage, fits and margin come out the same (StageEstimate::memoryEstimated).
enum class EstimateScope { Full, LayoutSearch, LayoutSearchSameModel, LayoutSearchSameFamily, MemoryOfSameModel, MemoryOfSameStages };

// Same as estimate(plan) but reuses out's storage (for the layout search's hot loop).
void estimateInto(const Plan& plan, Estimate& out, EstimateScope scope = EstimateScope::Full);

}  // namespace trainplan
