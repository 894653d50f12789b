#include "estimate/Topology.h"

namespace trainplan {

GroupStrides groupStrides(const LayoutSpec& layout)
{
    const auto s = rankStrides(layout);
    const auto at = [&](ParallelDim d) { return s[static_cast<std::size_t>(d)]; };
    return GroupStrides{at(ParallelDim::Tp), at(ParallelDim::Cp), at(ParallelDim::Dp), at(ParallelDim::Pp)};
}

bool groupCrossesNodes(long long stride, long long size, long long gpusPerNode, long long worldSize)
{
    return stridedGroupsCrossNodes(stride, size, gpusPerNode, worldSize);
}

}  // namespace trainplan
