// The expert grid (parallel folding, issue 24): EP carved out of TP x CP x DP, every rank's
// stage the same in both grids, groups that partition the ranks, and the layouts it refuses.
#include <QtTest>

#include <set>

#include "TestSupport.h"
#include "core/rankmap/ExpertGrid.h"
#include "core/rankmap/RankMap.h"

using namespace trainplan;

namespace {

using testsupport::layoutOf;

LayoutSpec layout(int tp, int cp, int dp, int pp, RankOrder order = RankOrder::TpCpDpPp)
{
    return layoutOf(tp, cp, dp, pp, order);
}

ExpertGrid grid(const LayoutSpec& l, int etp, int ep, int experts)
{
    auto made = ExpertGrid::make(l, etp, ep, experts);
    if (auto* error = std::get_if<std::string>(&made))
        qFatal("no grid: %s", error->c_str());
    return std::get<ExpertGrid>(made);
}

QString refusal(const LayoutSpec& l, int etp, int ep, int experts)
{
    auto made = ExpertGrid::make(l, etp, ep, experts);
    return std::holds_alternative<std::string>(made) ? QString::fromStdString(std::get<std::string>(made)) : QString();
}

}  // namespace

class TestExpertGrid : public QObject {
    Q_OBJECT

private slots:
    // DeepSeek-V3's pre-training layout (technical report, Sec. 3.2: PP 16, EP 64 across 8
    // nodes, ZeRO-1 DP) on 2,048 GPUs of 8 per node: 4 experts a rank, each EP group 64
    // consecutive ranks on 8 nodes, 2 replicas of every expert.
    void deepSeekV3Layout()
    {
        const ExpertGrid g = grid(layout(1, 1, 128, 16), 1, 64, 256);
        QCOMPARE(g.edp(), 2);
        QCOMPARE(g.expertsPerRank(), 4);
        QCOMPARE(g.ranks(), 2048);
        const ExpertGroup ep = g.epGroup(0);
        QCOMPARE(ep.first, 0);
        QCOMPARE(ep.stride, 1);
        QCOMPARE(ep.size, 64);
        QCOMPARE(g.nodesSpannedByEpGroup(0, 8), 8);
        QCOMPARE(g.edpGroup(5)[1], 69);
        QCOMPARE(g.firstExpert(70), 6 * 4);
        QCOMPARE(g.coords(2047), (ExpertCoords{0, 63, 1, 15}));
    }

    // EP is not bounded by DP: with TP 2 x DP 4 on 8 GPUs, EP 8 spans the TP ranks too.
    void epFoldsOverTensorParallelRanks()
    {
        const ExpertGrid g = grid(layout(2, 1, 4, 2), 1, 8, 8);
        QCOMPARE(g.edp(), 1);
        QCOMPARE(g.epGroup(3).size, 8);
        QCOMPARE(g.nodesSpannedByEpGroup(3, 8), 1);
        QCOMPARE(g.expertsPerRank(), 1);
        // ETP 2, EP 4: each expert's matrices split over two neighbours.
        const ExpertGrid split = grid(layout(2, 1, 4, 2), 2, 4, 8);
        QCOMPARE(split.etpGroup(5).first, 4);
        QCOMPARE(split.epGroup(5).stride, 2);
        QCOMPARE(split.nodesSpannedByEpGroup(5, 4), 2);
    }

    // For every rank of many layouts: the expert grid's stage is the dense grid's (RankMap), the
    // coordinates give the rank back, and the EP, ETP and EDP groups each partition the ranks.
    void gridsAgreeOnEveryRank()
    {
        struct Case {
            int tp, cp, dp, pp, etp, ep, experts;
            RankOrder order;
        };
        const Case cases[] = {{1, 1, 128, 16, 1, 64, 256, RankOrder::TpCpDpPp}, {2, 1, 4, 2, 1, 8, 8, RankOrder::TpCpDpPp},
            {4, 2, 8, 3, 2, 4, 16, RankOrder::TpCpDpPp}, {2, 2, 6, 2, 1, 4, 8, RankOrder::TpCpPpDp}, {8, 1, 4, 4, 1, 8, 64, RankOrder::TpCpPpDp},
            {2, 1, 8, 2, 2, 2, 6, RankOrder::TpDpCpPp}, {1, 1, 1, 4, 1, 1, 1, RankOrder::TpCpDpPp}};
        for (const Case& c : cases) {
            const LayoutSpec l = layout(c.tp, c.cp, c.dp, c.pp, c.order);
            const ExpertGrid g = grid(l, c.etp, c.ep, c.experts);
            const RankMap dense(l, 8);
            QCOMPARE(g.ranks(), c.tp * c.cp * c.dp * c.pp);
            std::set<int> epFirsts, edpFirsts, etpFirsts;
            int epMembers = 0, edpMembers = 0, etpMembers = 0;
            for (int r = 0; r < g.ranks(); ++r) {
                const ExpertCoords x = g.coords(r);
                QCOMPARE(x.pp, dense.coordinates(r).pp);
                for (const auto& [group, firsts, members] :
                    {std::tuple{g.epGroup(r), &epFirsts, &epMembers}, std::tuple{g.edpGroup(r), &edpFirsts, &edpMembers},
                        std::tuple{g.etpGroup(r), &etpFirsts, &etpMembers}}) {
                    QVERIFY(group.contains(r));
                    if (firsts->insert(group.first).second)
                        *members += group.size;
                }
                // Members of r's EP group differ from r in the EP coordinate only.
                const ExpertGroup ep = g.epGroup(r);
                for (int i = 0; i < ep.size; ++i) {
                    const ExpertCoords y = g.coords(ep[i]);
                    QCOMPARE(y.ep, i);
                    QCOMPARE((ExpertCoords{y.etp, x.ep, y.edp, y.pp}), x);
                }
            }
            QCOMPARE(epMembers, g.ranks());
            QCOMPARE(edpMembers, g.ranks());
            QCOMPARE(etpMembers, g.ranks());
        }
    }

    // What it refuses names the field and the reason.
    void refusesLayoutsWithoutAGrid()
    {
        QVERIFY(refusal(layout(1, 1, 128, 16), 1, 48, 256).contains("layout.ep: 48 does not divide the 256 experts"));
        QVERIFY(refusal(layout(2, 1, 4, 2), 1, 16, 16).contains("does not divide TP x CP x DP = 8"));
        QVERIFY(refusal(layout(2, 2, 6, 2, RankOrder::TpCpPpDp), 1, 8, 8).contains("ETP x EP = TP x CP (4)"));
        QVERIFY(refusal(layout(2, 1, 4, 2), 0, 1, 8).startsWith("layout.etp"));
        QVERIFY(refusal(layout(2, 1, 4, 2), 1, 1, 0).startsWith("model.moe.experts"));
        QVERIFY(refusal(layout(2, 1, 4, 2), 1, 4, 8).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestExpertGrid)
#include "tst_expertgrid.moc"
