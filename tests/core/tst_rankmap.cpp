// The rank map : bijection, groups against a port of
// Megatron-LM's own group generator, node crossing against brute force and against the
// estimate's flags, the worked example A layout, alternative orders, traffic and JSON.
#include <QtTest>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "TestSupport.h"
#include "core/estimate/Estimate.h"
#include "core/plan/EnumNames.h"
#include "core/planfile/PlanFile.h"
#include "core/rankmap/RankMap.h"
#include "core/rankmap/RankMapJson.h"

using namespace trainplan;

namespace {

using testsupport::layoutOf;

const std::string kSeedPlan = std::string(TRAINPLAN_SOURCE_DIR) + "/examples/70b-2048-h100.json";

Plan planOf(const LayoutSpec& layout, int gpusPerNode)
{
    Plan plan;
    plan.layout = layout;
    plan.cluster.gpusPerNode = gpusPerNode;
    plan.cluster.gpus = layout.tp * layout.cp * layout.dp * layout.pp;
    return plan;
}

// Port of Megatron-LM's generate_masked_orthogonal_rank_groups (megatron/core/
// parallel_state.py): every group of the masked dimensions, each in Megatron's member order,
// groups in Megatron's order. The oracle the rank map must reproduce.
std::vector<std::vector<int>> megatronGroups(const std::vector<int>& orderedSizes, const std::vector<bool>& mask)
{
    const auto prefixProduct = [](const std::vector<int>& a) {
        std::vector<int> r{1};
        for (int v : a)
            r.push_back(r.back() * v);
        return r;
    };
    const auto decompose = [](int index, const std::vector<int>& shape) {
        std::vector<int> idx;
        int stride = 1;
        for (int s : shape) {
            idx.push_back(index / stride % s);
            stride *= s;
        }
        return idx;
    };
    std::vector<int> masked, unmasked, maskedStride, unmaskedStride;
    const std::vector<int> globalStride = prefixProduct(orderedSizes);
    for (size_t i = 0; i < orderedSizes.size(); ++i) {
        (mask[i] ? masked : unmasked).push_back(orderedSizes[i]);
        (mask[i] ? maskedStride : unmaskedStride).push_back(globalStride[i]);
    }
    const int world = globalStride.back();
    const int groupSize = prefixProduct(masked).back();
    std::vector<std::vector<int>> groups;
    for (int g = 0; g < world / groupSize; ++g) {
        const std::vector<int> gi = decompose(g, unmasked);
        int base = 0;
        for (size_t k = 0; k < gi.size(); ++k)
            base += gi[k] * unmaskedStride[k];
        std::vector<int> ranks;
        for (int m = 0; m < groupSize; ++m) {
            const std::vector<int> mi = decompose(m, masked);
            int r = base;
            for (size_t k = 0; k < mi.size(); ++k)
                r += mi[k] * maskedStride[k];
            ranks.push_back(r);
        }
        groups.push_back(ranks);
    }
    return groups;
}

// The order's dimensions from its plan-file spelling ("tp-cp-dp-pp"), independently of
// rankFillOrder().
std::vector<ParallelDim> dimsFromSpelling(RankOrder order)
{
    std::vector<ParallelDim> dims;
    const std::string spelling(nameOf(kRankOrderNames, order));
    size_t start = 0;
    while (start <= spelling.size()) {
        const size_t dash = std::min(spelling.find('-', start), spelling.size());
        const std::string token = spelling.substr(start, dash - start);
        for (ParallelDim d : kParallelDims)
            if (parallelDimKey(d) == token)
                dims.push_back(d);
        start = dash + 1;
    }
    return dims;
}

std::vector<std::vector<int>> megatronGroupsOf(const RankMap& map, std::vector<ParallelDim> members)
{
    std::vector<int> sizes;
    std::vector<bool> mask;
    for (ParallelDim d : dimsFromSpelling(map.order())) {
        sizes.push_back(map.size(d));
        mask.push_back(std::find(members.begin(), members.end(), d) != members.end());
    }
    return megatronGroups(sizes, mask);
}

void addGridColumns()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("order");
    QTest::addColumn<int>("gpusPerNode");
}

// Layouts x orders x node sizes, including node sizes that are not powers of two and
// worlds that end in a partial node or fit in one node.
void addGridRows(bool multiNodeOnly = false)
{
    addGridColumns();
    for (int gpn : {8, 6, 4, 3})
        for (int tp : {1, 2, 3, 4, 8, 16})
            for (int cp : {1, 2})
                for (int dp : {1, 2, 3, 5})
                    for (int pp : {1, 2, 4})
                        for (const auto& [order, name] : kRankOrderNames)
                            if (!multiNodeOnly || tp * cp * dp * pp > gpn)
                                QTest::addRow("tp%d cp%d dp%d pp%d %s gpn%d", tp, cp, dp, pp, std::string(name).c_str(), gpn)
                                    << tp << cp << dp << pp << int(order) << gpn;
}

RankMap fetchGridMap()
{
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(int, dp);
    QFETCH(int, pp);
    QFETCH(int, order);
    QFETCH(int, gpusPerNode);
    return RankMap(layoutOf(tp, cp, dp, pp, RankOrder(order)), gpusPerNode);
}

}  // namespace

class TestRankMap : public QObject {
    Q_OBJECT

private slots:
    void fillOrderFollowsMegatron();
    void bijection_data() { addGridRows(); }
    void bijection();
    void groupsMatchMegatron_data() { addGridRows(); }
    void groupsMatchMegatron();
    void nodeCrossingMatchesBruteForce_data() { addGridRows(); }
    void nodeCrossingMatchesBruteForce();
    void nodeCrossingAgreesWithEstimate_data() { addGridRows(true); }  // see singleNodeJobNeverCrosses
    void nodeCrossingAgreesWithEstimate();
    void tpInsideNodeWhenItDividesNode_data();
    void tpInsideNodeWhenItDividesNode();
    void tp16On8GpuNodesCrosses();
    void nvl72RackKeepsGroupsOnNvlink();
    void singleNodeJobNeverCrosses();
    void seedLayout();
    void alternativeOrders_data();
    void alternativeOrders();
    void pipelineNeighbours_data();
    void pipelineNeighbours();
    void trafficFromEstimate_data();
    void trafficFromEstimate();
    void summaryJson();
    void rejectsBadLayouts();
};

void TestRankMap::fillOrderFollowsMegatron()
{
    // Megatron-LM's default order "tp-cp-ep-dp-pp" (initialize_model_parallel) with EP = 1.
    LayoutSpec l = layoutOf(2, 3, 5, 7, RankOrder::TpCpDpPp);
    QCOMPARE(l.rankOrder, LayoutSpec{}.rankOrder);
    auto s = rankStrides(l);
    QCOMPARE(s[size_t(ParallelDim::Tp)], 1LL);
    QCOMPARE(s[size_t(ParallelDim::Cp)], 2LL);
    QCOMPARE(s[size_t(ParallelDim::Dp)], 6LL);
    QCOMPARE(s[size_t(ParallelDim::Pp)], 30LL);
    // --use-tp-pp-dp-mapping: "tp-cp-ep-pp-dp".
    l.rankOrder = RankOrder::TpCpPpDp;
    s = rankStrides(l);
    QCOMPARE(s[size_t(ParallelDim::Pp)], 6LL);
    QCOMPARE(s[size_t(ParallelDim::Dp)], 42LL);
    l.rankOrder = RankOrder::TpDpCpPp;
    s = rankStrides(l);
    QCOMPARE(s[size_t(ParallelDim::Dp)], 2LL);
    QCOMPARE(s[size_t(ParallelDim::Cp)], 10LL);
    QCOMPARE(s[size_t(ParallelDim::Pp)], 30LL);
    // The fill order and the plan-file spelling name the same dimensions.
    for (const auto& [order, name] : kRankOrderNames) {
        const auto fill = rankFillOrder(order);
        QCOMPARE(dimsFromSpelling(order), std::vector<ParallelDim>(fill.begin(), fill.end()));
    }
}

void TestRankMap::bijection()
{
    const RankMap map = fetchGridMap();
    const int world = map.worldSize();
    QCOMPARE(world, map.size(ParallelDim::Tp) * map.size(ParallelDim::Cp) * map.size(ParallelDim::Dp) * map.size(ParallelDim::Pp));
    QCOMPARE(map.nodes(), (world + map.gpusPerNode() - 1) / map.gpusPerNode());
    std::vector<int> seen(size_t(world), 0);
    for (int r = 0; r < world; ++r) {
        const RankCoords c = map.coordinates(r);
        int cell = 0;
        for (ParallelDim d : kParallelDims) {
            QVERIFY(c[d] >= 0 && c[d] < map.size(d));
            QCOMPARE(map.coordinate(r, d), c[d]);
            cell = cell * map.size(d) + c[d];
        }
        ++seen[size_t(cell)];
        QCOMPARE(map.rankAt(c), r);
        const GpuLocation at = map.location(r);
        QVERIFY(at.node >= 0 && at.node < map.nodes());
        QVERIFY(at.localGpu >= 0 && at.localGpu < map.gpusPerNode());
        QCOMPARE(map.rankOn(at), r);
    }
    // Every coordinate tuple is hit exactly once: rank <-> coordinates is a bijection.
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

void TestRankMap::groupsMatchMegatron()
{
    const RankMap map = fetchGridMap();
    const int world = map.worldSize();
    for (ParallelDim d : kParallelDims) {
        const auto groups = megatronGroupsOf(map, {d});
        QCOMPARE(int(groups.size()), map.groupCount(d));
        for (int g = 0; g < int(groups.size()); ++g) {
            const auto& ref = groups[size_t(g)];
            QCOMPARE(int(ref.size()), map.size(d));
            for (int member = 0; member < int(ref.size()); ++member) {
                const int r = ref[size_t(member)];
                const RankGroup group = map.group(d, r);
                QCOMPARE(group.dim, d);
                QCOMPARE(group.size, map.size(d));
                QCOMPARE(group.ranks(), ref);
                QVERIFY(group.contains(r));
                QCOMPARE(group[member], r);
                QCOMPARE(map.coordinate(r, d), member);
                QCOMPARE(map.groupIndex(d, r), g);
            }
        }
    }
    // The named shortcuts are the same groups.
    for (int r = 0; r < world; ++r) {
        QCOMPARE(map.tpGroup(r).ranks(), map.group(ParallelDim::Tp, r).ranks());
        QCOMPARE(map.cpGroup(r).ranks(), map.group(ParallelDim::Cp, r).ranks());
        QCOMPARE(map.dpGroup(r).ranks(), map.group(ParallelDim::Dp, r).ranks());
        QCOMPARE(map.pipeline(r).ranks(), map.group(ParallelDim::Pp, r).ranks());
    }
    // Megatron's "dp-cp" gradient group and a model replica (all but DP).
    for (const auto& ref : megatronGroupsOf(map, {ParallelDim::Dp, ParallelDim::Cp}))
        for (int r : ref)
            QCOMPARE(map.gradientGroupRanks(r), ref);
    for (const auto& ref : megatronGroupsOf(map, {ParallelDim::Tp, ParallelDim::Cp, ParallelDim::Pp}))
        for (int r : ref)
            QCOMPARE(map.replicaRanks(r), ref);
}

void TestRankMap::nodeCrossingMatchesBruteForce()
{
    const RankMap map = fetchGridMap();
    for (ParallelDim d : kParallelDims) {
        int crossing = 0;
        for (const auto& ref : megatronGroupsOf(map, {d})) {
            std::set<int> nodes;
            for (int r : ref)
                nodes.insert(map.node(r));
            const bool crosses = nodes.size() > 1;
            crossing += crosses;
            QCOMPARE(map.crossesNodes(map.group(d, ref.front())), crosses);
        }
        QCOMPARE(map.groupsCrossingNodes(d), crossing);
        QCOMPARE(map.anyGroupCrossesNodes(d), crossing > 0);
    }
    bool gradientCrosses = false;
    for (const auto& ref : megatronGroupsOf(map, {ParallelDim::Dp, ParallelDim::Cp}))
        gradientCrosses |= map.node(ref.front()) != map.node(ref.back());
    QCOMPARE(map.anyGradientGroupCrossesNodes(), gradientCrosses);
}

void TestRankMap::nodeCrossingAgreesWithEstimate()
{
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(int, dp);
    QFETCH(int, pp);
    QFETCH(int, order);
    QFETCH(int, gpusPerNode);
    const Plan plan = planOf(layoutOf(tp, cp, dp, pp, RankOrder(order)), gpusPerNode);
    const RankMap map(plan);
    // The estimate's flags come from topology/Topology.h's groupsCrossNodes, the rule the rank
    // map is built on: the diagram and the estimate must never disagree.
    const Estimate est = estimate(plan);
    const auto& c = est.communication;
    QCOMPARE(c.tpCrossesNodes, map.anyGroupCrossesNodes(ParallelDim::Tp));
    QCOMPARE(c.ppCrossesNodes, map.anyGroupCrossesNodes(ParallelDim::Pp));
    QCOMPARE(c.cpCrossesNodes, map.anyGroupCrossesNodes(ParallelDim::Cp));
    QCOMPARE(c.dpCrossesNodes, map.anyGradientGroupCrossesNodes());
    QCOMPARE(c.dpGroupSize, int(map.gradientGroupRanks(0).size()));
    const bool tpWarning = std::any_of(est.warnings.begin(), est.warnings.end(),
                                       [](const Warning& w) { return w.code == WarningCode::TpSpansNodes; });
    QCOMPARE(tpWarning, map.anyGroupCrossesNodes(ParallelDim::Tp));
}

void TestRankMap::tpInsideNodeWhenItDividesNode_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("gpusPerNode");
    for (int gpn : {8, 6, 4, 3, 12})
        for (int tp = 1; tp <= gpn; ++tp)
            if (gpn % tp == 0)
                for (int cp : {1, 2, 3})
                    for (int dp : {1, 5, 16})
                        for (int pp : {1, 3, 4})
                            QTest::addRow("tp%d cp%d dp%d pp%d gpn%d", tp, cp, dp, pp, gpn) << tp << cp << dp << pp << gpn;
}

void TestRankMap::tpInsideNodeWhenItDividesNode()
{
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(int, dp);
    QFETCH(int, pp);
    QFETCH(int, gpusPerNode);
    const RankMap map(layoutOf(tp, cp, dp, pp, RankOrder::TpCpDpPp), gpusPerNode);
    QVERIFY(!map.anyGroupCrossesNodes(ParallelDim::Tp));
    QCOMPARE(map.groupsCrossingNodes(ParallelDim::Tp), 0);
    for (int r = 0; r < map.worldSize(); ++r) {
        const RankGroup g = map.tpGroup(r);
        QVERIFY(!map.crossesNodes(g));
        for (int i = 0; i < g.size; ++i)
            QCOMPARE(map.node(g[i]), map.node(r));
    }
}

// GB200 NVL72: trays (nodes) of 4 GPUs, 72 GPUs on one NVLink domain. A TP 8 group spans two trays
// but one domain; TP 16 does not divide 72, so the groups at each rack's edge leave it. Placement
// (node, local GPU) stays the tray's; crossing counts by domain, checked against brute force.
void TestRankMap::nvl72RackKeepsGroupsOnNvlink()
{
    for (int tp : {8, 16}) {
        const RankMap map(layoutOf(tp, 1, 144 / tp, 4, RankOrder::TpCpDpPp), 4, 72);
        QCOMPARE(map.nodes(), 144);
        QCOMPARE(map.node(9), 2);
        QCOMPARE(map.domain(71), 0);
        QCOMPARE(map.domain(72), 1);
        int crossing = 0;
        for (int g = 0; g < map.groupCount(ParallelDim::Tp); ++g) {
            const RankGroup group = map.tpGroup(g * tp);
            crossing += map.domain(group.first) != map.domain(group.last()) ? 1 : 0;
        }
        QCOMPARE(map.groupsCrossingNodes(ParallelDim::Tp), crossing);
        QCOMPARE(map.anyGroupCrossesNodes(ParallelDim::Tp), tp == 16);
        QVERIFY(tp == 8 || crossing > 0);
    }
}

void TestRankMap::tp16On8GpuNodesCrosses()
{
    const Plan plan = planOf(layoutOf(16, 1, 8, 4, RankOrder::TpCpDpPp), 8);
    const RankMap map(plan);
    QVERIFY(map.anyGroupCrossesNodes(ParallelDim::Tp));
    QCOMPARE(map.groupsCrossingNodes(ParallelDim::Tp), map.groupCount(ParallelDim::Tp));
    QCOMPARE(map.groupCount(ParallelDim::Tp), 32);
    const RankGroup g = map.tpGroup(21);
    QCOMPARE(g.first, 16);
    QCOMPARE(g.last(), 31);
    QVERIFY(map.crossesNodes(g));
    QCOMPARE(map.node(g.first), 2);
    QCOMPARE(map.node(g.last()), 3);
    const Estimate est = estimate(plan);
    QVERIFY(est.communication.tpCrossesNodes);
    const RankMapSummary s = map.summarize(est);
    QCOMPARE(s[ParallelDim::Tp].groupsCrossingNodes, 32);
    QCOMPARE(s[ParallelDim::Tp].groupsInsideNode, 0);
    QVERIFY(s[ParallelDim::Tp].crossesNodes());
}

void TestRankMap::singleNodeJobNeverCrosses()
{
    // TP 6 on one 8-GPU node: ranks 0-5 all sit on node 0.
    const RankMap map(layoutOf(6, 1, 1, 1, RankOrder::TpCpDpPp), 8);
    QCOMPARE(map.nodes(), 1);
    QVERIFY(!map.anyGroupCrossesNodes(ParallelDim::Tp));
    QVERIFY(!map.crossesNodes(map.tpGroup(0)));
    QVERIFY(!stridedGroupsCrossNodes(1, 6, 8, 6));
    // Told only that the job spans nodes, the rule answers for the repeating pattern.
    QVERIFY(stridedGroupsCrossNodes(1, 6, 8, kUnboundedWorld));
    QVERIFY(stridedGroupsCrossNodes(1, 6, 8, 12));
    // Known gap: CommunicationModel.cpp calls groupCrossesNodes without the world size, so
    // the estimate flags this one-node job's TP group as crossing nodes.
    const Estimate est = estimate(planOf(layoutOf(6, 1, 1, 1, RankOrder::TpCpDpPp), 8));
    QVERIFY(!est.communication.tpCrossesNodes);
}

void TestRankMap::seedLayout()
{
    // Worked example A: "TP 8 x PP 4 x DP 64"; "Each node's 8 GPUs form one tensor-parallel group
    // ... Four nodes make one model replica"; "64 replicas"; DP "over InfiniBand".
    const Plan plan = loadPlanFile(kSeedPlan);
    const RankMap map(plan);
    QCOMPARE(map.order(), RankOrder::TpCpDpPp);
    QCOMPARE(map.worldSize(), 2048);
    QCOMPARE(map.nodes(), 256);
    const Estimate est = estimate(plan);
    const RankMapSummary s = map.summarize(est);
    QCOMPARE(s.worldSize, 2048);
    QCOMPARE(s.nodes, 256);
    QCOMPARE(s.replicas, 64);
    QCOMPARE(s.ranksPerReplica, 32);
    QCOMPARE(s.nodesPerReplica, 4);

    const DimensionSummary& tp = s[ParallelDim::Tp];
    QCOMPARE(tp.groupSize, 8);
    QCOMPARE(tp.groups, 256);
    QCOMPARE(tp.groupsInsideNode, 256);
    QCOMPARE(tp.groupsCrossingNodes, 0);
    const DimensionSummary& pp = s[ParallelDim::Pp];
    QCOMPARE(pp.groupSize, 4);
    QCOMPARE(pp.groups, 512);
    QCOMPARE(pp.stride, 512);
    QCOMPARE(pp.groupsCrossingNodes, 512);
    const DimensionSummary& dp = s[ParallelDim::Dp];
    QCOMPARE(dp.groupSize, 64);
    QCOMPARE(dp.groups, 32);
    QCOMPARE(dp.stride, 8);
    QCOMPARE(dp.groupsCrossingNodes, 32);
    QVERIFY(s.gradientGroupsCrossNodes);
    const DimensionSummary& cp = s[ParallelDim::Cp];
    QCOMPARE(cp.groupSize, 1);
    QCOMPARE(cp.groups, 2048);
    QCOMPARE(cp.groupsCrossingNodes, 0);

    for (int r = 0; r < map.worldSize(); ++r) {
        // A node is exactly one TP group, holding one pipeline stage.
        const RankGroup t = map.tpGroup(r);
        QCOMPARE(t.first, map.node(r) * 8);
        QCOMPARE(t.size, 8);
        QCOMPARE(map.localGpu(r), map.coordinate(r, ParallelDim::Tp));
        // Each stage of a pipeline on its own node; stages are 64 nodes apart.
        const RankGroup p = map.pipeline(r);
        std::set<int> nodes;
        for (int i = 0; i < p.size; ++i) {
            nodes.insert(map.node(p[i]));
            QCOMPARE(map.coordinate(p[i], ParallelDim::Pp), i);
        }
        QCOMPARE(int(nodes.size()), 4);
        QVERIFY(map.crossesNodes(map.dpGroup(r)));
    }
    // Rank 0's replica: nodes 0, 64, 128, 192, one stage each.
    std::set<int> replicaNodes;
    for (int r : map.replicaRanks(0))
        replicaNodes.insert(map.node(r));
    QCOMPARE(replicaNodes, (std::set<int>{0, 64, 128, 192}));
    QCOMPARE(map.nextStage(0), std::optional<int>(512));
    QCOMPARE(map.previousStage(0), std::optional<int>());
    QCOMPARE(map.coordinates(1234), (RankCoords{.tp = 2, .cp = 0, .dp = 26, .pp = 2}));

    // Traffic, from the worked example's numbers: 64 MB per TP all-reduce, four per layer, 20 layers,
    // 16 micro-batches; PP 8 MB per send with SP; DP ~4.4 GB of gradients per GPU.
    QCOMPARE(est.communication.tpMessageBytes, 4096.0 * 8192 * 2);
    QCOMPARE(tp.traffic.payloadBytesPerStep, 4096.0 * 8192 * 2 * 4 * 20 * 16);
    QCOMPARE(tp.traffic.sentBytesPerGpuPerStep, tp.traffic.payloadBytesPerStep * 2 * 7 / 8);
    QCOMPARE(pp.traffic.payloadBytesPerStep, 2.0 * 16 * (4096.0 * 8192 * 2 / 8));
    // DP: the busiest stage is the one with the most parameters (the last: 20 layers and
    // the LM head), a hair above the estimate's fullest-by-memory stage (the first).
    const StageEstimate& last = est.stages.back();
    const double lastGradients =
        est.communication.dpBytesPerGpu * last.parametersPerGpu / est.stages[size_t(est.fullestStage)].parametersPerGpu;
    QCOMPARE(dp.traffic.payloadBytesPerStep, lastGradients);
    QCOMPARE(dp.traffic.sentBytesPerGpuPerStep, lastGradients * 2 * 63 / 64);
    QCOMPARE(map.traffic(ParallelDim::Dp, est.fullestStage * 512, est).payloadBytesPerStep, est.communication.dpBytesPerGpu);
    QVERIFY(dp.traffic.payloadBytesPerStep > 4.0e9 && dp.traffic.payloadBytesPerStep < 5.0e9);
    QCOMPARE(cp.traffic.payloadBytesPerStep, 0.0);
}

void TestRankMap::alternativeOrders_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("order");
    QTest::addColumn<QString>("insideNode");   // dimensions whose groups all stay in a node
    QTest::addColumn<QString>("crossing");     // dimensions whose groups all cross
    QTest::addColumn<int>("nodesPerReplica");
    // The seed's layout, pipeline before DP: a replica is 32 consecutive ranks (nodes 0-3),
    // and still one stage per node; DP still crosses.
    QTest::newRow("seed tp-cp-pp-dp") << 8 << 1 << 64 << 4 << int(RankOrder::TpCpPpDp) << "tp" << "dp pp" << 4;
    // TP 2 x PP 4: pipeline-before-DP packs a whole pipeline into a node...
    QTest::newRow("tp2 pp4 tp-cp-pp-dp") << 2 << 1 << 4 << 4 << int(RankOrder::TpCpPpDp) << "tp pp" << "dp" << 1;
    // ... where the default packs DP into the node and spreads the pipeline.
    QTest::newRow("tp2 pp4 tp-cp-dp-pp") << 2 << 1 << 4 << 4 << int(RankOrder::TpCpDpPp) << "tp dp" << "pp" << 4;
    // TP 4 x CP 2 x DP 2: the default keeps CP inside the node and sends DP out ...
    QTest::newRow("tp4 cp2 dp2 tp-cp-dp-pp") << 4 << 2 << 2 << 2 << int(RankOrder::TpCpDpPp) << "tp cp" << "dp pp" << 2;
    // ... DP-before-CP does the opposite.
    QTest::newRow("tp4 cp2 dp2 tp-dp-cp-pp") << 4 << 2 << 2 << 2 << int(RankOrder::TpDpCpPp) << "tp dp" << "cp pp" << 4;
}

void TestRankMap::alternativeOrders()
{
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(int, dp);
    QFETCH(int, pp);
    QFETCH(int, order);
    QFETCH(QString, insideNode);
    QFETCH(QString, crossing);
    QFETCH(int, nodesPerReplica);
    const Plan plan = planOf(layoutOf(tp, cp, dp, pp, RankOrder(order)), 8);
    const RankMap map(plan);
    const RankMapSummary s = map.summarize(estimate(plan));
    for (ParallelDim d : kParallelDims) {
        const QString key = QString::fromLatin1(parallelDimKey(d).data(), int(parallelDimKey(d).size()));
        if (insideNode.split(' ').contains(key)) {
            QVERIFY2(!map.anyGroupCrossesNodes(d), qPrintable(key));
            QCOMPARE(s[d].groupsInsideNode, s[d].groups);
        }
        if (crossing.split(' ').contains(key)) {
            QVERIFY2(map.anyGroupCrossesNodes(d), qPrintable(key));
            QCOMPARE(s[d].groupsCrossingNodes, s[d].groups);
        }
    }
    QCOMPARE(s.nodesPerReplica, nodesPerReplica);
    if (RankOrder(order) == RankOrder::TpCpPpDp) {
        // Pipeline before DP: a replica is a block of consecutive ranks.
        const auto replica = map.replicaRanks(0);
        for (int i = 0; i < int(replica.size()); ++i)
            QCOMPARE(replica[size_t(i)], i);
    }
}

void TestRankMap::pipelineNeighbours_data()
{
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("virtualStages");
    QTest::addColumn<bool>("ring");
    QTest::newRow("1f1b pp4") << 4 << int(Schedule::OneFOneB) << 1 << false;
    QTest::newRow("gpipe pp3") << 3 << int(Schedule::GPipe) << 1 << false;
    QTest::newRow("interleaved pp4 v2") << 4 << int(Schedule::Interleaved) << 2 << true;
    QTest::newRow("interleaved pp1 v2") << 1 << int(Schedule::Interleaved) << 2 << false;
    QTest::newRow("1f1b pp1") << 1 << int(Schedule::OneFOneB) << 1 << false;
}

void TestRankMap::pipelineNeighbours()
{
    QFETCH(int, pp);
    QFETCH(int, schedule);
    QFETCH(int, virtualStages);
    QFETCH(bool, ring);
    LayoutSpec l = layoutOf(2, 2, 3, pp, RankOrder::TpCpDpPp);
    l.schedule = Schedule(schedule);
    l.virtualStages = virtualStages;
    const RankMap map(l, 8);
    QCOMPARE(map.pipelineIsRing(), ring);
    for (int r = 0; r < map.worldSize(); ++r) {
        const RankGroup p = map.pipeline(r);
        const int stage = map.coordinate(r, ParallelDim::Pp);
        const auto prev = map.previousStage(r);
        const auto next = map.nextStage(r);
        if (stage > 0)
            QCOMPARE(prev, std::optional<int>(p[stage - 1]));
        else
            QCOMPARE(prev, ring ? std::optional<int>(p[pp - 1]) : std::nullopt);
        if (stage + 1 < pp)
            QCOMPARE(next, std::optional<int>(p[stage + 1]));
        else
            QCOMPARE(next, ring ? std::optional<int>(p[0]) : std::nullopt);
    }
}

void TestRankMap::trafficFromEstimate_data()
{
    QTest::addColumn<int>("zeroStage");
    QTest::addColumn<int>("cp");
    QTest::addColumn<bool>("interleaved");
    QTest::addColumn<bool>("unevenStages");
    QTest::newRow("zero1") << 1 << 1 << false << false;
    QTest::newRow("zero1 cp2 interleaved") << 1 << 2 << true << false;
    QTest::newRow("zero3 cp2 uneven") << 3 << 2 << false << true;
}

void TestRankMap::trafficFromEstimate()
{
    QFETCH(int, zeroStage);
    QFETCH(int, cp);
    QFETCH(bool, interleaved);
    QFETCH(bool, unevenStages);
    LayoutSpec l = layoutOf(8, cp, 16, 4, RankOrder::TpCpDpPp);
    l.zeroStage = zeroStage;
    if (interleaved) {
        l.schedule = Schedule::Interleaved;
        l.virtualStages = 2;
    }
    if (unevenStages)
        l.stageLayers = {19, 21, 21, 19};
    const Plan plan = planOf(l, 8);
    const RankMap map(plan);
    const Estimate est = estimate(plan);
    const auto& c = est.communication;
    const double mb = double(est.pipeline.microbatches);
    const RankMapSummary s = map.summarize(est);
    int maxLayers = 0;
    double maxParams = 0;
    for (const auto& st : est.stages) {
        maxLayers = std::max(maxLayers, st.layers);
        maxParams = std::max(maxParams, st.parametersPerGpu);
    }
    const double fullestParams = est.stages[size_t(est.fullestStage)].parametersPerGpu;
    const int n = 16 * cp;

    // TP: message x collectives x layers x micro-batches; each GPU sends 2(n-1)/n of it.
    QCOMPARE(s[ParallelDim::Tp].traffic.payloadBytesPerStep, c.tpMessageBytes * c.tpCollectivesPerLayer * maxLayers * mb);
    QCOMPARE(s[ParallelDim::Tp].traffic.sentBytesPerGpuPerStep, s[ParallelDim::Tp].traffic.payloadBytesPerStep * 2 * 7 / 8);
    // PP: 2 x micro-batches x bytes per send per boundary (x chunks when interleaved).
    QCOMPARE(s[ParallelDim::Pp].traffic.payloadBytesPerStep, 2.0 * mb * (interleaved ? 2 : 1) * c.ppBytesPerMicrobatch);
    // CP: bytes per layer x layers x micro-batches.
    QCOMPARE(s[ParallelDim::Cp].traffic.payloadBytesPerStep, c.cpBytesPerLayer * maxLayers * mb);
    QCOMPARE(s[ParallelDim::Cp].traffic.payloadBytesPerStep > 0, cp > 1);
    // DP: the estimate's gradient bytes with the ring factor, scaled to the busiest stage.
    const double share = maxParams / fullestParams;
    const DimensionSummary& dp = s[ParallelDim::Dp];
    QCOMPARE(c.dpGroupSize, n);
    if (zeroStage >= 3) {
        const double payload = (c.dpBytesPerGpu + c.zero3AllGatherBytesPerStep) * share;
        QCOMPARE(dp.traffic.payloadBytesPerStep, payload);
        QCOMPARE(dp.traffic.sentBytesPerGpuPerStep, payload * (n - 1) / n);
    } else {
        QCOMPARE(dp.traffic.payloadBytesPerStep, c.dpBytesPerGpu * share);
        QCOMPARE(dp.traffic.sentBytesPerGpuPerStep, c.dpBytesPerGpu * share * 2 * (n - 1) / n);
    }
    // Per group: a rank's TP group moves its own stage's layers.
    for (int stage = 0; stage < 4; ++stage) {
        const int r = map.rankAt(RankCoords{.tp = 3, .cp = 0, .dp = 5, .pp = stage});
        const GroupTraffic t = map.traffic(ParallelDim::Tp, r, est);
        QCOMPARE(t.payloadBytesPerStep, c.tpMessageBytes * c.tpCollectivesPerLayer * est.stages[size_t(stage)].layers * mb);
        QCOMPARE(map.traffic(ParallelDim::Pp, r, est).payloadBytesPerStep, s[ParallelDim::Pp].traffic.payloadBytesPerStep);
    }
}

void TestRankMap::summaryJson()
{
    const Plan plan = loadPlanFile(kSeedPlan);
    const RankMap map(plan);
    const RankMapSummary s = map.summarize(estimate(plan));
    const nlohmann::json j = rankMapSummaryToJson(s);
    QCOMPARE(j.at("world_size").get<int>(), 2048);
    QCOMPARE(j.at("replicas").get<int>(), 64);
    QCOMPARE(j.at("nodes_per_replica").get<int>(), 4);
    QCOMPARE(j.at("dims").at("tp").at("groups_inside_node").get<int>(), 256);
    QCOMPARE(j.at("dims").at("dp").at("crosses_nodes").get<bool>(), true);
    QCOMPARE(j.at("dims").at("pp").at("payload_bytes_per_step").get<double>(), s[ParallelDim::Pp].traffic.payloadBytesPerStep);
    const nlohmann::json at = rankLocationToJson(map, 1234);
    QCOMPARE(at.at("node").get<int>(), 154);
    QCOMPARE(at.at("local_gpu").get<int>(), 2);
    QCOMPARE(at.at("coordinates").at("dp").get<int>(), 26);
    QCOMPARE(at.at("coordinates").at("pp").get<int>(), 2);
}

void TestRankMap::rejectsBadLayouts()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankMap(layoutOf(0, 1, 1, 1, RankOrder::TpCpDpPp), 8));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankMap(layoutOf(1, 1, -2, 1, RankOrder::TpCpDpPp), 8));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankMap(layoutOf(8, 1, 8, 1, RankOrder::TpCpDpPp), 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankMap(layoutOf(65536, 1, 65536, 1, RankOrder::TpCpDpPp), 8));
}

QTEST_GUILESS_MAIN(TestRankMap)
#include "tst_rankmap.moc"
