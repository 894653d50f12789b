// Where parallel groups sit on nodes, for CommunicationModel.cpp. Thin wrappers over the
// rank map (trainplan/RankMap.h), which owns the rank order, the strides and the
// node-crossing rule (Megatron-LM default order: TP fastest, then CP, DP, PP).
#pragma once

#include "plan/Plan.h"
#include "rankmap/RankMap.h"

namespace trainplan {

struct GroupStrides {
    long long tp = 1, cp = 1, dp = 1, pp = 1;
};

GroupStrides groupStrides(const LayoutSpec& layout);

// True when some group of `size` ranks spaced `stride` apart spans two nodes, in a job of
// worldSize ranks. The default (kUnboundedWorld) assumes the job spans more than one node;
// a job that fits in one node never crosses, so callers that know the world should pass it.
bool groupCrossesNodes(long long stride, long long size, long long gpusPerNode,
                       long long worldSize = kUnboundedWorld);

}  // namespace trainplan
