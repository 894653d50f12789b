#include "core/search/LayoutSearchRanking.h"

#include <algorithm>
#include <cmath>
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

namespace {

// Whether a dimension's size counts as a heavy mechanism (LayoutSearch.h, item 1): splitting the
// layers or the sequence at all, splitting the heads over the network; replicas never.
bool heavy(ParallelDim dim, int size, int gpusPerNode)
{
    switch (parallelDimInfo(dim).splits) {
    case DimSplits::Heads: return size > gpusPerNode;
    case DimSplits::Sequence:
    case DimSplits::Layers: return size > 1;
    case DimSplits::Batch: return false;
    }
    return false;
}

}  // namespace

std::array<int, 5> simplicityKey(const SearchLayout& s, int gpusPerNode)
{
    int mechanisms = s.zeroStage >= 3;
    forEachParallelDim([&](ParallelDim d) { mechanisms += heavy(d, s.size(d), gpusPerNode); });
    mechanisms += s.ep * s.etp > gpusPerNode;
    return {mechanisms, s.zeroStage, int(s.recompute), int(parallelSizeProduct(s, splitsReplica)), s.virtualStages};
}

namespace {

// Pareto front of (memory, time): a row is on it when no row uses no more memory and no more
// time with one of the two strictly less. Sorted by memory, a row is on the front exactly when
// its time is the least among rows of its memory and below every row with less memory.
void markPareto(const SearchRowRefs& rows)
{
    // Most rows are far from the front. Binning memory first (a bin of lower index holds only
    // rows of strictly less memory) rules out every row whose time some lower bin already
    // matches; only the rest are sorted. Rows on the front always pass the bins (a lower bin
    // at no more time would dominate them), and a passing row dominated by a dropped one is
    // also dominated by a row on the front, so the front of the rest is the front of all.
    constexpr size_t kBins = 1024;
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (SearchRow* rp : rows) {
        SearchRow& r = *rp;
        r.pareto = false;
        lowest = std::min(lowest, r.memoryBytes);
        highest = std::max(highest, r.memoryBytes);
    }
    const double perBin = highest > lowest ? double(kBins) / (highest - lowest) : 0.0;
    const auto binOf = [&](double memory) { return std::min(kBins - 1, size_t((memory - lowest) * perBin)); };
    std::vector<double> fastest(kBins, std::numeric_limits<double>::infinity());
    for (const SearchRow* r : rows) {
        double& f = fastest[binOf(r->memoryBytes)];
        f = std::min(f, r->totalSeconds);
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
        if (rows[i]->totalSeconds < fastest[binOf(rows[i]->memoryBytes)])
            keys.push_back(Key{rows[i]->memoryBytes, rows[i]->totalSeconds, i});
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return a.memory != b.memory ? a.memory < b.memory : a.seconds < b.seconds;
    });
    double bestBelow = std::numeric_limits<double>::infinity();  // least time at strictly less memory
    for (size_t i = 0; i < keys.size();) {
        size_t j = i;
        const double memory = keys[i].memory;
        const double least = keys[i].seconds;  // sorted: first of the group is the fastest
        while (j < keys.size() && keys[j].memory == memory) {
            SearchRow& r = *rows[keys[j].index];
            r.pareto = r.totalSeconds == least && least < bestBelow;
            ++j;
        }
        bestBelow = std::min(bestBelow, least);
        i = j;
    }
}

// A row's sort key: its tier (rankTier(): red flags, memory verdict) first, then the objective.
struct Ranked {
    int tier;
    double value;
    size_t index;
};

bool better(const Ranked& a, const Ranked& b)
{
    if (a.tier != b.tier)
        return a.tier < b.tier;
    return a.value != b.value ? a.value < b.value : a.index < b.index;
}

// Sorted rows folded into groups of sameFigures(). Rows with the same figures have objective
// values within the tolerance of each other, so a row is matched only against the groups whose
// first member's value lies within the tolerance below its own (groups begin in value order).
// Once `maxGroups` exist, later rows only fold into them, and the walk ends at the first row
// beyond the tolerance of the last group; returns whether it ended before the end of `sorted`.
struct Group {
    std::vector<size_t> members;  // indices into fitting, best rank first
    int tier = 0;                 // the members' tier (sameFigures() rows share it)
    double value = 0;             // the first member's objective value
};

bool foldGroups(const SearchRowRefs& fitting, const std::vector<Ranked>& sorted, size_t maxGroups, std::vector<Group>& groups)
{
    size_t window = 0;  // first group that can still take rows
    bool full = false;
    for (size_t i = 0; i < sorted.size(); ++i) {
        const double value = sorted[i].value;
        // Sorted by tier, then value: groups of a lower tier can take no more rows either.
        while (
            window < groups.size() && (groups[window].tier < sorted[i].tier || groups[window].value < value * (1 - kSameFiguresTolerance)))
            ++window;
        if (full && window == groups.size())
            return true;
        const SearchRow& row = *fitting[sorted[i].index];
        bool folded = false;
        for (size_t g = window; g < groups.size() && !folded; ++g) {
            if (sameFigures(*fitting[groups[g].members.front()], row)) {
                groups[g].members.push_back(sorted[i].index);
                folded = true;
            }
        }
        if (folded)
            continue;
        if (groups.size() >= maxGroups)
            full = true;
        else
            groups.push_back(Group{{sorted[i].index}, sorted[i].tier, value});
    }
    return false;
}

// The grouped ranking: the `top` best distinct options, then the Pareto and simplest rows not
// among them, each group shown by its simplest member (LayoutSearch.h's simplicity key; the best
// ranked among equals), the others as its equivalents.
void keepGrouped(const SearchRowRefs& fitting, std::vector<Ranked>& ranked, const SearchOptions& options, int gpusPerNode,
                 SearchResult& result)
{
    const size_t top = size_t(std::clamp<long long>(options.top, 0, (long long)ranked.size()));
    std::vector<Group> groups;
    std::vector<char> taken(fitting.size(), 0);
    if (top > 0) {
        // Sort a prefix large enough to hold `top` groups with all their members; grow it until
        // the walk stops inside it (or it is everything).
        size_t prefix = std::min(ranked.size(), top * 4 + 64);
        for (;;) {
            if (prefix < ranked.size())
                std::nth_element(ranked.begin(), ranked.begin() + std::ptrdiff_t(prefix), ranked.end(), better);
            std::sort(ranked.begin(), ranked.begin() + std::ptrdiff_t(prefix), better);
            groups.clear();
            const std::vector<Ranked> sorted(ranked.begin(), ranked.begin() + std::ptrdiff_t(prefix));
            if (foldGroups(fitting, sorted, top, groups) || prefix == ranked.size())
                break;
            prefix = std::min(ranked.size(), prefix * 2);
        }
        for (const Group& g : groups)
            for (size_t i : g.members)
                taken[i] = 1;
    }
    const size_t ranking = groups.size();
    std::vector<Ranked> flagged;
    for (const Ranked& r : ranked)
        if (!taken[r.index] && (fitting[r.index]->pareto || fitting[r.index]->simplest))
            flagged.push_back(r);
    std::sort(flagged.begin(), flagged.end(), better);
    // A Pareto row's equivalents share its memory and time, so they are Pareto too and fold here.
    foldGroups(fitting, flagged, std::numeric_limits<size_t>::max(), groups);

    result.grouped = true;
    result.rows.reserve(groups.size());
    result.top = int(std::min<size_t>(ranking, size_t(std::max(0, options.top))));
    // Each group shows its simplest member; the groups are then in the order of what they show,
    // the ranking first and the flagged rows after it, each part by objective.
    struct Shown {
        size_t group, member;
        Ranked key;
    };
    std::vector<Shown> shown;
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const Group& g = groups[gi];
        size_t best = 0;
        for (size_t k = 1; k < g.members.size(); ++k)
            if (simplicityKey(fitting[g.members[k]]->layout, gpusPerNode) < simplicityKey(fitting[g.members[best]]->layout, gpusPerNode))
                best = k;
        const SearchRow& row = *fitting[g.members[best]];
        shown.push_back(Shown{gi, best, Ranked{rankTier(row, options.redFlags), objectiveValue(row, options.objective), g.members[best]}});
    }
    const auto byShown = [](const Shown& a, const Shown& b) { return better(a.key, b.key); };
    std::sort(shown.begin(), shown.begin() + std::ptrdiff_t(ranking), byShown);
    std::sort(shown.begin() + std::ptrdiff_t(ranking), shown.end(), byShown);
    for (const Shown& sh : shown) {
        const Group& g = groups[sh.group];
        result.rows.push_back(*fitting[g.members[sh.member]]);
        for (size_t k = 0; k < g.members.size(); ++k)
            if (k != sh.member)
                result.equivalents.push_back(SearchEquivalent{result.rows.size() - 1, fitting[g.members[k]]->layout});
    }
}

}  // namespace

bool sameFigures(const SearchRow& a, const SearchRow& b)
{
    const SearchLayout& x = a.layout;
    const SearchLayout& y = b.layout;
    const auto close = [](double u, double v) { return std::abs(u - v) <= kSameFiguresTolerance * std::max(std::abs(u), std::abs(v)); };
    // Only the dimensions holding the same weights may trade sizes (their product is the
    // gradient group); every other dimension's size must be the same.
    for (ParallelDim d : kParallelDims)
        if (!sharesWeights(d) && x.size(d) != y.size(d))
            return false;
    return parallelSizeProduct(x, sharesWeights) == parallelSizeProduct(y, sharesWeights) && x.ep == y.ep && x.etp == y.etp
        && x.virtualStages == y.virtualStages
        && x.zeroStage == y.zeroStage && x.recompute == y.recompute && x.sequenceParallel == y.sequenceParallel
        && x.globalBatch == y.globalBatch && x.schedule == y.schedule && close(a.stepSeconds, b.stepSeconds)
        && close(a.totalSeconds, b.totalSeconds) && close(a.memoryBytes, b.memoryBytes) && close(a.mfu, b.mfu)
        && close(a.gpuHours, b.gpuHours) && close(a.cost, b.cost) && a.withinMargin == b.withinMargin && a.tpAcrossNodes == b.tpAcrossNodes
        && a.memoryFit == b.memoryFit && a.redFlags == b.redFlags && a.pareto == b.pareto;
}

int rankTier(const SearchRow& row, RedFlagOrder order)
{
    const int flagged = order == RedFlagOrder::Last && (row.redFlags & ~kFlagsTheSearchWeighs) != 0 ? 1 : 0;
    return flagged * 3 + int(row.memoryFit);
}

const char* redFlagOrderName(RedFlagOrder order)
{
    switch (order) {
    case RedFlagOrder::Last: return "last";
    case RedFlagOrder::Hide: return "hide";
    case RedFlagOrder::Mixed: return "mixed";
    }
    return "last";
}

std::optional<RedFlagOrder> redFlagOrderNamed(std::string_view name)
{
    for (RedFlagOrder order : {RedFlagOrder::Last, RedFlagOrder::Hide, RedFlagOrder::Mixed})
        if (name == redFlagOrderName(order))
            return order;
    return std::nullopt;
}

std::vector<SearchLayout> SearchResult::equivalentsOf(size_t row) const
{
    std::vector<SearchLayout> out;
    for (const SearchEquivalent& e : equivalents)
        if (e.row == row)
            out.push_back(e.layout);
    return out;
}

void rankSearchRows(const SearchRowRefs& fitting, const SearchOptions& options, int gpusPerNode, SearchResult& result)
{
    result.rows.clear();
    result.paretoCount = 0;
    if (fitting.empty())
        return;
    markPareto(fitting);

    // The simplest row: least simplicity key, then best objective (the first of equals), among the
    // rows of the best tier there is: a recommendation, so never a "may not fit" or red-flagged
    // layout while one without exists.
    int bestTier = rankTier(*fitting[0], options.redFlags);
    for (const SearchRow* row : fitting)
        bestTier = std::min(bestTier, rankTier(*row, options.redFlags));
    size_t simplest = 0;
    while (rankTier(*fitting[simplest], options.redFlags) != bestTier)
        ++simplest;
    auto simplestKey = simplicityKey(fitting[simplest]->layout, gpusPerNode);
    double simplestValue = objectiveValue(*fitting[simplest], options.objective);
    for (size_t i = simplest + 1; i < fitting.size(); ++i) {
        if (rankTier(*fitting[i], options.redFlags) != bestTier)
            continue;
        const auto key = simplicityKey(fitting[i]->layout, gpusPerNode);
        if (key > simplestKey)
            continue;
        const double value = objectiveValue(*fitting[i], options.objective);
        if (key < simplestKey || value < simplestValue) {
            simplest = i;
            simplestKey = key;
            simplestValue = value;
        }
    }
    fitting[simplest]->simplest = true;

    // Kept rows by objective, ties in their enumeration order (what a stable sort gives): the
    // `top` best, found with nth_element, plus the Pareto and simplest rows, then only those
    // sorted, on compact (value, index) keys whose index breaks ties. A search keeps tens of
    // thousands of rows and returns about a hundred, so this skips sorting all of them.
    std::vector<Ranked> ranked(fitting.size());
    for (size_t i = 0; i < fitting.size(); ++i)
        ranked[i] = Ranked{rankTier(*fitting[i], options.redFlags), objectiveValue(*fitting[i], options.objective), i};
    for (const SearchRow* row : fitting)
        result.paretoCount += row->pareto;
    if (options.groupEquivalents) {
        keepGrouped(fitting, ranked, options, gpusPerNode, result);
        return;
    }
    const size_t top = size_t(std::clamp<long long>(options.top, 0, (long long)ranked.size()));
    if (top < ranked.size())
        std::nth_element(ranked.begin(), ranked.begin() + std::ptrdiff_t(top), ranked.end(), better);
    std::vector<Ranked> kept(ranked.begin(), ranked.begin() + std::ptrdiff_t(top));
    for (size_t i = top; i < ranked.size(); ++i) {
        const SearchRow& row = *fitting[ranked[i].index];
        if (row.pareto || row.simplest)
            kept.push_back(ranked[i]);
    }
    std::sort(kept.begin(), kept.end(), better);
    result.rows.reserve(kept.size());
    for (const Ranked& k : kept)
        result.rows.push_back(*fitting[k.index]);
}

}  // namespace trainplan
