// libFuzzer target: the layout search (search/LayoutSearch.h) on a plan read from the input, with
// options from the input's "fuzz" object (FuzzChecks.h readPlanInput): objective, cost, top,
// batch range, grouping, the margin, TP across nodes and the dimension limits. Each input stays
// well under 100 ms: the dimension limits are clamped small, and an input whose search would
// estimate more than kMaxCandidates layouts is left out (and kept out of the corpus). Rejection
// (PlanError) is fine; an exception, a sanitizer report, a non-finite figure or a result that
// breaks the header's promises aborts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzChecks.h"
#include "core/estimate/Estimate.h"
#include "core/presets/Presets.h"
#include "core/search/LayoutSearch.h"
#include "core/text/TextReport.h"

namespace {

// Layouts a search may estimate per input: about 5 us each under the sanitizers, so an input
// stays around 40 ms. Inputs whose search space is larger are left out of the run and the corpus.
constexpr long long kMaxCandidates = 8000;

using fuzzchecks::fail;

trainplan::SearchOptions searchOptionsFrom(const nlohmann::json& o)
{
    trainplan::SearchOptions s;
    const std::string objective = fuzzchecks::optionText(o, "objective", "time");
    s.objective = objective == "cost" ? trainplan::SearchObjective::Cost
                  : objective == "gpu-hours" ? trainplan::SearchObjective::GpuHours
                                             : trainplan::SearchObjective::Time;
    s.costPerGpuHour = fuzzchecks::optionNumber(o, "cost_per_gpu_hour", 0, 1e6, 0);
    s.top = int(fuzzchecks::optionNumber(o, "top", -1, 60, 20));
    s.minGlobalBatch = (long long)fuzzchecks::optionNumber(o, "min_batch", 0, 1 << 16, 0);
    s.maxGlobalBatch = (long long)fuzzchecks::optionNumber(o, "max_batch", 0, 1 << 16, 0);
    s.allowTpAcrossNodes = fuzzchecks::optionBool(o, "tp_across_nodes", true);
    s.requireMemoryMargin = fuzzchecks::optionBool(o, "require_margin", true);
    s.groupEquivalents = fuzzchecks::optionBool(o, "group", true);
    s.maxTp = int(fuzzchecks::optionNumber(o, "max_tp", 1, 16, 8));
    s.maxCp = int(fuzzchecks::optionNumber(o, "max_cp", 1, 4, 2));
    s.maxVirtualStages = int(fuzzchecks::optionNumber(o, "max_virtual_stages", 1, 4, 2));
    s.maxMicroBatch = int(fuzzchecks::optionNumber(o, "max_micro_batch", 1, 8, 4));
    return s;
}

// How many layouts searchLayouts() will estimate at most: its loops (LayoutSearch.cpp) without
// the estimates, so an input is judged before it is run.
long long candidateLayouts(const trainplan::Plan& plan, const trainplan::SearchOptions& o)
{
    const long long gpus = plan.cluster.gpus;
    const auto& m = plan.model;
    long long n = 0;
    for (long long tp = 1; tp <= std::min<long long>(gpus, o.maxTp); ++tp) {
        if (gpus % tp != 0 || m.attentionHeads % tp != 0 || (m.kvHeads % tp != 0 && tp % m.kvHeads != 0))
            continue;
        for (long long cp = 1; cp <= o.maxCp; cp *= 2) {
            if (m.sequenceLength % cp != 0 || gpus % (tp * cp) != 0)
                continue;
            for (long long pp = 1; pp <= std::min<long long>(gpus / (tp * cp), m.layers); ++pp) {
                if ((gpus / (tp * cp)) % pp != 0)
                    continue;
                const long long dp = gpus / (tp * cp * pp);
                std::vector<long long> batches;
                if (o.minGlobalBatch <= 0 && o.maxGlobalBatch <= 0) {
                    if (plan.training.globalBatchSequences % dp == 0)
                        batches.push_back(plan.training.globalBatchSequences);
                } else {
                    const long long low = std::max(1LL, o.minGlobalBatch), high = o.maxGlobalBatch > 0 ? o.maxGlobalBatch : low;
                    for (long long b = dp; b <= high; b *= 2)
                        if (b >= low)
                            batches.push_back(b);
                }
                long long stages = 1;  // virtual stages tried: 1, and those that divide the layers
                for (long long v = 2; pp > 1 && v <= o.maxVirtualStages; ++v)
                    stages += m.layers % (pp * v) == 0;
                for (long long b : batches)
                    for (long long micro = 1; micro <= o.maxMicroBatch; ++micro)
                        if ((b / dp) % micro == 0)
                            n += stages * (tp > 1 ? 2 : 1) * 4 * 3;
                if (n > kMaxCandidates)
                    return n;
            }
        }
    }
    return n;
}

// The largest MFU a layout can honestly reach. MFU counts model FLOPs against the BF16 peak
// (docs/plan-format.md) also when the layers' GEMMs run in FP8 or FP4, so the faster format's peak
// over the BF16 one bounds it; and the dense count takes the attention core unmasked (12 L h s per
// token, Narayanan et al. 2021, Eq. 3) where a causal kernel computes at least half of it, so at
// long sequences and with efficiencies near 1 (cluster.efficiency.*) the count can pass the work.
double mfuBound(const trainplan::Plan& plan)
{
    const double formatPeak = plan.training.matmulPrecision == trainplan::MatmulPrecision::Bf16
        ? 0.0
        : trainplan::formatPeakFlopsPerGpu(plan.cluster, plan.training.matmulPrecision);
    const trainplan::FlopsEstimate flops = trainplan::estimate(plan).flops;
    const double performedAtLeast = flops.total - 0.5 * flops.attention;
    const double counting = performedAtLeast > 0 ? flops.total / performedAtLeast : 2.0;
    return std::max(1.0, formatPeak / plan.cluster.peakFlopsPerGpu) * counting;
}

void checkRow(const trainplan::SearchRow& row, const trainplan::Plan& plan, const trainplan::SearchOptions& options, double maxMfu, size_t i)
{
    const std::string at = "search row " + std::to_string(i) + ": ";
    const auto& l = row.layout;
    for (double v : {row.stepSeconds, row.totalSeconds, row.mfu, row.memoryBytes, row.headroomBytes, row.gpuHours, row.cost})
        if (!std::isfinite(v))
            fail(at + "a figure is not finite");
    if (!(row.stepSeconds > 0) || !(row.totalSeconds > 0) || !(row.memoryBytes > 0) || !(row.gpuHours > 0) || row.cost < 0)
        fail(at + "a step, run time, memory or GPU-hours that is not positive");
    if (!(row.mfu > 0 && row.mfu <= maxMfu + 1e-9))
        fail(at + "MFU " + std::to_string(row.mfu) + " is outside (0, " + std::to_string(maxMfu) + "]");
    if ((long long)l.tp * l.pp * l.dp * l.cp != plan.cluster.gpus)
        fail(at + "TP x PP x DP x CP is not the cluster's GPUs");
    if (l.tp > options.maxTp || l.cp > options.maxCp || l.virtualStages > options.maxVirtualStages || l.microBatch > options.maxMicroBatch)
        fail(at + "a dimension beyond the search's limits");
    if (l.microBatch < 1 || l.globalBatch % ((long long)l.dp * l.microBatch) != 0)
        fail(at + "the global batch is not a whole number of micro-batches per replica");
    if (options.requireMemoryMargin && row.withinMargin)
        fail(at + "a layout under the memory margin although the margin is required");
    if (!options.allowTpAcrossNodes && row.tpAcrossNodes)
        fail(at + "TP across nodes although not allowed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    trainplan::Plan plan;
    nlohmann::json optionsJson;
    if (!fuzzchecks::readPlanInput(data, size, plan, optionsJson))
        return 0;
    const trainplan::SearchOptions options = searchOptionsFrom(optionsJson);
    if (candidateLayouts(plan, options) > kMaxCandidates)
        return -1;  // too slow for a fuzz input; not added to the corpus

    double lastProgress = -1;
    const trainplan::SearchResult r = trainplan::searchLayouts(plan, options, nullptr, [&](double fraction) {
        if (!(fraction >= 0 && fraction <= 1) || fraction < lastProgress)
            fail("search progress " + std::to_string(fraction) + " after " + std::to_string(lastProgress));
        lastProgress = fraction;
    });

    if (r.cancelled)
        fail("a search nobody cancelled says it was cancelled");
    if (r.evaluated < 0 || r.fitting < 0 || r.underMargin < 0 || r.fitting + r.underMargin > r.evaluated)
        fail("evaluated " + std::to_string(r.evaluated) + " < fitting " + std::to_string(r.fitting) + " + under margin "
            + std::to_string(r.underMargin));
    if (!std::isfinite(r.marginBytes) || !std::isfinite(r.seconds))
        fail("margin or seconds not finite");
    if ((r.fitting > 0) != !r.rows.empty())
        fail("fitting " + std::to_string(r.fitting) + " but " + std::to_string(r.rows.size()) + " rows");
    if (r.topRows() > r.rows.size() || r.top > std::max(0, options.top))
        fail("more ranked rows than asked for");
    if (r.grouped != options.groupEquivalents && !r.rows.empty())
        fail("grouped does not follow the option");

    size_t simplest = 0, pareto = 0;
    const double maxMfu = r.rows.empty() ? 1.0 : mfuBound(plan);
    for (size_t i = 0; i < r.rows.size(); ++i) {
        checkRow(r.rows[i], plan, options, maxMfu, i);
        simplest += r.rows[i].simplest;
        pareto += r.rows[i].pareto;
    }
    if (!r.rows.empty() && simplest != 1)
        fail(std::to_string(simplest) + " rows are marked simplest");
    if (pareto > size_t(r.paretoCount) || (!r.grouped && pareto != size_t(r.paretoCount)))
        fail(std::to_string(pareto) + " Pareto rows, pareto_count " + std::to_string(r.paretoCount));
    // The ranking is best first by tier (red flags, then the memory verdict: rankTier), then by the
    // objective (LayoutSearch.h: rows[0, top) are the ranking).
    const auto value = [&](const trainplan::SearchRow& row) {
        switch (options.objective) {
        case trainplan::SearchObjective::Time: return row.totalSeconds;
        case trainplan::SearchObjective::GpuHours: return row.gpuHours;
        case trainplan::SearchObjective::Cost: return row.cost > 0 ? row.cost : row.gpuHours;
        }
        return row.totalSeconds;
    };
    for (size_t i = 1; i < r.topRows(); ++i) {
        const int tier = trainplan::rankTier(r.rows[i], options.redFlags), before = trainplan::rankTier(r.rows[i - 1], options.redFlags);
        if (tier < before || (tier == before && value(r.rows[i]) < value(r.rows[i - 1])))
            fail("ranking out of order at row " + std::to_string(i));
    }
    for (const auto& e : r.equivalents)
        if (e.row >= r.rows.size())
            fail("an equivalent of a row that does not exist");

    fuzzchecks::requireDumpable(trainplan::searchToJson(r), "search");
    fuzzchecks::requireText(trainplan::searchToText(r), "search text");

    // "Apply" then save: the best layout applied to the plan is a plan the reader accepts.
    if (!r.rows.empty()) {
        try {
            trainplan::planFromJson(trainplan::planToJson(trainplan::withSearchLayout(plan, r.rows.front().layout)));
        } catch (const trainplan::PlanError& e) {
            fail(std::string("the best layout applied to the plan does not read back: ") + e.what());
        }
    }
    return 0;
}
