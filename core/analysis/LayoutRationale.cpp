#include "core/analysis/LayoutRationale.h"

#include <algorithm>

#include "core/base/Format.h"
#include "core/estimate/ActivationModel.h"
#include "core/estimate/CommunicationModel.h"
#include "core/plan/EnumNames.h"
#include "core/presets/Presets.h"

namespace trainplan {

std::string describeLayout(const SearchLayout& s)
{
    std::string out;
    for (ParallelDim d : parallelDimsForDisplay())
        out += (out.empty() ? "" : " × ") + std::string(parallelDimLabel(d)) + " " + std::to_string(s.size(d));
    // The expert grid folds the others' ranks (LayoutSpec::ep): named after them, when split.
    if (s.ep > 1 || s.etp > 1)
        out += " × EP " + std::to_string(s.ep) + (s.etp > 1 ? " × ETP " + std::to_string(s.etp) : std::string());
    if (s.schedule == Schedule::Interleaved)
        out += ", v " + std::to_string(s.virtualStages);
    out += ", ZeRO-" + std::to_string(s.zeroStage) + ", " +
           (s.recompute == Recompute::None ? std::string("no") : std::string(nameOf(kRecomputeNames, s.recompute))) + " recompute, b " +
           std::to_string(s.microBatch);
    return out;
}

namespace {

// A neighbour of the plan's layout: one change, named by what changed.
struct Neighbour {
    std::string name;
    SearchLayout layout;
};

std::vector<Neighbour> neighbours(const Plan& plan)
{
    const SearchLayout here = searchLayoutOf(plan);
    const int perNode = plan.cluster.scaleUpDomain();
    std::vector<Neighbour> out;
    const auto add = [&](std::string name, SearchLayout s) {
        if (s == here)
            return;
        for (ParallelDim d : kParallelDims)
            if (s.size(d) < 1)
                return;
        if (s.pp == 1) {
            s.schedule = Schedule::OneFOneB;
            s.virtualStages = 1;
        }
        out.push_back({std::move(name), s});
    };
    // Fewer pipeline stages, the GPUs going to DP: the first thing to ask of a pipeline.
    if (here.pp > 1) {
        SearchLayout s = here;
        s.pp = 1;
        s.dp = here.dp * here.pp;
        add("no pipeline (PP 1 × DP " + std::to_string(s.dp) + ")", s);
        if (here.pp >= 4 && here.pp % 2 == 0) {
            SearchLayout half = here;
            half.pp = here.pp / 2;
            half.dp = here.dp * 2;
            add("half the stages (PP " + std::to_string(half.pp) + " × DP " + std::to_string(half.dp) + ")", half);
        }
    }
    // Wider TP (leaving the node when it is already the node's width), or narrower.
    if (here.dp % 2 == 0) {
        SearchLayout s = here;
        s.tp = here.tp * 2;
        s.dp = here.dp / 2;
        add(std::string("TP ") + std::to_string(s.tp) + (s.tp > perNode ? " across " + scaleUpDomainNoun(plan.cluster) + "s" : std::string()) + " (DP " + std::to_string(s.dp) + ")", s);
    }
    if (here.tp > 1 && here.tp % 2 == 0) {
        SearchLayout s = here;
        s.tp = here.tp / 2;
        s.dp = here.dp * 2;
        s.sequenceParallel = s.tp > 1 && here.sequenceParallel;
        add("TP " + std::to_string(s.tp) + " (DP " + std::to_string(s.dp) + ")", s);
    }
    // More pipeline stages instead of DP.
    if (here.dp % 2 == 0) {
        SearchLayout s = here;
        s.pp = here.pp * 2;
        s.dp = here.dp / 2;
        if (s.schedule != Schedule::Interleaved)
            s.schedule = here.pp > 1 ? here.schedule : Schedule::OneFOneB;
        add("twice the stages (PP " + std::to_string(s.pp) + " × DP " + std::to_string(s.dp) + ")", s);
    }
    // Lighter optimizer sharding.
    if (here.zeroStage > 0) {
        SearchLayout s = here;
        s.zeroStage = 0;
        add("no ZeRO sharding", s);
    }
    return out;
}

std::string firstError(const Estimate& e)
{
    for (const auto& w : e.warnings)
        if (w.severity == Severity::Error && w.code != WarningCode::StageOverCapacity && w.code != WarningCode::FailuresOutpaceProgress)
            return describe(w);
    return {};
}

// An MoE plan's story in review order: why this EP (what the neighbouring EP sizes would cost
// in memory and time, each analysed like the plan), where the all-to-all goes, and what the
// expert load imbalance costs.
void addExpertConstraints(const Analysis& a, std::vector<std::string>& lines)
{
    const Plan& plan = a.plan;
    const auto& l = plan.layout;
    const MoeSpec& moe = *plan.model.moe;
    std::string why = "EP " + std::to_string(l.ep) + " × ETP " + std::to_string(l.etp) + ": " + std::to_string(moe.experts / std::max(1, l.ep))
        + " of " + std::to_string(moe.experts) + " routed experts on each GPU, their weights and optimizer state split over EP × ETP and "
        + "sharded over the " + std::to_string(std::max<long long>(1, (long long)l.tp * l.cp * l.dp / std::max(1, l.ep * l.etp)))
        + " expert-data-parallel ranks";
    std::string others;
    std::vector<int> neighbours;
    if (l.ep % 2 == 0)
        neighbours.push_back(l.ep / 2);
    neighbours.push_back(l.ep * 2);
    for (const int ep : neighbours) {
        if (!epDividesExperts(ep, plan.model) || !expertRanksDivideStage(l, ep, l.etp))
            continue;
        Plan variant = plan;
        variant.layout.ep = ep;
        const Analysis other = analyse(variant);
        others += std::string(others.empty() ? "" : "; ") + "EP " + std::to_string(ep) + ": " + formatBytes(other.estimate.perGpu.total)
            + " per GPU" + (other.estimate.fits ? ", " + formatSeconds(other.predicted.stepSeconds) + " per step" : std::string(", does not fit"));
    }
    if (!others.empty())
        why += " (" + others + ", " + timeBasisLabel(TimeBasis::Predicted) + ")";
    lines.push_back(why);

    const FrameworkSpec fw = resolvedFramework(plan.framework);
    const GroupPlacement group = groupPlacement(l.etp, l.ep, plan.cluster.scaleUpDomain(), a.estimate.gpusUsed);
    std::string where = "All-to-all: each MoE layer's dispatch and combine, forward and backward, "
        + (group.nodes > 1 ? "span " + std::to_string(group.nodes) + " " + scaleUpDomainNoun(plan.cluster) + "s over the network"
                           : "stay inside a " + scaleUpDomainNoun(plan.cluster) + " on " + scaleUpLinkName(plan.cluster));
    const auto dispatcherText = [](MoeDispatcher d) -> std::string {
        switch (d) {
        case MoeDispatcher::AllToAll: return "NCCL all-to-all dispatcher";
        case MoeDispatcher::AllGather: return "all-gather dispatcher";
        case MoeDispatcher::DeepEp: return "DeepEP dispatcher";
        }
        return "dispatcher";
    };
    where += fw.moeDispatcher ? " (" + dispatcherText(*fw.moeDispatcher) : std::string(" (dispatcher not given");
    if (moe.maxNodesPerToken > 0 && group.nodes > moe.maxNodesPerToken)
        where += ", each token to at most " + std::to_string(moe.maxNodesPerToken) + " nodes";
    where += "); " + formatSeconds(a.predicted.components.epCommunication) + " of the step exposed ("
        + timeBasisLabel(TimeBasis::Predicted) + ")";
    lines.push_back(where);

    const bool unknown = loadImbalanceUnknown(plan.model);
    std::string imbalance = "Expert load imbalance: ";
    if (moe.capacityFactor)
        imbalance += "tokens padded to capacity factor " + formatNumber(*moe.capacityFactor, 3);
    else if (unknown)
        imbalance += "not given, " + formatNumber(kExpectedLoadImbalance, 3) + " expected (the range takes " + formatNumber(kBestLoadImbalance, 3)
            + " to " + formatNumber(kWorstLoadImbalance, 3) + ")";
    else
        imbalance += formatNumber(expertLoad(plan.model), 3) + " as given";
    imbalance += "; the busiest expert rank adds " + formatSeconds(a.predicted.components.expertImbalance) + " per step ("
        + timeBasisLabel(TimeBasis::Predicted) + ")";
    lines.push_back(imbalance);
}

}  // namespace

LayoutRationale layoutRationale(const Analysis& a)
{
    const Plan& plan = a.plan;
    const Estimate& e = a.estimate;
    LayoutRationale out;
    out.planFits = e.fits;

    SearchOptions options;
    options.top = 5;
    options.groupEquivalents = true;
    const SearchResult search = searchLayouts(plan, options);
    out.evaluated = search.evaluated;
    out.fitting = search.fitting;
    // The search ranks with the closed-form pipeline; the figures quoted are each layout
    // analysed like the plan (simulated schedule), so they compare with the plan's own.
    if (!search.rows.empty()) {
        out.fastest = search.rows.front().layout;
        out.fastestStepSeconds = analyse(withSearchLayout(plan, out.fastest)).predicted.stepSeconds;
        out.searchFoundBetter = out.fastest != searchLayoutOf(plan) && out.fastestStepSeconds < a.predicted.stepSeconds;
        for (const auto& row : search.rows)
            if (row.simplest) {
                out.simplest = row.layout;
                out.simplestStepSeconds = analyse(withSearchLayout(plan, row.layout)).predicted.stepSeconds;
            }
    }

    // What decides the layout: the numbers behind each dimension.
    const auto& l = plan.layout;
    const StageEstimate& fullest = e.stages[size_t(e.fullestStage)];
    out.constraints.push_back(
        "TP " + std::to_string(l.tp) +
        (e.communication.tpCrossesNodes ? ": spans nodes, so its " + std::to_string(e.communication.tpCollectivesPerLayer) +
                                              " all-reduces per layer run on the network"
                                        : " fits in a " + scaleUpDomainNoun(plan.cluster) + " of " + std::to_string(plan.cluster.scaleUpDomain()) + " GPUs: its all-reduces (" +
                                              formatBytes(e.communication.tpMessageBytes) + " each) stay on " + scaleUpLinkName(plan.cluster)));
    out.constraints.push_back("PP " + std::to_string(l.pp) + ": " + countOf(fullest.layers, "layer") + " on the fullest stage; " +
                              formatBytes(e.perGpu.total) + " of " + formatBytes(e.capacityBytes) + " per GPU (stage " +
                              std::to_string(e.fullestStage + 1) + "), " + formatPercent(e.headroomBytes / e.capacityBytes) + " free");
    out.constraints.push_back("DP " + std::to_string(l.dp) + " × b " + std::to_string(plan.training.microBatchSize) + " × m " +
                              std::to_string(e.pipeline.microbatches) + " = global batch " +
                              formatInteger(double(plan.training.globalBatchSequences)) + " sequences; bubble " +
                              formatPercent(a.predicted.bubbleFraction) + " (" + timeBasisLabel(TimeBasis::Predicted) + ")");
    out.constraints.push_back("ZeRO-" + std::to_string(l.zeroStage) + ": optimizer state " + formatBytes(e.perGpu.optimizer) +
                              " per GPU; gradient reduction " +
                              (e.communication.dpHidden ? std::string("hides under the backward pass")
                                                        : "exposed for " + formatSeconds(a.predicted.components.dpCommunication)));
    if (plan.model.hasMoeLayers())
        addExpertConstraints(a, out.constraints);

    // The neighbours, analysed like the plan.
    std::vector<LayoutAlternative> all;
    for (const Neighbour& n : neighbours(plan)) {
        const Analysis other = analyse(withSearchLayout(plan, n.layout));
        const Estimate& oe = other.estimate;
        LayoutAlternative alt;
        alt.name = n.name;
        alt.memoryBytes = oe.perGpu.total;
        const std::string error = firstError(oe);
        if (!error.empty()) {
            alt.rejected = true;
            alt.verdict = "breaks a rule: " + error;
        } else if (!oe.fits) {
            alt.rejected = true;
            alt.verdict = "does not fit: " + formatBytes(oe.perGpu.total) + " of " + formatBytes(oe.capacityBytes) + " on stage " +
                          std::to_string(oe.fullestStage + 1);
        } else {
            alt.stepSeconds = other.predicted.stepSeconds;
            const double change = alt.stepSeconds / a.predicted.stepSeconds - 1;
            alt.faster = change < 0;
            alt.verdict = formatSeconds(alt.stepSeconds) + " per step, " + formatPercent(std::abs(change))
                + (change < 0 ? " faster" : " slower") + "; " + formatBytes(oe.perGpu.total) + " per GPU"
                + (oe.hasMargin ? "" : ", under the memory margin");
        }
        all.push_back(alt);
    }
    // Named: up to two that are rejected, the fastest that beats the plan (the plan may not be the
    // best, and the slide says so), then the slower ones, slowest first, to three in all; faster
    // ones fill any place left.
    std::vector<const LayoutAlternative*> rejected, faster, slower;
    for (const auto& alt : all)
        (alt.rejected ? rejected : alt.faster ? faster : slower).push_back(&alt);
    std::stable_sort(faster.begin(), faster.end(), [](auto* x, auto* y) { return x->stepSeconds < y->stepSeconds; });
    std::stable_sort(slower.begin(), slower.end(), [](auto* x, auto* y) { return x->stepSeconds > y->stepSeconds; });
    const auto take = [&](std::vector<const LayoutAlternative*>& from, size_t most) {
        while (!from.empty() && most > 0 && out.alternatives.size() < 3) {
            out.alternatives.push_back(*from.front());
            from.erase(from.begin());
            --most;
        }
    };
    take(rejected, 2);
    take(faster, 1);
    take(slower, 3);
    take(faster, 3);
    return out;
}

}  // namespace trainplan
