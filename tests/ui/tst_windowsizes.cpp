// The window at the sizes people use, offscreen on a 1600 x 1000 screen: at every size the
// layout diagram draws GPUs, no label, caption or legend in the panes is cut or shortened
// (the headline cards may shorten a line, with the whole of it in their tooltip), the
// timeline's rows keep a legible height; at the default size a TP group crossing a node
// shows in the diagram; opening a panel never widens the window past its screen nor
// squeezes the cards. Each size's screenshot is left in the build tree to look at.
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QHelpEvent>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QToolTip>
#include <QtTest>

#include "core/search/LayoutAdjuster.h"
#include "ui/document/PlanDocument.h"
#include "ui/inputs/ElidingComboBox.h"
#include "ui/inputs/InputPanel.h"
#include "ui/inputs/ValueSlider.h"
#include "ui/layoutdiagram/LayoutDiagramView.h"
#include "ui/summary/SummaryCard.h"
#include "ui/summary/SummaryPanel.h"
#include "ui/summary/WarningsPanel.h"
#include "ui/timeline/TimelineCanvas.h"
#include "ui/timeline/TimelineView.h"
#include "ui/window/DashboardPane.h"
#include "ui/window/MainWindow.h"

namespace {

constexpr int kScreenWidth = 1600;
constexpr int kScreenHeight = 1000;

// Lets delayed layouts (item views re-wrapping text, splitters) settle, as a person would see it.
void settle(QWidget* window)
{
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 300)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

QString artefactPath(const QString& name)
{
    QDir().mkpath(TRAINPLAN_ARTEFACT_DIR);
    return QDir(TRAINPLAN_ARTEFACT_DIR).filePath(name);
}

// Plain labels of the dashboard panes that show less than their text: a label laid out
// narrower than its text (and not wrapping) has lost words at its end.
QStringList cutLabels(const MainWindow& window)
{
    QStringList cut;
    for (DashboardPane* pane : window.panes()) {
        for (QLabel* label : pane->findChildren<QLabel*>()) {
            if (!label->isVisible() || label->wordWrap() || label->text().isEmpty())
                continue;
            if (label->sizeHint().width() > label->width() + 1)
                cut << QString("%1: %2 (%3 of %4 px)")
                           .arg(pane->objectName(), label->text())
                           .arg(label->width())
                           .arg(label->sizeHint().width());
        }
    }
    return cut;
}

}  // namespace

class TestWindowSizes : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void everyPaneIsLegible_data();
    void everyPaneIsLegible();
    void tpAcrossNodesShowsAtTheDefaultSize();
    void aLongFirstRedFlagKeepsTheSmallestSize();
    void moeCardsShowWholeAtTheSmallestSize_data();
    void moeCardsShowWholeAtTheSmallestSize();
    void dockedPanelsLeaveEveryCardVisible_data();
    void dockedPanelsLeaveEveryCardVisible();

private:
    MainWindow* window_ = nullptr;
};

void TestWindowSizes::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TrainPlanTests");
    QCoreApplication::setApplicationName("tst_windowsizes");
    const QScreen* screen = QGuiApplication::primaryScreen();
    QVERIFY(screen);
    QCOMPARE(screen->availableGeometry().width(), kScreenWidth);
}

void TestWindowSizes::init()
{
    QSettings().clear();  // no window state of an earlier run
    window_ = new MainWindow;
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
}

void TestWindowSizes::cleanup()
{
    delete window_;
    window_ = nullptr;
}

void TestWindowSizes::everyPaneIsLegible_data()
{
    QTest::addColumn<QSize>("size");
    for (const QSize s : {QSize(1280, 720), QSize(1280, 800), QSize(1366, 768), QSize(1920, 1080), QSize(2560, 1440)})
        QTest::addRow("%dx%d", s.width(), s.height()) << s;
}

void TestWindowSizes::everyPaneIsLegible()
{
    QFETCH(QSize, size);
    window_->resize(size);
    window_->show();
    settle(window_);
    QCOMPARE(window_->size(), size);  // the window's minimum fits the size
    const QString shot = artefactPath(QString("window-%1x%2.png").arg(size.width()).arg(size.height()));
    QVERIFY(window_->grab().save(shot));
    qInfo("screenshot: %s", qPrintable(shot));

    // The layout diagram draws GPUs one by one, every label whole; the hover hint only
    // where there is something to hover.
    LayoutDiagramView* diagram = window_->layoutDiagram();
    QTRY_VERIFY(diagram->paintCount() > 0);
    const LayoutDiagramGeometry* geometry = diagram->diagram().geometry();
    QVERIFY(geometry);
    QVERIFY2(geometry->individuallyDrawnGpus() >= 32,
        qPrintable(
            QString("%1 GPUs drawn in %2 x %3").arg(geometry->individuallyDrawnGpus()).arg(diagram->width()).arg(diagram->height())));
    QCOMPARE(geometry->elidedTexts(), 0);
    QCOMPARE(geometry->droppedLabels(), 0);
    if (!geometry->hintLines().isEmpty())
        QVERIFY(geometry->hintLines().first().startsWith("Hover a GPU"));
    const QRectF picture(diagram->rect());
    for (const auto& t : diagram->diagram().texts()) {
        const QFontMetricsF fm(LayoutDiagramGeometry::font(diagram->diagram().style(), t.font));
        QVERIFY2(picture.contains(t.rect), qPrintable("outside the pane: " + t.text));
        QVERIFY2(fm.horizontalAdvance(t.text) <= t.rect.width() + 0.5, qPrintable("wider than its room: " + t.text));
    }

    // The timeline: rows at least at the legible pitch, every stage labelled, nothing shortened.
    TimelineView* timeline = window_->timeline();
    QTRY_VERIFY(timeline->canvas()->paintCount() > 0);
    const TimelinePainter& rows = timeline->scene().timeline();
    QCOMPARE(rows.rowCount(0), 4);
    QVERIFY2(rows.rowPitch(0) >= rows.legibleRowPitch(),
             qPrintable(QString("rows %1 px apart, legible from %2").arg(rows.rowPitch(0)).arg(rows.legibleRowPitch())));
    QCOMPARE(rows.stats().elidedTexts, 0);
    // The in-flight strip only comes with legible rows, never instead of them.
    if (!timeline->scene().inFlightRect().isEmpty())
        QVERIFY(timeline->scene().inFlightRect().height() >= InFlightChartPainter::minimumHeight());

    // Labels in the panes (titles, tool rows) are whole.
    const QStringList cut = cutLabels(*window_);
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join("; ")));

    // A combo box of the inputs either shows its choice whole or shortens it with "…" and
    // gives it whole in its tooltip; none is cut off at its frame.
    for (QComboBox* combo : window_->inputPanel()->findChildren<QComboBox*>()) {
        auto* eliding = qobject_cast<ElidingComboBox*>(combo);
        QVERIFY2(eliding, qPrintable(combo->currentText()));
        if (!eliding->isTextElided())
            continue;
        QVERIFY(eliding->shownText().endsWith(QChar(0x2026)));
        QHelpEvent help(QEvent::ToolTip, QPoint(5, 5), eliding->mapToGlobal(QPoint(5, 5)));
        QCoreApplication::sendEvent(eliding, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().startsWith(eliding->currentText()), qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    // A headline card that shortens a line gives it whole in its tooltip.
    for (const QString& id : window_->summary()->elidedCards())
        QVERIFY(window_->summary()->tooltipHtml(id).contains(window_->summary()->card(id)->detailText().toHtmlEscaped()));
}

void TestWindowSizes::moeCardsShowWholeAtTheSmallestSize_data()
{
    QTest::addColumn<QString>("example");
    for (const char* name : {"deepseek-v3-2048-h800.json", "mixtral-8x22b-256-h100.json", "deepseek-v3-512-gb200-nvl72.json"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

// A MoE plan's cards carry longer details (active parameters, FLOPs per token, tokens/s): at
// 1280 x 720 each shows whole, in its shorter wording where the full one does not fit.
void TestWindowSizes::moeCardsShowWholeAtTheSmallestSize()
{
    QFETCH(QString, example);
    QVERIFY(window_->openFile(QStringLiteral(TRAINPLAN_SOURCE_DIR "/examples/") + example));
    window_->resize(1280, 720);
    window_->show();
    settle(window_);
    QVERIFY2(window_->summary()->elidedCards().isEmpty(), qPrintable(window_->summary()->elidedCards().join(", ")));
    QVERIFY2(window_->summary()->card("parameters")->detailText().contains("active"),
             qPrintable(window_->summary()->card("parameters")->detailText()));
}

// The red-flags band scrolls: a first flag that wraps to several lines in a narrow window must
// not raise the band's minimum, and with it the window's, past the screen. At 1280 x 720 the
// default plan at PP 1 (its memory range straddles the capacity) made the window 734 px tall.
void TestWindowSizes::aLongFirstRedFlagKeepsTheSmallestSize()
{
    window_->resize(1280, 720);
    window_->show();
    settle(window_);
    trainplan::Plan plan = window_->document()->plan();
    plan.layout.pp = 1;
    plan.layout.dp = plan.cluster.gpus / (plan.layout.tp * plan.layout.cp);
    window_->document()->applyPlan(plan, QStringLiteral("PP 1"));
    settle(window_);
    WarningsPanel* band = window_->warnings();
    QCOMPARE(window_->size(), QSize(1280, 720));
    QVERIFY(band->count() > 0);
    const int firstFlagHeight = band->visualItemRect(band->item(0)).height();
    QVERIFY2(firstFlagHeight > 2 * band->fontMetrics().height(),
             qPrintable(QString("the first flag should wrap at this width: %1 px").arg(firstFlagHeight)));
    QVERIFY2(band->minimumSizeHint().height() < firstFlagHeight,
             qPrintable(QString("band minimum %1 px, first flag %2 px").arg(band->minimumSizeHint().height()).arg(firstFlagHeight)));
}

void TestWindowSizes::tpAcrossNodesShowsAtTheDefaultSize()
{
    // The window as it opens: TP 16 on 8-GPU nodes puts each TP group on two nodes, and the
    // diagram shows it in its pane as it is, without being enlarged.
    window_->show();
    settle(window_);
    LayoutDiagramView* diagram = window_->layoutDiagram();
    const QSize paneBefore = diagram->size();
    const int flagsBefore = window_->warnings()->height();
    window_->inputPanel()->layoutSlider(trainplan::ParallelDim::Tp)->moveTo(16);
    QCOMPARE(window_->document()->plan().layout.tp, 16);
    window_->document()->endMerge();  // the slider released: the red-flags band fits its flags
    settle(window_);
    // The pane keeps its width; it gives up at most what the red-flags band above it grew to
    // show the new flag (the two rows share that).
    const int bandGrowth = window_->warnings()->height() - flagsBefore;
    QVERIFY(bandGrowth > 0);
    QCOMPARE(diagram->width(), paneBefore.width());
    QVERIFY2(diagram->height() <= paneBefore.height() && diagram->height() >= paneBefore.height() - bandGrowth,
        qPrintable(QString("%1 -> %2, band +%3").arg(paneBefore.height()).arg(diagram->height()).arg(bandGrowth)));
    for (DashboardPane* pane : window_->panes())
        QVERIFY(!pane->isEnlarged());
    const LayoutDiagramGeometry* geometry = diagram->diagram().geometry();
    QVERIFY(geometry);
    QVERIFY(geometry->individuallyDrawnGpus() >= 16);
    int crossing = 0;
    for (const auto& unit : geometry->units())
        for (const auto& outline : unit.tpOutlines)
            crossing += outline.crossesNodes;
    QVERIFY2(crossing >= 2, qPrintable(QString::number(crossing)));
    QVERIFY(!geometry->tpBridges().empty());  // drawn from one node's board to the next
    bool legend = false;
    for (const auto& item : geometry->legend())
        legend |= item.swatch == LayoutDiagramLegendItem::Swatch::WarningOutline;
    QVERIFY(legend);
    QCOMPARE(geometry->elidedTexts(), 0);
    QVERIFY(window_->grab().save(artefactPath("window-1280x800-tp16.png")));
    qInfo("screenshot: %s", qPrintable(artefactPath("window-1280x800-tp16.png")));
}

void TestWindowSizes::dockedPanelsLeaveEveryCardVisible_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<QString>("dock");
    for (int width : {1280, 1366, kScreenWidth})
        for (const char* dock : {"mathDock", "searchDock", "sensitivityDock", "realityDock"})
            QTest::addRow("%d %s", width, dock) << width << QString(dock);
}

// A side panel docks (never floats over the dashboard): beside it when the window has the room,
// else as a tab in front of the inputs. The window keeps its size, every card keeps its width
// and stays in view, and no panel overlaps the dashboard.
void TestWindowSizes::dockedPanelsLeaveEveryCardVisible()
{
    QFETCH(int, width);
    QFETCH(QString, dock);
    window_->resize(width, 720);
    window_->move(0, 0);
    window_->show();
    settle(window_);
    const QSize before = window_->size();
    const QStringList elidedBefore = window_->summary()->elidedCards();
    // Even at 1280 px every card's lines are whole.
    QVERIFY2(elidedBefore.isEmpty(), qPrintable(elidedBefore.join(", ")));
    const int cardWidth = window_->summary()->card("days")->width();
    auto* panel = window_->findChild<QDockWidget*>(dock);
    QVERIFY(panel);
    auto* action = window_->findChild<QAction*>(dock + "Action");
    QVERIFY(action);
    action->trigger();
    settle(window_);
    QVERIFY(panel->isVisible());
    QVERIFY(action->isChecked());
    QVERIFY(!panel->isFloating());
    QVERIFY(!panel->visibleRegion().isEmpty());  // in front of its tab group
    QCOMPARE(window_->size(), before);
    // Where it went: beside the dashboard when the room was there, else in the inputs' place.
    const bool room = window_->roomBesideDashboard() >= 360;
    QCOMPARE(window_->dockWidgetArea(panel), room ? Qt::RightDockWidgetArea : Qt::LeftDockWidgetArea);
    QCOMPARE(window_->tabifiedDockWidgets(panel).contains(window_->inputsDock()), !room);
    const QRect dashboard = window_->centralWidget()->geometry();
    QVERIFY2(!panel->geometry().intersects(dashboard), qPrintable(QString("panel %1,%2 %3x%4 over the dashboard")
                                                                       .arg(panel->x())
                                                                       .arg(panel->y())
                                                                       .arg(panel->width())
                                                                       .arg(panel->height())));
    // Its content fits its width: no sideways scrolling, every button whole ("Apply layout").
    if (auto* scroll = qobject_cast<QScrollArea*>(panel->widget()))
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
            qPrintable(QString("content %1 px in %2 px").arg(scroll->widget()->minimumSizeHint().width()).arg(scroll->viewport()->width())));
    for (auto* button : panel->findChildren<QPushButton*>())
        if (button->isVisible())
            QVERIFY2(button->width() >= button->sizeHint().width(), qPrintable(button->text()));
    QCOMPARE(window_->summary()->card("days")->width(), cardWidth);
    for (const QString& id : window_->summary()->cardIds()) {
        SummaryCard* card = window_->summary()->card(id);
        QVERIFY2(card->isVisible() && card->visibleRegion().boundingRect() == card->rect(), qPrintable(id));
    }
    for (const QString& id : window_->summary()->elidedCards())
        QVERIFY2(elidedBefore.contains(id), qPrintable(id + ": " + window_->summary()->card(id)->detailText()));
    if (width == kScreenWidth)
        QVERIFY2(window_->summary()->elidedCards().isEmpty(), qPrintable(window_->summary()->elidedCards().join(", ")));
    QVERIFY(window_->grab().save(artefactPath(QString("window-%1-with-%2.png").arg(width).arg(dock))));
    // A second panel joins the first as a tab: still docked, still no wider.
    for (QDockWidget* other : window_->toolDocks()) {
        if (other == panel)
            continue;
        window_->openDock(other);
        settle(window_);
        QCOMPARE(window_->size(), before);
        QVERIFY(other->isVisible());
        QVERIFY(!other->isFloating());
        QVERIFY(window_->tabifiedDockWidgets(panel).contains(other));
        other->close();
    }
    // Closed, the inputs are in front again.
    panel->close();
    settle(window_);
    QVERIFY(!window_->inputsDock()->visibleRegion().isEmpty());
}

int main(int argc, char** argv)
{
    // A 1600 x 1000 screen, as on a laptop: the offscreen platform reads its screens from a file.
    QTemporaryFile config(QDir::tempPath() + "/tst_windowsizes-XXXXXX.json");
    if (!config.open())
        return 1;
    config.write(QStringLiteral(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": %1, "height": %2, )"
                                R"("logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                     .arg(kScreenWidth)
                     .arg(kScreenHeight)
                     .toUtf8());
    config.flush();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toUtf8());
    QApplication app(argc, argv);
    TestWindowSizes test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_windowsizes.moc"
