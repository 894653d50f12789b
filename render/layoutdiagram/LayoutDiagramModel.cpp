#include "render/layoutdiagram/LayoutDiagramModel.h"

#include <algorithm>
#include <variant>

#include "core/base/Format.h"
#include "core/estimate/CommunicationModel.h"
#include "core/plan/EnumNames.h"

using trainplan::ParallelDim;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString count(double v)
{
    return qs(trainplan::formatInteger(v));
}

QString dimLabel(ParallelDim dim)
{
    const auto label = trainplan::parallelDimLabel(dim);
    return QString::fromUtf8(label.data(), qsizetype(label.size()));
}

// "TP 8 × PP 4 × DP 64": the dimensions `keep` accepts, in display order, each with its size, a
// dimension at size 1 only when the table names it so (CP 1 is left out).
template <typename Keep>
QString sizesCaption(const trainplan::RankMap& map, Keep keep)
{
    return qs(trainplan::parallelDimsText([&](ParallelDim d) { return std::to_string(map.size(d)); }, " × ", [&](ParallelDim d) {
        return keep(d) && (map.size(d) > 1 || trainplan::parallelDimInfo(d).namedWhenOne);
    }));
}

// "TP 5 · CP 0 · DP 0 · PP 1": a rank's coordinates, in kParallelDims order (Megatron-LM's
// default rank order).
QString coordinatesText(const trainplan::RankCoords& c)
{
    QStringList parts;
    for (ParallelDim d : trainplan::kParallelDims)
        parts << QStringLiteral("%1 %2").arg(dimLabel(d)).arg(c[d]);
    return parts.join(QStringLiteral(" · "));
}

// "NVLink · 85.9 GB/step": the medium a link uses and what it carries per step.
QString mediumAndBytes(bool crossesNodes, double bytesPerStep)
{
    return QStringLiteral("%1 · %2/step")
        .arg(crossesNodes ? QStringLiteral("network") : QStringLiteral("NVLink"), qs(trainplan::formatBytes(bytesPerStep)));
}

}  // namespace

LayoutDiagramModel::LayoutDiagramModel(const trainplan::Plan& plan, const trainplan::Estimate& estimate)
    : map_(plan)
    , est_(estimate)
    , rankOrderName_(trainplan::nameOf(trainplan::kRankOrderNames, plan.layout.rankOrder))
    , dualPipe_(plan.layout.schedule == trainplan::Schedule::DualPipe && plan.layout.pp >= 2)
{
    // The front row: the nodes replica 1's ranks sit on (replicaRanks ascend, and nodes hold
    // consecutive ranks, so nodes come out in order).
    frontIndexByNode_.assign(size_t(map_.nodes()), -1);
    for (int rank : map_.replicaRanks(0)) {
        const int node = map_.node(rank);
        const int stage = map_.coordinate(rank, ParallelDim::Pp);
        if (front_.empty() || front_.back().node != node) {
            frontIndexByNode_[size_t(node)] = int(front_.size());
            front_.push_back({node, stage, stage, false, false});
        }
        front_.back().firstStage = std::min(front_.back().firstStage, stage);
        front_.back().lastStage = std::max(front_.back().lastStage, stage);
    }

    // Which replicas the front nodes hold, and which front nodes share a TP group with
    // another node.
    std::vector<char> replicaSeen(size_t(replicas()), 0);
    replicasInFront_ = 0;
    for (LayoutDiagramNode& n : front_) {
        for (int gpu = 0; gpu < map_.gpusPerNode(); ++gpu) {
            const int rank = map_.rankOn({n.node, gpu});
            if (rank >= map_.worldSize())
                break;
            const int dp = map_.coordinate(rank, ParallelDim::Dp);
            n.sharedWithOtherReplicas |= dp != 0;
            replicasInFront_ += !replicaSeen[size_t(dp)];
            replicaSeen[size_t(dp)] = 1;
            n.tpCrossesNodes |= map_.crossesNodes(map_.tpGroup(rank));
        }
    }

    for (const auto& w : est_.warnings)
        if (w.code == trainplan::WarningCode::TpSpansNodes)
            tpWarning_ = w;

    if (plan.model.moe && plan.model.hasMoeLayers()) {
        routedExperts_ = plan.model.moe->experts;
        auto grid = trainplan::ExpertGrid::make(plan.layout, plan.layout.etp, plan.layout.ep, routedExperts_);
        if (auto* made = std::get_if<trainplan::ExpertGrid>(&grid)) {
            experts_ = *made;
            // The slowest group's placement, as the step time prices it (some groups may
            // straddle a domain that rank 0's group fills alone).
            const auto placement = trainplan::groupPlacement(plan.layout.etp, plan.layout.ep, map_.nvlinkDomain(), map_.worldSize());
            epNodes_ = placement.nodes;
            epStraddles_ = placement.straddles;
        }
    }
}

QString LayoutDiagramModel::expertCaption() const
{
    if (!experts_)
        return {};
    const trainplan::ExpertGrid& g = *experts_;
    const int perStage = g.etp() * g.ep() * g.edp();
    const bool byNode = map_.nvlinkDomain() == map_.gpusPerNode();
    const QString where = epStraddles_
        ? QStringLiteral("EP groups of %1 GPUs straddle the %2-GPU %3 (%1 does not divide %2), so some all-to-alls cross the network")
              .arg(g.ep() * g.etp())
              .arg(map_.nvlinkDomain())
              .arg(byNode ? QStringLiteral("nodes") : QStringLiteral("NVLink domains"))
        : epNodes_ > 1
        ? (byNode ? QStringLiteral("an EP group spans %1 nodes, so its all-to-all crosses the network")
                  : QStringLiteral("an EP group spans %1 NVLink domains, so its all-to-all crosses the network"))
              .arg(epNodes_)
        : (byNode ? QStringLiteral("an EP group stays inside one node (NVLink all-to-all)")
                  : QStringLiteral("an EP group stays inside one NVLink domain"));
    return QStringLiteral("Experts: EP %1 × ETP %2 × EDP %3 over each stage's %4 GPUs · %5 of %6 routed experts per GPU · %7")
        .arg(g.ep())
        .arg(g.etp())
        .arg(count(g.edp()), count(perStage), count(g.expertsPerRank()), count(routedExperts_), where);
}

int LayoutDiagramModel::frontIndexOfNode(int node) const
{
    return node >= 0 && node < int(frontIndexByNode_.size()) ? frontIndexByNode_[size_t(node)] : -1;
}

int LayoutDiagramModel::columnOf(int rank) const
{
    auto coords = map_.coordinates(rank);
    coords.dp = 0;
    return frontIndexOfNode(map_.node(map_.rankAt(coords)));
}

QString LayoutDiagramModel::tpWarningText() const
{
    return tpWarning_ ? qs(trainplan::describe(*tpWarning_)) : QString();
}

QString LayoutDiagramModel::stageText(int firstStage, int lastStage) const
{
    if (firstStage == lastStage)
        return QStringLiteral("Stage %1").arg(firstStage + 1);
    return QStringLiteral("Stages %1–%2").arg(firstStage + 1).arg(lastStage + 1);
}

QString LayoutDiagramModel::layersText(int firstStage, int lastStage) const
{
    const auto& stages = est_.stages;
    if (firstStage < 0 || lastStage >= int(stages.size()) || firstStage > lastStage)
        return {};
    int layers = 0;
    bool embedding = false, lmHead = false;
    for (int s = firstStage; s <= lastStage; ++s) {
        layers += stages[size_t(s)].layers;
        embedding |= stages[size_t(s)].hasEmbedding;
        lmHead |= stages[size_t(s)].hasLmHead;
    }
    const int first = stages[size_t(firstStage)].firstLayer + 1;  // people count layers from 1
    QString text = layers == 0 ? QStringLiteral("no layers")
                   : layers == 1 ? QStringLiteral("layer %1").arg(first)
                                 : QStringLiteral("layers %1–%2").arg(first).arg(first + layers - 1);
    if (embedding)
        text += QStringLiteral(" + embedding");
    if (lmHead)
        text += QStringLiteral(" + LM head");
    // DualPipe: one stage's GPUs also hold the mirrored stage, run in the reverse direction.
    if (dualPipe_ && firstStage == lastStage) {
        const auto& mirror = stages[size_t(int(stages.size()) - 1 - firstStage)];
        text += mirror.layers == 1 ? QStringLiteral("; reverse: layer %1").arg(mirror.firstLayer + 1)
                                   : QStringLiteral("; reverse: layers %1–%2").arg(mirror.firstLayer + 1).arg(mirror.firstLayer + mirror.layers);
    }
    return text;
}

QString LayoutDiagramModel::frontCaption() const
{
    const double gpusPerReplica = map_.worldSize() / replicas();
    QString caption = QStringLiteral("REPLICA 1 OF %1 · %2 %3 · %4 %5")
                          .arg(count(replicas()))
                          .arg(count(double(front_.size())))
                          .arg(racks() ? (front_.size() == 1 ? QStringLiteral("TRAY") : QStringLiteral("TRAYS"))
                                       : (front_.size() == 1 ? QStringLiteral("NODE") : QStringLiteral("NODES")))
                          .arg(count(gpusPerReplica))
                          .arg(gpusPerReplica == 1 ? QStringLiteral("GPU") : QStringLiteral("GPUS"));
    if (replicasInFront_ > 1)
        caption += QStringLiteral(" · %1 SHARED WITH %2 MORE %3")
                       .arg(racks() ? QStringLiteral("TRAYS") : QStringLiteral("NODES"))
                       .arg(count(replicasInFront_ - 1))
                       .arg(replicasInFront_ == 2 ? "REPLICA" : "REPLICAS");
    return caption;
}

int LayoutDiagramModel::rackOf(int node) const
{
    if (!racks())
        return -1;
    return int((long long)node * map_.gpusPerNode() / map_.nvlinkDomain());
}

QString LayoutDiagramModel::nodeName(int node) const
{
    if (!racks())
        return QStringLiteral("node %1").arg(count(node));
    const long long firstGpu = (long long)node * map_.gpusPerNode();
    return QStringLiteral("rack %1, tray %2").arg(count(rackOf(node))).arg((firstGpu % map_.nvlinkDomain()) / map_.gpusPerNode());
}

QString LayoutDiagramModel::layoutCaption() const
{
    const QString dims = sizesCaption(map_, [](ParallelDim) { return true; });
    if (racks()) {
        // "on 8 racks of 64 (128 trays of 4)": the rack is the NVLink domain, the tray the node.
        const int domain = map_.nvlinkDomain();
        const int racks = (map_.worldSize() + domain - 1) / domain;
        return QStringLiteral("%1 = %2 GPUs on %3 %4 of %5 (%6 trays of %7) · rank order %8")
            .arg(dims, count(map_.worldSize()), count(racks))
            .arg(racks == 1 ? QStringLiteral("rack") : QStringLiteral("racks"))
            .arg(domain)
            .arg(count(map_.nodes()))
            .arg(map_.gpusPerNode())
            .arg(QString::fromStdString(rankOrderName_));
    }
    return QStringLiteral("%1 = %2 GPUs on %3 %4 of %5 · rank order %6")
        .arg(dims, count(map_.worldSize()), count(map_.nodes()))
        .arg(map_.nodes() == 1 ? QStringLiteral("node") : QStringLiteral("nodes"))
        .arg(map_.gpusPerNode())
        .arg(QString::fromStdString(rankOrderName_));
}

QString LayoutDiagramModel::backCaption() const
{
    const int behind = replicasBehind();
    if (behind <= 0)
        return {};
    // Replicas are numbered from 1; the front holds 1 .. replicasInFront when the shared
    // nodes hold consecutive DP indices, which every supported rank order gives.
    if (behind == 1)
        return QStringLiteral("REPLICA %1 (SAME LAYOUT, DIFFERENT DATA)").arg(count(replicas()));
    return QStringLiteral("REPLICAS %1 … %2 (SAME LAYOUT, DIFFERENT DATA)").arg(count(replicasInFront_ + 1), count(replicas()));
}

QString LayoutDiagramModel::backCountText() const
{
    const int behind = replicasBehind();
    if (behind <= 0)
        return {};
    return QStringLiteral("× %1 %2, same layout · %3 %4")
        .arg(count(behind))
        .arg(behind == 1 ? "replica" : "replicas")
        .arg(count(nodesBehind()))
        .arg(racks() ? (nodesBehind() == 1 ? "tray" : "trays") : (nodesBehind() == 1 ? "node" : "nodes"));
}

QString LayoutDiagramModel::describeRank(int rank) const
{
    const auto c = map_.coordinates(rank);
    const auto where = map_.location(rank);
    QString text = QStringLiteral("Rank %1 · %2 · local GPU %3\n").arg(count(rank), nodeName(where.node)).arg(where.localGpu);
    text += coordinatesText(c) + QStringLiteral("\n");
    text += QStringLiteral("Replica %1 of %2 · %3 of %4 · %5")
                .arg(count(c.dp + 1), count(replicas()), stageText(c.pp, c.pp))
                .arg(stages())
                .arg(layersText(c.pp, c.pp));
    return text;
}

LayoutDiagramLink LayoutDiagramModel::groupLink(ParallelDim dim, int rank, int groupSize, bool crossesNodes) const
{
    LayoutDiagramLink link;
    link.dim = dim;
    link.from = rank;
    link.groupSize = groupSize;
    link.crossesNodes = crossesNodes;
    link.traffic = map_.traffic(dim, rank, est_);
    // The gradient group spans every dimension that holds the same weights (DP x CP).
    const QString name = trainplan::sharesWeights(dim) ? sizesCaption(map_, trainplan::sharesWeights)
                                                       : QStringLiteral("%1 %2").arg(dimLabel(dim)).arg(map_.size(dim));
    const QString medium = mediumAndBytes(crossesNodes, link.traffic.payloadBytesPerStep);
    link.tag = dimLabel(dim) + QStringLiteral(" · ") + medium;
    link.text = name + QStringLiteral(" · ") + medium;
    return link;
}

LayoutDiagramLink LayoutDiagramModel::pipelineLink(int from, int to) const
{
    LayoutDiagramLink link;
    link.dim = ParallelDim::Pp;
    link.from = from;
    link.to = to;
    link.groupSize = 2;
    link.crossesNodes = map_.linkCrossesNodes(from, to);
    link.traffic = map_.traffic(ParallelDim::Pp, from, est_);
    const QString medium = mediumAndBytes(link.crossesNodes, link.traffic.payloadBytesPerStep);
    const int a = map_.coordinate(from, ParallelDim::Pp) + 1, b = map_.coordinate(to, ParallelDim::Pp) + 1;
    link.tag = QStringLiteral("PP · ") + medium;
    link.text = QStringLiteral("PP stage %1 → %2 · ").arg(a).arg(b) + medium;
    return link;
}

LayoutDiagramSelection LayoutDiagramModel::selectionFor(int rank) const
{
    LayoutDiagramSelection s;
    if (rank < 0 || rank >= map_.worldSize())
        return s;
    s.rank = rank;
    const auto tp = map_.tpGroup(rank);
    s.tpRanks = tp.ranks();
    s.previousStage = map_.previousStage(rank);
    s.nextStage = map_.nextStage(rank);
    s.gradientRanks = map_.gradientGroupRanks(rank);

    const auto c = map_.coordinates(rank);
    const auto where = map_.location(rank);
    s.title =
        QStringLiteral("Rank %1 · %2 · GPU %3 · %4").arg(count(rank), nodeName(where.node)).arg(where.localGpu).arg(coordinatesText(c));

    if (s.tpRanks.size() > 1)
        s.links.push_back(groupLink(ParallelDim::Tp, rank, int(s.tpRanks.size()), map_.crossesNodes(tp)));
    if (s.previousStage)
        s.links.push_back(pipelineLink(*s.previousStage, rank));
    if (s.nextStage)
        s.links.push_back(pipelineLink(rank, *s.nextStage));
    if (s.gradientRanks.size() > 1) {
        // The gradient group ascends in rank and nodes hold consecutive ranks.
        const bool crosses = map_.node(s.gradientRanks.front()) != map_.node(s.gradientRanks.back());
        s.links.push_back(groupLink(ParallelDim::Dp, rank, int(s.gradientRanks.size()), crosses));
    }
    if (experts_ && experts_->ep() > 1) {
        const trainplan::ExpertGroup group = experts_->epGroup(rank);
        for (int i = 0; i < group.size; ++i)
            s.epRanks.push_back(group[i]);
        LayoutDiagramLink link;
        link.expert = true;
        link.from = rank;
        link.groupSize = group.size;
        link.crossesNodes = map_.node(s.epRanks.front()) != map_.node(s.epRanks.back());
        const int first = experts_->firstExpert(rank), last = first + experts_->expertsPerRank() - 1;
        const QString holds = first == last ? QStringLiteral("expert %1").arg(first) : QStringLiteral("experts %1–%2").arg(first).arg(last);
        const QString medium = link.crossesNodes ? QStringLiteral("network") : QStringLiteral("NVLink");
        link.tag = QStringLiteral("EP · %1 · all-to-all").arg(medium);
        link.text = QStringLiteral("EP %1 · %2 · all-to-all every MoE layer · holds %3").arg(group.size).arg(medium, holds);
        s.links.push_back(link);
    }
    return s;
}
