// Keeping the product of the parallel dimensions equal to the GPU count while a person moves one dimension:
// one chosen dimension (or the GPU count itself) follows. Shared by the window's
// sliders and, later, the layout search.
#pragma once

#include <string_view>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan {

// Which quantity absorbs a change: one parallel dimension (ParallelDims.h), or the cluster's
// GPU count. The window keeps it in its settings by key ("dp", "gpus").
struct Follower {
    bool gpuCount = false;
    ParallelDim dim = ParallelDim::Dp;  // when !gpuCount

    static constexpr Follower of(ParallelDim d) { return Follower{false, d}; }
    static constexpr Follower gpus() { return Follower{true, ParallelDim::Dp}; }
    bool operator==(const Follower&) const = default;
};
// "dp", "tp", ... or "gpus"; fromKey returns DP for anything else.
std::string_view followerKey(Follower f);
Follower followerFromKey(std::string_view key);

bool follows(Follower f, ParallelDim d);

// Values the dimension can take with the follower absorbing the change, ascending.
// With a dimension follower: every v such that the follower stays a positive integer
// (divisors of GPUs / the two fixed dimensions). With the GPU count following: a range
// of sensible values (powers of two for TP and CP, 1..layers for PP, 1..4096 for DP).
std::vector<int> candidateValues(const Plan& plan, ParallelDim d, Follower follower);

// The plan with dimension d set to value and the follower recomputed. If the follower
// cannot absorb the value exactly, the layout is left inconsistent and estimate() will
// report LAYOUT_PRODUCT_MISMATCH: nothing is silently clamped.
Plan withLayoutValue(const Plan& plan, ParallelDim d, int value, Follower follower);

// Valid micro-batch sizes (divisors of B / DP) and global batches (multiples of DP x b).
std::vector<int> microBatchCandidates(const Plan& plan);
std::vector<long long> globalBatchCandidates(const Plan& plan, int count = 128);

}  // namespace trainplan
