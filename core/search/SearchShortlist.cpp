#include "core/search/SearchShortlist.h"

#include <algorithm>

#include "core/search/LayoutSearchRanking.h"

namespace trainplan {

SearchShortlist::SearchShortlist(const SearchOptions& options, int gpusPerNode)
    : options_(options)
    , gpusPerNode_(gpusPerNode)
{
}

SearchShortlist::Rank SearchShortlist::rankOf(const SearchRow& row) const
{
    return Rank{rankTier(row, options_.redFlags), objectiveValue(row, options_.objective)};
}

bool SearchShortlist::mayKeep(const SearchRow& row)
{
    onFront_ = mayBeOnFront(row.memoryBytes, row.totalSeconds);
    return onFront_ || mayBeShownAtBestVerdict(row);
}

bool SearchShortlist::dropsAtLeastAsSlow(const SearchRow& row)
{
    return offFront(front_.lower_bound(row.memoryBytes), row.memoryBytes, row.totalSeconds) && !mayBeShownAtBestVerdict(row);
}

bool SearchShortlist::mayBeShownAtBestVerdict(const SearchRow& row)
{
    // The best verdict gives the best tier: a row out of reach even there is out of reach.
    SearchRow best = row;
    best.memoryFit = MemoryFit::Fits;
    const Rank rank = rankOf(best);
    return mayBeSimplest(best, rank, false) || mayBeRanked(best, rank, false);
}

bool SearchShortlist::keeps(const SearchRow& row)
{
    // Both see every row mayKeep() passed, so their records hold what can prove the others out.
    const Rank rank = rankOf(row);
    const bool simplest = mayBeSimplest(row, rank, true);
    const bool ranked = mayBeRanked(row, rank, true);
    return onFront_ || simplest || ranked;
}

bool SearchShortlist::offFront(Front::const_iterator at, double memory, double seconds) const
{
    // The entry below holds the least time of all rows with less memory (times fall along the
    // front); one at the same memory, the least time at it. An equal row is on the front too.
    return (at != front_.begin() && std::prev(at)->second <= seconds)
        || (at != front_.end() && at->first == memory && at->second < seconds);
}

bool SearchShortlist::mayBeOnFront(double memory, double seconds)
{
    auto at = front_.lower_bound(memory);
    if (offFront(at, memory, seconds))
        return false;
    if (at != front_.end() && at->first == memory) {
        at->second = seconds;  // no more than the time there (offFront), and equal rows are both kept
    } else {
        at = front_.emplace_hint(at, memory, seconds);
    }
    // Rows with more memory and no less time are off the front now.
    auto next = std::next(at);
    while (next != front_.end() && next->second >= seconds)
        next = front_.erase(next);
    return true;
}

bool SearchShortlist::mayBeSimplest(const SearchRow& row, const Rank& rank, bool record)
{
    if (size_t(rank.tier) >= simplestByTier_.size())
        simplestByTier_.resize(size_t(rank.tier) + 1);
    Simplest& best = simplestByTier_[size_t(rank.tier)];
    const auto key = simplicityKey(row.layout, gpusPerNode_);
    if (best.any && (key > best.key || (key == best.key && rank.value >= best.value)))
        return false;
    if (record)
        best = Simplest{true, key, rank.value};
    return true;
}

std::uint64_t SearchShortlist::groupKey(const SearchLayout& s)
{
    // Any function of the compared fields will do: rows with equal fields get equal keys, and a
    // collision only merges two keys' proof rows into one, which keeps more rows, never fewer.
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](long long v) {
        h ^= std::uint64_t(v);
        h *= 1099511628211ull;
        h ^= h >> 29;
    };
    forEachParallelDim([&](ParallelDim d) {
        if (!sharesWeights(d))
            mix(s.size(d));
    });
    mix(parallelSizeProduct(s, sharesWeights));
    mix(s.ep);
    mix(s.etp);
    mix(s.virtualStages);
    mix(s.zeroStage);
    mix(int(s.recompute));
    mix(s.sequenceParallel);
    mix(s.globalBatch);
    mix(int(s.schedule));
    return h;
}

bool SearchShortlist::mayBeRanked(const SearchRow& row, const Rank& rank, bool record)
{
    if (options_.top <= 0)
        return false;
    const bool before = hasBound_
        && (bound_.tier < rank.tier || (bound_.tier == rank.tier && bound_.value < rank.value * (1.0 - kSameFiguresTolerance)));
    if (!record)
        return !before;
    const auto [at, added] = bestByKey_.try_emplace(groupKey(row.layout), rank);
    const Rank& best = at->second;
    if (added || rank.tier < best.tier || (rank.tier == best.tier && rank.value < best.value)) {
        at->second = rank;
        if (++changesSinceBound_ >= std::max<size_t>(1024, bestByKey_.size()))
            updateBound();
    }
    return !before;
}

void SearchShortlist::updateBound()
{
    changesSinceBound_ = 0;
    const size_t top = size_t(options_.top);
    if (bestByKey_.size() < top)
        return;
    scratch_.clear();
    scratch_.reserve(bestByKey_.size());
    for (const auto& [key, rank] : bestByKey_)
        scratch_.push_back(rank);
    const auto order = [](const Rank& a, const Rank& b) { return a.tier != b.tier ? a.tier < b.tier : a.value < b.value; };
    std::nth_element(scratch_.begin(), scratch_.begin() + std::ptrdiff_t(top - 1), scratch_.end(), order);
    bound_ = scratch_[top - 1];
    hasBound_ = true;
}

}  // namespace trainplan
