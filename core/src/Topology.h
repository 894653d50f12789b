// Where parallel groups sit on nodes, from the rank order (Megatron-LM default:
// TP fastest, then CP, DP, PP). The full rank map comes later; these answers only
// need strides.
#pragma once

#include "trainplan/Plan.h"

namespace trainplan {

struct GroupStrides {
    long long tp = 1, cp = 1, dp = 1, pp = 1;
};

GroupStrides groupStrides(const LayoutSpec& layout);

// True when some group of `size` ranks spaced `stride` apart spans two nodes.
bool groupCrossesNodes(long long stride, long long size, long long gpusPerNode);

}  // namespace trainplan
