// The pipeline timeline's view, offscreen: it draws the default plan's schedule, follows the
// document, finds the block under the pointer, zooms and fits, compares four schedules with
// their closed-form bubbles and says why a schedule cannot run. The scene alone (level of
// detail, activations in flight against the core): tests/render/tst_timelinescene.cpp.
#include "../PixelCount.h"
#include "../TestPlans.h"
#include <cmath>

#include <QBuffer>
#include <QPainter>
#include <QPicture>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <QtTest>

#include "core/base/Format.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/search/LayoutAdjuster.h"
#include "ui/document/PlanDocument.h"
#include "ui/timeline/TimelineCanvas.h"
#include "ui/timeline/TimelineView.h"

using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;

namespace {

constexpr QSize kShot(1400, 600);

// The first event of a kind, stage and micro-batch in a lane, or -1.
std::int64_t findEvent(const TimelineLane& lane, ScheduleEventKind kind, int stage, int microbatch, int chunk = 0)
{
    const auto& events = lane.result().events;
    for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.kind == kind && e.stage == stage && e.microbatch == microbatch && e.chunk == chunk)
            return std::int64_t(i);
    }
    return -1;
}

void paintScene(TimelineScene& scene, QSize size = kShot)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    scene.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
}

}  // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    void rendersTheDefaultPlan();
    void followsTheScheduleOfTheDocument();
    void followsThePipelineDepth();
    void reusesItsStorageOnASliderTick();
    void hitTestingFindsTheBlockDrawnThere();
    void hitTestingFindsDpSyncAndThinBlocks();
    void tooltipTellsTheBlock();
    void zoomInThenFitRestoresTheFullRange();
    void wheelZoomsAroundThePointerAndDragPans();
    void comparisonShowsFourSchedulesWithTheirBubbles();
    void comparisonSaysWhyAScheduleCannotRun();
    void planThatCannotRunItsScheduleSaysWhy();
    void inFlightShowsWhy1F1BBeatsGPipe();
    void inFlightCountsGetWholeTicks();
    void exportsToVectorPainters();
    void lowPanesScrollLegibleRows();
    void moeBlocksShowTheirAllToAllShare();
};

void TestTimeline::rendersTheDefaultPlan()
{
    PlanDocument doc;
    TimelineView view(&doc);
    const QImage image = view.renderImage(kShot);
    const auto& style = view.scene().timeline().style();
    QCOMPARE(view.scene().model().laneCount(), 1);
    QCOMPARE(view.scene().model().lane(0).kind, ScheduleKind::OneFOneB);
    QCOMPARE(view.scene().timeline().rowCount(0), 4);
    // Not blank: both block colours cover a good share of the rows (16 F and 16 B per stage).
    QVERIFY2(countPixels(image, style.forward) > 5000, "forward colour missing");
    QVERIFY2(countPixels(image, style.backward) > 10000, "backward colour missing");
    QVERIFY(countPixels(image, style.bubble) > 1000);
    QVERIFY(countPixels(image, style.dpExposed) > 50);  // stage 1's sync ends the step
    // Every block of the default plan is wide enough to be drawn and numbered.
    QCOMPARE(view.scene().timeline().stats().aggregatedColumns, 0);
    QVERIFY(view.scene().timeline().stats().labels >= 4 * 32);
    QVERIFY(view.scene().timeline().headerText().contains("1F1B"));
    QVERIFY(view.scene().timeline().headerText().contains("15.8 %"));  // the closed form, 3/19
    // Issue 23: the header's step is the predicted step every other view quotes, the optimizer
    // included (the simulated pipeline and DP tail alone are shorter).
    const QString predicted = QString::fromStdString(trainplan::formatSeconds(doc.analysis().predicted.stepSeconds));
    QVERIFY2(view.scene().timeline().headerText().contains("step " + predicted), qPrintable(view.scene().timeline().headerText()));
    QVERIFY(view.scene().timeline().headerText().contains("optimizer"));
}

void TestTimeline::followsTheScheduleOfTheDocument()
{
    PlanDocument doc;
    TimelineView view(&doc);
    QCOMPARE(view.scene().inFlight().curves().size(), size_t(0));  // not painted yet
    view.renderImage(kShot);
    QCOMPARE(view.scene().model().lane(0).inFlight.peak(0), 4.0);
    doc.edit("GPipe", [](trainplan::Plan& p) { p.layout.schedule = trainplan::Schedule::GPipe; });
    view.renderImage(kShot);
    QCOMPARE(view.scene().model().lane(0).kind, ScheduleKind::GPipe);
    QCOMPARE(view.scene().model().lane(0).inFlight.peak(0), 16.0);  // GPipe holds all m
    QVERIFY(view.scene().timeline().headerText().startsWith("GPipe"));
    doc.undoStack()->undo();
    QCOMPARE(view.scene().model().lane(0).kind, ScheduleKind::OneFOneB);
}

void TestTimeline::followsThePipelineDepth()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.renderImage(kShot);
    const double before = view.scene().model().lane(0).result().closedFormBubbleFraction;
    QCOMPARE(before, 3.0 / 19.0);
    doc.setLayoutDimension(trainplan::ParallelDim::Pp, 8);  // DP follows: 32 replicas, m = 32
    view.renderImage(kShot);
    QCOMPARE(view.scene().timeline().rowCount(0), 8);
    const auto& r = view.scene().model().lane(0).result();
    QCOMPARE(r.p, 8);
    QCOMPARE(r.closedFormBubbleFraction, 7.0 / (r.m + 7.0));
    QVERIFY(r.bubbleFraction != before);
    // Back to 4 stages; the pointer moves over row 8 of the last paint before the next one.
    const auto lastRow =
        view.scene().timeline().eventRect({0, std::uint32_t(findEvent(view.scene().model().lane(0), ScheduleEventKind::Forward, 7, 0))});
    QVERIFY(lastRow);
    doc.undoStack()->undo();
    QCOMPARE(view.scene().model().lane(0).result().p, 4);
    QVERIFY(!view.scene().eventAt(lastRow->center()));
    QVERIFY(view.scene().toolTipAt(lastRow->center()).isEmpty());
}

void TestTimeline::reusesItsStorageOnASliderTick()
{
    PlanDocument doc;
    TimelineView view(&doc);
    const auto* events = view.scene().model().lane(0).result().events.data();
    doc.edit("MFU", [](trainplan::Plan& p) { p.training.mfu = 0.35; });
    doc.edit("MFU", [](trainplan::Plan& p) { p.training.mfu = 0.30; });
    QCOMPARE(view.scene().model().lane(0).result().events.data(), events);
}

void TestTimeline::hitTestingFindsTheBlockDrawnThere()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.renderImage(kShot);
    const TimelinePainter& timeline = view.scene().timeline();
    const TimelineLane& lane = view.scene().model().lane(0);
    for (auto kind : {ScheduleEventKind::Forward, ScheduleEventKind::Backward}) {
        const std::int64_t index = findEvent(lane, kind, 2, 5);
        QVERIFY(index >= 0);
        const TimelineEventRef ref{0, std::uint32_t(index)};
        const auto rect = timeline.eventRect(ref);
        QVERIFY(rect);
        QVERIFY(rect->width() > 10);
        QCOMPARE(timeline.eventAt(rect->center()), std::optional(ref));
        // The drawn pixel there is the block's colour (near its left edge: the centre may
        // carry the micro-batch label).
        const QImage image = view.renderImage(kShot);
        const QPoint inside(int(rect->left()) + 3, int(rect->center().y()));
        QCOMPARE(QColor(image.pixel(inside)).rgb(), timeline.style().blockColor(kind).rgb());
    }
    QVERIFY(!timeline.eventAt(QPointF(2, 2)));  // the header
}

void TestTimeline::hitTestingFindsDpSyncAndThinBlocks()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.renderImage(kShot);
    const TimelineLane& lane = view.scene().model().lane(0);
    const std::int64_t sync = lane.track.dpSync(0);
    QVERIFY(sync >= 0);
    const auto rect = view.scene().timeline().eventRect({0, std::uint32_t(sync)});
    QVERIFY(rect);
    QCOMPARE(view.scene().timeline().eventAt(rect->center()), std::optional(TimelineEventRef{0, std::uint32_t(sync)}));

    // Sub-pixel blocks of a million-event step: still the block under the point.
    TimelineScene scene;
    const trainplan::Plan plan = testplans::largePipelinePlan();
    scene.setAnalysis(trainplan::analyse(plan));
    paintScene(scene, {1600, 600});
    const TimelineLane& big = scene.model().lane(0);
    const std::int64_t index = findEvent(big, ScheduleEventKind::Backward, 10, 500, 2);
    QVERIFY(index >= 0);
    const auto thin = scene.timeline().eventRect({0, std::uint32_t(index)});
    QVERIFY(thin && thin->width() < 1.0);
    QCOMPARE(scene.eventAt(thin->center()), std::optional(TimelineEventRef{0, std::uint32_t(index)}));
}

void TestTimeline::tooltipTellsTheBlock()
{
    PlanDocument doc;
    doc.edit("interleaved", [](trainplan::Plan& p) {
        p.layout.schedule = trainplan::Schedule::Interleaved;
        p.layout.virtualStages = 2;
    });
    TimelineView view(&doc);
    view.renderImage(kShot);
    const TimelineLane& lane = view.scene().model().lane(0);
    const std::int64_t index = findEvent(lane, ScheduleEventKind::Forward, 1, 3, 1);
    const auto& e = lane.result().events[size_t(index)];
    const auto rect = view.scene().timeline().eventRect({0, std::uint32_t(index)});
    const QString tip = view.scene().toolTipAt(rect->center());
    QVERIFY2(tip.contains("Forward · micro-batch 4 · chunk 2 of 2"), qPrintable(tip));
    QVERIFY2(tip.contains("Stage 2 of 4"), qPrintable(tip));
    QVERIFY2(tip.contains(TimelineAxis::milliseconds(e.startSeconds, 1e-5)), qPrintable(tip));
    QVERIFY2(tip.contains(TimelineAxis::milliseconds(e.endSeconds, 1e-5)), qPrintable(tip));
    // The bubble tells the stage's idle time: stage 4 waits at the start of the step.
    const auto lastStage = view.scene().timeline().eventRect({0, std::uint32_t(findEvent(lane, ScheduleEventKind::Forward, 3, 0))});
    const double idleX = view.scene().timeline().axis().x(lane.result().computeSeconds * 0.001);
    const QString idle = view.scene().toolTipAt(QPointF(idleX, lastStage->center().y()));
    QVERIFY2(idle.contains("Stage 4 idle (bubble)"), qPrintable(idle));
}

void TestTimeline::zoomInThenFitRestoresTheFullRange()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.renderImage(kShot);
    TimelineScene& scene = view.scene();
    const auto full = scene.fullWindow();
    QVERIFY(scene.isFitted());
    QCOMPARE(scene.windowStart(), full.first);
    QCOMPARE(scene.windowEnd(), full.second);
    QVERIFY(full.first <= 0 && full.second >= scene.model().lane(0).result().stepSeconds);
    const TimelineAxis& axis = scene.timeline().axis();
    scene.zoomAt(axis.left() + axis.width() / 2, 8);
    QVERIFY(!scene.isFitted());
    QVERIFY(qAbs((scene.windowEnd() - scene.windowStart()) - (full.second - full.first) / 8) < 1e-9);
    view.renderImage(kShot);
    const int labelsZoomed = scene.timeline().stats().labels;
    scene.fit();
    QVERIFY(scene.isFitted());
    QCOMPARE(scene.windowStart(), full.first);
    QCOMPARE(scene.windowEnd(), full.second);
    view.renderImage(kShot);
    QCOMPARE(scene.timeline().axis().t0(), full.first);
    QCOMPARE(scene.timeline().axis().t1(), full.second);
    QVERIFY(scene.timeline().stats().labels > labelsZoomed);  // every block back in view
    // Zooming out never goes past the whole step.
    scene.zoomAt(axis.left(), 0.01);
    QCOMPARE(scene.windowEnd() - scene.windowStart(), full.second - full.first);
}

void TestTimeline::wheelZoomsAroundThePointerAndDragPans()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.resize(kShot);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    TimelineCanvas* canvas = view.canvas();
    canvas->repaint();
    const TimelineScene& scene = view.scene();
    const TimelineAxis before = scene.timeline().axis();
    const QPointF at(QPoint(int(before.left() + before.width() * 0.3), canvas->height() / 3));  // whole pixels, as QTest sends
    const double timeUnderPointer = before.seconds(at.x());
    QWheelEvent wheel(at, canvas->mapToGlobal(at), QPoint(), QPoint(0, 3 * 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &wheel);
    canvas->repaint();
    const TimelineAxis& after = scene.timeline().axis();
    QVERIFY(after.t1() - after.t0() < (before.t1() - before.t0()) / 1.9);  // 1.25^3 = 1.95x
    QVERIFY(qAbs(after.seconds(at.x()) - timeUnderPointer) < 1e-9);

    // Drag 100 px to the right: the content follows, so the window moves back in time.
    const double startBefore = scene.windowStart();
    const double secondsPerPixel = 1 / after.pixelsPerSecond();
    QTest::mousePress(canvas, Qt::LeftButton, Qt::NoModifier, at.toPoint());
    QMouseEvent move(
        QEvent::MouseMove, at + QPointF(100, 0), canvas->mapToGlobal(at + QPointF(100, 0)), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(canvas, &move);
    QTest::mouseRelease(canvas, Qt::LeftButton, Qt::NoModifier, (at + QPointF(100, 0)).toPoint());
    QVERIFY(qAbs((startBefore - scene.windowStart()) - 100 * secondsPerPixel) < 1e-9);

    QTest::mouseDClick(canvas, Qt::LeftButton, Qt::NoModifier, at.toPoint());
    QVERIFY(scene.isFitted());
}

void TestTimeline::comparisonShowsFourSchedulesWithTheirBubbles()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.compareAction()->trigger();
    QVERIFY(view.comparison());
    view.renderImage(kShot);
    const TimelineModel& model = view.scene().model();
    QCOMPARE(model.laneCount(), 4);
    const ScheduleKind kinds[] = {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved, ScheduleKind::ZeroBubbleH1};
    for (int i = 0; i < 4; ++i) {
        QVERIFY2(model.lane(i).simulated(), qPrintable(model.lane(i).problem));
        QCOMPARE(model.lane(i).kind, kinds[i]);
        QCOMPARE(view.scene().timeline().rowCount(i), 4);
    }
    // Closed forms (p-1)/(m+p-1) = 3/19 and, at v = 2 (the plan has none), (p-1)/(vm+p-1) = 3/35.
    QCOMPARE(model.lane(0).result().closedFormBubbleFraction, 3.0 / 19.0);
    QCOMPARE(model.lane(1).result().closedFormBubbleFraction, 3.0 / 19.0);
    QCOMPARE(model.lane(2).v, 2);
    QCOMPARE(model.lane(2).result().closedFormBubbleFraction, 3.0 / 35.0);
    // Each lane's title carries its bubble, simulated and closed form.
    const QStringList titles = view.scene().timeline().laneTitles();
    QCOMPARE(titles.size(), 4);
    QVERIFY2(titles[0].startsWith("GPipe") && titles[0].contains("closed form 15.8 %"), qPrintable(titles[0]));
    QVERIFY2(titles[1].startsWith("1F1B") && titles[1].contains("closed form 15.8 %"), qPrintable(titles[1]));
    QVERIFY2(titles[2].startsWith("Interleaved 1F1B, v = 2") && titles[2].contains("closed form 8.6 %"), qPrintable(titles[2]));
    QVERIFY2(titles[3].startsWith("Zero bubble"), qPrintable(titles[3]));
    for (int i = 0; i < 4; ++i)
        QVERIFY2(titles[i].contains(QString::fromStdString(trainplan::formatPercent(model.lane(i).result().bubbleFraction, 1))),
            qPrintable(titles[i]));
    // One shared time axis: the longest step fits.
    double longest = 0;
    for (int i = 0; i < 4; ++i)
        longest = std::max(longest, model.lane(i).result().stepSeconds);
    QCOMPARE(model.fullSeconds(), longest);
    // And back to the plan's own schedule.
    view.compareAction()->trigger();
    QCOMPARE(view.scene().model().laneCount(), 1);
}

void TestTimeline::comparisonSaysWhyAScheduleCannotRun()
{
    PlanDocument doc;
    // 1,152 sequences over 64 replicas: m = 18, not a multiple of p = 4.
    doc.edit("batch", [](trainplan::Plan& p) { p.training.globalBatchSequences = 1152; });
    QCOMPARE(doc.estimate().pipeline.microbatches, 18);
    TimelineView view(&doc);
    view.setComparison(true);
    view.renderImage(kShot);
    const TimelineModel& model = view.scene().model();
    QCOMPARE(model.laneCount(), 4);
    QVERIFY(!model.lane(2).simulated());
    QVERIFY2(model.lane(2).problem.contains("multiple of the pipeline stages"), qPrintable(model.lane(2).problem));
    QVERIFY2(view.scene().timeline().laneTitles()[2].contains("cannot run"), qPrintable(view.scene().timeline().laneTitles()[2]));
    QCOMPARE(view.scene().timeline().rowCount(2), 0);
    for (int i : {0, 1, 3})
        QVERIFY(model.lane(i).simulated());
}

void TestTimeline::planThatCannotRunItsScheduleSaysWhy()
{
    PlanDocument doc;
    doc.edit("interleaved without chunks", [](trainplan::Plan& p) { p.layout.schedule = trainplan::Schedule::Interleaved; });
    TimelineView view(&doc);
    view.renderImage(kShot);
    const TimelineLane& lane = view.scene().model().lane(0);
    QVERIFY(!lane.simulated());
    QVERIFY2(lane.problem.contains("at least 2 model chunks"), qPrintable(lane.problem));
    QVERIFY(view.scene().timeline().headerText().contains("cannot"));
    QVERIFY(!view.scene().timeline().eventAt(QPointF(700, 200)));
}

void TestTimeline::inFlightShowsWhy1F1BBeatsGPipe()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.setComparison(true);
    view.renderImage(kShot);
    const TimelineModel& model = view.scene().model();
    for (int s = 0; s < 4; ++s) {
        QCOMPARE(model.lane(0).inFlight.peak(s), 16.0);           // GPipe: all m micro-batches
        QCOMPARE(model.lane(1).inFlight.peak(s), double(4 - s));  // 1F1B: p - i
    }
    // The strip compares stage 1 across the four schedules.
    const auto& curves = view.scene().inFlight().curves();
    QCOMPARE(curves.size(), size_t(4));
    QCOMPARE(curves[0].peak, 16.0);
    QCOMPARE(curves[1].peak, 4.0);
    QVERIFY(!view.scene().inFlightRect().isEmpty());
    const QRectF strip = view.scene().inFlightRect();
    const QString tip = view.scene().toolTipAt(QPointF(view.scene().timeline().axis().x(model.fullSeconds() * 0.3), strip.center().y()));
    QVERIFY2(tip.contains("GPipe") && tip.contains("1F1B"), qPrintable(tip));
}

void TestTimeline::exportsToVectorPainters()
{
    PlanDocument doc;
    TimelineView view(&doc);
    QBuffer svg;
    svg.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&svg);
    generator.setSize(kShot);
    generator.setViewBox(QRect(QPoint(0, 0), kShot));
    {
        QPainter p(&generator);
        view.scene().paint(p, QRectF(QPointF(0, 0), QSizeF(kShot)));
    }
    const QByteArray text = svg.data();
    QVERIFY(text.contains("Stage 4"));
    QVERIFY(text.contains("Activations in flight"));

    // A big step through a vector painter: the level-of-detail image, not a million shapes.
    TimelineScene scene;
    const trainplan::Plan plan = testplans::largePipelinePlan();
    scene.setAnalysis(trainplan::analyse(plan));
    QPicture picture;
    {
        QPainter p(&picture);
        scene.paint(p, QRectF(0, 0, 1600, 600));
    }
    QVERIFY(picture.size() > 0);
    QVERIFY2(picture.size() < 20 * 1024 * 1024, qPrintable(QString::number(picture.size())));
    QVERIFY(scene.timeline().stats().aggregatedColumns > 1000);
}

void TestTimeline::lowPanesScrollLegibleRows()
{
    // Four schedules of four stages in a low pane: sixteen rows at the legible pitch do not
    // fit, so the rows scroll instead of thinning out, and the strip gives way to them.
    PlanDocument doc;
    TimelineView view(&doc);
    view.setComparison(true);
    view.resize(700, 260);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.canvas()->paintCount() > 0);
    TimelineScene& scene = view.scene();
    const TimelinePainter& timeline = scene.timeline();
    QVERIFY(view.rowScrollBar()->isVisible());
    QVERIFY(view.rowScrollBar()->maximum() > 0);
    QVERIFY(scene.inFlightRect().isEmpty());
    for (int lane = 0; lane < 4; ++lane)
        QVERIFY2(timeline.rowPitch(lane) >= timeline.legibleRowPitch(), qPrintable(QString::number(timeline.rowPitch(lane))));
    // Shift+wheel scrolls; hit-testing follows what is on screen.
    const double before = scene.scroll();
    QWheelEvent wheel(QPointF(200, 100), view.canvas()->mapToGlobal(QPointF(200, 100)), QPoint(), QPoint(0, -120), Qt::NoButton,
        Qt::ShiftModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view.canvas(), &wheel);
    QVERIFY(scene.scroll() > before);
    QCOMPARE(view.rowScrollBar()->value(), int(std::lround(scene.scroll())));
    view.canvas()->repaint();
    QCOMPARE(scene.paintedScroll(), std::round(scene.scroll()));
    const TimelineLane& last = scene.model().lane(3);
    const std::int64_t index = findEvent(last, ScheduleEventKind::Forward, 3, 0);
    QVERIFY(index >= 0);
    const auto rect = timeline.eventRect({3, std::uint32_t(index)});
    QVERIFY(rect);
    const QPointF onScreen = rect->center() - QPointF(0, scene.paintedScroll());
    QCOMPARE(scene.eventAt(onScreen), std::optional(TimelineEventRef{3, std::uint32_t(index)}));
    // An export of the same view shows every row, unscrolled, at whatever height it is given.
    const QImage picture = view.renderImage(QSize(700, 260));
    QCOMPARE(picture.size(), QSize(700, 260));
    QVERIFY(timeline.rowPitch(0) < timeline.legibleRowPitch());
    QCOMPARE(scene.paintedScroll(), 0.0);
}

// Micro-batches in flight are whole counts without interleaving: the axis ticks are whole
// numbers (a single stage holding one micro-batch gets 0 and 1, never 0.5).
void TestTimeline::inFlightCountsGetWholeTicks()
{
    PlanDocument doc;
    TimelineView view(&doc);
    const auto whole = [&] {
        view.renderImage(kShot);
        const auto& ticks = view.scene().inFlight().yTicks();
        if (ticks.size() < 2)
            return false;
        for (double t : ticks)
            if (t != std::round(t))
                return false;
        return true;
    };
    QVERIFY(whole());  // 1F1B, p = 4: peak 4
    doc.edit("one stage", [](trainplan::Plan& p) {
        p.layout.pp = 1;
        p.layout.dp = 256;
    });
    QVERIFY(whole());
    QCOMPARE(view.scene().inFlight().yTicks(), (std::vector<double>{0.0, 1.0}));
    doc.edit("GPipe on 5 stages", [](trainplan::Plan& p) {
        p.layout.pp = 5;
        p.layout.dp = 1;
        p.cluster.gpus = 40;
        p.training.globalBatchSequences = 5;
        p.layout.schedule = trainplan::Schedule::GPipe;
    });
    QVERIFY(whole());
}

QTEST_MAIN(TestTimeline)
// An MoE plan's blocks carry the share of their time in the expert all-to-all (the step-time
// model's layer times over the stage's layers); a dense plan's carry none.
void TestTimeline::moeBlocksShowTheirAllToAllShare()
{
    PlanDocument doc;
    TimelineView view(&doc);
    view.renderImage(kShot);
    QVERIFY(view.scene().model().lane(0).forwardAllToAllShare.empty());
    doc.resetTo(trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/mixtral-8x22b-256-h100.json"));
    view.renderImage(kShot);
    const TimelineLane& lane = view.scene().model().lane(0);
    QCOMPARE(int(lane.forwardAllToAllShare.size()), doc.plan().layout.pp);
    const auto& layer = doc.analysis().predicted.layers.front();
    QCOMPARE(lane.forwardAllToAllShare.front(), layer.forwardAllToAll / layer.forward());
    QVERIFY(lane.forwardAllToAllShare.front() > 0 && lane.forwardAllToAllShare.front() < 1);
    QVERIFY(lane.backwardAllToAllShare.front() > 0 && lane.backwardAllToAllShare.front() < 1);
}

#include "tst_timeline.moc"
