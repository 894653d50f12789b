#include "core/sizing/ClusterSizing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"
#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "core/presets/Presets.h"

namespace trainplan {

namespace {

constexpr long long kDefaultMaxGpus = 32768;
constexpr long long kLargestGpus = 1 << 20;  // a million GPUs: past any cluster built

bool finitePositive(double v)
{
    return std::isfinite(v) && v > 0;
}

// The options checked, each problem named by its option.
void validate(const Plan& plan, const SizingOptions& o)
{
    std::vector<PlanProblem> problems;
    if (!finitePositive(o.deadlineDays))
        problems.push_back({"sizing.deadline_days", "a deadline in days, above 0, is required"});
    if (o.budgetUsd && !finitePositive(*o.budgetUsd))
        problems.push_back({"sizing.budget_usd", "a budget is dollars above 0"});
    if (o.minGpus < 0 || o.maxGpus < 0 || o.maxGpus > kLargestGpus || (o.maxGpus > 0 && o.minGpus > o.maxGpus))
        problems.push_back({"sizing.gpus", "a range MIN:MAX of GPU counts with 0 < MIN <= MAX <= 1,048,576"});
    if (o.maxGlobalBatchTokens && !finitePositive(*o.maxGlobalBatchTokens))
        problems.push_back({"sizing.max_global_batch_tokens", "tokens per step above 0"});
    else if (o.maxGlobalBatchTokens
        && *o.maxGlobalBatchTokens < double(plan.training.globalBatchSequences) * double(plan.model.sequenceLength))
        problems.push_back({"sizing.max_global_batch_tokens", "below the plan's own global batch of "
                + formatInteger(double(plan.training.globalBatchSequences) * double(plan.model.sequenceLength)) + " tokens"});
    if (!(o.scalingThreshold > 0 && o.scalingThreshold <= 1))
        problems.push_back({"sizing.scaling_threshold", "a fraction in (0, 1]"});
    for (size_t i = 0; i < o.accelerators.size(); ++i) {
        const SizingCandidate& c = o.accelerators[i];
        const std::string path = "sizing.accelerators[" + std::to_string(i) + "]";
        if (!c.accelerator.empty()) {
            const auto match = matchAcceleratorPreset(c.accelerator);
            if (!match.preset) {
                std::string names;
                for (const auto& n : match.candidates)
                    names += (names.empty() ? "" : ", ") + n;
                problems.push_back({path, (match.ambiguous ? "\"" + c.accelerator + "\" could be " + names
                                                           : "no accelerator preset \"" + c.accelerator + "\" (presets: " + names + ")")});
            }
        }
        if (c.pricePerGpuHourUsd && !finitePositive(*c.pricePerGpuHourUsd))
            problems.push_back({path + ".price_per_gpu_hour_usd", "dollars per GPU-hour above 0"});
    }
    if (!problems.empty())
        throw PlanError(std::move(problems));
}

// The plan on one candidate part and GPU count, DP following; the price the candidate names,
// else the plan's when the part is the plan's own, else none.
Plan candidatePlan(const Plan& plan, const SizingCandidate& c, int gpus)
{
    Plan p = plan;
    if (!c.accelerator.empty()) {
        const AcceleratorPreset& preset = *matchAcceleratorPreset(c.accelerator).preset;
        if (preset.name != plan.cluster.accelerator) {
            applyAccelerator(preset, p.cluster);
            p.cost.pricePerGpuHourUsd.reset();
            p.cluster.calibration.reset();  // a calibration names the part it was measured on
        }
    }
    if (c.pricePerGpuHourUsd)
        p.cost.pricePerGpuHourUsd = c.pricePerGpuHourUsd;
    p.cluster.gpus = gpus;
    p.layout.dpAuto = true;
    return p;
}

std::string acceleratorName(const Plan& plan, const SizingCandidate& c)
{
    return c.accelerator.empty() ? plan.cluster.accelerator : matchAcceleratorPreset(c.accelerator).preset->name;
}

SizingPoint sizePoint(const Plan& plan, const SizingCandidate& c, int gpus, const SizingOptions& o, long long& evaluated)
{
    SizingPoint point;
    point.accelerator = acceleratorName(plan, c);
    point.gpus = gpus;
    const Plan p = candidatePlan(plan, c, gpus);
    SearchOptions search;
    search.top = 1;
    if (o.maxGlobalBatchTokens) {
        search.minGlobalBatch = p.training.globalBatchSequences;
        search.maxGlobalBatch = std::max<long long>(p.training.globalBatchSequences,
            static_cast<long long>(std::floor(*o.maxGlobalBatchTokens / double(p.model.sequenceLength))));
    }
    const SearchResult found = searchLayouts(p, search);
    evaluated += found.evaluated;
    if (found.rows.empty() || found.rows.front().memoryFit == MemoryFit::DoesNotFit)
        return point;
    point.layout = found.rows.front().layout;
    const Analysis a = analyse(withSearchLayout(p, point.layout));
    const double step = a.predicted.stepSeconds;
    if (!finitePositive(step) || !finitePositive(a.atPredictedMfu.reliability.paddedDays))
        return point;
    point.usable = true;
    point.days = a.atPredictedMfu.reliability.paddedDays;
    // The predicted range's ends scale the run as they scale the step (range.high is the fast end).
    point.daysLow = point.days * a.predicted.range.high.stepSeconds / step;
    point.daysHigh = point.days * a.predicted.range.low.stepSeconds / step;
    point.gpuHours = a.costAtPredicted.gpuHoursWithFailures;
    point.usd = a.costAtPredicted.usdWithFailures;
    if (a.costAtPredicted.energyJoulesWithFailures)
        point.mwh = *a.costAtPredicted.energyJoulesWithFailures / units::MWh;
    point.mfu = a.predicted.mfu;
    point.batchLimited = a.estimate.pipeline.microbatches <= std::max(1, point.layout.pp);
    return point;
}

double costOf(const SizingPoint& p, bool dollars)
{
    return dollars ? p.usd.value_or(0) : p.gpuHours;
}

std::string money(double usd)
{
    return "$" + formatCount(usd);
}

std::string days(double d)
{
    return formatNumber(d) + " days";
}

std::string costText(const SizingPoint& p, bool dollars)
{
    return dollars ? money(*p.usd) : formatInteger(p.gpuHours) + " GPU-hours";
}

std::string gpusText(int gpus)
{
    return formatInteger(gpus);
}

void explain(SizingResult& r, const Plan& plan)
{
    const bool dollars = r.costInDollars;
    std::vector<std::string> accelerators;
    for (const auto& p : r.points)
        if (std::find(accelerators.begin(), accelerators.end(), p.accelerator) == accelerators.end())
            accelerators.push_back(p.accelerator);
    const auto cheapestOf = [&](const std::string& acc) -> const SizingPoint* {
        const SizingPoint* best = nullptr;
        for (const auto& p : r.points)
            if (p.accelerator == acc && p.usable && p.meetsDeadline && p.withinBudget && (!best || costOf(p, dollars) < costOf(*best, dollars)))
                best = &p;
        return best;
    };
    const auto fastestOf = [&](const std::string* acc) -> const SizingPoint* {
        const SizingPoint* best = nullptr;
        for (const auto& p : r.points)
            if ((!acc || p.accelerator == *acc) && p.usable && (!best || p.days < best->days))
                best = &p;
        return best;
    };
    if (r.cheapest) {
        const SizingPoint& c = r.points[*r.cheapest];
        std::string s = gpusText(c.gpus) + " " + c.accelerator + ": " + days(c.days) + " (" + formatNumber(c.daysLow) + "-"
            + formatNumber(c.daysHigh) + "), " + costText(c, dollars) + ", the cheapest that meets the " + formatNumber(r.deadlineDays)
            + "-day deadline";
        // The next larger count of the same part: what more GPUs would buy.
        for (const auto& p : r.points)
            if (p.accelerator == c.accelerator && p.usable && p.gpus > c.gpus) {
                const double saved = c.days - p.days, more = costOf(p, dollars) - costOf(c, dollars);
                if (saved > 0)
                    s += "; " + gpusText(p.gpus) + " would save " + days(saved) + " for "
                        + (dollars ? money(std::fabs(more)) : formatInteger(std::fabs(more)) + " GPU-hours") + (more >= 0 ? " more" : " less");
                break;
            }
        r.sentences.push_back(s + ".");
        for (const auto& acc : accelerators) {
            if (acc == c.accelerator)
                continue;
            if (const SizingPoint* other = cheapestOf(acc))
                r.sentences.push_back(acc + " reaches the deadline with " + gpusText(other->gpus) + " GPUs for " + costText(*other, dollars) + ".");
            else if (const SizingPoint* fastest = fastestOf(&acc))
                r.sentences.push_back(acc + " does not reach the deadline" + std::string(r.budgetUsd ? " within the budget" : "") + ": its fastest is "
                    + days(fastest->days) + " with " + gpusText(fastest->gpus) + " GPUs.");
            else
                r.sentences.push_back(acc + ": no layout fits at any GPU count sized.");
        }
    } else if (const SizingPoint* fastest = fastestOf(nullptr)) {
        r.sentences.push_back("No configuration meets the " + formatNumber(r.deadlineDays) + "-day deadline"
            + std::string(r.budgetUsd ? " within the budget" : "") + ": the fastest is " + gpusText(fastest->gpus) + " "
            + fastest->accelerator + " at " + days(fastest->days) + " (" + formatNumber(fastest->daysLow) + "-"
            + formatNumber(fastest->daysHigh) + ").");
        if (fastest->batchLimited)
            r.sentences.push_back("Its global batch of " + formatInteger(double(fastest->layout.globalBatch) * plan.model.sequenceLength)
                + " tokens leaves no micro-batches to spread over more data-parallel GPUs: the deadline needs a larger batch than that"
                  " (raise the maximum global batch, or the plan's).");
    } else {
        r.sentences.push_back("No layout of this model fits on any accelerator and GPU count sized.");
    }
    for (const auto& p : r.points)
        if (p.knee)
            r.sentences.push_back(p.accelerator + ": beyond " + gpusText(p.gpus) + " GPUs the next step up buys less than "
                + formatPercent(r.scalingThreshold, 0) + " of its ideal speed-up.");
    r.sentences.push_back(formatNumber(r.tokensPerParameter) + " tokens per " + (r.moeActiveParameters ? "active " : "")
        + "parameter, against the compute-optimal ~20 of Hoffmann et al. 2022 (Chinchilla): "
        + trainingRegimeText(trainingRegime(r.tokensPerParameter)) + ".");
}

}  // namespace

std::vector<int> sizingGpuCounts(int gpusPerNode, long long minGpus, long long maxGpus)
{
    const long long node = std::max(1, gpusPerNode);
    const long long lo = std::max<long long>(minGpus > 0 ? minGpus : node, 1);
    const long long hi = maxGpus > 0 ? maxGpus : kDefaultMaxGpus;
    std::vector<int> counts;
    // Nodes in 1-1.5-2 steps: 1, 2, 3, 4, 6, 8, 12, 16, … (how clusters are quoted and bought).
    for (long long power = 1; power * node <= hi; power *= 2)
        for (long long nodes : {power, power * 3 / 2})
            if (nodes >= 1 && (nodes == power || power >= 2) && nodes * node >= lo && nodes * node <= hi)
                counts.push_back(int(nodes * node));
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}

Plan planForPoint(const Plan& plan, const SizingPoint& point, const SizingOptions& options)
{
    SizingCandidate candidate{point.accelerator, std::nullopt};
    for (const auto& c : options.accelerators)
        if (acceleratorName(plan, c) == point.accelerator)
            candidate = c;
    if (candidate.accelerator == plan.cluster.accelerator)
        candidate.accelerator.clear();
    return withSearchLayout(candidatePlan(plan, candidate, point.gpus), point.layout);
}

SizingResult sizeCluster(const Plan& plan, const SizingOptions& options, std::atomic<bool>* cancel, const std::function<void(double)>& progress)
{
    validate(plan, options);
    const auto start = std::chrono::steady_clock::now();
    std::vector<SizingCandidate> candidates = options.accelerators;
    if (candidates.empty())
        candidates.push_back({});
    struct Task {
        size_t candidate;
        int gpus;
    };
    std::vector<Task> tasks;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const int perNode = candidates[i].accelerator.empty() ? plan.cluster.gpusPerNode
                                                              : candidatePlan(plan, candidates[i], plan.cluster.gpus).cluster.gpusPerNode;
        for (int gpus : sizingGpuCounts(perNode, options.minGpus, options.maxGpus))
            tasks.push_back({i, gpus});
    }
    SizingResult r;
    r.deadlineDays = options.deadlineDays;
    r.budgetUsd = options.budgetUsd;
    r.scalingThreshold = options.scalingThreshold;
    r.points.resize(tasks.size());
    // Points are independent searches: spread them over the cores, largest first (they take longest).
    std::atomic<size_t> next{0}, done{0};
    std::atomic<long long> evaluated{0};
    std::vector<size_t> order(tasks.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tasks[a].gpus > tasks[b].gpus; });
    const auto work = [&] {
        long long mine = 0;
        for (size_t k; (k = next++) < order.size();) {
            if (cancel && cancel->load())
                break;
            const Task& t = tasks[order[k]];
            r.points[order[k]] = sizePoint(plan, candidates[t.candidate], t.gpus, options, mine);
            ++done;
        }
        evaluated += mine;
    };
    const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(tasks.size())));
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads; ++i)
        pool.emplace_back(work);
    if (progress) {
        // The calling thread reports while the others work, then joins in.
        std::thread reporter([&] { work(); });
        while (done.load() < tasks.size() && !(cancel && cancel->load()) && next.load() <= order.size()) {
            progress(double(done.load()) / std::max<size_t>(1, tasks.size()));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (next.load() >= order.size() && done.load() >= tasks.size())
                break;
        }
        reporter.join();
        progress(1.0);
    } else {
        work();
    }
    for (auto& t : pool)
        t.join();
    r.cancelled = cancel && cancel->load();
    r.layoutsEvaluated = evaluated.load();

    // Verdicts: deadline and budget, then by accelerator the marginal efficiency, knee and front.
    r.costInDollars = std::all_of(r.points.begin(), r.points.end(), [](const SizingPoint& p) { return !p.usable || p.usd; })
        && std::any_of(r.points.begin(), r.points.end(), [](const SizingPoint& p) { return p.usable; });
    for (auto& p : r.points) {
        p.meetsDeadline = p.usable && p.days <= options.deadlineDays;
        p.withinBudget = !options.budgetUsd || (p.usd && *p.usd <= *options.budgetUsd);
    }
    // The front first: no point of the same part both no slower and no dearer.
    for (auto& p : r.points) {
        if (!p.usable)
            continue;
        p.pareto = true;
        for (const auto& q : r.points)
            if (&q != &p && q.usable && q.accelerator == p.accelerator && q.days <= p.days && costOf(q, r.costInDollars) <= costOf(p, r.costInDollars)
                && (q.days < p.days || costOf(q, r.costInDollars) < costOf(p, r.costInDollars)))
                p.pareto = false;
    }
    // Scaling against the best one could do with fewer GPUs of the same part (the fastest smaller
    // point), so an awkward 1.5x count does not read as the end of scaling; 1 for the smallest.
    for (auto& p : r.points) {
        if (!p.usable)
            continue;
        const SizingPoint* best = nullptr;
        for (const auto& q : r.points)
            if (q.usable && q.accelerator == p.accelerator && q.gpus < p.gpus && (!best || q.days < best->days))
                best = &q;
        p.marginalEfficiency = best ? (best->days / p.days) / (double(p.gpus) / best->gpus) : 1.0;
    }
    // Where adding GPUs stops paying: the last point of the front before the first front point
    // whose step up buys less than the threshold of its ideal speed-up.
    std::vector<std::string> kneeDone;
    for (size_t i = 0; i < r.points.size(); ++i) {
        const SizingPoint& p = r.points[i];
        if (!p.pareto || p.marginalEfficiency >= options.scalingThreshold
            || std::find(kneeDone.begin(), kneeDone.end(), p.accelerator) != kneeDone.end())
            continue;
        kneeDone.push_back(p.accelerator);
        for (size_t j = i; j-- > 0;)
            if (r.points[j].accelerator == p.accelerator && r.points[j].pareto) {
                r.points[j].knee = true;
                break;
            }
    }
    for (size_t i = 0; i < r.points.size(); ++i) {
        const SizingPoint& p = r.points[i];
        if (!p.meetsDeadline || !p.withinBudget)
            continue;
        if (!r.cheapest || costOf(p, r.costInDollars) < costOf(r.points[*r.cheapest], r.costInDollars)
            || (costOf(p, r.costInDollars) == costOf(r.points[*r.cheapest], r.costInDollars) && p.days < r.points[*r.cheapest].days))
            r.cheapest = i;
    }
    // Tokens per parameter: the study's models are dense, so a MoE plan counts its active parameters.
    const Analysis base = analyse(plan);
    r.moeActiveParameters = base.estimate.parameters.active < base.estimate.parameters.total;
    r.tokensPerParameter = tokensPerParameter(plan.training.tokens, base.estimate.parameters);
    explain(r, plan);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

namespace {

// One candidate as interfaces.md names its keys (accelerator, gpus, layout, days, days_range,
// gpu_hours, cost_usd, meets_deadline, pareto), with the rest of the point beside them.
nlohmann::json candidateJson(const SizingPoint& p)
{
    using nlohmann::json;
    json o = {{"accelerator", p.accelerator}, {"gpus", p.gpus}, {"usable", p.usable}};
    if (p.usable) {
        o["layout"] = searchLayoutToJson(p.layout);
        o["days"] = p.days;
        o["days_range"] = {{"fewest", p.daysLow}, {"most", p.daysHigh}};
        o["gpu_hours"] = p.gpuHours;
        // Unknown figures are left out, never null, as in estimate --json's cost section.
        if (p.usd)
            o["cost_usd"] = *p.usd;
        if (p.mwh)
            o["mwh"] = *p.mwh;
        o["mfu"] = p.mfu;
        o["marginal_efficiency"] = p.marginalEfficiency;
        o["batch_limited"] = p.batchLimited;
    }
    o["meets_deadline"] = p.meetsDeadline;
    o["within_budget"] = p.withinBudget;
    o["pareto"] = p.pareto;
    o["knee"] = p.knee;
    return o;
}

}  // namespace

nlohmann::json sizingToJson(const SizingResult& r)
{
    using nlohmann::json;
    json candidates = json::array();
    for (const auto& p : r.points)
        candidates.push_back(candidateJson(p));
    json size = {{"basis", "predicted, with failures"}, {"deadline_days", r.deadlineDays}, {"cost_basis", r.costInDollars ? "usd" : "gpu_hours"},
        {"scaling_threshold", r.scalingThreshold}, {"candidates", candidates}, {"sentences", r.sentences},
        {"tokens_per_parameter", r.tokensPerParameter}, {"chinchilla_tokens_per_parameter", kChinchillaTokensPerParameter},
        {"tokens_per_parameter_counts", r.moeActiveParameters ? "active" : "total"},
        {"layouts_evaluated", r.layoutsEvaluated}, {"seconds", r.seconds}, {"cancelled", r.cancelled}};
    if (r.budgetUsd)
        size["budget_usd"] = *r.budgetUsd;
    if (r.cheapest) {
        size["cheapest_meeting_deadline"] = candidateJson(r.points[*r.cheapest]);
        size["cheapest_meeting_deadline"]["index"] = *r.cheapest;
    } else {
        // The explanation's first sentence says why (no configuration meets it, or nothing fits).
        size["cheapest_meeting_deadline"] = nullptr;
        size["no_candidate_reason"] = r.sentences.empty() ? std::string("no configuration was sized") : r.sentences.front();
    }
    return json{{"format", "trainplan.sizing"}, {"version", 2}, {"size", size}};
}

std::string sizingToText(const SizingResult& r)
{
    std::ostringstream out;
    out << "Sizing: " << formatInteger(double(r.points.size())) << " configurations, " << formatInteger(double(r.layoutsEvaluated))
        << " layouts searched, " << formatSeconds(r.seconds) << "; wall time predicted, with failures; deadline "
        << formatNumber(r.deadlineDays) << " days" << (r.budgetUsd ? ", budget " + money(*r.budgetUsd) : std::string()) << "\n\n";
    for (const auto& s : r.sentences)
        out << s << "\n";
    std::string accelerator;
    for (size_t i = 0; i < r.points.size(); ++i) {
        const SizingPoint& p = r.points[i];
        if (p.accelerator != accelerator) {
            accelerator = p.accelerator;
            out << "\n" << accelerator << "\n"
                << std::left << std::setw(9) << "GPUs" << std::setw(26) << "layout" << std::setw(24) << "days (range)" << std::setw(14)
                << (r.costInDollars ? "cost" : "GPU-hours") << std::setw(11) << "MWh" << std::setw(8) << "MFU" << std::setw(8) << "scaling"
                << "marks\n";
        }
        out << std::left << std::setw(9) << formatInteger(p.gpus);
        if (!p.usable) {
            out << "no layout fits\n";
            continue;
        }
        const SearchLayout& l = p.layout;
        std::string layout = "TP " + std::to_string(l.tp) + " PP " + std::to_string(l.pp) + " DP " + std::to_string(l.dp);
        if (l.cp > 1)
            layout += " CP " + std::to_string(l.cp);
        if (l.ep > 1)
            layout += " EP " + std::to_string(l.ep);
        std::string marks;
        if (r.cheapest && *r.cheapest == i)
            marks += "CHEAPEST ";
        marks += p.meetsDeadline ? "deadline " : "late ";
        if (r.budgetUsd && !p.withinBudget)
            marks += "over-budget ";
        if (p.pareto)
            marks += "pareto ";
        if (p.knee)
            marks += "knee ";
        if (p.batchLimited)
            marks += "batch-limited ";
        out << std::setw(26) << layout
            << std::setw(24) << (formatNumber(p.days) + " (" + formatNumber(p.daysLow) + "-" + formatNumber(p.daysHigh) + ")")
            << std::setw(14) << (r.costInDollars ? money(*p.usd) : formatInteger(p.gpuHours)) << std::setw(11)
            << (p.mwh ? formatNumber(*p.mwh) : std::string("-")) << std::setw(8) << formatPercent(p.mfu) << std::setw(8)
            << formatPercent(p.marginalEfficiency, 0) << marks << "\n";
    }
    return out.str();
}

}  // namespace trainplan
