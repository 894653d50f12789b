#include "search/LayoutSearchRanking.h"

#include <algorithm>
#include <limits>

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
    // Most rows are far from the front. Binning memory first (a bin of lower index holds only
    // rows of strictly less memory) rules out every row whose time some lower bin already
    // matches; only the rest are sorted. Rows on the front always pass the bins (a lower bin
    // at no more time would dominate them), and a passing row dominated by a dropped one is
    // also dominated by a row on the front, so the front of the rest is the front of all.
    constexpr size_t kBins = 1024;
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (SearchRow& r : rows) {
        r.pareto = false;
        lowest = std::min(lowest, r.memoryBytes);
        highest = std::max(highest, r.memoryBytes);
    }
    const double perBin = highest > lowest ? double(kBins) / (highest - lowest) : 0.0;
    const auto binOf = [&](double memory) { return std::min(kBins - 1, size_t((memory - lowest) * perBin)); };
    std::vector<double> fastest(kBins, std::numeric_limits<double>::infinity());
    for (const SearchRow& r : rows) {
        double& f = fastest[binOf(r.memoryBytes)];
        f = std::min(f, r.totalSeconds);
    }
    // fastest[k] becomes the least time over bins below k.
    double below = std::numeric_limits<double>::infinity();
    for (double& f : fastest) {
        const double own = f;
        f = below;
        below = std::min(below, own);
    }

    // Compact (memory, time, index) keys rather than indices into the rows: comparing through
    // the index touched two rows per compare.
    struct Key {
        double memory, seconds;
        size_t index;
    };
    std::vector<Key> keys;
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].totalSeconds < fastest[binOf(rows[i].memoryBytes)])
            keys.push_back(Key{rows[i].memoryBytes, rows[i].totalSeconds, i});
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return a.memory != b.memory ? a.memory < b.memory : a.seconds < b.seconds;
    });
    double bestBelow = std::numeric_limits<double>::infinity();  // least time at strictly less memory
    for (size_t i = 0; i < keys.size();) {
        size_t j = i;
        const double memory = keys[i].memory;
        const double least = keys[i].seconds;  // sorted: first of the group is the fastest
        while (j < keys.size() && keys[j].memory == memory) {
            SearchRow& r = rows[keys[j].index];
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

    // The simplest row: least simplicity key, then best objective (the first of equals).
    size_t simplest = 0;
    auto simplestKey = simplicityKey(fitting[0].layout, gpusPerNode);
    double simplestValue = objectiveValue(fitting[0], options.objective);
    for (size_t i = 1; i < fitting.size(); ++i) {
        const auto key = simplicityKey(fitting[i].layout, gpusPerNode);
        if (key > simplestKey)
            continue;
        const double value = objectiveValue(fitting[i], options.objective);
        if (key < simplestKey || value < simplestValue) {
            simplest = i;
            simplestKey = key;
            simplestValue = value;
        }
    }
    fitting[simplest].simplest = true;

    // Kept rows by objective, ties in their enumeration order (what a stable sort gives): the
    // `top` best, found with nth_element, plus the Pareto and simplest rows, then only those
    // sorted, on compact (value, index) keys whose index breaks ties. A search keeps tens of
    // thousands of rows and returns about a hundred, so this skips sorting all of them.
    struct Ranked {
        double value;
        size_t index;
    };
    const auto better = [](const Ranked& a, const Ranked& b) { return a.value != b.value ? a.value < b.value : a.index < b.index; };
    std::vector<Ranked> ranked(fitting.size());
    for (size_t i = 0; i < fitting.size(); ++i)
        ranked[i] = Ranked{objectiveValue(fitting[i], options.objective), i};
    const size_t top = size_t(std::clamp<long long>(options.top, 0, (long long)ranked.size()));
    if (top < ranked.size())
        std::nth_element(ranked.begin(), ranked.begin() + std::ptrdiff_t(top), ranked.end(), better);
    std::vector<Ranked> kept(ranked.begin(), ranked.begin() + std::ptrdiff_t(top));
    for (size_t i = top; i < ranked.size(); ++i) {
        const SearchRow& row = fitting[ranked[i].index];
        if (row.pareto || row.simplest)
            kept.push_back(ranked[i]);
    }
    std::sort(kept.begin(), kept.end(), better);
    for (const SearchRow& row : fitting)
        result.paretoCount += row.pareto;
    result.rows.reserve(kept.size());
    for (const Ranked& k : kept)
        result.rows.push_back(fitting[k.index]);
}

}  // namespace trainplan
