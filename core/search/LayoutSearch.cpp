// Enumerates the layouts of LayoutSearch.h, estimates each (memory, volumes) and predicts its
// step time with the closed-form pipeline; ranking and flags are in LayoutSearchRanking.cpp.
#include "core/search/LayoutSearch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <thread>
#include <type_traits>

#include "core/base/LargeBuffer.h"
#include "core/estimate/LayoutChecks.h"
#include "core/estimate/MemoryRange.h"
#include "core/estimate/ParameterModel.h"
#include "core/search/LayoutSearchRanking.h"
#include "core/search/SearchShortlist.h"
#include "core/topology/Topology.h"

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

// The one dimension that splits the batch: its size is what the others leave of the GPUs.
constexpr ParallelDim batchDimension()
{
    for (const auto& info : kParallelDimInfo)
        if (info.splits == DimSplits::Batch)
            return info.dim;
    return kParallelDims[0];
}
inline constexpr ParallelDim kBatchDimension = batchDimension();

// The sizes the search tries for a dimension, by what it splits, before the GPUs left decide
// (a size must divide them).
std::vector<int> sizeCandidates(ParallelDim dim, const Plan& plan, const SearchOptions& o, long long gpusLeft)
{
    const ModelSpec& model = plan.model;
    std::vector<int> out;
    switch (parallelDimInfo(dim).splits) {
    case DimSplits::Heads:
        // Query heads split evenly; KV heads split evenly or are replicated (GQA).
        for (int size : divisors(gpusLeft, o.maxTp)) {
            if (model.attentionHeads % size != 0 || (model.kvHeads % size != 0 && size % model.kvHeads != 0))
                continue;
            // The estimate's own test (heads fill ranks first, stride 1): a group crosses nodes
            // when it does not tile one node's GPUs (4 on 6-GPU nodes straddles two), not only
            // when it is wider than a node.
            if (!o.allowTpAcrossNodes && stridedGroupsCrossNodes(1, size, plan.cluster.scaleUpDomain(), plan.cluster.gpus))
                continue;
            out.push_back(size);
        }
        break;
    case DimSplits::Sequence:
        // Powers of two leaving each rank an even number of tokens (load-balanced causal chunks,
        // as LayoutChecks' CpDoesNotDivideSequence requires).
        for (int size = 1; size <= o.maxCp; size *= 2)
            if (model.sequenceLength % size == 0 && (size == 1 || (model.sequenceLength / size) % 2 == 0))
                out.push_back(size);
        break;
    case DimSplits::Layers:
        // At most one stage per layer.
        out = divisors(gpusLeft, model.layers);
        break;
    case DimSplits::Batch:
        break;  // the GPUs the others leave (kBatchDimension)
    }
    return out;
}

// The expert grids (EP, ETP) a split of the GPUs can take: for an MoE model the sizes Plan.h's
// rules leave (the sliders offer the same), ETP also within the TP limit; for a dense model
// only (1, 1).
std::vector<std::pair<int, int>> expertGridCandidates(const Plan& plan, const SearchOptions& o, const SearchLayout& sized)
{
    if (!plan.model.moe || !plan.model.hasMoeLayers())
        return {{1, 1}};
    LayoutSpec stage;
    stage.tp = sized.tp;
    stage.cp = sized.cp;
    stage.dp = sized.dp;
    std::vector<std::pair<int, int>> out;
    for (int etp : expertTensorParallelSizes(plan.model, stage, 1, std::min(plan.cluster.scaleUpDomain(), o.maxTp)))
        for (int ep : expertParallelSizes(plan.model, stage, etp))
            out.emplace_back(ep, etp);
    return out;
}

// The rows one search worker keeps, where it made them, with their addresses in the order made.
// With the shortlist (SearchShortlist.h) that is a few thousand; without it, a search of an MoE
// model keeps hundreds of thousands (about 100 MB), and touching fresh memory page by page cost
// a third of its time (measured: with the allocator keeping its pages between runs the
// DeepSeek-V3 search took 1.1 s instead of 1.6 s). So rows go into 2 MiB chunks that
// never move (a growing vector would copy them all each time it grew, and merging them would
// copy them again) and that Linux may back with one huge page each (LargeBuffer.h).
class WorkerRows {
public:
    WorkerRows() = default;
    WorkerRows(const WorkerRows&) = delete;
    WorkerRows& operator=(const WorkerRows&) = delete;
    ~WorkerRows()
    {
        for (SearchRow* chunk : chunks_)
            releaseLarge(chunk);
    }

    void add(const SearchRow& row)
    {
        if (chunks_.empty() || inLast_ == kChunkRows) {
            chunks_.push_back(static_cast<SearchRow*>(allocateHugePages(kChunkBytes)));
            inLast_ = 0;
        }
        SearchRow* slot = new (chunks_.back() + inLast_) SearchRow(row);
        ++inLast_;
        made_.push_back(slot);
    }
    const std::vector<SearchRow*>& made() const { return made_; }

private:
    static_assert(std::is_trivially_destructible_v<SearchRow>, "rows are freed with their chunk, never destroyed one by one");
    static constexpr size_t kChunkBytes = kHugePageBytes;
    static constexpr size_t kChunkRows = kChunkBytes / sizeof(SearchRow);
    std::vector<SearchRow*> chunks_;
    size_t inLast_ = 0;
    std::vector<SearchRow*> made_;
};

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
    for (ParallelDim d : kParallelDims)
        s.size(d) = l.size(d);
    s.ep = l.ep;
    s.etp = l.etp;
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
    forEachParallelDim([&](ParallelDim d) { l.size(d) = s.size(d); });
    l.ep = s.ep;
    l.etp = s.etp;
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

namespace {

// How the search predicts: the plan's accelerator efficiencies, its framework unless the options
// name one, and the closed-form pipeline (no schedule simulation per layout).
StepTimeOptions searchStepOptions(const Plan& plan, const SearchOptions& options)
{
    StepTimeOptions stepOptions = stepTimeOptionsFor(plan);
    if (options.framework)
        stepOptions.framework = *options.framework;
    stepOptions.pipeline = PipelineMethod::ClosedForm;
    return stepOptions;
}

// A lower bound on the step of a layout with recompute, from the same layout's step without it.
// Within a family (same sizes, batch, micro-batch, schedule, SP and ZeRO stage) recompute changes
// only each layer's LayerTimes::recompute, from 0 to a value >= 0 (finishLayerTimes(); the fixed
// costs are priced before it), so each stage's backward per micro-batch grows by some d_i >= 0 and
// nothing else moves (sends, parameter gather and optimizer read no recompute; ZB-H1's deferred
// weight gradients neither). The step is max(busy, W) + sends + tail + gather + optimizer, W the
// pipeline in closed form (pipelineComputeSecondsClosedForm) and the tail the exposed DP reduce
// max_i [max(R/B, R - b_i) + share x min(R, b_i)] (dataParallelTimes), b_i stage i's backward:
//   - no pipeline: the step is busy + tail + ..., busy grows by m x d_0 and the tail falls by at
//     most d_0, so the step without recompute bounds it;
//   - GPipe and 1F1B: W = sum_i w_i + (m - 1) max_i w_i grows by at least sum_i d_i >= max_i d_i,
//     at least what the tail can fall by; when the layout without recompute had a bubble
//     (W > busy) its step was W + ..., so again its step bounds the one with recompute;
//   - interleaved and ZB-H1: W = m max_i w_i + (p - 1)(mean ...) still only grows, but it can grow
//     by less than the tail falls, so the bound leaves the tail out: with a bubble, the step
//     without recompute less its DP communication (tail and gather, both >= 0).
// DualPipe is left out (its pairs hide collectives under compute). The bound is shaved by 1e-12
// so rounding cannot put it above a step that equals it. tst_search checks every such pair.
struct RecomputeBound {
    bool known = false;
    double stepSeconds = 0, totalSeconds = 0, gpuHours = 0, mfu = 0;

    static RecomputeBound of(const PredictedStep& predicted, const SearchLayout& layout)
    {
        constexpr double kRounding = 1.0 - 1e-12;
        if (layout.pp > 1 && (layout.schedule == Schedule::DualPipe || !(predicted.components.pipelineBubble > 0)))
            return {};
        const bool tailMayFall = layout.pp > 1 && layout.schedule != Schedule::OneFOneB && layout.schedule != Schedule::GPipe;
        const double step = predicted.stepSeconds - (tailMayFall ? predicted.components.dpCommunication : 0.0);
        if (!(step > 0) || !(predicted.stepSeconds > 0))
            return {};
        // Run time and GPU-hours are the step times the same steps and GPUs.
        const double scale = step / predicted.stepSeconds * kRounding;
        return {true, step * kRounding, predicted.totalSeconds * scale, predicted.gpuHours * scale, predicted.mfu};
    }
    // The row's figures at the bound (its layout, memory and flags stay its own).
    void apply(SearchRow& row, const SearchOptions& options) const
    {
        row.stepSeconds = stepSeconds;
        row.totalSeconds = totalSeconds;
        row.gpuHours = gpuHours;
        row.cost = gpuHours * options.costPerGpuHour;
        row.mfu = mfu;
    }
};

SearchRow rowOf(const SearchLayout& layout, const Estimate& est, const PredictedStep& predicted, const SearchOptions& options,
    MemoryFit fit, unsigned redFlags)
{
    SearchRow row;
    row.layout = layout;
    row.stepSeconds = predicted.stepSeconds;
    row.totalSeconds = predicted.totalSeconds;
    row.mfu = predicted.mfu;
    row.memoryBytes = est.perGpu.total;
    row.headroomBytes = est.headroomBytes;
    row.withinMargin = !est.hasMargin;
    row.gpuHours = predicted.gpuHours;
    row.cost = predicted.gpuHours * options.costPerGpuHour;
    row.tpAcrossNodes = est.communication.tpCrossesNodes;
    row.memoryFit = fit;
    row.redFlags = redFlags;
    return row;
}

}  // namespace

std::optional<SearchRow> searchRowOf(const Plan& plan, const Estimate& est, const SearchOptions& options)
{
    const PredictedStep predicted = predictStep(plan, est, searchStepOptions(plan, options));
    if (!(predicted.stepSeconds > 0) || !std::isfinite(predicted.stepSeconds))
        return std::nullopt;
    Estimate scratch;
    Plan variant;
    return rowOf(searchLayoutOf(plan), est, predicted, options, memoryFitOfRange(plan, est, scratch, variant), layoutRedFlags(est));
}

SearchResult searchLayouts(const Plan& plan, const SearchOptions& options, std::atomic<bool>* cancel, const SearchProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    SearchResult result;
    result.objective = options.objective;
    result.redFlagOrder = options.redFlags;
    result.top = options.top;
    result.expertGrid = plan.model.hasMoeLayers();
    const auto& model = plan.model;
    const long long gpus = plan.cluster.gpus;
    const int perNode = plan.cluster.scaleUpDomain();  // what "a heavy dimension" is measured against
    result.marginBytes = plan.training.memoryMarginFraction * plan.cluster.memoryBytesPerGpu;

    const StepTimeOptions stepOptions = searchStepOptions(plan, options);
    // The plan's own non-interleaved schedule for v = 1 (1F1B if it interleaves).
    const Schedule flat = plan.layout.schedule == Schedule::Interleaved ? Schedule::OneFOneB : plan.layout.schedule;

    // Every way to split the GPUs into the dimensions' sizes: each dimension takes the sizes its
    // rule gives (sizeCandidates) that divide the GPUs the ones before it leave, and the one that
    // splits the batch takes the rest; the first in kParallelDims varies slowest.
    std::vector<SearchLayout> splits;
    SearchLayout sizes;
    const auto chooseSizes = [&](auto&& self, size_t next, long long left) -> void {
        if (next == kParallelDimCount) {
            sizes.size(kBatchDimension) = int(left);
            splits.push_back(sizes);
            return;
        }
        const ParallelDim d = kParallelDims[next];
        if (d == kBatchDimension) {
            self(self, next + 1, left);
            return;
        }
        for (int size : sizeCandidates(d, plan, options, left)) {
            if (left % size != 0)
                continue;
            sizes.size(d) = size;
            self(self, next + 1, left / size);
        }
    };
    chooseSizes(chooseSizes, 0, gpus);

    // Each split once per expert grid it can take (one for a dense model), EP ascending within
    // an ETP. Work is handed out by unit: the splits that differ only in EP (consecutive), so one
    // worker sees a layout with EP across nodes after the same layout with the largest EP inside
    // a node, whose fit EP_SPANS_NODES asks about (checkLayoutAdvisories).
    std::vector<size_t> unitStarts;
    {
        std::vector<SearchLayout> withExperts;
        withExperts.reserve(splits.size());
        for (const SearchLayout& split : splits) {
            int unitEtp = 0;  // none yet for this split
            for (const auto& [ep, etp] : expertGridCandidates(plan, options, split)) {
                if (etp != unitEtp) {
                    unitStarts.push_back(withExperts.size());
                    unitEtp = etp;
                }
                SearchLayout s = split;
                s.ep = ep;
                s.etp = etp;
                withExperts.push_back(s);
            }
        }
        splits = std::move(withExperts);
    }
    unitStarts.push_back(splits.size());

    // The units are shared out among the workers (this thread and the others) one at a time;
    // each worker keeps its rows in the order it made them and notes which split made how many,
    // so the merged list is in the order one thread would have made it and the ranking does not
    // depend on the threads.
    struct SplitRows {
        unsigned worker = 0;
        size_t rows = 0;
    };
    std::vector<SplitRows> rowsBySplit(splits.size());
    std::atomic<size_t> nextUnit{0};
    std::atomic<bool> stopped{false};
    // One cache line each: the workers bump their own counts per layout, and two counts sharing
    // a line would bounce it between the cores (false sharing cost ~15 % of the search).
    struct alignas(64) Counts {
        long long evaluated = 0, fitting = 0, underMargin = 0, hiddenRedFlags = 0, pruned = 0, unpredicted = 0;
    };
    const auto searchSplits = [&](Counts& counts, WorkerRows& rows, unsigned worker) {
        const bool reportsProgress = worker == 0;
        Plan work = plan;
        work.layout.stageLayers.clear();
        work.layout.dpAuto = false;
        Estimate est, memoryScratch;
        countParametersInto(work.model, est.parameters);  // once: only the layout changes below
        Plan memoryVariant;
        StepTimeWorkspace workspace;
        PredictedStep predicted;
        SearchShortlist shortlist(options, perNode);
        // Layouts differing only in ZeRO and recompute: they share their layer times
        // (StepTimeWorkspace::predict) and their stages' layout (EstimateScope::LayoutSearchSameFamily).
        std::uint64_t family = 0, estimatedFamily = 0;
        std::vector<bool> tooLarge(size_t(std::max(1, options.maxVirtualStages)) * 2 * 4 * 3);
        // Whether the unit's layout with the largest EP inside a node fits, by the serial number
        // of its other fields (-1: not known).
        std::vector<signed char> insideFits;
        long long sinceCancelCheck = 0;
        // The step of the family's layout without recompute, by ZeRO stage, where it bounds the
        // same ZeRO stage's layouts with recompute from below (RecomputeBound).
        // Only the shortlist can drop rows by it (RecomputeBound::of says where it holds).
        RecomputeBound withoutRecompute[4];
        const bool recomputeBounds = options.shortlistRows;
        // One split's layouts; false when cancelled.
        const auto searchSplit = [&](size_t split, int inside) {
            rowsBySplit[split].worker = worker;
            const size_t rowsBefore = rows.made().size();
            const SearchLayout& sized = splits[split];
            const int pp = sized.pp, dp = sized.dp;
            const bool recordsInside = inside > 1 && sized.ep == inside, readsInside = inside > 1 && sized.ep > inside;
            size_t serial = 0;  // the layout's other fields, numbered alike for every EP of the unit
            for (long long batch : batchCandidates(plan, options, dp)) {
                // Exact pruning: with every other field the same, a larger micro-batch never
                // needs less memory (a stage holds b x min(in flight, m) sequences' activations,
                // and b x m is the replica's batch), so once a layout does not fit at some b it
                // does not fit at any larger one; those are counted as evaluated, not estimated.
                // tst_search's pruning test compares this with the exhaustive search.
                tooLarge.assign(tooLarge.size(), false);
                for (int micro : divisors(batch / dp, options.maxMicroBatch)) {
                    const long long m = batch / ((long long)dp * micro);
                    for (int v = 1; v <= (pp > 1 ? options.maxVirtualStages : 1); ++v) {
                        if (v > 1 && (model.layers % (pp * v) != 0 || m % pp != 0))
                            continue;
                        // DualPipe's own preconditions (DualPipe.h), skipped before any is counted
                        // or pruned, as the estimate would reject each of them.
                        if (v == 1 && pp > 1 && flat == Schedule::DualPipe && (pp % 2 != 0 || m % 2 != 0 || m < 2LL * pp))
                            continue;
                        for (int sp = sized.tp > 1 ? 1 : 0; sp >= 0; --sp) {
                            ++family;  // the 12 layouts below differ only in ZeRO and recompute
                            for (RecomputeBound& bound : withoutRecompute)
                                bound = RecomputeBound{};
                            for (int zero = 0; zero <= 3; ++zero) {
                                for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
                                    const size_t combo = ((size_t(v - 1) * 2 + size_t(sp)) * 4 + size_t(zero)) * 3 + size_t(rc);
                                    const size_t at = serial++;
                                    if (recordsInside && insideFits.size() <= at)
                                        insideFits.resize(at + 1, -1);
                                    if (options.pruneExactly && tooLarge[combo]) {
                                        ++counts.evaluated;
                                        ++counts.pruned;
                                        if (recordsInside)
                                            insideFits[at] = 0;
                                        continue;
                                    }
                                    if (cancel && ++sinceCancelCheck >= 2048) {
                                        sinceCancelCheck = 0;
                                        if (cancel->load(std::memory_order_relaxed)) {
                                            stopped.store(true, std::memory_order_relaxed);
                                            return false;
                                        }
                                    }
                                    SearchLayout s = sized;
                                    s.virtualStages = v;
                                    s.microBatch = micro;
                                    s.zeroStage = zero;
                                    s.recompute = rc;
                                    s.sequenceParallel = sp == 1;
                                    s.globalBatch = batch;
                                    s.schedule = v > 1 ? Schedule::Interleaved : (pp > 1 ? flat : Schedule::OneFOneB);
                                    assignSearchLayout(work, s);
                                    // The first estimate of a family lays out its stages; the rest keep them.
                                    estimateInto(work, est, estimatedFamily == family ? EstimateScope::LayoutSearchSameFamily
                                                                                      : EstimateScope::LayoutSearchSameModel);
                                    estimatedFamily = family;
                                    if (recordsInside)
                                        insideFits[at] = est.fits ? 1 : 0;
                                    if (structurallyInvalid(est))
                                        continue;
                                    ++counts.evaluated;
                                    if (!est.fits) {
                                        tooLarge[combo] = true;
                                        continue;
                                    }
                                    if (options.requireMemoryMargin && !est.hasMargin) {
                                        ++counts.underMargin;
                                        continue;
                                    }
                                    // The layout's own red flags (the estimate's search scope leaves
                                    // them out), told whether the same layout with EP inside a node fits.
                                    std::optional<bool> insideFit;
                                    if (readsInside && at < insideFits.size() && insideFits[at] >= 0)
                                        insideFit = insideFits[at] == 1;
                                    checkLayoutAdvisories(work, est, insideFit);
                                    const unsigned redFlags = layoutRedFlags(est);
                                    if ((redFlags & ~kFlagsTheSearchWeighs) != 0 && options.redFlags == RedFlagOrder::Hide) {
                                        ++counts.hiddenRedFlags;
                                        continue;
                                    }
                                    const RecomputeBound& bound = withoutRecompute[zero];
                                    if (recomputeBounds && rc != Recompute::None && bound.known) {
                                        // A row no faster than this one's bound: if the shortlist
                                        // drops it, it drops this one, so its step is never needed.
                                        SearchRow fastest = rowOf(s, est, predicted, options, MemoryFit::Fits, redFlags);
                                        bound.apply(fastest, options);
                                        if (shortlist.dropsAtLeastAsSlow(fastest)) {
                                            ++counts.fitting;
                                            ++counts.unpredicted;
                                            continue;
                                        }
                                    }
                                    workspace.predict(work, est, stepOptions, predicted, family);
                                    if (recomputeBounds && rc == Recompute::None)
                                        withoutRecompute[zero] = RecomputeBound::of(predicted, s);
                                    ++counts.fitting;
                                    // The memory verdict estimates the range's heavy end: only for
                                    // rows the shortlist could keep even at the best verdict.
                                    SearchRow row = rowOf(s, est, predicted, options, MemoryFit::Fits, redFlags);
                                    if (options.shortlistRows && !shortlist.mayKeep(row))
                                        continue;
                                    row.memoryFit = memoryFitOfRange(work, est, memoryScratch, memoryVariant);
                                    if (!options.shortlistRows || shortlist.keeps(row))
                                        rows.add(row);
                                }
                            }
                        }
                    }
                }
            }
            rowsBySplit[split].rows = rows.made().size() - rowsBefore;
            return true;
        };
        for (;;) {
            const size_t unit = nextUnit.fetch_add(1, std::memory_order_relaxed);
            if (unit + 1 >= unitStarts.size() || stopped.load(std::memory_order_relaxed))
                return;
            if (reportsProgress && progress)
                progress(double(unitStarts[unit]) / double(splits.size()));
            assignSearchLayout(work, splits[unitStarts[unit]]);
            const int inside = largestEpInsideNode(work);
            insideFits.clear();
            for (size_t split = unitStarts[unit]; split < unitStarts[unit + 1]; ++split)
                if (!searchSplit(split, inside))
                    return;
        }
    };
    // This thread and, with a second core, one more (the project's machines have two). Each
    // worker keeps its own plan, estimate and workspace; the models keep per-thread caches.
    const unsigned helpers = unitStarts.size() > 2 && std::thread::hardware_concurrency() > 1 ? 1 : 0;
    std::vector<Counts> counts(helpers + 1);
    std::vector<WorkerRows> rows(helpers + 1);
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < helpers; ++t)
        threads.emplace_back(searchSplits, std::ref(counts[t + 1]), std::ref(rows[t + 1]), t + 1);
    searchSplits(counts[0], rows[0], 0);
    for (std::thread& t : threads)
        t.join();
    for (const Counts& c : counts) {
        result.evaluated += c.evaluated;
        result.fitting += c.fitting;
        result.underMargin += c.underMargin;
        result.hiddenRedFlags += c.hiddenRedFlags;
        result.pruned += c.pruned;
        result.unpredicted += c.unpredicted;
    }
    result.cancelled = stopped.load();
    size_t kept = 0;
    for (const WorkerRows& r : rows)
        kept += r.made().size();
    SearchRowRefs shortlisted;
    shortlisted.reserve(kept);
    std::vector<size_t> next(rows.size(), 0);  // each worker's first row not yet merged
    for (const SplitRows& split : rowsBySplit) {
        const auto& made = rows[split.worker].made();
        const auto first = made.begin() + std::ptrdiff_t(next[split.worker]);
        shortlisted.insert(shortlisted.end(), first, first + std::ptrdiff_t(split.rows));
        next[split.worker] += split.rows;
    }
    result.shortlisted = (long long)shortlisted.size();
    rankSearchRows(shortlisted, options, perNode, result);
    if (progress && !result.cancelled)
        progress(1.0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace trainplan
