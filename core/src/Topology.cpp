#include "Topology.h"

namespace trainplan {

GroupStrides groupStrides(const LayoutSpec& l)
{
    GroupStrides s;
    s.tp = 1;
    switch (l.rankOrder) {
    case RankOrder::TpCpDpPp:
        s.cp = l.tp;
        s.dp = (long long)l.tp * l.cp;
        s.pp = s.dp * l.dp;
        break;
    case RankOrder::TpCpPpDp:
        s.cp = l.tp;
        s.pp = (long long)l.tp * l.cp;
        s.dp = s.pp * l.pp;
        break;
    case RankOrder::TpDpCpPp:
        s.dp = l.tp;
        s.cp = (long long)l.tp * l.dp;
        s.pp = s.cp * l.cp;
        break;
    }
    return s;
}

bool groupCrossesNodes(long long stride, long long size, long long gpusPerNode)
{
    if (size <= 1)
        return false;
    const long long span = stride * size;
    if (stride * (size - 1) >= gpusPerNode)
        return true;
    // The group fits in a node's width; it stays inside one only if groups tile nodes.
    return gpusPerNode % span != 0;
}

}  // namespace trainplan
