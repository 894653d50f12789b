// The pipeline timeline's scene, with no widgets: a million-event step is drawn as a bounded
// number of rectangles, a new plan in the same window repaints from scratch, and the
// activations in flight agree with the core's peaks. The view around it: tests/ui/tst_timeline.cpp.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include "../TestPlans.h"
#include "core/planfile/WorkedExamples.h"
#include "render/timeline/TimelinePainter.h"
#include "render/timeline/TimelineScene.h"

namespace {

constexpr QSize kShot(1400, 600);

void paintScene(TimelineScene& scene, QSize size = kShot)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    scene.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
}

}  // namespace

class TestTimelineScene : public QObject {
    Q_OBJECT

private slots:
    void levelOfDetailBoundsTheRectangles();
    void repaintFollowsThePlanAtAFixedWindow();
    void aSmallerStepAfterABiggerOneLeavesNoTrace();
    void inFlightPeaksAgreeWithTheCore();
    void scrolledRowsAreThoseOfTheWholeLane();
};

void TestTimelineScene::levelOfDetailBoundsTheRectangles()
{
    TimelineScene scene;
    const trainplan::Plan plan = testplans::largePipelinePlan();
    scene.setAnalysis(trainplan::analyse(plan));
    const TimelineLane& lane = scene.model().lane(0);
    QCOMPARE(lane.result().p, 64);
    QCOMPARE(lane.result().m, 1024);
    QCOMPARE(lane.result().v, 4);
    QVERIFY(lane.result().events.size() > 1000000);
    paintScene(scene, {1600, 600});
    const auto& stats = scene.timeline().stats();
    // The whole step: every block is thinner than a pixel, so only bubble rows and DP syncs
    // are rectangles; the blocks are pixel columns of one image.
    QVERIFY2(stats.rectangles <= 3 * 64, qPrintable(QString::number(stats.rectangles)));
    QVERIFY(stats.aggregatedColumns > 1000);
    QCOMPARE(stats.labels, 0);
    // Zoomed to where blocks are a few pixels wide, still at most one rectangle per
    // kMinBlockWidth of each row, whatever the step holds.
    const TimelineAxis& axis = scene.timeline().axis();
    scene.zoomAt(axis.left() + axis.width() / 2, 40);
    paintScene(scene, {1600, 600});
    const double bound = 64 * (scene.timeline().axis().width() / TimelinePainter::kMinBlockWidth + 4);
    QVERIFY(scene.timeline().stats().rectangles > 1000);
    QVERIFY2(scene.timeline().stats().rectangles <= bound, qPrintable(QString::number(scene.timeline().stats().rectangles)));
}

void TestTimelineScene::repaintFollowsThePlanAtAFixedWindow()
{
    // A repaint reuses the level-of-detail images while nothing changed; a new plan with
    // the very same window must not show the old ones.
    TimelineScene scene;
    trainplan::Plan plan = testplans::largePipelinePlan();
    scene.setAnalysis(trainplan::analyse(plan));
    scene.setWindow(5.0, 25.0);
    QImage before(1600, 600, QImage::Format_ARGB32_Premultiplied), again = before, after = before;
    for (QImage* image : {&before, &again}) {
        QPainter p(image);
        scene.paint(p, QRectF(0, 0, 1600, 600));
    }
    QCOMPARE(again, before);
    plan.cluster.peakFlopsPerGpu *= 0.5;  // compute blocks about twice as long
    scene.setAnalysis(trainplan::analyse(plan));
    QCOMPARE(scene.windowStart(), 5.0);
    QCOMPARE(scene.windowEnd(), 25.0);
    TimelineScene fresh;
    fresh.setAnalysis(trainplan::analyse(plan));
    fresh.setWindow(5.0, 25.0);
    QImage expected = after;
    for (auto [s, image] : {std::pair{&scene, &after}, std::pair{&fresh, &expected}}) {
        QPainter p(image);
        s->paint(p, QRectF(0, 0, 1600, 600));
    }
    QVERIFY(after != before);
    QCOMPARE(after, expected);
}

void TestTimelineScene::aSmallerStepAfterABiggerOneLeavesNoTrace()
{
    // The level-of-detail images keep their storage when a lane gets smaller (fewer stages, a
    // lower pane): what the scene then paints is exactly what a fresh scene paints.
    trainplan::Plan big = testplans::largePipelinePlan();
    trainplan::Plan small = big;
    small.layout.pp = 32;
    small.layout.dp = 2;
    const QSize bigSize(1600, 900), smallSize(1400, 500);
    TimelineScene reused;
    reused.setAnalysis(trainplan::analyse(big));
    paintScene(reused, bigSize);
    QVERIFY(reused.timeline().stats().aggregatedColumns > 1000);
    reused.setAnalysis(trainplan::analyse(small));
    TimelineScene fresh;
    fresh.setAnalysis(trainplan::analyse(small));
    QImage afterBig(smallSize, QImage::Format_ARGB32_Premultiplied), expected = afterBig;
    for (auto [scene, image] : {std::pair{&reused, &afterBig}, std::pair{&fresh, &expected}}) {
        image->fill(Qt::white);
        QPainter p(image);
        scene->paint(p, QRectF(QPointF(0, 0), QSizeF(smallSize)));
    }
    QVERIFY(reused.timeline().stats().aggregatedColumns > 1000);
    QCOMPARE(afterBig, expected);
}

void TestTimelineScene::inFlightPeaksAgreeWithTheCore()
{
    for (const trainplan::Plan& plan : {trainplan::defaultPlan(), testplans::largePipelinePlan()}) {
        TimelineScene scene;
        scene.setComparison(true);
        scene.setAnalysis(trainplan::analyse(plan));
        for (int i = 0; i < scene.model().laneCount(); ++i) {
            const TimelineLane& lane = scene.model().lane(i);
            QVERIFY2(lane.simulated(), qPrintable(lane.problem));
            for (int s = 0; s < lane.result().p; ++s)
                QCOMPARE(lane.inFlight.peak(s), lane.result().stages[size_t(s)].peakInFlightMicrobatches);
            // Everything pinned is freed by the end of the step.
            QCOMPARE(lane.inFlight.valueAt(0, lane.result().computeSeconds), 0.0);
        }
    }
}

void TestTimelineScene::scrolledRowsAreThoseOfTheWholeLane()
{
    // A pane too low for legible rows scrolls them, and only the rows in view are filled
    // (TimelinePainter::visibleStages): what shows must be exactly that part of the whole lane
    // painted unscrolled, at every scroll position.
    TimelineScene scene;
    scene.setScrollable(true);
    scene.setAnalysis(trainplan::analyse(testplans::defaultPlanAtStages(64)));  // 256 micro-batches: thin blocks
    const QSize pane(1400, 300);
    const int range = int(scene.scrollRange(QSizeF(pane)));
    QVERIFY2(range > 2 * pane.height(), qPrintable(QString::number(range)));
    paintScene(scene, pane);  // sets the painter's time window
    QImage whole(pane.width(), range + pane.height(), QImage::Format_ARGB32_Premultiplied);
    whole.fill(Qt::white);
    {
        QPainter p(&whole);
        scene.timeline().paint(p, QRectF(QPointF(0, 0), QSizeF(whole.size())));
    }
    const int wholeColumns = scene.timeline().stats().aggregatedColumns;
    QVERIFY(wholeColumns > 1000);
    for (int scroll : {0, 137, range / 2, range}) {
        scene.setScroll(scroll);
        QImage shown(pane, QImage::Format_ARGB32_Premultiplied);
        shown.fill(Qt::white);
        {
            QPainter p(&shown);
            scene.paint(p, QRectF(QPointF(0, 0), QSizeF(pane)));
        }
        QCOMPARE(int(scene.paintedScroll()), scroll);
        // Only the rows in view were summed into pixel columns: the pane shows under a third.
        QVERIFY(scene.timeline().stats().aggregatedColumns < wholeColumns / 2);
        QVERIFY2(shown == whole.copy(0, scroll, pane.width(), pane.height()), qPrintable(QString("scroll %1").arg(scroll)));
    }
}

QTEST_MAIN(TestTimelineScene)
#include "tst_timelinescene.moc"
