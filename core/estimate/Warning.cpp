#include "core/estimate/Warning.h"

#include "core/base/Format.h"
#include "core/presets/Presets.h"

namespace trainplan {

const char* codeName(WarningCode code)
{
    switch (code) {
    case WarningCode::TpSpansNodes: return "TP_SPANS_NODES";
    case WarningCode::TpDoesNotDivideHeads: return "TP_DOES_NOT_DIVIDE_HEADS";
    case WarningCode::TpDoesNotDivideKvHeads: return "TP_DOES_NOT_DIVIDE_KV_HEADS";
    case WarningCode::TpReplicatesKvHeads: return "TP_REPLICATES_KV_HEADS";
    case WarningCode::PpDoesNotDivideLayers: return "PP_DOES_NOT_DIVIDE_LAYERS";
    case WarningCode::StageLayersMismatch: return "STAGE_LAYERS_MISMATCH";
    case WarningCode::LayoutProductMismatch: return "LAYOUT_PRODUCT_MISMATCH";
    case WarningCode::BatchNotDivisible: return "BATCH_NOT_DIVISIBLE";
    case WarningCode::StageOverCapacity: return "STAGE_OVER_CAPACITY";
    case WarningCode::StageNearCapacity: return "STAGE_NEAR_CAPACITY";
    case WarningCode::LargeBubble: return "LARGE_BUBBLE";
    case WarningCode::FewMicrobatches: return "FEW_MICROBATCHES";
    case WarningCode::DpNotHidden: return "DP_NOT_HIDDEN";
    case WarningCode::NoFailureAllowance: return "NO_FAILURE_ALLOWANCE";
    case WarningCode::FailuresOutpaceProgress: return "FAILURES_OUTPACE_PROGRESS";
    case WarningCode::CpDoesNotDivideSequence: return "CP_DOES_NOT_DIVIDE_SEQUENCE";
    case WarningCode::InterleavedNeedsDivisibleLayers: return "INTERLEAVED_NEEDS_DIVISIBLE_LAYERS";
    case WarningCode::InterleavedNeedsMicrobatches: return "INTERLEAVED_NEEDS_MICROBATCHES";
    case WarningCode::DualPipeNeedsLayout: return "DUALPIPE_NEEDS_LAYOUT";
    case WarningCode::VirtualStagesWithoutInterleaving: return "VIRTUAL_STAGES_WITHOUT_INTERLEAVING";
    case WarningCode::Zero3WithPipeline: return "ZERO3_WITH_PIPELINE";
    case WarningCode::SequenceParallelWithoutTp: return "SEQUENCE_PARALLEL_WITHOUT_TP";
    case WarningCode::HighMfu: return "HIGH_MFU";
    case WarningCode::LowMfu: return "LOW_MFU";
    case WarningCode::AcceleratorDiffersFromPreset: return "ACCELERATOR_DIFFERS_FROM_PRESET";
    case WarningCode::Fp8Unsupported: return "FP8_UNSUPPORTED";
    case WarningCode::MemoryMayNotFit: return "MEMORY_MAY_NOT_FIT";
    case WarningCode::EpDoesNotDivideExperts: return "EP_DOES_NOT_DIVIDE_EXPERTS";
    case WarningCode::ExpertRanksDoNotDivideStage: return "EXPERT_RANKS_DO_NOT_DIVIDE_STAGE";
    case WarningCode::EpSpansNodes: return "EP_SPANS_NODES";
    case WarningCode::TokensDropped: return "TOKENS_DROPPED";
    case WarningCode::AllToAllDominates: return "ALL_TO_ALL_DOMINATES";
    }
    return "UNKNOWN";
}

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    }
    return "info";
}

std::string describe(const Warning& w)
{
    const auto n = [](double v) { return formatNumber(v); };
    switch (w.code) {
    case WarningCode::TpSpansNodes:
        if (w.nvlinkDomain) {
            if (w.a < w.b)
                return "TP " + n(w.a) + " does not divide the NVLink domain of " + n(w.b) + " GPUs, so some TP groups straddle two "
                       "domains and their all-reduces cross the network. Choose a TP that divides " + n(w.b) + ".";
            return "TP " + n(w.a) + " leaves the NVLink domain of " + n(w.b) + " GPUs, so every layer's all-reduces cross the network. "
                   "Keep TP within the domain (TP <= cluster.nvlink_domain, dividing it).";
        }
        if (w.a < w.b)  // small enough for a node, but not a divisor of it: some groups straddle two nodes
            return "TP " + n(w.a) + " does not divide the " + n(w.b) + " GPUs per node, so some TP groups straddle two nodes and their "
                   "all-reduces cross the network instead of NVLink. Choose a TP that divides " + n(w.b) + ".";
        return "TP " + n(w.a) + " spans nodes: it is larger than a node of " + n(w.b) + " GPUs, so every layer's all-reduces cross "
               "the network instead of NVLink. Keep TP within a node (TP <= GPUs per node, dividing it).";
    case WarningCode::TpDoesNotDivideHeads:
        return "TP " + n(w.a) + " does not divide the " + countOf(w.b, "attention head") + "; each TP rank must hold whole heads.";
    case WarningCode::TpDoesNotDivideKvHeads:
        return "TP " + n(w.a) + " and the " + n(w.b)
            + " KV heads do not divide one another; KV heads cannot be split or replicated evenly.";
    case WarningCode::TpReplicatesKvHeads:
        return "TP " + n(w.a) + " exceeds the " + countOf(w.b, "KV head") + ", so each KV head is replicated on "
            + countOf(w.a / w.b, "rank") + ".";
    case WarningCode::PpDoesNotDivideLayers:
        return "PP " + n(w.a) + " does not divide the " + n(w.b)
            + " layers; stages get uneven layer counts (set layout.stage_layers to choose).";
    case WarningCode::StageLayersMismatch:
        return "layout.stage_layers lists " + n(w.a) + " stages summing to " + n(w.b) + " layers; it must list PP = " + n(w.c)
            + " stages summing to model.layers.";
    case WarningCode::LayoutProductMismatch:
        return parallelLabelsText(" x ") + " = " + n(w.a) + " GPUs but the cluster has " + n(w.b)
            + "; change a layout dimension or set layout.dp to \"auto\".";
    case WarningCode::BatchNotDivisible:
        return "Global batch of " + n(w.a) + " sequences is not a multiple of DP " + n(w.b) + " x micro-batch " + n(w.c) + ".";
    case WarningCode::StageOverCapacity:
        return "Pipeline stage " + std::to_string(w.stage + 1) + " needs " + formatBytes(w.a) + " per GPU, " + formatBytes(w.c)
            + " over the " + formatBytes(w.b)
            + " capacity: raise TP or PP, shard more (ZeRO), recompute activations or shrink the micro-batch.";
    case WarningCode::StageNearCapacity:
        return "Pipeline stage " + std::to_string(w.stage + 1) + " needs " + formatBytes(w.a) + " per GPU, leaving only "
            + formatBytes(w.b - w.a) + " (" + formatPercent((w.b - w.a) / w.b) + ") of the " + formatBytes(w.b) + " free, under the "
            + formatPercent(w.c, 0)
            + " margin (training.memory_margin_fraction): a longer sequence, a larger micro-batch or an allocator spike would run out of "
              "memory.";
    case WarningCode::LargeBubble:
        return "Pipeline bubble is " + formatPercent(w.a) + " of the step (over " + formatPercent(w.b, 0)
            + "): add micro-batches, interleave stages or lower PP.";
    case WarningCode::FewMicrobatches:
        return "Only " + countOf(w.a, "micro-batch", "micro-batches") + " per replica for PP " + n(w.b)
            + ": the pipeline never fills. Raise the global batch or lower DP or PP.";
    case WarningCode::DpNotHidden:
        return "DP gradient reduction takes " + formatSeconds(w.a) + ", longer than the " + formatSeconds(w.b) +
               " backward pass it should hide under; the excess is exposed every step.";
    case WarningCode::NoFailureAllowance:
        return "No failure rate is set (cluster.mtbf_hours_per_node), so the plan has no allowance for failures, restarts or lost work.";
    case WarningCode::FailuresOutpaceProgress:
        return "Each failure costs " + formatSeconds(w.a) + " but failures arrive every " + formatSeconds(w.b)
            + ": the run cannot make progress.";
    case WarningCode::CpDoesNotDivideSequence:
        return "CP " + n(w.a) + " must divide the sequence length " + n(w.b)
            + " into an even number of tokens per rank (load-balanced causal chunks).";
    case WarningCode::InterleavedNeedsDivisibleLayers:
        return "Interleaved 1F1B needs PP > 1, at least 2 virtual stages, and PP x virtual stages (" + n(w.b) + " x " + n(w.a) +
               ") dividing the " + n(w.c) + " layers.";
    case WarningCode::InterleavedNeedsMicrobatches:
        return "Interleaved 1F1B needs the micro-batches per replica (" + n(w.a) + ") to be a multiple of PP " + n(w.b) + ".";
    case WarningCode::DualPipeNeedsLayout:
        // a: PP, b: micro-batches per replica.
        if (w.a < 2 || int(w.a) % 2 != 0)
            return "DualPipe pairs stage i with stage PP - 1 - i on one GPU, so it needs an even PP of at least 2; PP is " + n(w.a) + ".";
        return "DualPipe sends half the micro-batches from each end and needs an even count of at least 2 x PP (" + n(2 * w.a)
            + "); this plan has " + n(w.b) + " per replica.";
    case WarningCode::VirtualStagesWithoutInterleaving:
        return "Virtual stages (" + n(w.a) + ") only take effect with the interleaved schedule.";
    case WarningCode::Zero3WithPipeline:
        return "ZeRO-3 with PP " + n(w.b)
            + " re-gathers each stage's weights for every micro-batch; Megatron-LM does not combine them. Prefer ZeRO-1 with PP.";
    case WarningCode::SequenceParallelWithoutTp:
        return "Sequence parallelism has no effect without tensor parallelism (TP = 1).";
    case WarningCode::HighMfu:
        return "An MFU of " + formatPercent(w.a, 0) + " is above what large runs report (" + formatPercent(w.b, 0)
            + " is already exceptional).";
    case WarningCode::AcceleratorDiffersFromPreset: {
        const auto& presets = acceleratorPresets();
        const size_t index = size_t(w.b);
        const std::string name = index < presets.size() ? presets[index].name : std::string("a preset");
        std::string fields;
        int count = 0;
        const auto& all = acceleratorPresetFields();
        for (size_t i = 0; i < all.size(); ++i) {
            if (!(int(w.a) & (1 << i)))
                continue;
            fields += (fields.empty() ? "" : ", ") + std::string(all[i]);
            ++count;
        }
        // The memory is the one figure people copy from the product name: say what the part holds.
        const std::string memoryNote = (int(w.a) & 1) && index < presets.size()
            ? " (its memory is " + formatBytes(presets[index].memoryBytes) + ", what CUDA sees of the part, not the name's figure)"
            : std::string();
        return "cluster.accelerator says \"" + name + "\" but " + fields + (count == 1 ? " differs" : " differ")
            + " from that preset's figures" + memoryNote
            + "; correct them (or use --gpu / the preset menu), or rename the accelerator if the hardware really differs.";
    }
    case WarningCode::Fp8Unsupported:
        if (w.a == 2.0)
            return "training.matmul_precision asks for NVFP4 matrix multiplies, but the accelerator has no known FP4 peak (NVFP4 needs "
                   "Blackwell-class tensor cores; give cluster.peak_fp4_tflops for a part that has them).";
        if (w.a > 0)
            return "training.matmul_precision asks for MXFP8, whose block scales need Blackwell-class tensor cores; this accelerator has "
                   "none (use \"fp8\" or \"fp8-blockwise\").";
        return "training.matmul_precision asks for FP8 matrix multiplies, but the accelerator has no known FP8 peak (it is no FP8 part, "
               "or give cluster.peak_fp8_tflops).";
    case WarningCode::MemoryMayNotFit:
        return "The fullest GPU needs " + formatBytes(w.a) + " to " + formatBytes(w.b) + " (its memory range), and " + formatBytes(w.c)
            + " is usable (capacity less training.memory_margin_fraction): it may not fit. Give the inputs the plan leaves unknown or "
              "measure a step's peak memory to settle it; failing that, more recompute, ZeRO or pipeline stages bring the high end under.";
    case WarningCode::LowMfu:
        return "An MFU of " + formatPercent(w.a, 0) + " is unusually low for a planned run; check the assumption.";
    case WarningCode::EpDoesNotDivideExperts:
        return "EP " + n(w.a) + " must divide the " + n(w.b) + " routed experts so every expert-parallel rank holds as many.";
    case WarningCode::ExpertRanksDoNotDivideStage:
        return "EP x ETP = " + n(w.a) + " must divide the ranks of a pipeline stage, TP x CP x DP = " + n(w.b)
            + ": the expert grid folds those ranks (Megatron-Core's parallel folding).";
    case WarningCode::EpSpansNodes:
        if (w.straddles)
            return "EP " + n(w.a) + " groups fit " + (w.nvlinkDomain ? "an NVLink domain" : "a node") + " of " + n(w.b)
                + " GPUs but " + n(w.a) + " does not divide " + n(w.b) + ", so some groups straddle two and their all-to-all crosses "
                "the network; EP " + n(w.c) + " keeps every group inside and still fits"
                + (w.nvlinkDomain ? " (or set cluster.nvlink_domain to the GPUs the job uses per rack)." : ".");
        if (w.nvlinkDomain)
            return "EP " + n(w.a) + " spans " + n(w.b) + " NVLink domains, so every MoE layer's all-to-all crosses the network; EP "
                + n(w.c) + " keeps it inside one domain and still fits.";
        return "EP " + n(w.a) + " spans " + n(w.b) + " nodes, so every MoE layer's all-to-all crosses the network; EP " + n(w.c)
            + " keeps it inside a node's NVLink and still fits.";
    case WarningCode::TokensDropped:
        return "With a capacity factor of " + formatNumber(w.a) + ", tokens routed beyond an expert's capacity are dropped (they skip "
               "the expert); leave model.moe.capacity_factor out for dropless routing.";
    case WarningCode::AllToAllDominates:
        return "The expert all-to-all and the busiest expert rank's extra work take " + formatPercent(w.a, 0)
            + " of the predicted step. Keep EP inside a node, overlap the all-to-all (framework.moe_comm_overlap), use DeepEP, or balance the load.";
    }
    return "Unknown warning.";
}

}  // namespace trainplan
