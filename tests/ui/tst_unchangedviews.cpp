// Issue 28: a slider tick repaints only the views whose picture changed. The ranks-on-nodes
// diagram reads only the layout, the cluster and the model, and the pipeline timeline and the
// memory chart only what one step reads (StepShape.h), so an edit of the assumed MFU (or the token budget) must neither
// rebuild nor repaint them, while a TP edit must do both. The derivation is not rebuilt while its
// dock is closed, and is current again the moment it opens.
#include <QEvent>
#include <QPaintEvent>
#include <QStandardPaths>
#include <QtTest>

#include <QDockWidget>

#include "core/planfile/PlanFile.h"
#include "core/plan/ParallelDims.h"
#include "core/text/Derivation.h"
#include "ui/charts/MemoryChart.h"
#include "ui/derivation/DerivationList.h"
#include "ui/derivation/DerivationView.h"
#include "ui/document/PlanDocument.h"
#include "ui/layoutdiagram/LayoutDiagramView.h"
#include "ui/timeline/TimelineView.h"
#include "ui/window/MainWindow.h"

namespace {

// Counts the paint events a widget and its children receive.
class PaintCounter : public QObject {
public:
    int paints = 0;
    QStringList painted;
    bool eventFilter(QObject* object, QEvent* event) override
    {
        if (event->type() == QEvent::Paint) {
            ++paints;
            const QRect r = static_cast<QPaintEvent*>(event)->rect();
            painted << QString::fromLatin1(object->metaObject()->className()) + QString(" %1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())
                + " of " + QString::number(static_cast<QWidget*>(object)->width()) + "x" + QString::number(static_cast<QWidget*>(object)->height());
        }
        return false;
    }
};

void watch(QWidget* widget, PaintCounter& counter)
{
    widget->installEventFilter(&counter);
    for (QWidget* child : widget->findChildren<QWidget*>())
        child->installEventFilter(&counter);
}

void settle()
{
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
}

}  // namespace

class TestUnchangedViews : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void mfuEditLeavesDiagramAndTimelineAlone();
    void closedDerivationCatchesUpWhenOpened();
};

void TestUnchangedViews::mfuEditLeavesDiagramAndTimelineAlone()
{
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    settle();
    PaintCounter diagramPaints, timelinePaints, memoryPaints;
    watch(window.layoutDiagram(), diagramPaints);
    watch(window.timeline(), timelinePaints);
    watch(window.memoryChart(), memoryPaints);
    QVERIFY(window.layoutDiagram()->isVisible() && window.timeline()->isVisible());
    QTest::qWait(100);  // the first frame's late repaints (the docks settling) are not the edit's
    settle();
    diagramPaints.paints = timelinePaints.paints = memoryPaints.paints = 0;
    diagramPaints.painted.clear();
    timelinePaints.painted.clear();

    window.document()->edit("assumed MFU", [](trainplan::Plan& p) { p.training.mfu = 0.47; });
    window.document()->edit("tokens", [](trainplan::Plan& p) { p.training.tokens *= 1.5; });
    settle();
    QCOMPARE(window.document()->plan().training.mfu, 0.47);
    QVERIFY2(diagramPaints.paints == 0, qPrintable(diagramPaints.painted.join("; ")));
    QVERIFY2(timelinePaints.paints == 0, qPrintable(timelinePaints.painted.join("; ")));
    QVERIFY2(memoryPaints.paints == 0, qPrintable(memoryPaints.painted.join("; ")));

    // A layout edit changes both pictures: both repaint.
    window.document()->setLayoutDimension(trainplan::ParallelDim::Tp, window.document()->plan().layout.tp / 2);
    settle();
    QVERIFY(diagramPaints.paints > 0);
    QVERIFY(timelinePaints.paints > 0);
    QVERIFY(memoryPaints.paints > 0);
}

void TestUnchangedViews::closedDerivationCatchesUpWhenOpened()
{
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* dock = qobject_cast<QDockWidget*>(window.derivation()->parentWidget());
    QVERIFY(dock);
    dock->hide();
    settle();
    const auto steps = [](const trainplan::Analysis& a) {
        int n = 0;
        for (const auto& section : trainplan::derive(a))
            n += int(section.steps.size());
        return n;
    };
    const int before = window.derivation()->list()->stepCount();
    QCOMPARE(before, steps(window.document()->analysis()));
    // A mixture-of-experts plan has steps a dense one has not.
    window.document()->resetTo(trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/mixtral-8x22b-256-h100.json"));
    settle();
    const int after = steps(window.document()->analysis());
    QVERIFY(after != before);
    QCOMPARE(window.derivation()->list()->stepCount(), before);  // not derived while closed
    dock->show();
    settle();
    QCOMPARE(window.derivation()->list()->stepCount(), after);
}

QTEST_MAIN(TestUnchangedViews)
#include "tst_unchangedviews.moc"
