#include "core/topology/Topology.h"

namespace trainplan {

std::array<ParallelDim, kParallelDimCount> rankFillOrder(RankOrder order)
{
    using D = ParallelDim;
    switch (order) {
    case RankOrder::TpCpDpPp:  // Megatron-LM default "tp-cp-ep-dp-pp" (parallel_state.py)
        return {D::Tp, D::Cp, D::Dp, D::Pp};
    case RankOrder::TpCpPpDp:  // Megatron-LM --use-tp-pp-dp-mapping: "tp-cp-ep-pp-dp"
        return {D::Tp, D::Cp, D::Pp, D::Dp};
    case RankOrder::TpDpCpPp:  // DP packed next to TP, CP groups spread further apart
        return {D::Tp, D::Dp, D::Cp, D::Pp};
    }
    return {D::Tp, D::Cp, D::Dp, D::Pp};
}

std::array<long long, kParallelDimCount> rankStrides(const LayoutSpec& layout)
{
    // Megatron's prefix_product over the ordered sizes: each dimension's stride is the
    // product of the sizes of the dimensions that fill before it.
    std::array<long long, kParallelDimCount> strides{};
    long long product = 1;
    for (ParallelDim d : rankFillOrder(layout.rankOrder)) {
        strides[static_cast<std::size_t>(d)] = product;
        product *= layout.size(d);
    }
    return strides;
}

// The groups of one dimension tile [0, W) in aligned blocks of span = stride * size ranks;
// a block holds `stride` interleaved groups, group j being block + j + k * stride. Nodes
// hold consecutive ranks, so a group crosses nodes iff a node boundary falls strictly
// inside its block, and then some group does cross: for a boundary at offset q inside the
// block, the group j = q mod stride has ranks on both sides. Boundaries are the multiples
// of gpusPerNode below W, so:
//   - W <= gpusPerNode: one node holds every rank, nothing crosses;
//   - otherwise the first boundary, gpusPerNode, lies inside a block unless span divides
//     gpusPerNode, and if it does every boundary is a block edge.
// Hence: crosses <=> size > 1 and W > gpusPerNode and gpusPerNode mod span != 0. (The
// older test "stride * (size - 1) >= gpusPerNode" is implied: then span > gpusPerNode.)
bool stridedGroupsCrossNodes(long long stride, long long size, long long gpusPerNode, long long worldSize)
{
    if (size <= 1)
        return false;
    if (worldSize != kUnboundedWorld && worldSize <= gpusPerNode)
        return false;
    return gpusPerNode % (stride * size) != 0;
}

std::array<bool, kParallelDimCount> groupsCrossNodes(const LayoutSpec& layout, long long gpusPerNode, long long worldSize)
{
    const auto strides = rankStrides(layout);
    std::array<bool, kParallelDimCount> crosses{};
    forEachParallelDim([&](ParallelDim d) {
        crosses[parallelDimIndex(d)] = stridedGroupsCrossNodes(strides[parallelDimIndex(d)], layout.size(d), gpusPerNode, worldSize);
    });
    return crosses;
}

}  // namespace trainplan
