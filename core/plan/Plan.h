// The plan: everything a person chooses, nothing derived. Inputs only.
//
// Units are part of every name: bytes, seconds, FLOP/s, and GB (1e9 bytes) only where
// the plan file says so. The reader (PlanReader) converts file units into these.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/Units.h"
#include "core/plan/FrameworkSpec.h"
#include "core/plan/LayerKind.h"
#include "core/plan/MixtureOfExperts.h"
#include "core/plan/ParallelDims.h"

namespace trainplan {

enum class NormKind { RmsNorm, LayerNorm };
enum class PositionEmbedding { Rope, Learned };

struct ModelSpec {
    std::string name;
    int layers = 80;
    int hiddenSize = 8192;
    int ffnHiddenSize = 28672;
    FfnKind ffnKind = FfnKind::SwiGlu;
    int attentionHeads = 64;
    int kvHeads = 8;
    int headDim = 128;
    int vocabSize = 128256;
    bool tiedEmbeddings = false;
    int sequenceLength = 4096;
    NormKind norm = NormKind::RmsNorm;
    bool bias = false;
    PositionEmbedding positionEmbedding = PositionEmbedding::Rope;
    // Runs of layers of other shapes (LayerKind.h); empty: every layer is the shape above.
    // When not empty the runs' layers add up to `layers`, which stays the model's depth.
    std::vector<LayerKind> layerKinds;
    // Mixture-of-experts feed-forward (absent: a dense model), multi-head latent attention
    // (absent: grouped-query attention with the heads above) and multi-token-prediction depths.
    std::optional<MoeSpec> moe;
    std::optional<MlaSpec> mla;
    int mtpLayers = 0;

    // How many kinds the model has (1 for the shorthand; 2, dense and MoE, for an MoE model with
    // dense layers first or between) and the k-th, resolved against the fields above: the one way
    // code asks a layer's shape. A kind's layers need not be consecutive (forEachKindIn()).
    int kindCount() const { return layerKinds.empty() ? (hasDenseKind() ? 2 : 1) : int(layerKinds.size()); }
    LayerKind kind(int k) const
    {
        if (!layerKinds.empty())
            return layerKinds[size_t(k)];
        const bool moeKind = moe && !(hasDenseKind() && k == 0);
        return LayerKind{moeKind ? "MoE" : (moe ? "dense" : ""), layersOfKind(k), ffnHiddenSize, ffnKind, moeKind};
    }
    // Layers of kind k, without resolving the kind (hot loops).
    int layersOfKind(int k) const
    {
        if (!layerKinds.empty())
            return layerKinds[size_t(k)].layers;
        if (!hasDenseKind())
            return layers;
        const int moeLayers = moe->moeLayersBefore(layers);
        return k == 0 ? layers - moeLayers : moeLayers;
    }
    // Implied kinds: an MoE model some of whose layers are dense (model.moe.dense_layers first,
    // model.moe.layer_step between), with at least one MoE layer.
    bool hasDenseKind() const
    {
        if (!layerKinds.empty() || !moe || (moe->denseLayers <= 0 && moe->step() <= 1))
            return false;
        const int moeLayers = moe->moeLayersBefore(layers);
        return moeLayers > 0 && moeLayers < layers;
    }
    // Whether the implied kinds interleave (dense layers between MoE ones), so a kind's layers are
    // not one run.
    bool kindsInterleave() const { return hasDenseKind() && moe->step() > 1; }
    // Whether any layer's feed-forward is the mixture of experts.
    bool hasMoeLayers() const;
    // Whether the model needs the MoE-aware counts (MoE, MLA or MTP): FLOPs then follow
    // Megatron-LM's count (estimate/MoeArithmetic.h) rather than 6ND + attention.
    bool beyondDense() const { return moe.has_value() || mla.has_value() || mtpLayers > 0; }
    // The kind of the layer at a 0-based index.
    int kindOfLayer(int layer) const;
    // What views call kind k: its name, else the layers it covers ("layers 1-3", 1-based).
    std::string kindLabel(int k) const;

    bool operator==(const ModelSpec&) const = default;
};

// Layers of each kind in the contiguous range [first, first + count) of the model's layers:
// calls visit(kind index, layers of that kind in the range) for each kind present, by kind index
// (callers add per-kind figures up, which does not depend on the layers' order).
template <typename Visit>
void forEachKindIn(const ModelSpec& model, int first, int count, Visit&& visit)
{
    const int kinds = model.kindCount();
    if (kinds == 1) {
        if (count > 0)
            visit(0, count);
        return;
    }
    if (model.kindsInterleave()) {
        // Dense (kind 0) and MoE (kind 1) layers alternate: count the MoE ones in the range.
        const int moeLayers = model.moe->moeLayersBefore(first + count) - model.moe->moeLayersBefore(first);
        if (count - moeLayers > 0)
            visit(0, count - moeLayers);
        if (moeLayers > 0)
            visit(1, moeLayers);
        return;
    }
    int start = 0;
    const int end = first + count;
    for (int k = 0; k < kinds && start < end; ++k) {
        const int stop = start + model.layersOfKind(k);
        const int overlap = std::min(stop, end) - std::max(start, first);
        if (overlap > 0)
            visit(k, overlap);
        start = stop;
    }
}

// The layers of each kind in [first, first + count), as forEachKindIn visits them, kept for
// figures that read them several times (a stage's parameters, routed experts, activations).
// Kinds past kMaxLayerKinds (the plan reader's limit) are not counted.
struct KindCounts {
    int kinds = 0;  // the model's kind count, at most kMaxLayerKinds
    int count[kMaxLayerKinds] = {};
    // Only the first `kinds` counts (the rest stay 0): the stage loops compare neighbours.
    bool operator==(const KindCounts& o) const
    {
        if (kinds != o.kinds)
            return false;
        for (int k = 0; k < kinds; ++k)
            if (count[k] != o.count[k])
                return false;
        return true;
    }
};

inline KindCounts kindCountsIn(const ModelSpec& model, int first, int count)
{
    KindCounts out;
    out.kinds = std::min(model.kindCount(), kMaxLayerKinds);
    forEachKindIn(model, first, count, [&](int k, int layers) {
        if (k < kMaxLayerKinds)
            out.count[k] += layers;
    });
    return out;
}

// The numbers that make a model's shape: everything but its name and its sequence length.
// The sequence length is how a run trains the model, not what the model is (worked example A
// trains Llama 3.1 70B's shape at 4,096 tokens; Meta pre-trained it at 8,192), so a plan with
// a preset's shape at another length still shows that preset. The one definition presets are
// matched by (Presets.h modelPresetOf).
bool sameModelShape(const ModelSpec& a, const ModelSpec& b);

// Reductions done by the switches rather than the GPUs (collectiveSeconds, CommunicationModel.h):
// NVLink SHARP inside the NVSwitch of a Hopper-or-later node (NCCL's NVLS algorithm), and with it
// InfiniBand SHARP in the network switches across nodes (NCCL CollNet with the SHARP plugin).
enum class InNetworkReduction { None, Nvls, NvlsAndIbSharp };

// How often hardware fails: either per node or per GPU (the file names which).
enum class MtbfBasis { PerNode, PerGpu };

// The accelerator's sustained figures the step-time model uses (presets/AcceleratorEfficiency.h),
// set in the plan (cluster.efficiency.*): each one given replaces the accelerator preset's, so a
// part without a preset can be described whole. One absent comes from the preset the label names
// or the figures match, else from the preset with the nearest BF16 peak, which the plan then lists
// as assumed and the predicted range covers (analysis/PlanUnknowns.h).
struct EfficiencySpec {
    std::optional<double> matmul;             // a large GEMM's achieved fraction of the dense peak
    std::optional<int> smCount;               // SMs (compute units) a GEMM's waves fill
    std::optional<int> gemmTileM, gemmTileN;  // output tile one SM computes
    std::optional<double> gemmKHalf;          // K at which the main loop reaches half its rate
    std::optional<double> flashAttention;     // FlashAttention-2's achieved fraction of peak
    std::optional<double> flashAttention3;    // FlashAttention-3 / cuDNN fused attention's
    std::optional<double> hbmBytesPerSecond;  // datasheet HBM bandwidth, bytes/s
    std::optional<double> hbm;                // achieved fraction of it
    std::optional<double> scaleUpCollective;  // NCCL bus bandwidth / scale-up link bandwidth
    std::optional<double> networkCollective;  // NCCL bus bandwidth / network bandwidth
    std::optional<double> kernelOverheadSeconds, kernelLaunchSeconds;
    std::optional<double> scaleUpStepSeconds, networkStepSeconds;  // one ring step's latency (NCCL Simple)

    bool operator==(const EfficiencySpec&) const = default;
    // How many figures the plan gives, of the kFields there are.
    static constexpr int kFields = 15;
    int given() const
    {
        return int(matmul.has_value()) + smCount.has_value() + gemmTileM.has_value() + gemmTileN.has_value() + gemmKHalf.has_value()
            + flashAttention.has_value() + flashAttention3.has_value() + hbmBytesPerSecond.has_value() + hbm.has_value()
            + scaleUpCollective.has_value() + networkCollective.has_value() + kernelOverheadSeconds.has_value()
            + kernelLaunchSeconds.has_value() + scaleUpStepSeconds.has_value() + networkStepSeconds.has_value();
    }
};

// Where the plan's fitted step-time figures came from: one run measured on this cluster
// (calibration/Calibration.h fits them into cluster.efficiency and training.fragmentation_fraction
// and records this). While the accelerator is the one measured on, the predicted range uses the
// narrower band of calibrated predictions (steptime/StepTimeRange.cpp).
struct CalibrationRecord {
    std::string source;          // what was measured: a log's name and lines read, or the figures entered
    std::string accelerator;     // cluster.accelerator when measured
    std::string framework;       // the training stack and its release, as the person gave them
    std::string date;            // when measured or fitted, YYYY-MM-DD
    std::string measuredLayout;  // the measured run's layout, as a person reads it
    double measuredStepSeconds = 0;
    std::string fitted;          // the fields the fit set, comma-separated

    bool operator==(const CalibrationRecord&) const = default;
};

struct ClusterSpec {
    std::string accelerator;           // label only, e.g. "H100 SXM 80GB"
    int gpus = 2048;
    int gpusPerNode = 8;
    // GPUs that share the scale-up link (NVLink, Infinity Fabric): 0 means one node's worth. A
    // GB200/GB300 NVL72 rack is one domain of 72 GPUs on trays of 4; an H100 NVL pair is a domain
    // of 2 inside an 8-GPU server. Collectives, the rank map's group crossings, the red flags and
    // the search use the domain; failures and the diagram's boxes use the node.
    int nvlinkDomain = 0;
    double memoryBytesPerGpu = 85.03e9;  // H100 SXM 80GB as CUDA sees it (accelerators.json)
    double peakFlopsPerGpu = 989e12;   // dense BF16, FLOP/s
    double peakFp8FlopsPerGpu = 0;     // dense FP8, FLOP/s; 0: none given (fp8PeakFlopsPerGpu() asks the preset)
    double peakFp4FlopsPerGpu = 0;     // dense FP4 (NVFP4), FLOP/s; 0: none given (fp4PeakFlopsPerGpu() asks the preset)
    double intraNodeBytesPerSecond = 450e9;  // per GPU, per direction (NVLink)
    double interNodeBytesPerSecond = 50e9;   // per GPU (NIC)
    // Mean time between failures in seconds; absent means failures are not modelled,
    // which is itself a red flag (worked example A, "Red flags": no allowance for failures).
    std::optional<double> mtbfSeconds;
    MtbfBasis mtbfBasis = MtbfBasis::PerNode;
    InNetworkReduction inNetworkReduction = InNetworkReduction::None;
    EfficiencySpec efficiency;
    std::optional<CalibrationRecord> calibration;

    // Whether the plan's calibration was measured on this accelerator (a plan moved to another
    // part keeps the record, but its range no longer narrows).
    bool calibrationApplies() const { return calibration && calibration->accelerator == accelerator; }
    // Whether the applying calibration fitted this field ("cluster.efficiency.matmul_fraction"):
    // the step's calibrated band needs the GEMM fit, the memory range's settled slack its own fit.
    bool calibrated(std::string_view field) const
    {
        return calibrationApplies() && calibration->fitted.find(field) != std::string::npos;
    }

    // The scale-up domain in GPUs: cluster.nvlink_domain, or gpus_per_node when absent.
    int scaleUpDomain() const { return nvlinkDomain > 0 ? nvlinkDomain : gpusPerNode; }

    bool operator==(const ClusterSpec&) const = default;
};

// The precision the layers' matrix multiplies run in (steptime/StepTimeCosts.cpp): BF16, or FP8
// with per-tensor scaling (TransformerEngine's delayed or current scaling), with DeepSeek-V3's
// 1 x 128 / 128 x 128 block scales, with MX block scales (Blackwell, CDNA 4), or NVFP4 (4-bit
// values with an FP8 scale per 16, Blackwell). Attention and the output layer stay in BF16, as
// TransformerEngine and Megatron-Core run them by default.
enum class MatmulPrecision { Bf16, Fp8, Fp8Blockwise, Mxfp8, Nvfp4 };

// Bytes per parameter of each piece of model state (ZeRO paper, Sec. 3.1 "K"; worked examples A/B).
enum class PrecisionScheme {
    Bf16WithFp32MasterAdam,   // 2 weights + 2 grads + 4 master + 8 Adam moments = 16 (worked example A)
    Bf16AdamNoMaster,         // 2 weights + 2 grads + 8 Adam moments = 12 (worked example B)
    Fp32Adam,                 // 4 weights + 4 grads + 8 Adam moments = 16
};

// Runtime memory every training process holds besides model state and activations (the
// reserve). Defaults and their sources are in estimate/ReserveModel.cpp; every term is editable
// under training.reserve.
struct ReserveSpec {
    double cudaContextBytes = 0.5e9;                  // CUDA context with lazy module loading
    double workspaceBytes = 128.0 * units::MiB;       // cuBLAS/cuBLASLt workspaces, 4 x 32 MiB (Hopper)
    int ncclChannels = 32;                            // channels per communicator
    double ncclBytesPerConnection = 9.1875 * units::MiB;  // Simple 4 + LL128 4.6875 + LL 0.5 MiB

    bool operator==(const ReserveSpec&) const = default;
};

struct TrainingSpec {
    double tokens = 1.4e12;
    // Global batch in sequences; the reader also accepts tokens and converts.
    int64_t globalBatchSequences = 1024;
    int microBatchSize = 1;
    double mfu = 0.40;
    PrecisionScheme precision = PrecisionScheme::Bf16WithFp32MasterAdam;
    MatmulPrecision matmulPrecision = MatmulPrecision::Bf16;
    // Extra fixed allowance on top of the reserve (anything the reserve does not model).
    double bufferBytes = 0.0;
    // Allocator fragmentation, as a fraction of model state + activations (part of the reserve).
    double fragmentationFraction = 0.10;
    ReserveSpec reserve;
    // A stage whose free memory is below this fraction of capacity is flagged, and the layout
    // search keeps only layouts with at least this much free.
    double memoryMarginFraction = 0.05;

    bool operator==(const TrainingSpec&) const = default;
};

enum class Schedule { GPipe, OneFOneB, Interleaved, ZeroBubble, DualPipe };  // ZeroBubble = ZB-H1
enum class Recompute { None, Selective, Full };
// Order in which ranks fill the parallel dimensions, fastest-varying first.
enum class RankOrder { TpCpDpPp, TpCpPpDp, TpDpCpPp };

// Layout fields a plan file may leave out (or set to null) to say it does not know them
// (docs/plan-format.md, "Unknown fields"). One row each in the table of layout unknowns
// (LayoutUnknownFields.h): how the file says so, what the analysis expects and what the range covers.
enum LayoutUnknown : unsigned {
    kUnknownRecompute = 1u << 0,
    kUnknownSequenceParallel = 1u << 1,
    kUnknownSchedule = 1u << 2,  // layout.schedule and layout.virtual_stages both left out
};

// The plan paths of LayoutUnknown bits, in bit order ("layout.recompute", ...).
std::vector<const char*> layoutUnknownPaths(unsigned bits);

struct LayoutSpec;
struct Plan;
// Layers of a stage of `stageLayers` layers whose activations are recomputed: all of them under
// full recompute unless layout.recompute_layers limits it (per model chunk, as Megatron's block
// method counts: v times that on an interleaved stage), none otherwise (selective recompute
// repeats only the attention core, in every layer).
int recomputedLayers(const LayoutSpec& layout, int stageLayers);
// An edit (the window, a layout applied from the search) that sets a field to another value makes
// it known: clears its LayoutUnknown bit in `after`.
void markEditedLayoutFieldsKnown(const Plan& before, Plan& after);

struct LayoutSpec {
    int tp = 8;
    int pp = 4;
    int dp = 64;        // the reader resolves "auto" to gpus / (tp*pp*cp) when it divides
    int cp = 1;
    // Expert parallelism and expert tensor parallelism (Megatron-Core's parallel folding): the
    // routed experts of each stage's MoE layers spread over EP ranks, each expert's matrices over
    // ETP, on the same TP x CP x DP ranks the attention uses (EP x ETP divides them). Not
    // dimensions of their own: they do not multiply the GPU count (rankmap/ExpertGrid.h).
    int ep = 1;
    int etp = 1;
    int virtualStages = 1;
    Schedule schedule = Schedule::OneFOneB;
    // Defaults equal the plan file's for an omitted field (PlanFields): nothing is sharded,
    // split or recomputed unless the plan says so.
    int zeroStage = 0;
    bool sequenceParallel = false;
    Recompute recompute = Recompute::None;
    // With full recompute: how many layers of each pipeline stage (of each model chunk when
    // interleaved) are recomputed (Megatron --recompute-method block --recompute-num-layers);
    // 0 means all of them.
    int recomputeLayers = 0;
    // Layers per pipeline stage; empty means an even split of model.layers.
    std::vector<int> stageLayers;
    RankOrder rankOrder = RankOrder::TpCpDpPp;
    bool dpAuto = false;  // the file said "auto": remembered so saving round-trips
    unsigned unknownFields = 0;  // LayoutUnknown bits: fields the file left out; saving leaves them out again

    // The size of one parallel dimension (ParallelDims.h), for code that loops over them.
    int size(ParallelDim dim) const { return parallelDimField(*this, dim); }
    int& size(ParallelDim dim) { return parallelDimField(*this, dim); }
    // The product of every dimension's size: the GPUs the layout uses.
    long long gpus() const
    {
        long long product = 1;
        for (ParallelDim d : kParallelDims)
            product *= size(d);
        return product;
    }

    bool operator==(const LayoutSpec&) const = default;
};

// The expert grid's two rules (rankmap/ExpertGrid.h, parallel folding), the one place they are:
// EP divides the routed experts, so every expert-parallel rank holds as many; EP x ETP divides a
// stage's TP x CP x DP ranks, which the expert grid decomposes a second time.
inline bool epDividesExperts(int ep, const ModelSpec& model)
{
    return !model.moe || (ep > 0 && model.moe->experts % ep == 0);
}
inline bool expertRanksDivideStage(const LayoutSpec& layout, int ep, int etp)
{
    const long long stage = (long long)layout.tp * layout.cp * layout.dp, experts = (long long)ep * etp;
    return experts > 0 && stage % experts == 0;
}
// The sizes those rules leave, ascending, for a stage of the layout's TP x CP x DP ranks (none
// for a dense model): every EP dividing the routed experts whose EP x `etp` divides the stage,
// and every ETP, a power of two up to `widestEtp` (a node's GPUs) dividing the expert FFN width,
// whose `ep` x ETP divides the stage. The sliders and the layout search both offer these.
std::vector<int> expertParallelSizes(const ModelSpec& model, const LayoutSpec& stage, int etp);
std::vector<int> expertTensorParallelSizes(const ModelSpec& model, const LayoutSpec& stage, int ep, int widestEtp);

// A layout's sizes as captions show them: "TP 8 × PP 4 × DP 64 × CP 1", then EP and ETP when
// the layout has experts split ("... × EP 64"); the expert dimensions fold the others' ranks
// (LayoutSpec::ep), so they follow them.
inline std::string layoutSizesText(const LayoutSpec& layout, std::string_view separator = " × ")
{
    std::string out = parallelSizesText(layout, separator);
    if (layout.ep > 1 || layout.etp > 1)
        out += std::string(separator) + "EP " + std::to_string(layout.ep);
    if (layout.etp > 1)
        out += std::string(separator) + "ETP " + std::to_string(layout.etp);
    return out;
}

struct ReliabilitySpec {
    // Time the training loop is blocked per checkpoint, seconds (the Young/Daly delta).
    // If absent, it is checkpoint bytes per GPU / write bandwidth.
    std::optional<double> checkpointWriteSeconds = 60.0;
    std::optional<double> checkpointWriteBytesPerSecondPerGpu;
    double restartSeconds = 600.0;
    // Evaluation, data-loader stalls and the like, as a fraction of compute time.
    double otherOverheadFraction = 0.0;

    bool operator==(const ReliabilitySpec&) const = default;
};

// What a run costs and uses (estimate/CostEnergyModel.h): a price per GPU-hour, the power each
// GPU and its share of the server draw, the data centre's overhead, the grid's carbon intensity.
// Absent figures leave their results out (no price, no cost) or take the accelerator preset's
// board power.
struct CostSpec {
    std::optional<double> pricePerGpuHourUsd;  // US dollars per GPU-hour
    std::optional<double> gpuPowerWatts;       // W per GPU; absent: the preset's board power
    // The rest of the server (CPUs, memory, NICs, switches, fans, power supplies) per watt of
    // GPU: NVIDIA's DGX H100 draws 10.2 kW at most with 8 x 700 W GPUs, (10.2 - 5.6) / 5.6 = 0.82.
    double serverOverheadFraction = 0.82;
    // Power usage effectiveness: facility power over IT power. Assumed 1.2: between hyperscale
    // fleets (Google's 1.10, 2023 environmental report) and the industry mean (1.58, Uptime
    // Institute global survey 2023).
    double pue = 1.2;
    std::optional<double> gridKgCo2ePerKwh;    // absent: no carbon figure

    bool operator==(const CostSpec&) const = default;
};

struct Plan {
    // The plan's name. Unless nameUserSet, it is generatedPlanName() (PlanName.h): it follows
    // the model, cluster and token budget, and refreshPlanName() keeps it current.
    std::string name;
    bool nameUserSet = false;
    std::string notes;  // free text the person keeps with the plan; never read by the analysis
    ModelSpec model;
    ClusterSpec cluster;
    TrainingSpec training;
    LayoutSpec layout;
    ReliabilitySpec reliability;
    FrameworkSpec framework;  // the training software (absent: every switch unknown)
    CostSpec cost;

    bool operator==(const Plan&) const = default;
};

// Bytes per parameter for each component of the model state.
struct StateBytesPerParameter {
    double weights;
    double gradients;
    double master;      // FP32 copy of the weights held by the optimizer
    double moments;     // Adam first and second moments
    double optimizer() const { return master + moments; }
    double total() const { return weights + gradients + master + moments; }
};

// ZeRO paper (Rajbhandari et al. 2020) Sec. 3.1: mixed-precision Adam keeps 2 + 2 + K bytes
// per parameter with K = 12 (FP32 master, momentum, variance). Worked example B drops the master
// copy (K = 8). Inline: the layout search asks for it several times per layout.
inline StateBytesPerParameter stateBytesPerParameter(PrecisionScheme scheme)
{
    switch (scheme) {
    case PrecisionScheme::Bf16WithFp32MasterAdam: return {2, 2, 4, 8};
    case PrecisionScheme::Bf16AdamNoMaster: return {2, 2, 0, 8};
    case PrecisionScheme::Fp32Adam: return {4, 4, 0, 8};
    }
    return {2, 2, 4, 8};
}

// Bytes of one activation element (BF16/FP16 activations in every scheme so far).
inline double activationBytesPerElement(PrecisionScheme scheme)
{
    return scheme == PrecisionScheme::Fp32Adam ? 4.0 : 2.0;
}

}  // namespace trainplan
