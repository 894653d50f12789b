#include "core/estimate/LayoutChecks.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/estimate/CommunicationModel.h"
#include "core/presets/Presets.h"

namespace trainplan {

namespace {

void add(Estimate& est, WarningCode code, Severity sev, const char* field, double a = 0, double b = 0, double c = 0, int stage = -1)
{
    est.warnings.push_back(Warning{code, sev, field, a, b, c, stage});
}

// acceleratorMismatch() as a field mask and preset index. Pure and allocation-free (the layout
// search calls checkLayout for every candidate): presetLabelIndex() compares against keys
// computed once.
struct PresetCheck {
    int mask = 0;
    int presetIndex = -1;
};

PresetCheck presetCheck(const ClusterSpec& cluster)
{
    PresetCheck out;
    const int index = presetLabelIndex(cluster.accelerator);
    if (index < 0)
        return out;
    out.mask = int(differingAcceleratorFields(cluster, acceleratorPresets()[size_t(index)]));
    out.presetIndex = index;
    return out;
}

// EP across nodes (the all-to-all on the network) when the largest EP that stays inside a node
// (largestEpInsideNode) also fits memory.
void checkExpertPlacement(const Plan& plan, Estimate& est, std::optional<bool> insideFits)
{
    const auto& l = plan.layout;
    if (!plan.model.hasMoeLayers() || l.ep <= 1)
        return;
    const GroupPlacement ep = groupPlacement(l.etp, l.ep, plan.cluster.scaleUpDomain(), est.gpusUsed);
    if (ep.nodes <= 1)
        return;
    const int inside = largestEpInsideNode(plan);
    if (inside <= 1 || inside == l.ep)
        return;
    if (!insideFits) {
        // Reused per thread: a search without the answer would ask this for every fitting
        // layout with EP across nodes.
        thread_local Plan variant;
        thread_local Estimate scratch;
        variant = plan;
        variant.layout.ep = inside;
        scratch.parameters = est.parameters;  // the same model's
        estimateInto(variant, scratch, EstimateScope::MemoryOfSameModel);
        insideFits = scratch.fits;
    }
    if (*insideFits)
    {
        add(est, WarningCode::EpSpansNodes, Severity::Warning, "layout.ep", l.ep, ep.straddles ? plan.cluster.scaleUpDomain() : ep.nodes, inside);
        est.warnings.back().nvlinkDomain = plan.cluster.scaleUpDomain() != plan.cluster.gpusPerNode;
        est.warnings.back().straddles = ep.straddles;
    }
}

}  // namespace

void checkLayoutValidity(const Plan& plan, Estimate& est)
{
    const auto& l = plan.layout;
    const auto& m = plan.model;
    const auto& tr = plan.training;
    if (est.gpusUsed != plan.cluster.gpus)
        add(est, WarningCode::LayoutProductMismatch, Severity::Error, "layout.dp", est.gpusUsed, plan.cluster.gpus);
    if (m.attentionHeads % l.tp != 0)
        add(est, WarningCode::TpDoesNotDivideHeads, Severity::Error, "layout.tp", l.tp, m.attentionHeads);
    if (m.kvHeads % l.tp != 0 && l.tp % m.kvHeads != 0)
        add(est, WarningCode::TpDoesNotDivideKvHeads, Severity::Error, "layout.tp", l.tp, m.kvHeads);
    if (!l.stageLayers.empty()) {
        int sum = 0;
        for (int n : l.stageLayers)
            sum += n;
        if (int(l.stageLayers.size()) != l.pp || sum != m.layers)
            add(est, WarningCode::StageLayersMismatch, Severity::Error, "layout.stage_layers", double(l.stageLayers.size()), sum, l.pp);
    }
    const long long perStep = (long long)l.dp * tr.microBatchSize;
    if (tr.globalBatchSequences % perStep != 0 || tr.globalBatchSequences < perStep)
        add(est, WarningCode::BatchNotDivisible, Severity::Error, "training.global_batch_sequences", double(tr.globalBatchSequences), l.dp,
            tr.microBatchSize);
    if (m.sequenceLength % l.cp != 0 || (l.cp > 1 && (m.sequenceLength / l.cp) % 2 != 0))
        add(est, WarningCode::CpDoesNotDivideSequence, Severity::Error, "layout.cp", l.cp, m.sequenceLength);
    for (const auto& st : est.stages)
        if (st.memoryEstimated && !st.fits)
            add(est, WarningCode::StageOverCapacity, Severity::Error, "layout", st.memory.total, est.capacityBytes,
                st.memory.total - est.capacityBytes, st.index);
    if (l.schedule == Schedule::Interleaved) {
        const long long mb = est.pipeline.microbatches;
        if (l.pp < 2 || l.virtualStages < 2 || m.layers % (l.pp * l.virtualStages) != 0)
            add(est, WarningCode::InterleavedNeedsDivisibleLayers, Severity::Error, "layout.virtual_stages", l.virtualStages, l.pp,
                m.layers);
        if (mb % l.pp != 0)
            add(est, WarningCode::InterleavedNeedsMicrobatches, Severity::Error, "layout.schedule", double(mb), l.pp);
    }
    if (l.schedule == Schedule::DualPipe) {
        const long long mb = est.pipeline.microbatches;
        if (l.pp < 2 || l.pp % 2 != 0)
            add(est, WarningCode::DualPipeNeedsLayout, Severity::Error, "layout.pp", l.pp, double(mb));
        else if (mb % 2 != 0 || mb < 2LL * l.pp)
            add(est, WarningCode::DualPipeNeedsLayout, Severity::Error, "training.global_batch_sequences", l.pp, double(mb));
    }
    if (!epDividesExperts(l.ep, m))
        add(est, WarningCode::EpDoesNotDivideExperts, Severity::Error, "layout.ep", l.ep, m.moe->experts);
    if (!expertRanksDivideStage(l, l.ep, l.etp))
        add(est, WarningCode::ExpertRanksDoNotDivideStage, Severity::Error, "layout.ep", double(l.ep) * l.etp, double(l.tp) * l.cp * l.dp);
    if (tr.matmulPrecision == MatmulPrecision::Nvfp4 && fp4PeakFlopsPerGpu(plan.cluster) <= 0)
        add(est, WarningCode::Fp8Unsupported, Severity::Error, "training.matmul_precision", 2.0);
    else if (tr.matmulPrecision != MatmulPrecision::Bf16 && tr.matmulPrecision != MatmulPrecision::Nvfp4
             && fp8PeakFlopsPerGpu(plan.cluster) <= 0)
        add(est, WarningCode::Fp8Unsupported, Severity::Error, "training.matmul_precision");
    else if (tr.matmulPrecision == MatmulPrecision::Mxfp8 && !mxfp8Supported(plan.cluster))
        add(est, WarningCode::Fp8Unsupported, Severity::Error, "training.matmul_precision", 1.0);
}

int largestEpInsideNode(const Plan& plan)
{
    const auto& l = plan.layout;
    const int domain = plan.cluster.scaleUpDomain();
    // Inside means every group, so the block of ETP x EP ranks must divide the domain (64 does
    // not divide an NVL72 rack's 72: some groups would straddle two racks).
    for (int inside = domain / std::max(1, l.etp); inside > 1; --inside)
        if (domain % (std::max(1, l.etp) * inside) == 0 && epDividesExperts(inside, plan.model) && expertRanksDivideStage(l, inside, l.etp))
            return inside;
    return 1;
}

void checkLayoutAdvisories(const Plan& plan, Estimate& est, std::optional<bool> insideEpFits)
{
    const auto& l = plan.layout;
    const auto& m = plan.model;
    const auto& tr = plan.training;
    const auto& comm = est.communication;

    if (comm.tpCrossesNodes) {
        add(est, WarningCode::TpSpansNodes, Severity::Warning, "layout.tp", l.tp, plan.cluster.scaleUpDomain());
        est.warnings.back().nvlinkDomain = plan.cluster.scaleUpDomain() != plan.cluster.gpusPerNode;
    }
    if (m.kvHeads % l.tp != 0 && l.tp % m.kvHeads == 0)
        add(est, WarningCode::TpReplicatesKvHeads, Severity::Info, "layout.tp", l.tp, m.kvHeads);
    // Layers of several kinds are split by cost (PipelineModel.h), unevenly by design.
    if (l.stageLayers.empty() && m.kindCount() == 1 && m.layers % l.pp != 0)
        add(est, WarningCode::PpDoesNotDivideLayers, Severity::Warning, "layout.pp", l.pp, m.layers);
    for (const auto& st : est.stages)
        if (st.memoryEstimated && st.withinMargin)
            add(est, WarningCode::StageNearCapacity, Severity::Warning, "layout", st.memory.total, est.capacityBytes,
                tr.memoryMarginFraction, st.index);

    const long long mb = est.pipeline.microbatches;
    if (l.pp > 1) {
        if (mb < l.pp)
            add(est, WarningCode::FewMicrobatches, Severity::Warning, "training.global_batch_sequences", double(mb), l.pp);
        else if (est.pipeline.bubbleFraction > kLargeBubbleFraction)
            add(est, WarningCode::LargeBubble, Severity::Warning, "layout.pp", est.pipeline.bubbleFraction, kLargeBubbleFraction);
    }
    if (l.schedule != Schedule::Interleaved && l.virtualStages > 1)
        add(est, WarningCode::VirtualStagesWithoutInterleaving, Severity::Info, "layout.virtual_stages", l.virtualStages);
    if (l.zeroStage >= 3 && l.pp > 1)
        add(est, WarningCode::Zero3WithPipeline, Severity::Warning, "layout.zero_stage", l.zeroStage, l.pp);
    if (l.sequenceParallel && l.tp == 1)
        add(est, WarningCode::SequenceParallelWithoutTp, Severity::Info, "layout.sequence_parallel");

    if (!comm.dpHidden)
        add(est, WarningCode::DpNotHidden, Severity::Warning, "layout.dp", comm.dpSeconds, comm.dpBackwardWindowSeconds);

    if (m.moe && m.moe->capacityFactor)
        add(est, WarningCode::TokensDropped, Severity::Info, "model.moe.capacity_factor", *m.moe->capacityFactor);
    checkExpertPlacement(plan, est, insideEpFits);
}

unsigned layoutRedFlags(const Estimate& est)
{
    // The warning-level codes checkLayoutAdvisories() can add: the plan's other advisories (failures,
    // the accelerator, the assumed MFU) and the memory verdict's flag are the same for every layout
    // or shown apart (SearchRow::memoryFit).
    constexpr unsigned kLayoutCodes = warningBit(WarningCode::TpSpansNodes) | warningBit(WarningCode::PpDoesNotDivideLayers)
        | warningBit(WarningCode::StageNearCapacity) | warningBit(WarningCode::FewMicrobatches) | warningBit(WarningCode::LargeBubble)
        | warningBit(WarningCode::Zero3WithPipeline) | warningBit(WarningCode::DpNotHidden) | warningBit(WarningCode::EpSpansNodes);
    unsigned flags = 0;
    for (const auto& w : est.warnings)
        if (w.severity == Severity::Warning)
            flags |= warningBit(w.code);
    return flags & kLayoutCodes;
}

void checkLayout(const Plan& plan, Estimate& est)
{
    const auto& tr = plan.training;

    // The errors first (a layout that cannot run as given), then the layout's advisories, then
    // those of the plan's other inputs (failures, the accelerator, the assumed MFU).
    checkLayoutValidity(plan, est);
    checkLayoutAdvisories(plan, est);

    const auto& rel = est.reliability;
    if (!rel.failuresModelled)
        add(est, WarningCode::NoFailureAllowance, Severity::Warning, "cluster.mtbf_hours_per_node");
    else if (rel.lostSecondsPerFailure >= rel.clusterMtbfSeconds)
        add(est, WarningCode::FailuresOutpaceProgress, Severity::Error, "cluster.mtbf_hours_per_node", rel.lostSecondsPerFailure,
            rel.clusterMtbfSeconds);

    if (const PresetCheck preset = presetCheck(plan.cluster); preset.mask != 0)
        add(est, WarningCode::AcceleratorDiffersFromPreset, Severity::Warning, "cluster.accelerator", preset.mask, preset.presetIndex);

    if (tr.mfu > kHighMfu)
        add(est, WarningCode::HighMfu, Severity::Warning, "training.mfu", tr.mfu, kHighMfu);
    else if (tr.mfu < kLowMfu)
        add(est, WarningCode::LowMfu, Severity::Info, "training.mfu", tr.mfu, kLowMfu);
}

}  // namespace trainplan
