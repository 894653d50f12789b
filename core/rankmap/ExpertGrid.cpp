#include "core/rankmap/ExpertGrid.h"

#include <algorithm>

namespace trainplan {

std::variant<ExpertGrid, std::string> ExpertGrid::make(const LayoutSpec& l, int etp, int ep, int experts)
{
    if (etp < 1)
        return std::string("layout.etp must be at least 1, got ") + std::to_string(etp);
    if (ep < 1)
        return std::string("layout.ep must be at least 1, got ") + std::to_string(ep);
    if (experts < 1)
        return std::string("model.moe.experts must be at least 1, got ") + std::to_string(experts);
    if (experts % ep != 0)
        return "layout.ep: " + std::to_string(ep) + " does not divide the " + std::to_string(experts) + " experts (model.moe.experts)";
    const long long folded = 1LL * l.tp * l.cp * l.dp;
    if (folded % (1LL * etp * ep) != 0)
        return "layout.ep: ETP " + std::to_string(etp) + " x EP " + std::to_string(ep) + " does not divide TP x CP x DP = "
            + std::to_string(folded) + ", the ranks of a pipeline stage the experts are folded onto";
    const bool ppBeforeDp = l.rankOrder == RankOrder::TpCpPpDp;
    if (ppBeforeDp && 1LL * etp * ep != 1LL * l.tp * l.cp)
        return "layout.ep: with the rank order TP-CP-PP-DP the expert grid keeps each rank's stage only when ETP x EP = TP x CP ("
            + std::to_string(l.tp * l.cp) + "), not " + std::to_string(etp * ep);
    ExpertGrid g;
    g.etp_ = etp;
    g.ep_ = ep;
    g.edp_ = int(folded / (1LL * etp * ep));
    g.pp_ = l.pp;
    g.experts_ = experts;
    // Strides are prefix products of the sizes in fill order (as RankMap's).
    g.strideEp_ = etp;
    if (ppBeforeDp) {
        g.stridePp_ = etp * ep;
        g.strideEdp_ = etp * ep * l.pp;
    } else {
        g.strideEdp_ = etp * ep;
        g.stridePp_ = etp * ep * g.edp_;
    }
    return g;
}

ExpertCoords ExpertGrid::coords(int rank) const
{
    ExpertCoords c;
    c.etp = rank % etp_;
    c.ep = (rank / strideEp_) % ep_;
    c.edp = (rank / strideEdp_) % edp_;
    c.pp = (rank / stridePp_) % pp_;
    return c;
}

ExpertGroup ExpertGrid::epGroup(int rank) const
{
    const int first = rank - coords(rank).ep * strideEp_;
    return {first, strideEp_, ep_};
}

ExpertGroup ExpertGrid::etpGroup(int rank) const
{
    return {rank - coords(rank).etp, 1, etp_};
}

ExpertGroup ExpertGrid::edpGroup(int rank) const
{
    const int first = rank - coords(rank).edp * strideEdp_;
    return {first, strideEdp_, edp_};
}

int ExpertGrid::nodesSpannedByEpGroup(int rank, int gpusPerNode) const
{
    const ExpertGroup g = epGroup(rank);
    const int firstNode = g.first / gpusPerNode;
    const int lastNode = g[g.size - 1] / gpusPerNode;
    // Members are evenly spaced: when the stride is a whole node or more each sits on its own
    // node; otherwise they fill the nodes between the first and the last.
    return g.stride >= gpusPerNode ? g.size : lastNode - firstNode + 1;
}

std::vector<int> expertParallelCandidates(const Plan& plan)
{
    std::vector<int> out = expertParallelSizes(plan.model, plan.layout, plan.layout.etp);
    if (out.empty())
        out.push_back(1);
    return out;
}

std::vector<int> expertTensorParallelCandidates(const Plan& plan)
{
    std::vector<int> out = expertTensorParallelSizes(plan.model, plan.layout, plan.layout.ep, plan.cluster.scaleUpDomain());
    if (out.empty())
        out.push_back(1);
    return out;
}

}  // namespace trainplan
