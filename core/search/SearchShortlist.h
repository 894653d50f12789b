// Which of a search worker's fitting rows the ranking (LayoutSearchRanking.cpp) can still need,
// decided as the worker makes them. A search of an MoE model finds hundreds of thousands of
// fitting layouts and returns about a hundred; keeping every row cost a fifth of its time (fresh
// memory for each, then the serial ranking over all of them). A row is dropped only when rows
// the same worker already made prove that it cannot be shown:
//   - not on the Pareto front: a row made before uses no more memory and no more time, one of
//     them strictly less (markPareto's rule);
//   - not the simplest: a row of its tier made before has a smaller simplicity key, or the same
//     key and a better objective (the simplest is the first of equals, so a later equal loses);
//   - not in the best `top`, grouped or not: `top` rows made before, no two of which can ever
//     have the same figures (they differ in a field sameFigures() compares exactly), each rank
//     before it by tier or by more than kSameFiguresTolerance of its objective. Each of those
//     rows opens or joins a different group ahead of it, so `top` groups exist before it, and
//     none can take it as an equivalent: a group's first member ranks no later than the row
//     that proves it, so it lies in another tier or beyond the tolerance.
// What is dropped is only counted; tst_search compares shortlisted and full rankings.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/search/LayoutSearch.h"

namespace trainplan {

class SearchShortlist {
public:
    SearchShortlist(const SearchOptions& options, int gpusPerNode);

    // Call once per fitting row, in the order made, before its memory verdict is known (the
    // verdict costs an estimate of the range's heavy end): records the row on the front, and says
    // whether it could be shown with the best verdict there is (MemoryFit::Fits). False: the row
    // is dropped whatever its verdict, so it needs none.
    bool mayKeep(const SearchRow& row);
    // Then, with its verdict, for a row mayKeep() kept: whether the ranking may show it.
    bool keeps(const SearchRow& row);
    // Whether mayKeep() would drop this row and every row of the same layout, memory and flags
    // whose figures are no better (the objective and time only grow from it: each test below
    // is monotone in them); records nothing. Lets the search skip predicting a row whose step
    // it can bound from below (LayoutSearch.cpp, RecomputeBound).
    bool dropsAtLeastAsSlow(const SearchRow& row);

private:
    // A row's rank before the objective and the objective itself (smaller first).
    struct Rank {
        int tier = 0;
        double value = 0;
    };
    Rank rankOf(const SearchRow& row) const;
    using Front = std::map<double, double>;  // memory -> least time (front_)
    // Whether a row made before uses no more memory and no more time, one of them strictly less;
    // `at` is front_.lower_bound(memory), which the caller has looked up once.
    bool offFront(Front::const_iterator at, double memory, double seconds) const;
    // Records the row on the front unless offFront(); says whether it is on it.
    bool mayBeOnFront(double memory, double seconds);
    // Whether the row could be the simplest or ranked with the best memory verdict (records nothing).
    bool mayBeShownAtBestVerdict(const SearchRow& row);
    // These two record the row only when `record` is set: leaving a row out of the record only
    // keeps more rows later, never fewer.
    bool mayBeSimplest(const SearchRow& row, const Rank& rank, bool record);
    bool mayBeRanked(const SearchRow& row, const Rank& rank, bool record);
    // The fields sameFigures() compares exactly, packed: rows that differ in it never group.
    static std::uint64_t groupKey(const SearchLayout& layout);
    void updateBound();

    SearchOptions options_;
    int gpusPerNode_ = 1;
    bool onFront_ = false;  // what mayBeOnFront() said of the row mayKeep() last saw
    // The front so far: least time by memory, times strictly falling as memory grows.
    Front front_;
    struct Simplest {
        bool any = false;
        std::array<int, 5> key{};
        double value = 0;
    };
    std::vector<Simplest> simplestByTier_;
    // The best rank each group key has reached, and the `top`-th best of those (the bound a
    // row must come within), refreshed as keys improve.
    std::unordered_map<std::uint64_t, Rank> bestByKey_;
    bool hasBound_ = false;
    Rank bound_;
    size_t changesSinceBound_ = 0;
    std::vector<Rank> scratch_;
};

}  // namespace trainplan
