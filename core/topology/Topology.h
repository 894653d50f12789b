// Where ranks sit: the order ranks fill the parallel dimensions, each dimension's rank stride,
// and whether a dimension's groups cross nodes. The estimate, the step-time model and the
// layout search ask it how groups sit on nodes; the rank map (rankmap/RankMap.h) builds every
// rank's coordinates and groups on it. The conventions and their sources (Megatron-LM's rank
// order, node-by-node placement) are in rankmap/RankMap.h.
#pragma once

#include <array>

#include "core/plan/ParallelDims.h"
#include "core/plan/Plan.h"

namespace trainplan {

// The dimensions in the order ranks fill them, fastest-varying first.
std::array<ParallelDim, kParallelDimCount> rankFillOrder(RankOrder order);

// Rank distance between neighbours in each dimension (indexed by ParallelDim): the product
// of the sizes of every dimension that fills faster (Megatron's prefix_product).
std::array<long long, kParallelDimCount> rankStrides(const LayoutSpec& layout);

// True when some group of `size` ranks spaced `stride` apart spans two nodes, for the
// groups of one dimension tiling ranks [0, worldSize) in aligned blocks of stride * size
// ranks (so worldSize is a multiple of stride * size). Exact, O(1); the derivation is in
// Topology.cpp. Pass kUnboundedWorld when the job is known to span more than one node.
inline constexpr long long kUnboundedWorld = -1;
bool stridedGroupsCrossNodes(long long stride, long long size, long long gpusPerNode, long long worldSize);

// For each dimension (indexed by ParallelDim), whether some group of the layout's ranks in that
// dimension spans two nodes, in a job of worldSize ranks (kUnboundedWorld: more than one node).
std::array<bool, kParallelDimCount> groupsCrossNodes(const LayoutSpec& layout, long long gpusPerNode, long long worldSize);

}  // namespace trainplan
