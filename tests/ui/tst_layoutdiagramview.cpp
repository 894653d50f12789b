// The layout diagram's view, offscreen: it draws the document's plan in stage colours, answers a
// hover and a click, repaints when the document changes and drops a selection whose rank is
// gone. The painter itself: tests/render/tst_layoutdiagram.cpp.
#include <QImage>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include "../PixelCount.h"
#include "core/planfile/PlanFile.h"
#include "ui/document/PlanDocument.h"
#include "ui/layoutdiagram/LayoutDiagramView.h"

namespace {

const QRectF kTarget(0, 0, 1200, 700);

trainplan::Plan seedPlan()
{
    return trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json");
}

}  // namespace

class TestLayoutDiagramView : public QObject {
    Q_OBJECT

private slots:
    void viewRendersTheSeedPlanInStageColours();
    void hoverShowsRankNodeAndCoordinates();
    void clickSelectsAGpu();
    void viewRepaintsWhenTheDocumentChanges();
    void selectionIsDroppedWhenItsRankDisappears();
};

void TestLayoutDiagramView::viewRendersTheSeedPlanInStageColours()
{
    PlanDocument doc;
    doc.resetTo(seedPlan());
    LayoutDiagramView view(&doc);
    view.resize(kTarget.size().toSize());
    const QImage image = view.grab().toImage().convertToFormat(QImage::Format_ARGB32);

    const int background = countPixels(image, view.diagram().style().background);
    QVERIFY2(background < image.width() * image.height() * 0.95, "the diagram is blank");
    for (int stage = 0; stage < 4; ++stage) {
        const QColor color = LayoutDiagramStyle::stageColor(stage, 4);
        QVERIFY2(countPixels(image, color) > 200, qPrintable(QString("stage %1's colour %2 is missing").arg(stage + 1).arg(color.name())));
    }
    // Four nodes of eight GPUs in front: replica 1 of the worked example's TP 8 x PP 4 x DP 64.
    QCOMPARE(view.diagram().individuallyDrawnGpus(), 32);
    QVERIFY(!view.diagram().nodesAggregated());
}

void TestLayoutDiagramView::hoverShowsRankNodeAndCoordinates()
{
    PlanDocument doc;
    doc.resetTo(seedPlan());
    LayoutDiagramView view(&doc);
    view.resize(kTarget.size().toSize());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const QString text = view.diagram().describeRank(517);
    QVERIFY2(text.contains("Rank 517 · node 64 · local GPU 5"), qPrintable(text));
    QVERIFY2(text.contains("TP 5 · CP 0 · DP 0 · PP 1"), qPrintable(text));
    QVERIFY2(text.contains("Replica 1 of 64 · Stage 2 of 4 · layers 21–40"), qPrintable(text));

    QCOMPARE(view.diagram().toolTipAt(*view.diagram().gpuCenter(517)), text);
    const QPoint at = view.diagram().gpuCenter(517)->toPoint();
    QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
    QCoreApplication::sendEvent(&view, &help);
    QTRY_COMPARE(QToolTip::text(), text);
    QToolTip::hideText();
}

void TestLayoutDiagramView::clickSelectsAGpu()
{
    PlanDocument doc;
    doc.resetTo(seedPlan());
    LayoutDiagramView view(&doc);
    view.resize(kTarget.size().toSize());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy changed(&view, &LayoutDiagramView::selectedRankChanged);

    QTest::mouseClick(&view, Qt::LeftButton, {}, view.diagram().gpuCenter(1024 + 2)->toPoint());
    QCOMPARE(view.selectedRank(), std::optional<int>(1026));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.last().at(0).toInt(), 1026);

    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(3, view.height() / 2));  // empty space clears
    QCOMPARE(view.selectedRank(), std::nullopt);
    QCOMPARE(changed.last().at(0).toInt(), -1);
}

void TestLayoutDiagramView::viewRepaintsWhenTheDocumentChanges()
{
    PlanDocument doc;
    doc.resetTo(seedPlan());
    LayoutDiagramView view(&doc);
    view.resize(kTarget.size().toSize());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.paintCount() > 0);
    const QImage before = view.grab().toImage();
    const int paints = view.paintCount();

    doc.edit("PP 8", [](trainplan::Plan& p) {
        p.layout.pp = 8;
        p.layout.dp = 32;
    });
    QTRY_VERIFY(view.paintCount() > paints);
    QCOMPARE(view.diagram().model()->frontCaption(), QStringLiteral("REPLICA 1 OF 32 · 8 NODES · 64 GPUS"));
    QVERIFY(view.grab().toImage() != before);
    QCOMPARE(view.diagram().individuallyDrawnGpus(), 64);
}

void TestLayoutDiagramView::selectionIsDroppedWhenItsRankDisappears()
{
    PlanDocument doc;
    doc.resetTo(seedPlan());
    LayoutDiagramView view(&doc);
    view.selectRank(1500);
    QCOMPARE(view.selectedRank(), std::optional<int>(1500));
    doc.edit("DP 16", [](trainplan::Plan& p) { p.layout.dp = 32; });  // 1,024 ranks
    QCOMPARE(view.selectedRank(), std::nullopt);
    view.selectRank(700);
    doc.edit("DP 64", [](trainplan::Plan& p) { p.layout.dp = 64; });
    QCOMPARE(view.selectedRank(), std::optional<int>(700));  // still exists: kept, groups recomputed
    QCOMPARE(view.diagram().selection().gradientRanks.size(), size_t(64));
}

QTEST_MAIN(TestLayoutDiagramView)
#include "tst_layoutdiagramview.moc"
