// Where the experts of a mixture-of-experts model sit on the ranks (issue 24): Megatron-Core's
// "parallel folding" (Liu et al. 2025, "MoE Parallel Folding", arXiv:2504.14960;
// megatron/core/parallel_state.py, initialize_model_parallel). The attention and dense layers
// use the grid of TP, CP, DP and PP (RankMap.h); the expert layers decompose the same ranks a
// second time, into expert tensor parallelism ETP, expert parallelism EP and expert data
// parallelism EDP, sharing the pipeline stages. So EP is carved out of TP x CP x DP and is not
// bounded by DP: EDP = TP x CP x DP / (ETP x EP).
//
// Rank order: Megatron builds the expert grid with a second RankGenerator over the same order
// string, with CP = 1 and EP in the place the dense grid gives CP and DP: fastest ETP, then EP,
// then EDP, PP slowest (the default "tp-cp-ep-dp-pp"). With the "tp-cp-ep-pp-dp" mapping
// (RankOrder::TpCpPpDp) PP comes before EDP, and the two grids agree on every rank's stage
// only when ETP x EP = TP x CP, which make() requires.
//
// Like RankMap, pure arithmetic on strides: O(1) per query.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan {

struct ExpertCoords {
    int etp = 0;
    int ep = 0;
    int edp = 0;
    int pp = 0;
    bool operator==(const ExpertCoords&) const = default;
};

// Ranks first, first + stride, ..., `size` of them: one group of the expert grid.
struct ExpertGroup {
    int first = 0;
    int stride = 1;
    int size = 1;
    int operator[](int i) const { return first + i * stride; }
    bool contains(int rank) const { return rank >= first && rank <= first + (size - 1) * stride && (rank - first) % stride == 0; }
};

class ExpertGrid {
public:
    // The grid for a layout, or why there is none (naming the plan field): ETP x EP must divide
    // TP x CP x DP, EP must divide the experts, and with TpCpPpDp, ETP x EP must equal TP x CP.
    static std::variant<ExpertGrid, std::string> make(const LayoutSpec& layout, int etp, int ep, int experts);

    int etp() const { return etp_; }
    int ep() const { return ep_; }
    int edp() const { return edp_; }
    int pp() const { return pp_; }
    int ranks() const { return etp_ * ep_ * edp_ * pp_; }
    int expertsPerRank() const { return experts_ / ep_; }

    ExpertCoords coords(int rank) const;
    // The routed experts rank holds: [first, first + expertsPerRank()) (each EP rank a
    // contiguous block, as Megatron's local_expert_indices).
    int firstExpert(int rank) const { return coords(rank).ep * expertsPerRank(); }
    // The ranks a token's all-to-all reaches (EP), that split one expert's matrices (ETP), that
    // hold the same experts and reduce their gradients together (EDP).
    ExpertGroup epGroup(int rank) const;
    ExpertGroup etpGroup(int rank) const;
    ExpertGroup edpGroup(int rank) const;
    // How many scale-up domains (of `domain` consecutive ranks: a node, or cluster.nvlink_domain)
    // an EP group spans: 1 keeps the all-to-all on NVLink.
    int nodesSpannedByEpGroup(int rank, int domain) const;

private:
    ExpertGrid() = default;
    int etp_ = 1, ep_ = 1, edp_ = 1, pp_ = 1, experts_ = 1;
    int strideEp_ = 1, strideEdp_ = 1, stridePp_ = 1;
};

// The EP sizes a layout can take with its other sizes as they are: divisors of the routed experts
// whose EP x ETP divides the stage's TP x CP x DP ranks (1 for a dense model). Ascending.
std::vector<int> expertParallelCandidates(const Plan& plan);
// The ETP sizes likewise: powers of two up to a node's GPUs that divide the expert width and
// whose EP x ETP divides TP x CP x DP.
std::vector<int> expertTensorParallelCandidates(const Plan& plan);

}  // namespace trainplan
