// search --json: the scripting contract (keys that must exist).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/base/Units.h"
#include "core/estimate/Warning.h"
#include "core/plan/EnumNames.h"
#include "core/search/LayoutSearch.h"

namespace trainplan {

namespace {

const char* objectiveName(SearchObjective o)
{
    switch (o) {
    case SearchObjective::Time: return "time";
    case SearchObjective::GpuHours: return "gpu_hours";
    case SearchObjective::Cost: return "cost";
    }
    return "time";
}

}  // namespace

nlohmann::json searchLayoutToJson(const SearchLayout& s)
{
    nlohmann::json out{{"virtual_stages", s.virtualStages},
        {"ep", s.ep},
        {"etp", s.etp},
        {"micro_batch", s.microBatch},
        {"zero", s.zeroStage},
        {"recompute", std::string(nameOf(kRecomputeNames, s.recompute))},
        {"sequence_parallel", s.sequenceParallel},
        {"global_batch", s.globalBatch},
        {"schedule", std::string(nameOf(kScheduleNames, s.schedule))}};
    for (ParallelDim d : kParallelDims)
        out[std::string(parallelDimKey(d))] = s.size(d);
    return out;
}

nlohmann::json searchToJson(const SearchResult& r)
{
    using nlohmann::json;
    // A row's group id is its place in r.rows (1-based), the same in every section; its
    // equivalents are the layouts with the same figures that were folded into it.
    const auto rowJson = [&](size_t index) {
        const SearchRow& row = r.rows[index];
        json equivalents = json::array();
        for (const SearchLayout& e : r.equivalentsOf(index))
            equivalents.push_back(searchLayoutToJson(e));
        json redFlags = json::array();
        for (int code = 0; code < kWarningCodeCount; ++code)
            if (row.redFlags & warningBit(WarningCode(code)))
                redFlags.push_back(codeName(WarningCode(code)));
        return json{
            {"layout", searchLayoutToJson(row.layout)},
            {"group", index + 1},
            {"equivalents", std::move(equivalents)},
            {"step_seconds", row.stepSeconds},
            {"mfu", row.mfu},
            {"memory_bytes", row.memoryBytes},
            {"headroom_bytes", row.headroomBytes},
            {"within_margin", row.withinMargin},
            {"gpu_hours", row.gpuHours},
            {"cost", row.cost},
            {"days", row.totalSeconds / units::secondsPerDay},
            {"pareto", row.pareto},
            {"simplest", row.simplest},
            {"tp_across_nodes", row.tpAcrossNodes},
            // The verdict the analysis gives this layout applied (docs/interfaces.md memory.verdict).
            {"memory", {{"verdict", memoryFitName(row.memoryFit)}}},
            {"red_flags", std::move(redFlags)},
        };
    };
    // results: the ranking, exactly `top` rows; the Pareto front and the simplest layout each
    // under their own key.
    json results = json::array(), front = json::array(), simplest = nullptr;
    for (size_t i = 0; i < r.topRows(); ++i)
        results.push_back(rowJson(i));
    std::vector<size_t> pareto;
    for (size_t i = 0; i < r.rows.size(); ++i) {
        if (r.rows[i].pareto)
            pareto.push_back(i);
        if (r.rows[i].simplest)
            simplest = rowJson(i);
    }
    std::stable_sort(pareto.begin(), pareto.end(), [&](size_t a, size_t b) { return r.rows[a].stepSeconds < r.rows[b].stepSeconds; });
    for (size_t i : pareto)
        front.push_back(rowJson(i));
    return json{{"search",
        {{"evaluated", r.evaluated}, {"pruned", r.pruned}, {"fitting", r.fitting}, {"under_margin", r.underMargin}, {"margin_bytes", r.marginBytes},
            {"red_flag_order", redFlagOrderName(r.redFlagOrder)}, {"hidden_red_flags", r.hiddenRedFlags}, {"seconds", r.seconds},
            {"cancelled", r.cancelled}, {"objective", objectiveName(r.objective)}, {"pareto_count", r.paretoCount}, {"grouped", r.grouped},
            {"results", std::move(results)}, {"pareto_front", std::move(front)}, {"simplest", std::move(simplest)}}}};
}

}  // namespace trainplan
