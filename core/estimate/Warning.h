// Red flags and impossible layouts found by estimate(). Numbers only; the sentence a
// person reads is built on demand by describe(), so the hot path never formats text.
#pragma once

#include <string>

namespace trainplan {

enum class Severity { Info, Warning, Error };

enum class WarningCode {
    TpSpansNodes,            // worked example A red flag: "TP across nodes"
    TpDoesNotDivideHeads,
    TpDoesNotDivideKvHeads,
    TpReplicatesKvHeads,
    PpDoesNotDivideLayers,
    StageLayersMismatch,
    LayoutProductMismatch,   // TP*PP*DP*CP != GPUs
    BatchNotDivisible,       // global batch not divisible by DP * micro-batch
    StageOverCapacity,       // worked example A red flag: "a layout without checking memory"
    StageNearCapacity,       // fits, but with less free than training.memory_margin_fraction
    LargeBubble,
    FewMicrobatches,         // m < p: the pipeline never fills
    DpNotHidden,             // DP communication longer than the backward pass
    NoFailureAllowance,      // worked example A red flag: "no allowance for failures"
    FailuresOutpaceProgress, // restart + lost work per failure >= MTBF
    CpDoesNotDivideSequence,
    InterleavedNeedsDivisibleLayers,
    InterleavedNeedsMicrobatches,
    DualPipeNeedsLayout,
    VirtualStagesWithoutInterleaving,
    Zero3WithPipeline,
    SequenceParallelWithoutTp,
    HighMfu,
    LowMfu,
    AcceleratorDiffersFromPreset,  // cluster.accelerator names a preset whose figures differ
    Fp8Unsupported,                // FP8 matmuls asked of an accelerator without a known FP8 peak
    MemoryMayNotFit,               // the fullest GPU's memory range straddles capacity less the margin (MemoryFit.h)
    EpDoesNotDivideExperts,        // EP must divide the routed experts (each rank holds as many)
    ExpertRanksDoNotDivideStage,   // EP x ETP must divide TP x CP x DP (ExpertGrid.h, parallel folding)
    EpSpansNodes,                  // the all-to-all leaves NVLink though a fitting EP inside a node exists
    TokensDropped,                 // a capacity factor drops the tokens over it
    AllToAllDominates,             // expert all-to-all and imbalance take a large share of the predicted step
};

// One bit per code (1u << code), for sets of codes kept without allocating (the layout search's rows).
inline constexpr int kWarningCodeCount = int(WarningCode::AllToAllDominates) + 1;
static_assert(kWarningCodeCount <= 32, "a set of warning codes is one 32-bit mask");
inline constexpr unsigned warningBit(WarningCode code)
{
    return 1u << unsigned(code);
}

struct Warning {
    WarningCode code;
    Severity severity;
    const char* field;   // JSON path of the input most responsible, e.g. "layout.tp"
    double a = 0, b = 0, c = 0;  // the numbers the message quotes (meaning depends on code)
    int stage = -1;
    // The fast domain the message speaks of is cluster.nvlink_domain rather than a node (an NVL72
    // rack, an NVLink-bridged pair): TP_SPANS_NODES and EP_SPANS_NODES say "NVLink domain".
    bool nvlinkDomain = false;
    // EP_SPANS_NODES: the groups would fit a domain but straddle its boundaries (b is then the
    // domain's GPU count, not the domains spanned).
    bool straddles = false;
};

// Stable identifier for scripts, e.g. "TP_SPANS_NODES".
const char* codeName(WarningCode code);
const char* severityName(Severity severity);
// The sentence for people: what is wrong, by how much, and what to change.
std::string describe(const Warning& warning);

}  // namespace trainplan
