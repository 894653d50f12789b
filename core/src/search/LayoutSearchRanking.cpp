#include "search/LayoutSearchRanking.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace trainplan {

double objectiveValue(const SearchRow& row, SearchObjective objective)
{
    switch (objective) {
    case SearchObjective::Time: return row.totalSeconds;
    case SearchObjective::GpuHours: return row.gpuHours;
    case SearchObjective::Cost: return row.cost > 0 ? row.cost : row.gpuHours;
    }
    return row.totalSeconds;
}

std::array<int, 5> simplicityKey(const SearchLayout& s, int gpusPerNode)
{
    const int heavy = (s.pp > 1) + (s.zeroStage >= 3) + (s.cp > 1) + (s.tp > gpusPerNode);
    return {heavy, s.zeroStage, int(s.recompute), s.tp * s.pp * s.cp, s.virtualStages};
}

namespace {

// Pareto front of (memory, time): a row is on it when no row uses no more memory and no more
// time with one of the two strictly less. Sorted by memory, a row is on the front exactly when
// its time is the least among rows of its memory and below every row with less memory.
void markPareto(std::vector<SearchRow>& rows)
{
    std::vector<size_t> order(rows.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return rows[a].memoryBytes != rows[b].memoryBytes ? rows[a].memoryBytes < rows[b].memoryBytes
                                                          : rows[a].totalSeconds < rows[b].totalSeconds;
    });
    double bestBelow = std::numeric_limits<double>::infinity();  // least time at strictly less memory
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        const double memory = rows[order[i]].memoryBytes;
        const double least = rows[order[i]].totalSeconds;  // sorted: first of the group is the fastest
        while (j < order.size() && rows[order[j]].memoryBytes == memory) {
            SearchRow& r = rows[order[j]];
            r.pareto = r.totalSeconds == least && least < bestBelow;
            ++j;
        }
        bestBelow = std::min(bestBelow, least);
        i = j;
    }
}

}  // namespace

void rankSearchRows(std::vector<SearchRow>& fitting, const SearchOptions& options, int gpusPerNode, SearchResult& result)
{
    result.rows.clear();
    result.paretoCount = 0;
    if (fitting.empty())
        return;
    markPareto(fitting);

    size_t simplest = 0;
    for (size_t i = 1; i < fitting.size(); ++i) {
        const auto a = simplicityKey(fitting[i].layout, gpusPerNode), b = simplicityKey(fitting[simplest].layout, gpusPerNode);
        if (a < b || (a == b && objectiveValue(fitting[i], options.objective) < objectiveValue(fitting[simplest], options.objective)))
            simplest = i;
    }
    fitting[simplest].simplest = true;

    std::vector<size_t> order(fitting.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return objectiveValue(fitting[a], options.objective) < objectiveValue(fitting[b], options.objective);
    });
    for (size_t rank = 0; rank < order.size(); ++rank) {
        const SearchRow& row = fitting[order[rank]];
        result.paretoCount += row.pareto;
        if ((long long)rank < options.top || row.pareto || row.simplest)
            result.rows.push_back(row);
    }
}

}  // namespace trainplan
