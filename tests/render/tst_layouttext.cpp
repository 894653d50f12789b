// Every place the report, the slides and the layout diagram name a layout lists every parallel
// dimension of the table (plan/ParallelDims.h), in its display order, with its size: the PDF's
// plan line, the inputs table, the deck's key figures, the validation plan's replica, the
// diagram's caption, a rank's coordinates and the gradient group's link. The expectations are
// built from the table, so a dimension added to it and missed by one of these fails here.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include "../RunTool.h"
#include "../TestPlans.h"
#include "core/analysis/Analysis.h"
#include "core/base/Format.h"
#include "core/plan/ParallelDims.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "render/layoutdiagram/LayoutDiagramModel.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportPainter.h"
#include "render/report/ReviewHtml.h"
#include "render/report/SlideExport.h"

using namespace trainplan;
using testplans::distinctSizesPlan;

namespace {

std::vector<ParallelDim> displayed()
{
    std::vector<ParallelDim> out(kParallelDims.begin(), kParallelDims.end());
    std::sort(out.begin(), out.end(),
        [](ParallelDim a, ParallelDim b) { return parallelDimInfo(a).displayOrder < parallelDimInfo(b).displayOrder; });
    return out;
}

QString label(ParallelDim d)
{
    return QString::fromUtf8(parallelDimInfo(d).label.data(), qsizetype(parallelDimInfo(d).label.size()));
}

// "TP 2 × PP 4 × DP 8 × CP 16" for the dimensions `keep` accepts, in display order.
template <typename Keep>
QString sizes(const LayoutSpec& l, const QString& separator, Keep keep)
{
    QStringList parts;
    for (ParallelDim d : displayed())
        if (keep(d))
            parts << QStringLiteral("%1 %2").arg(label(d)).arg(l.size(d));
    return parts.join(separator);
}
QString sizes(const LayoutSpec& l, const QString& separator = QStringLiteral(" × "))
{
    return sizes(l, separator, [](ParallelDim) { return true; });
}

}  // namespace

class TestLayoutText : public QObject {
    Q_OBJECT

private slots:
    void reportAndSlidesNameEveryDimension();
    void diagramNamesEveryDimension();
    void diagramShowsTheExpertGrid();
    void diagramNamesRacksAndTrays();
};

// An NVL72 plan: trays are the nodes, racks the NVLink domains. The captions, labels and hover
// text say rack and tray; with 64 GPUs used per rack each EP group fills one rack, with all 72
// some straddle two, and the expert caption, the selected group's link and the step time agree.
void TestLayoutText::diagramNamesRacksAndTrays()
{
    const Plan plan = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/deepseek-v3-512-gb200-nvl72.json");
    LayoutDiagramModel model(plan, analyse(plan).estimate);
    QVERIFY(model.racks());
    QCOMPARE(model.nodeName(0), QStringLiteral("rack 0, tray 0"));
    QCOMPARE(model.nodeName(17), QStringLiteral("rack 1, tray 1"));  // GPUs 68-71 of 64-GPU racks
    QVERIFY2(model.layoutCaption().contains("512 GPUs on 8 racks of 64 (128 trays of 4)"), qPrintable(model.layoutCaption()));
    QVERIFY2(model.frontCaption().contains("8 TRAYS"), qPrintable(model.frontCaption()));
    QVERIFY2(model.describeRank(70).startsWith("Rank 70 · rack 1, tray 1 · local GPU 2"), qPrintable(model.describeRank(70)));
    QVERIFY(!model.epCrossesNodes());
    QVERIFY2(model.expertCaption().contains("inside one NVLink domain"), qPrintable(model.expertCaption()));

    Plan whole = plan;
    whole.cluster.nvlinkDomain = 72;
    LayoutDiagramModel straddling(whole, analyse(whole).estimate);
    QVERIFY(straddling.epCrossesNodes());
    QVERIFY2(straddling.expertCaption().contains("EP groups of 64 GPUs straddle the 72-GPU NVLink domains"),
        qPrintable(straddling.expertCaption()));
    QCOMPARE(straddling.nodeName(17), QStringLiteral("rack 0, tray 17"));
    const auto links = straddling.selectionFor(64).links;  // stage 2's EP group: ranks 64-127, racks 0 and 1
    const auto ep = std::find_if(links.begin(), links.end(), [](const auto& link) { return link.expert; });
    QVERIFY(ep != links.end() && ep->crossesNodes);
    // A plain 8-GPU node says node.
    LayoutDiagramModel nodes(trainplan::defaultPlan(), analyse(trainplan::defaultPlan()).estimate);
    QVERIFY(!nodes.racks());
    QCOMPARE(nodes.nodeName(3), QStringLiteral("node 3"));
}

void TestLayoutText::reportAndSlidesNameEveryDimension()
{
    const Plan plan = distinctSizesPlan();
    const ReportContext context(trainplan::analyse(plan));
    const LayoutSpec& l = context.plan().layout;

    const QString figures = slideexport::keyFigures(context);
    QVERIFY2(figures.contains(" as " + sizes(l) + " · "), qPrintable(figures));

    QStringList labels, values;
    for (ParallelDim d : displayed()) {
        labels << label(d);
        values << QString::number(l.size(d));
    }
    const QString inputs = reportpainter::viewHtml(ReportView::Inputs, context);
    QVERIFY2(inputs.contains(labels.join(" × "))
            && inputs.contains(values.join(" × ") + " = " + QString::fromStdString(trainplan::formatInteger(double(l.gpus())))),
        qPrintable(inputs));

    // One replica: every dimension but the one that splits the batch.
    QStringList replica;
    for (ParallelDim d : displayed())
        if (splitsReplica(d))
            replica << label(d);
    const QString staging = reviewhtml::validationStages(context);
    QVERIFY2(staging.contains("(" + replica.join(" × ") + " = " + QString::number(parallelSizeProduct(l, splitsReplica)) + " GPUs)"),
             qPrintable(staging));

    // The PDF's plan line under the title.
    QTemporaryDir dir;
    const QString path = dir.filePath("report.pdf");
    QString error;
    QVERIFY2(pdfreport::write(context, path, QPageSize::A4, &error), qPrintable(error));
    const QString text = runTool("pdftotext", {"-f", "1", "-l", "1", path, "-"}).simplified();
    QVERIFY2(text.contains(" · " + sizes(l) + " · ZeRO-"), qPrintable(text));
}

void TestLayoutText::diagramNamesEveryDimension()
{
    // Every dimension above 1: the caption names them all.
    const Plan plan = distinctSizesPlan();
    const Estimate est = analyse(plan).estimate;
    LayoutDiagramModel model(plan, est);
    QVERIFY2(model.layoutCaption().startsWith(sizes(plan.layout) + " = "), qPrintable(model.layoutCaption()));
    // At size 1 a dimension is named only when the table says so.
    Plan ones = plan;
    for (ParallelDim d : kParallelDims)
        if (!parallelDimInfo(d).namedWhenOne)
            ones.layout.size(d) = 1;
    ones.cluster.gpus = int(ones.layout.gpus());
    LayoutDiagramModel shorter(ones, analyse(ones).estimate);
    const auto named = [&](ParallelDim d) { return parallelDimInfo(d).namedWhenOne || ones.layout.size(d) > 1; };
    QVERIFY2(
        shorter.layoutCaption().startsWith(sizes(ones.layout, QStringLiteral(" × "), named) + " = "), qPrintable(shorter.layoutCaption()));

    // A rank's coordinates, every dimension in the order the table indexes them.
    const int rank = int(plan.layout.gpus()) - 1;
    QStringList coordinates;
    for (ParallelDim d : kParallelDims)
        coordinates << QStringLiteral("%1 %2").arg(label(d)).arg(plan.layout.size(d) - 1);
    QVERIFY2(model.describeRank(rank).contains(coordinates.join(" · ")), qPrintable(model.describeRank(rank)));
    QVERIFY2(model.selectionFor(rank).title.endsWith(coordinates.join(" · ")), qPrintable(model.selectionFor(rank).title));

    // The gradient group's link names every dimension holding the same weights.
    const auto links = model.selectionFor(rank).links;
    const auto gradient = std::find_if(links.begin(), links.end(), [](const auto& link) { return sharesWeights(link.dim); });
    QVERIFY(gradient != links.end());
    QVERIFY2(gradient->text.startsWith(sizes(plan.layout, QStringLiteral(" × "), sharesWeights) + " · "), qPrintable(gradient->text));
}

void TestLayoutText::diagramShowsTheExpertGrid()
{
    // DeepSeek-V3's EP 64 on 8-GPU nodes: the caption names the grid and says the all-to-all
    // leaves the node; a selected GPU's EP group is its 64 ranks with an EP link on the network,
    // naming the experts the GPU holds.
    const Plan plan = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/deepseek-v3-2048-h800.json");
    const Estimate est = analyse(plan).estimate;
    LayoutDiagramModel model(plan, est);
    QVERIFY(model.experts());
    QVERIFY(model.epCrossesNodes());
    QVERIFY2(model.expertCaption().startsWith("Experts: EP 64 × ETP 1 × EDP 2 over each stage's 128 GPUs · 4 of 256 routed experts per GPU"),
             qPrintable(model.expertCaption()));
    QVERIFY2(model.expertCaption().contains("spans 8 nodes"), qPrintable(model.expertCaption()));
    const int rank = 129;  // stage 2, DP 1: EP group ranks 128-191, experts 4-7
    const auto selection = model.selectionFor(rank);
    QCOMPARE(int(selection.epRanks.size()), 64);
    QCOMPARE(selection.epRanks.front(), 128);
    QCOMPARE(selection.epRanks.back(), 191);
    const auto ep = std::find_if(selection.links.begin(), selection.links.end(), [](const auto& link) { return link.expert; });
    QVERIFY(ep != selection.links.end());
    QVERIFY(ep->crossesNodes);
    QVERIFY2(ep->text.contains("EP 64 · network") && ep->text.contains("experts 4–7"), qPrintable(ep->text));

    // Mixtral 8x22B's EP 8 with TP 2 on 8-GPU nodes stays inside a node: NVLink, muted caption.
    const Plan mixtral = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/mixtral-8x22b-256-h100.json");
    LayoutDiagramModel inside(mixtral, analyse(mixtral).estimate);
    QVERIFY(!inside.epCrossesNodes());
    QVERIFY2(inside.expertCaption().contains("inside one node"), qPrintable(inside.expertCaption()));
    const auto links = inside.selectionFor(0).links;
    const auto epInside = std::find_if(links.begin(), links.end(), [](const auto& link) { return link.expert; });
    QVERIFY(epInside != links.end() && !epInside->crossesNodes);

    // A dense plan has no expert line and no EP group.
    LayoutDiagramModel dense(trainplan::defaultPlan(), analyse(trainplan::defaultPlan()).estimate);
    QVERIFY(dense.expertCaption().isEmpty());
    QVERIFY(dense.selectionFor(0).epRanks.empty());
}

QTEST_MAIN(TestLayoutText)
#include "tst_layouttext.moc"
