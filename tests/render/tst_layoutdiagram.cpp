// The layout diagram's painter, with no widgets: it says what each node holds, maps a drawn GPU
// back to its rank, lights up the right groups when a GPU is selected, flags a TP group that
// crosses nodes, stays legible at 16,384 GPUs by drawing blocks instead of thousands of GPUs,
// and never lets text overlap or leave the picture. The view around it: tests/ui.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include <algorithm>
#include <set>

#include "../PixelCount.h"
#include "core/analysis/Analysis.h"
#include "core/planfile/PlanFile.h"
#include "core/presets/Presets.h"
#include "render/layoutdiagram/LayoutDiagramPainter.h"

using trainplan::ParallelDim;

Q_DECLARE_METATYPE(trainplan::Plan)

namespace {

const QRectF kTarget(0, 0, 1200, 700);

trainplan::Plan seedPlan()
{
    return trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json");
}

trainplan::Plan layoutPlan(int tp, int pp, int dp, int cp = 1, int gpusPerNode = 8)
{
    trainplan::Plan plan = seedPlan();
    plan.layout.tp = tp;
    plan.layout.pp = pp;
    plan.layout.dp = dp;
    plan.layout.cp = cp;
    plan.cluster.gpusPerNode = gpusPerNode;
    plan.cluster.gpus = tp * pp * dp * cp;
    return plan;
}

QImage render(LayoutDiagramPainter& diagram, const QRectF& target = kTarget)
{
    QImage image(target.size().toSize(), QImage::Format_ARGB32);
    image.fill(Qt::black);  // the painter must cover every pixel itself
    QPainter p(&image);
    diagram.paint(p, target);
    return image;
}


std::vector<LayoutDiagramText> textsWithRole(const LayoutDiagramPainter& diagram, LayoutDiagramText::Role role)
{
    std::vector<LayoutDiagramText> out;
    for (const auto& t : diagram.texts())
        if (t.role == role)
            out.push_back(t);
    return out;
}

}  // namespace

class TestLayoutDiagram : public QObject {
    Q_OBJECT

private slots:
    void labelsSayWhatEachNodeHolds();
    void hitTestingFindsTheDrawnRank();
    void selectionLightsUpTpPpAndDpGroups();
    void gradientGroupIncludesContextParallelPeers();
    void linksCarryTheRankMapTraffic();
    void tpAcrossNodesIsFlagged();
    void racksAreOutlinedUnderTheirTrays();
    void largePlansDrawBlocksNotThousandsOfGpus();
    void aShortPanelGivesTheSelectionBandToTheDrawing();
    void textNeverOverlapsNorLeavesThePicture_data();
    void textNeverOverlapsNorLeavesThePicture();
    void tinyTargetsAndBadLayoutsDoNotBreakIt();
};

void TestLayoutDiagram::labelsSayWhatEachNodeHolds()
{
    LayoutDiagramPainter diagram;
    const auto plan = seedPlan();
    diagram.setPlan(plan, trainplan::estimate(plan));
    diagram.layout(kTarget);

    QStringList all;
    for (const auto& t : diagram.texts())
        all << t.text;
    const QString text = all.join('\n');
    QVERIFY2(text.contains("REPLICA 1 OF 64 · 4 NODES · 32 GPUS"), qPrintable(text));
    QVERIFY(text.contains("REPLICAS 2 … 64 (SAME LAYOUT, DIFFERENT DATA)"));
    QVERIFY(text.contains("× 63 replicas, same layout"));
    QVERIFY(text.contains("Stage 1 · node 0"));
    QVERIFY(text.contains("TP 8 · layers 1–20 + embedding"));
    QVERIFY(text.contains("Stage 4 · node 192"));
    QVERIFY(text.contains("TP 8 · layers 61–80 + LM head"));
    QVERIFY(text.contains("Stage 2 × 63"));
    QCOMPARE(textsWithRole(diagram, LayoutDiagramText::Role::Warning).size(), size_t(0));
    QVERIFY(!text.contains("reverse"));

    // DualPipe: each stage's GPUs also run the mirrored stage in the reverse direction.
    auto dualPipe = plan;
    dualPipe.layout.schedule = trainplan::Schedule::DualPipe;
    diagram.setPlan(dualPipe, trainplan::estimate(dualPipe));
    diagram.layout(kTarget);
    all.clear();
    for (const auto& t : diagram.texts())
        all << t.text;
    const QString dual = all.join('\n');
    QVERIFY2(dual.contains("TP 8 · layers 1–20 + embedding; reverse: layers 61–80"), qPrintable(dual));
    QVERIFY(dual.contains("TP 8 · layers 61–80 + LM head; reverse: layers 1–20"));
}

void TestLayoutDiagram::hitTestingFindsTheDrawnRank()
{
    LayoutDiagramPainter diagram;
    const auto plan = seedPlan();
    diagram.setPlan(plan, trainplan::estimate(plan));
    render(diagram);
    // Replica 1's ranks: stage s sits on node 64 s (PP stride 512 in the default order).
    for (int rank : {0, 5, 7, 512 + 3, 1024 + 6, 1536 + 7}) {
        const auto at = diagram.gpuCenter(rank);
        QVERIFY2(at, qPrintable(QString("rank %1 is not drawn").arg(rank)));
        QCOMPARE(diagram.rankAt(*at), std::optional<int>(rank));
    }
    QVERIFY(!diagram.gpuCenter(8));  // replica 2 stands behind, not drawn on its own
    QCOMPARE(diagram.rankAt(QPointF(3, kTarget.height() / 2)), std::nullopt);
}

void TestLayoutDiagram::selectionLightsUpTpPpAndDpGroups()
{
    LayoutDiagramPainter diagram;
    const auto plan = seedPlan();
    diagram.setPlan(plan, trainplan::estimate(plan));
    diagram.layout(kTarget);
    diagram.setSelectedRank(513);  // stage 2, node 64, GPU 1, DP 0
    using P = LayoutDiagramPainter;

    QCOMPARE(diagram.highlightedRanks(P::Selected), std::vector<int>{513});
    QCOMPARE(diagram.highlightedRanks(P::TpGroup), (std::vector<int>{512, 513, 514, 515, 516, 517, 518, 519}));
    QCOMPARE(diagram.highlightedRanks(P::PpNeighbour), (std::vector<int>{1, 1025}));
    // Its 63 DP peers are the same GPU in the replicas behind stage 2's node.
    QCOMPARE(diagram.highlightedRanks(P::DpGroup), std::vector<int>{});
    QCOMPARE(diagram.highlightedStacks(P::DpGroup), std::vector<int>{1});
    QCOMPARE(diagram.highlightedStacks(P::TpGroup), std::vector<int>{});

    const auto& s = diagram.selection();
    QCOMPARE(s.gradientRanks.size(), size_t(64));
    QCOMPARE(s.links.size(), size_t(4));
    QCOMPARE(s.links[0].dim, ParallelDim::Tp);
    QVERIFY(!s.links[0].crossesNodes);
    QVERIFY(s.links[0].text.contains("NVLink"));
    QCOMPARE(s.links[1].dim, ParallelDim::Pp);
    QCOMPARE(s.links[1].from, 1);
    QCOMPARE(s.links[1].to, 513);
    QVERIFY(s.links[1].crossesNodes);
    QVERIFY(s.links[1].text.contains("network"));
    QCOMPARE(s.links[2].to, 1025);
    QCOMPARE(s.links[3].dim, ParallelDim::Dp);
    QVERIFY(s.links[3].crossesNodes);

    // Each link is tagged on the drawing with its medium and bytes.
    const auto tags = textsWithRole(diagram, LayoutDiagramText::Role::LinkTag);
    QVERIFY2(tags.size() >= 3, qPrintable(QString::number(tags.size())));
    for (const auto& t : tags)
        QVERIFY2(t.text.contains("/step") && (t.text.contains("NVLink") || t.text.contains("network")), qPrintable(t.text));

    diagram.setSelectedRank(std::nullopt);
    QCOMPARE(diagram.highlightedRanks(P::TpGroup), std::vector<int>{});
    QCOMPARE(diagram.highlightedStacks(P::DpGroup), std::vector<int>{});
}

void TestLayoutDiagram::gradientGroupIncludesContextParallelPeers()
{
    // CP 2: the gradient group is DP x CP; the CP peer sits in replica 1, one node over.
    const auto plan = layoutPlan(8, 4, 32, 2);
    LayoutDiagramPainter diagram;
    diagram.setPlan(plan, trainplan::estimate(plan));
    diagram.layout(kTarget);
    diagram.setSelectedRank(3);
    const trainplan::RankMap map(plan);
    QCOMPARE(diagram.selection().gradientRanks, map.gradientGroupRanks(3));
    QCOMPARE(diagram.highlightedRanks(LayoutDiagramPainter::DpGroup), std::vector<int>{3 + 8});
    QCOMPARE(diagram.highlightedStacks(LayoutDiagramPainter::DpGroup), (std::vector<int>{0, 1}));
    QVERIFY(diagram.selection().links.back().text.startsWith("DP 32 × CP 2"));
}

void TestLayoutDiagram::linksCarryTheRankMapTraffic()
{
    const auto plan = seedPlan();
    const auto est = trainplan::estimate(plan);
    const trainplan::RankMap map(plan);
    LayoutDiagramPainter diagram;
    diagram.setPlan(plan, est);
    diagram.setSelectedRank(513);
    for (const auto& link : diagram.selection().links) {
        const auto expected = map.traffic(link.dim, link.from, est);
        QCOMPARE(link.traffic.payloadBytesPerStep, expected.payloadBytesPerStep);
        QVERIFY(link.traffic.payloadBytesPerStep > 0);
    }
}

void TestLayoutDiagram::tpAcrossNodesIsFlagged()
{
    trainplan::Plan plan = seedPlan();
    plan.layout.tp = 16;
    plan.layout.dp = 32;
    LayoutDiagramPainter diagram;
    diagram.setPlan(plan, trainplan::analyse(plan).estimate);
    const QImage image = render(diagram);
    const auto* geometry = diagram.geometry();
    QVERIFY(geometry);

    // Every TP group spans two nodes: outlines in the warning colour, bridged node to node.
    int crossing = 0;
    for (const auto& unit : geometry->units())
        for (const auto& outline : unit.tpOutlines)
            crossing += outline.crossesNodes;
    QVERIFY(crossing >= 8);
    QCOMPARE(geometry->tpBridges().size(), size_t(4));
    QVERIFY(countPixels(image, diagram.style().warning()) > 300);

    // The red flag's own words, in full.
    const trainplan::Warning* flag = diagram.model()->tpWarning();
    QVERIFY(flag);
    QStringList lines;
    for (const auto& t : textsWithRole(diagram, LayoutDiagramText::Role::Warning)) {
        QCOMPARE(t.color, LayoutDiagramStyle::severityColor(flag->severity));
        lines << t.text;
    }
    QCOMPARE(lines.join(' '), QStringLiteral("⚠ ") + QString::fromStdString(trainplan::describe(*flag)));
    bool labelled = false;
    for (const auto& t : textsWithRole(diagram, LayoutDiagramText::Role::NodeLabel))
        labelled |= t.text.startsWith("TP 16 spans nodes");
    QVERIFY(labelled);

    // Selecting a GPU: its TP group is lit on both nodes and its link is the network.
    diagram.setSelectedRank(5);
    QCOMPARE(diagram.highlightedRanks(LayoutDiagramPainter::TpGroup).size(), size_t(16));
    QVERIFY(diagram.selection().links.front().crossesNodes);
}

// NVL72-style racks (trays of 4, 72 GPUs in an NVLink domain): the trays of one rack stand on
// one outline, isometric or flat; the legend names it only when one is drawn; plain nodes
// get none; no label runs over an outline's edge.
void TestLayoutDiagram::racksAreOutlinedUnderTheirTrays()
{
    auto racked = [](trainplan::RankOrder order) {
        trainplan::Plan plan = layoutPlan(4, 8, 16, 1, 4);
        plan.cluster.nvlinkDomain = 72;
        plan.layout.rankOrder = order;
        return plan;
    };
    const auto legendHasRack = [](const LayoutDiagramPainter& diagram) {
        const auto& legend = diagram.geometry()->legend();
        return std::any_of(legend.begin(), legend.end(), [](const auto& i) { return i.swatch == LayoutDiagramLegendItem::Swatch::Rack; });
    };
    const auto textCrossesAnOutline = [](const LayoutDiagramPainter& diagram) {
        for (const auto& rack : diagram.geometry()->rackOutlines())
            for (qsizetype i = 0; i < rack.polygon.size(); ++i) {
                const QLineF edge(rack.polygon[i], rack.polygon[(i + 1) % rack.polygon.size()]);
                for (const auto& t : diagram.texts()) {
                    const QRectF r = t.rect.adjusted(1, 1, -1, -1);
                    for (const QLineF side : {QLineF(r.topLeft(), r.topRight()), QLineF(r.topRight(), r.bottomRight()),
                             QLineF(r.bottomRight(), r.bottomLeft()), QLineF(r.bottomLeft(), r.topLeft())})
                        if (edge.intersects(side) == QLineF::BoundedIntersection)
                            return t.text;
                }
            }
        return QString();
    };
    for (const QRectF target : {kTarget, QRectF(0, 0, 720, 330)}) {
        // Pipeline stages inside the data-parallel group: replica 1's 8 trays are rack 0's first 8.
        LayoutDiagramPainter inOneRack;
        const auto together = racked(trainplan::RankOrder::TpCpPpDp);
        inOneRack.setPlan(together, trainplan::estimate(together));
        render(inOneRack, target);
        const auto& units = inOneRack.geometry()->units();
        const auto& racks = inOneRack.geometry()->rackOutlines();
        QCOMPARE(racks.size(), size_t(1));
        QCOMPARE(racks[0].rack, 0);
        QCOMPARE(racks[0].firstUnit, 0);
        QCOMPARE(racks[0].lastUnit, int(units.size()) - 1);
        QCOMPARE(units.size(), size_t(8));
        QCOMPARE(inOneRack.geometry()->flat(), target != kTarget);  // both drawings are covered
        // The outline reaches around every tray's board.
        const QRectF floor = racks[0].polygon.boundingRect();
        for (const auto& u : units)
            QVERIFY(floor.contains(u.plates.front().front.boundingRect()));
        QVERIFY(legendHasRack(inOneRack));
        QVERIFY2(textCrossesAnOutline(inOneRack).isEmpty(), qPrintable(textCrossesAnOutline(inOneRack)));

        // Megatron's order puts each stage 64 GPUs on: stage s starts at GPU 64 s, in rack
        // 64 s / 72 (0, 0, 1, 2, ..., 6), so stages 1 and 2 share rack 0 and the rest have one each.
        LayoutDiagramPainter apart;
        const auto spread = racked(trainplan::RankOrder::TpCpDpPp);
        apart.setPlan(spread, trainplan::estimate(spread));
        render(apart, target);
        const auto& spreadRacks = apart.geometry()->rackOutlines();
        QCOMPARE(spreadRacks.size(), size_t(7));
        QCOMPARE(spreadRacks[0].lastUnit, 1);
        for (size_t i = 1; i < spreadRacks.size(); ++i) {
            QCOMPARE(spreadRacks[i].rack, int(i));
            QCOMPARE(spreadRacks[i].firstUnit, int(i) + 1);
            QCOMPARE(spreadRacks[i].lastUnit, int(i) + 1);
        }
        QVERIFY(legendHasRack(apart));
        QVERIFY2(textCrossesAnOutline(apart).isEmpty(), qPrintable(textCrossesAnOutline(apart)));
    }

    // The outlines are drawn: the floor's colour shows around the boards.
    LayoutDiagramPainter drawn;
    const auto together = racked(trainplan::RankOrder::TpCpPpDp);
    drawn.setPlan(together, trainplan::estimate(together));
    const QImage image = render(drawn);
    const QRect floor = drawn.geometry()->rackOutlines().front().polygon.boundingRect().toAlignedRect();
    QVERIFY(countPixels(image.copy(floor), drawn.style().rackFloor) > 50);

    // Plain 8-GPU nodes: no rack, no legend entry.
    LayoutDiagramPainter plain;
    const auto seed = seedPlan();
    plain.setPlan(seed, trainplan::estimate(seed));
    plain.layout(kTarget);
    QVERIFY(plain.geometry()->rackOutlines().empty());
    QVERIFY(!legendHasRack(plain));
}

void TestLayoutDiagram::largePlansDrawBlocksNotThousandsOfGpus()
{
    // 16,384 GPUs, one replica on 8 nodes: those 64 GPUs are drawn, the 16,320 others stand
    // behind as three boards per stage with a count.
    {
        const auto plan = layoutPlan(8, 8, 256);
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        render(diagram, QRectF(0, 0, 1600, 900));
        QCOMPARE(diagram.individuallyDrawnGpus(), 64);
        size_t ghosts = 0;
        for (const auto& u : diagram.geometry()->units())
            ghosts += u.ghosts.size();
        QVERIFY(ghosts <= 8 * 3);
    }
    // 16,384 GPUs with 64 nodes per replica: blocks of nodes, no GPU drawn on its own.
    {
        const auto plan = layoutPlan(8, 16, 32, 4);
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        const QImage image = render(diagram, QRectF(0, 0, 1600, 900));
        QVERIFY(diagram.nodesAggregated());
        QCOMPARE(diagram.individuallyDrawnGpus(), 0);
        QVERIFY(diagram.geometry()->units().size() <= 24);
        QCOMPARE(diagram.geometry()->droppedLabels(), 0);
        bool counted = false;
        for (const auto& t : textsWithRole(diagram, LayoutDiagramText::Role::NodeLabel))
            counted |= t.text.contains(" nodes");  // "Stage 1 · 4 nodes"
        QVERIFY(counted);
        QVERIFY(countPixels(image, LayoutDiagramStyle::stageColor(0, 16)) > 50);
        // Hovering a block names the block and its first GPU.
        const auto& first = diagram.geometry()->units().front();
        QCOMPARE(diagram.rankAt(first.topCenter), std::optional<int>(first.representativeRank));
        const QString tip = diagram.toolTipAt(first.topCenter);
        QVERIFY2(tip.startsWith("Stage 1 · 4 nodes drawn as one block") && tip.contains("Rank 0 · node 0 · local GPU 0"), qPrintable(tip));
        QVERIFY2(diagram.toolTipAt(first.stackTop).contains("× 31 replicas"), qPrintable(diagram.toolTipAt(first.stackTop)));
    }
    // In a small pane the same 8-node replica is drawn flat, each node a row of its GPUs,
    // rather than as blocks without a GPU or isometric GPUs too small to read.
    {
        const auto plan = layoutPlan(8, 8, 256);
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        const QImage image = render(diagram, QRectF(0, 0, 560, 360));
        QVERIFY(diagram.geometry()->flat());
        QVERIFY(!diagram.nodesAggregated());
        QCOMPARE(diagram.individuallyDrawnGpus() + 8 * diagram.geometry()->hiddenNodes(), 64);
        QVERIFY(diagram.individuallyDrawnGpus() >= 32);
        QCOMPARE(diagram.geometry()->droppedLabels(), 0);
        QCOMPARE(diagram.geometry()->elidedTexts(), 0);
        QVERIFY(countPixels(image, LayoutDiagramStyle::stageColor(0, 8)) > 8 * 50);
        // A drawn GPU answers a hover and a click like an isometric one.
        const auto& cell = diagram.geometry()->units().front().cells.front();
        QCOMPARE(diagram.rankAt(cell.topCenter), std::optional<int>(cell.rank));
        diagram.setSelectedRank(cell.rank);
        QCOMPARE(diagram.highlightedRanks(LayoutDiagramPainter::TpGroup).size(), size_t(8));
    }
    // A thumbnail-sized pane still draws GPUs, the first and last nodes of the replica with
    // a line for the ones between; the hint offers hovering only because there are GPUs.
    {
        const auto plan = layoutPlan(8, 8, 256);
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        render(diagram, QRectF(0, 0, 320, 260));
        QVERIFY(diagram.geometry()->flat());
        QVERIFY(diagram.individuallyDrawnGpus() >= 16);
        QVERIFY(diagram.geometry()->hiddenNodes() >= 2);
        bool ellipsis = false;
        for (const auto& t : textsWithRole(diagram, LayoutDiagramText::Role::NodeLabel))
            ellipsis |= t.text.startsWith(QStringLiteral("⋯ %1 more nodes").arg(diagram.geometry()->hiddenNodes()));
        QVERIFY(ellipsis);
        QCOMPARE(diagram.geometry()->elidedTexts(), 0);
        for (const QString& line : diagram.geometry()->hintLines())
            QVERIFY(QFontMetricsF(diagram.style().smallFont).horizontalAdvance(line) <= diagram.geometry()->panelRect().width());
        QVERIFY(!diagram.geometry()->hintLines().isEmpty());
        QVERIFY(diagram.geometry()->hintLines().first().startsWith("Hover a GPU"));
    }
}

void TestLayoutDiagram::aShortPanelGivesTheSelectionBandToTheDrawing()
{
    // The window's diagram at 1280x720 is about 590 x 230: an MoE plan's caption (the expert grid
    // on two more lines) left the drawing a sliver there. The selection panel then gives its band
    // back: no hover hint, the stages' GPUs drawn, and a click's details over the drawing.
    trainplan::Plan plan = trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/mixtral-8x22b-256-h100.json");
    plan.layout.tp = 2;
    plan.layout.pp = 4;
    plan.layout.dp = 32;
    LayoutDiagramPainter diagram;
    diagram.setPlan(plan, trainplan::estimate(plan));
    const QRectF target(0, 0, 590, 230);
    render(diagram, target);
    QVERIFY(diagram.geometry()->panelOverlaysDrawing());
    QVERIFY(diagram.geometry()->hintLines().isEmpty());
    QVERIFY2(diagram.individuallyDrawnGpus() >= 16, qPrintable(QString::number(diagram.individuallyDrawnGpus())));
    QVERIFY(target.contains(diagram.geometry()->panelRect()));
    // Taller, the same plan keeps the band and its hint.
    render(diagram, QRectF(0, 0, 590, 460));
    QVERIFY(!diagram.geometry()->panelOverlaysDrawing());
    QVERIFY(!diagram.geometry()->hintLines().isEmpty());
}

void TestLayoutDiagram::textNeverOverlapsNorLeavesThePicture_data()
{
    QTest::addColumn<trainplan::Plan>("plan");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("selected");
    const QSize sizes[] = {{1600, 900}, {1200, 700}, {800, 480}, {560, 360}, {320, 260}};
    const struct {
        const char* name;
        trainplan::Plan plan;
        int selected;
    } plans[] = {
        {"seed", seedPlan(), 513},
        {"tp16", layoutPlan(16, 4, 32), 5},
        {"8 GPUs", layoutPlan(8, 1, 1), 3},
        {"16k", layoutPlan(8, 8, 256), 1024 * 8 + 3},
        {"16k cp", layoutPlan(8, 16, 32, 4), 0},
        {"tp2 shared nodes", layoutPlan(2, 4, 16), 3},
        {"4 per node", layoutPlan(4, 8, 8, 1, 4), 9},
    };
    for (const auto& p : plans)
        for (const QSize& s : sizes)
            QTest::addRow("%s %dx%d", p.name, s.width(), s.height()) << p.plan << s << p.selected;
}

void TestLayoutDiagram::textNeverOverlapsNorLeavesThePicture()
{
    QFETCH(trainplan::Plan, plan);
    QFETCH(QSize, size);
    QFETCH(int, selected);
    LayoutDiagramPainter diagram;
    diagram.setPlan(plan, trainplan::estimate(plan));
    const QRectF target(QPointF(0, 0), QSizeF(size));
    diagram.layout(target);
    diagram.setSelectedRank(selected);
    render(diagram, target);

    const auto texts = diagram.texts();
    QVERIFY(!texts.empty());
    const QRectF panel = diagram.geometry()->panelRect();
    for (size_t i = 0; i < texts.size(); ++i) {
        const auto& a = texts[i];
        const QFontMetricsF fm(LayoutDiagramGeometry::font(diagram.style(), a.font));
        QVERIFY2(target.contains(a.rect), qPrintable("outside the picture: " + a.text));
        QVERIFY2(fm.horizontalAdvance(a.text) <= a.rect.width() + 0.5, qPrintable("wider than its room: " + a.text));
        QVERIFY2(!a.rect.intersects(panel), qPrintable("under the selection panel: " + a.text));
        for (size_t j = i + 1; j < texts.size(); ++j)
            QVERIFY2(!a.rect.intersects(texts[j].rect), qPrintable(a.text + " overlaps " + texts[j].text));
    }
    QCOMPARE(diagram.geometry()->droppedLabels(), 0);
}

void TestLayoutDiagram::tinyTargetsAndBadLayoutsDoNotBreakIt()
{
    for (const auto& plan : {seedPlan(), layoutPlan(8, 16, 32, 4)}) {
        LayoutDiagramPainter diagram;
        diagram.setPlan(plan, trainplan::estimate(plan));
        for (const QSizeF size : {QSizeF(1, 1), QSizeF(120, 80), QSizeF(300, 200)}) {
            const QImage image = render(diagram, QRectF(QPointF(0, 0), size));
            QCOMPARE(image.pixelColor(0, 0), diagram.style().background);
            diagram.setSelectedRank(0);
            render(diagram, QRectF(QPointF(0, 0), size));
            diagram.setSelectedRank(std::nullopt);
        }
    }
    // A layout the rank map cannot number: the diagram says why instead of drawing.
    trainplan::Plan bad = seedPlan();
    bad.layout.tp = 0;
    LayoutDiagramPainter diagram;
    diagram.setPlan(bad, trainplan::Estimate{});
    QVERIFY(!diagram.hasPlan());
    QVERIFY(diagram.problem().contains("layout.tp"));
    QCOMPARE(diagram.rankAt(QPointF(10, 10)), std::nullopt);
    const QImage image = render(diagram);
    QVERIFY(countPixels(image, diagram.style().mutedText) > 0);
}

QTEST_MAIN(TestLayoutDiagram)
#include "tst_layoutdiagram.moc"
