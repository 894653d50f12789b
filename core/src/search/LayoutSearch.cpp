// Enumerates the layouts of LayoutSearch.h, estimates each (memory, volumes) and predicts its
// step time with the closed-form pipeline; ranking and flags are in LayoutSearchRanking.cpp.
#include "search/LayoutSearch.h"

#include <algorithm>
#include <chrono>

#include "search/LayoutSearchRanking.h"
#include "topology/Topology.h"

namespace trainplan {

namespace {

std::vector<int> divisors(long long n, long long limit)
{
    std::vector<int> out;
    for (long long d = 1; d <= n && d <= limit; ++d)
        if (n % d == 0)
            out.push_back(int(d));
    return out;
}

// Errors that make a layout invalid for the model and cluster (not "does not fit", and not the
// reliability checks, which depend on the assumed MFU rather than on the layout).
bool structurallyInvalid(const Estimate& est)
{
    for (const auto& w : est.warnings) {
        if (w.severity != Severity::Error)
            continue;
        if (w.code != WarningCode::StageOverCapacity && w.code != WarningCode::FailuresOutpaceProgress)
            return true;
    }
    return false;
}

std::vector<long long> batchCandidates(const Plan& plan, const SearchOptions& o, int dp)
{
    std::vector<long long> out;
    if (o.minGlobalBatch <= 0 && o.maxGlobalBatch <= 0) {
        if (plan.training.globalBatchSequences % dp == 0)
            out.push_back(plan.training.globalBatchSequences);
        return out;
    }
    const long long low = std::max<long long>(1, o.minGlobalBatch);
    const long long high = o.maxGlobalBatch > 0 ? o.maxGlobalBatch : low;
    for (long long b = dp; b <= high; b *= 2)
        if (b >= low)
            out.push_back(b);
    return out;
}

}  // namespace

SearchLayout searchLayoutOf(const Plan& plan)
{
    const auto& l = plan.layout;
    SearchLayout s;
    s.tp = l.tp;
    s.pp = l.pp;
    s.dp = l.dp;
    s.cp = l.cp;
    s.virtualStages = l.virtualStages;
    s.microBatch = plan.training.microBatchSize;
    s.zeroStage = l.zeroStage;
    s.recompute = l.recompute;
    s.sequenceParallel = l.sequenceParallel;
    s.globalBatch = plan.training.globalBatchSequences;
    s.schedule = l.schedule;
    return s;
}

namespace {

// Writes a candidate into a plan in place: the search's hot loop reuses one plan, so this
// neither copies nor allocates.
void assignSearchLayout(Plan& plan, const SearchLayout& s)
{
    auto& l = plan.layout;
    l.tp = s.tp;
    l.pp = s.pp;
    l.dp = s.dp;
    l.cp = s.cp;
    l.virtualStages = s.virtualStages;
    l.schedule = s.schedule;
    l.zeroStage = s.zeroStage;
    l.recompute = s.recompute;
    l.recomputeLayers = 0;
    l.sequenceParallel = s.sequenceParallel;
    l.stageLayers.clear();
    l.dpAuto = false;
    plan.training.microBatchSize = s.microBatch;
    plan.training.globalBatchSequences = s.globalBatch;
}

}  // namespace

Plan withSearchLayout(const Plan& plan, const SearchLayout& s)
{
    Plan out = plan;
    assignSearchLayout(out, s);
    return out;
}

SearchResult searchLayouts(const Plan& plan, const SearchOptions& options, std::atomic<bool>* cancel, const SearchProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    SearchResult result;
    result.objective = options.objective;
    result.top = options.top;
    const auto& model = plan.model;
    const long long gpus = plan.cluster.gpus;
    const int perNode = plan.cluster.gpusPerNode;
    result.marginBytes = plan.training.memoryMarginFraction * plan.cluster.memoryBytesPerGpu;

    StepTimeOptions stepOptions = stepTimeOptionsFor(plan);
    if (options.framework)
        stepOptions.framework = *options.framework;
    stepOptions.pipeline = PipelineMethod::ClosedForm;
    // The plan's own non-interleaved schedule for v = 1 (1F1B if it interleaves).
    const Schedule flat = plan.layout.schedule == Schedule::Interleaved ? Schedule::OneFOneB : plan.layout.schedule;

    std::vector<int> tps, cps;
    for (int tp : divisors(gpus, options.maxTp)) {
        if (model.attentionHeads % tp != 0 || (model.kvHeads % tp != 0 && tp % model.kvHeads != 0))
            continue;
        // The estimate's own test (TP fills ranks first, stride 1): a TP group crosses nodes
        // when it does not tile one node's GPUs (TP 4 on 6-GPU nodes straddles two), not only
        // when it is wider than a node.
        if (!options.allowTpAcrossNodes && stridedGroupsCrossNodes(1, tp, perNode, gpus))
            continue;
        tps.push_back(tp);
    }
    for (int cp = 1; cp <= options.maxCp; cp *= 2)
        if (model.sequenceLength % cp == 0 && (cp == 1 || (model.sequenceLength / cp) % 2 == 0))
            cps.push_back(cp);

    Plan work = plan;
    work.layout.stageLayers.clear();
    work.layout.dpAuto = false;
    Estimate est;
    StepTimeWorkspace workspace;
    PredictedStep predicted;
    std::vector<SearchRow> fitting;
    const double pairs = double(tps.size() * cps.size());
    double pairsDone = 0;
    long long sinceCancelCheck = 0;

    for (int tp : tps) {
        for (int cp : cps) {
            if (progress)
                progress(pairsDone / pairs);
            ++pairsDone;
            if (gpus % ((long long)tp * cp) != 0)
                continue;
            for (int pp : divisors(gpus / ((long long)tp * cp), model.layers)) {
                const int dp = int(gpus / ((long long)tp * cp * pp));
                for (long long batch : batchCandidates(plan, options, dp)) {
                    for (int micro : divisors(batch / dp, options.maxMicroBatch)) {
                        const long long m = batch / ((long long)dp * micro);
                        for (int v = 1; v <= (pp > 1 ? options.maxVirtualStages : 1); ++v) {
                            if (v > 1 && (model.layers % (pp * v) != 0 || m % pp != 0))
                                continue;
                            for (int sp = tp > 1 ? 1 : 0; sp >= 0; --sp) {
                                for (int zero = 0; zero <= 3; ++zero) {
                                    for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
                                        if (cancel && ++sinceCancelCheck >= 2048) {
                                            sinceCancelCheck = 0;
                                            if (cancel->load(std::memory_order_relaxed)) {
                                                result.cancelled = true;
                                                goto done;
                                            }
                                        }
                                        SearchLayout s{tp, pp, dp, cp, v, micro, zero, rc, sp == 1, batch,
                                                       v > 1 ? Schedule::Interleaved : (pp > 1 ? flat : Schedule::OneFOneB)};
                                        assignSearchLayout(work, s);
                                        estimateInto(work, est, EstimateScope::LayoutSearch);
                                        if (structurallyInvalid(est))
                                            continue;
                                        ++result.evaluated;
                                        if (!est.fits)
                                            continue;
                                        if (options.requireMemoryMargin && !est.hasMargin) {
                                            ++result.underMargin;
                                            continue;
                                        }
                                        workspace.predict(work, est, stepOptions, predicted);
                                        SearchRow row;
                                        row.layout = s;
                                        row.stepSeconds = predicted.stepSeconds;
                                        row.totalSeconds = predicted.totalSeconds;
                                        row.mfu = predicted.mfu;
                                        row.memoryBytes = est.perGpu.total;
                                        row.headroomBytes = est.headroomBytes;
                                        row.withinMargin = !est.hasMargin;
                                        row.gpuHours = predicted.gpuHours;
                                        row.cost = predicted.gpuHours * options.costPerGpuHour;
                                        row.tpAcrossNodes = est.communication.tpCrossesNodes;
                                        fitting.push_back(row);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
done:
    result.fitting = (long long)fitting.size();
    rankSearchRows(fitting, options, perNode, result);
    if (progress && !result.cancelled)
        progress(1.0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace trainplan
