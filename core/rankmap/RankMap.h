// The rank map: where every global rank of a plan sits (node, local GPU), its coordinate
// in each parallel dimension, its groups, and whether each group stays inside a node
// (NVLink) or crosses nodes (network). worked example A's drawing
// ("TP 8 x PP 4 x DP 64": a replica of four nodes, one pipeline stage per node).
//
// Everything is arithmetic on strides: no per-rank tables, O(1) per query, so the window
// can ask every frame at 16,384 GPUs. Only the summary and the *Ranks() lists walk ranks.
//
// Conventions, each with its source:
// - Rank order. Ranks fill the parallel dimensions fastest-varying first, as in
//   Megatron-LM's RankGenerator (megatron/core/parallel_state.py,
//   generate_masked_orthogonal_rank_groups: "global_rank = tp_rank + dp_rank * tp_size +
//   pp_rank * tp_size * dp_size", strides are prefix products of the ordered sizes).
//   Megatron's default is initialize_model_parallel(order="tp-cp-ep-dp-pp"), which is
//   RankOrder::TpCpDpPp here (EP is 1 for dense layers); --use-tp-pp-dp-mapping switches
//   it to "tp-cp-ep-pp-dp" = RankOrder::TpCpPpDp (megatron/training/initialize.py).
// - Placement. Rank r runs on node r / gpusPerNode, local GPU r % gpusPerNode: torchrun
//   and SLURM number ranks node by node (RANK = node_rank * nproc_per_node + local_rank),
//   and Megatron's docstring asks that "adjacent ranks are on the same DGX box".
// - Groups. The TP, CP, DP and PP groups of a rank are the ranks that differ from it in
//   that one coordinate only (Megatron's get_ranks("tp"), ("cp"), ("dp"), ("pp")). The
//   gradient reduction runs over DP x CP (Megatron's "dp-cp" group; worked example B), see
//   gradientGroupRanks().
// - EP (later). Megatron builds expert groups with a second RankGenerator over the same
//   world (expert TP, EP, expert DP, PP; CP = 1), so expert parallelism will be a second
//   decomposition of the same ranks with its own strides, not a fifth coordinate of the
//   dense one. ParallelDim gains Ep then; every per-dimension loop here is generic.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/plan/ParallelDims.h"
#include "core/plan/Plan.h"
#include "core/topology/Topology.h"

namespace trainplan {

// The dimensions themselves (ParallelDim, kParallelDims, their keys and labels): plan/ParallelDims.h;
// the fill order, strides and the node-crossing rule this map is built on: topology/Topology.h.

// A rank's coordinate in each parallel dimension, 0-based.
struct RankCoords {
    int tp = 0;
    int cp = 0;
    int dp = 0;
    int pp = 0;

    int& operator[](ParallelDim dim) { return parallelDimField(*this, dim); }
    int operator[](ParallelDim dim) const { return parallelDimField(*this, dim); }
    bool operator==(const RankCoords&) const = default;
};

struct GpuLocation {
    int node = 0;
    int localGpu = 0;
    bool operator==(const GpuLocation&) const = default;
};

// One group of one dimension: `size` ranks first, first + stride, ... in coordinate order
// (member i has coordinate i in `dim`), which is also ascending rank order.
struct RankGroup {
    ParallelDim dim = ParallelDim::Tp;
    int first = 0;
    int stride = 1;
    int size = 1;

    int operator[](int i) const { return first + i * stride; }
    int last() const { return first + (size - 1) * stride; }
    bool contains(int rank) const
    {
        return rank >= first && rank <= last() && (rank - first) % stride == 0;
    }
    std::vector<int> ranks() const;
};

// What one group moves per step, from the estimate's communication figures.
struct GroupTraffic {
    // Sum of the messages the group's operations carry, as the worked examples count them ("each TP
    // all-reduce moves b s h 2 B"; "each GPU reduces ~4.4 GB of gradients").
    double payloadBytesPerStep = 0;
    // Bytes each GPU of the group sends on its link: the payload times the ring factor
    // 2(n - 1)/n for all-reduces, (n - 1)/n for ZeRO-3's reduce-scatter and all-gather.
    double sentBytesPerGpuPerStep = 0;
};

struct DimensionSummary {
    ParallelDim dim = ParallelDim::Tp;
    int groupSize = 1;
    int groups = 0;                 // world / group size
    int stride = 1;                 // rank distance between neighbours in a group
    int groupsInsideNode = 0;       // NVLink
    int groupsCrossingNodes = 0;    // network
    // The busiest group's traffic: TP and CP on the stage with the most layers, DP on the
    // stage with the most parameters; PP is per stage boundary (every boundary moves the same).
    GroupTraffic traffic;

    bool crossesNodes() const { return groupsCrossingNodes > 0; }
};

struct RankMapSummary {
    int worldSize = 0;              // TP x CP x DP x PP
    int gpusPerNode = 0;
    int nvlinkDomain = 0;           // GPUs sharing the scale-up link (cluster.nvlink_domain, else a node)
    int nodes = 0;                  // ceil(world / GPUs per node)
    int ranksPerReplica = 0;        // TP x CP x PP: one model replica
    int replicas = 0;               // DP
    int nodesPerReplica = 0;        // nodes one replica touches (the largest, if they differ)
    bool gradientGroupsCrossNodes = false;  // some DP x CP group spans two nodes
    std::array<DimensionSummary, kParallelDimCount> dims;

    const DimensionSummary& operator[](ParallelDim dim) const { return dims[static_cast<std::size_t>(dim)]; }
};

class RankMap {
public:
    // Uses layout tp, cp, dp, pp, rank_order, schedule, virtual_stages, zero_stage and
    // cluster gpus_per_node. The world is the ranks the layout uses (TP x CP x DP x PP),
    // which may differ from cluster.gpus (the estimate flags that).
    // Throws std::invalid_argument if a size is below 1 or the world exceeds INT_MAX.
    explicit RankMap(const Plan& plan);
    // nvlinkDomain: GPUs sharing the scale-up link, consecutive ranks as nodes are (0: one node).
    RankMap(const LayoutSpec& layout, int gpusPerNode, int nvlinkDomain = 0);

    RankOrder order() const { return order_; }
    int worldSize() const { return world_; }
    int gpusPerNode() const { return gpusPerNode_; }
    int nvlinkDomain() const { return domain_; }
    int nodes() const { return (world_ + gpusPerNode_ - 1) / gpusPerNode_; }
    int size(ParallelDim dim) const { return size_[at(dim)]; }
    int stride(ParallelDim dim) const { return stride_[at(dim)]; }

    // Rank <-> coordinates. Ranks and coordinates must be in range (not checked).
    RankCoords coordinates(int rank) const;
    int coordinate(int rank, ParallelDim dim) const { return rank / stride_[at(dim)] % size_[at(dim)]; }
    int rankAt(const RankCoords& coords) const;

    // Rank <-> hardware.
    int node(int rank) const { return rank / gpusPerNode_; }
    int localGpu(int rank) const { return rank % gpusPerNode_; }
    GpuLocation location(int rank) const { return {node(rank), localGpu(rank)}; }
    int rankOn(GpuLocation where) const { return where.node * gpusPerNode_ + where.localGpu; }
    // The scale-up (NVLink) domain a rank sits in: a node, a rack of NVL72 trays, an NVLink pair.
    int domain(int rank) const { return rank / domain_; }

    // A rank's group in one dimension, and which of that dimension's groups it is
    // (0 .. groupCount - 1, numbered as Megatron enumerates them).
    RankGroup group(ParallelDim dim, int rank) const;
    int groupIndex(ParallelDim dim, int rank) const;
    int groupCount(ParallelDim dim) const { return world_ / size_[at(dim)]; }
    RankGroup tpGroup(int rank) const { return group(ParallelDim::Tp, rank); }
    RankGroup cpGroup(int rank) const { return group(ParallelDim::Cp, rank); }
    RankGroup dpGroup(int rank) const { return group(ParallelDim::Dp, rank); }
    RankGroup pipeline(int rank) const { return group(ParallelDim::Pp, rank); }

    // Pipeline neighbours: the rank holding the previous / next stage, none at the ends.
    // With the interleaved schedule the pipeline is a ring (the last stage feeds the first
    // stage's next model chunk; Megatron's get_pipeline_model_parallel_next_rank wraps with
    // "% world_size"), so the ends wrap.
    std::optional<int> previousStage(int rank) const;
    std::optional<int> nextStage(int rank) const;
    bool pipelineIsRing() const { return pipelineRing_; }

    // Lists (O(size) each): a rank's model replica (same DP coordinate: TP x CP x PP ranks)
    // and its gradient-reduction group (same TP and PP coordinates: DP x CP ranks,
    // Megatron's "dp-cp"), both in ascending rank order.
    std::vector<int> replicaRanks(int rank) const;
    std::vector<int> gradientGroupRanks(int rank) const;

    // Network crossing. A group "crosses nodes" when it leaves the scale-up domain, that is when
    // its first and last rank sit in different domains (its ranks ascend, and domains hold
    // consecutive ranks); with no cluster.nvlink_domain the domain is the node. What decides a
    // collective's link is NVLink or the network, not the server box (an NVL72 tray of 4 GPUs
    // talks to the other 68 on NVLink).
    bool crossesNodes(const RankGroup& group) const { return domain(group.first) != domain(group.last()); }
    bool linkCrossesNodes(int rankA, int rankB) const { return domain(rankA) != domain(rankB); }
    bool anyGroupCrossesNodes(ParallelDim dim) const;
    int groupsCrossingNodes(ParallelDim dim) const;  // O(blocks of the dimension), not O(1)
    bool anyGradientGroupCrossesNodes() const;

    // Traffic from the estimate of the same plan (RankMapTraffic.cpp): the groups of `dim`
    // on pipeline stage `stage`, or the group of `dim` that `rank` belongs to.
    GroupTraffic stageTraffic(ParallelDim dim, int stage, const Estimate& est) const;
    GroupTraffic traffic(ParallelDim dim, int rank, const Estimate& est) const
    {
        return stageTraffic(dim, coordinate(rank, ParallelDim::Pp), est);
    }

    // Per-dimension counts, crossings and the busiest group's traffic. O(world).
    RankMapSummary summarize(const Estimate& est) const;

private:
    static constexpr std::size_t at(ParallelDim dim) { return static_cast<std::size_t>(dim); }
    std::vector<int> sliceRanks(int rank, std::array<bool, kParallelDimCount> varying) const;
    int nodesSpannedBy(const std::vector<int>& ascendingRanks) const;

    RankOrder order_ = RankOrder::TpCpDpPp;
    std::array<int, kParallelDimCount> size_{1, 1, 1, 1};
    std::array<int, kParallelDimCount> stride_{1, 1, 1, 1};
    int world_ = 1;
    int gpusPerNode_ = 1;
    int domain_ = 1;           // GPUs per scale-up domain
    bool pipelineRing_ = false;
    int ppChunks_ = 1;         // model chunks per stage: virtual stages when interleaved
    bool zero3_ = false;       // ZeRO-3 also all-gathers weights over DP x CP
};

}  // namespace trainplan
