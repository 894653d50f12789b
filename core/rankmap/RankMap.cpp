// The rank map's geometry: coordinates, groups, node crossing (the fill order and strides are
// topology/Topology.cpp's).
// Conventions and sources are in rankmap/RankMap.h.
#include "core/rankmap/RankMap.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace trainplan {

std::vector<int> RankGroup::ranks() const
{
    std::vector<int> out(static_cast<size_t>(std::max(size, 0)));
    for (int i = 0; i < size; ++i)
        out[size_t(i)] = first + i * stride;
    return out;
}

RankMap::RankMap(const Plan& plan) : RankMap(plan.layout, plan.cluster.gpusPerNode, plan.cluster.nvlinkDomain) {}

RankMap::RankMap(const LayoutSpec& layout, int gpusPerNode, int nvlinkDomain)
    : order_(layout.rankOrder)
    , gpusPerNode_(gpusPerNode)
    , domain_(nvlinkDomain > 0 ? nvlinkDomain : gpusPerNode)
{
    for (ParallelDim d : kParallelDims)
        size_[at(d)] = layout.size(d);
    for (ParallelDim d : kParallelDims)
        if (size_[at(d)] < 1)
            throw std::invalid_argument("rank map: layout." + std::string(parallelDimKey(d)) + " must be at least 1");
    if (gpusPerNode < 1)
        throw std::invalid_argument("rank map: cluster.gpus_per_node must be at least 1");
    if (nvlinkDomain < 0)
        throw std::invalid_argument("rank map: cluster.nvlink_domain must be at least 1");
    const long long world = layout.gpus();
    if (world > INT_MAX)
        throw std::invalid_argument("rank map: TP x CP x DP x PP exceeds " + std::to_string(INT_MAX) + " ranks");
    world_ = int(world);
    const auto strides = rankStrides(layout);
    for (ParallelDim d : kParallelDims)
        stride_[at(d)] = int(strides[at(d)]);

    // Interleaved 1F1B: each stage holds virtualStages model chunks and the last stage
    // feeds the first (Narayanan et al. 2021, Sec. 2.2.2); CommunicationModel counts the
    // same chunk factor for PP sends.
    const bool interleaved = layout.schedule == Schedule::Interleaved;
    ppChunks_ = interleaved ? std::max(1, layout.virtualStages) : 1;
    pipelineRing_ = interleaved && layout.virtualStages > 1 && layout.pp > 1;
    zero3_ = layout.zeroStage >= 3;
}

RankCoords RankMap::coordinates(int rank) const
{
    RankCoords c;
    for (ParallelDim d : kParallelDims)
        c[d] = coordinate(rank, d);
    return c;
}

int RankMap::rankAt(const RankCoords& coords) const
{
    int rank = 0;
    for (ParallelDim d : kParallelDims)
        rank += coords[d] * stride_[at(d)];
    return rank;
}

RankGroup RankMap::group(ParallelDim dim, int rank) const
{
    const int s = stride_[at(dim)];
    return RankGroup{dim, rank - coordinate(rank, dim) * s, s, size_[at(dim)]};
}

int RankMap::groupIndex(ParallelDim dim, int rank) const
{
    // Megatron numbers the groups of a dimension by the other coordinates in fill order:
    // the faster dimensions (rank mod stride) first, then the slower ones.
    const int s = stride_[at(dim)];
    return rank % s + rank / (s * size_[at(dim)]) * s;
}

std::optional<int> RankMap::previousStage(int rank) const
{
    const int p = size_[at(ParallelDim::Pp)];
    const int s = stride_[at(ParallelDim::Pp)];
    const int stage = coordinate(rank, ParallelDim::Pp);
    if (stage > 0)
        return rank - s;
    if (pipelineRing_)
        return rank + (p - 1) * s;
    return std::nullopt;
}

std::optional<int> RankMap::nextStage(int rank) const
{
    const int p = size_[at(ParallelDim::Pp)];
    const int s = stride_[at(ParallelDim::Pp)];
    const int stage = coordinate(rank, ParallelDim::Pp);
    if (stage + 1 < p)
        return rank + s;
    if (pipelineRing_)
        return rank - (p - 1) * s;
    return std::nullopt;
}

std::vector<int> RankMap::sliceRanks(int rank, std::array<bool, kParallelDimCount> varying) const
{
    // The varying dimensions, fastest first: an odometer over them visits ranks in
    // ascending order, because each stride is at least the previous stride times its size.
    std::array<ParallelDim, kParallelDimCount> dims{};
    size_t count = 0;
    int base = rank;
    int total = 1;
    for (ParallelDim d : rankFillOrder(order_)) {
        if (!varying[at(d)])
            continue;
        dims[count++] = d;
        base -= coordinate(rank, d) * stride_[at(d)];
        total *= size_[at(d)];
    }
    std::vector<int> out(static_cast<size_t>(total));
    std::array<int, kParallelDimCount> digit{};
    int current = base;
    for (int i = 0; i < total; ++i) {
        out[size_t(i)] = current;
        for (size_t k = 0; k < count; ++k) {
            const size_t d = at(dims[k]);
            if (++digit[k] < size_[d]) {
                current += stride_[d];
                break;
            }
            current -= (size_[d] - 1) * stride_[d];
            digit[k] = 0;
        }
    }
    return out;
}

std::vector<int> RankMap::replicaRanks(int rank) const
{
    return sliceRanks(rank, {true, true, false, true});  // Tp, Cp, Dp, Pp
}

std::vector<int> RankMap::gradientGroupRanks(int rank) const
{
    return sliceRanks(rank, {false, true, true, false});
}

int RankMap::nodesSpannedBy(const std::vector<int>& ascendingRanks) const
{
    int nodes = 0;
    int lastNode = -1;
    for (int r : ascendingRanks) {
        if (node(r) != lastNode) {
            ++nodes;
            lastNode = node(r);
        }
    }
    return nodes;
}

bool RankMap::anyGroupCrossesNodes(ParallelDim dim) const
{
    return stridedGroupsCrossNodes(stride_[at(dim)], size_[at(dim)], domain_, world_);
}

int RankMap::groupsCrossingNodes(ParallelDim dim) const
{
    if (!anyGroupCrossesNodes(dim))
        return 0;
    const long long s = stride_[at(dim)];
    const long long span = s * size_[at(dim)];
    const long long reach = span - s;  // last rank of a group minus its first
    const long long g = domain_;
    if (reach >= g)
        return groupCount(dim);
    // A group starting at rank x crosses iff x mod g >= g - reach. Its first ranks are
    // [block, block + s) for each block of `span` ranks; count them per block.
    const long long threshold = g - reach;
    const auto startsAtOrAbove = [&](long long n) {  // #{x in [0, n) : x mod g >= threshold}
        return n / g * (g - threshold) + std::max(0LL, n % g - threshold);
    };
    long long crossing = 0;
    for (long long block = 0; block < world_; block += span)
        crossing += startsAtOrAbove(block + s) - startsAtOrAbove(block);
    return int(crossing);
}

bool RankMap::anyGradientGroupCrossesNodes() const
{
    // A DP x CP group spans two nodes iff one of its DP or CP lines does: walk from one
    // member to another along CP, then along DP; the node must change on one of the legs.
    return anyGroupCrossesNodes(ParallelDim::Dp) || anyGroupCrossesNodes(ParallelDim::Cp);
}

}  // namespace trainplan
