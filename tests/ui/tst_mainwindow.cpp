// The planner window, offscreen: sliders move the right figures, impossible layouts raise
// the right red flag, files round-trip, undo works, unsaved work is never dropped silently.
#include <QDockWidget>
#include <QMimeData>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QtTest>

#include "core/base/AtomicFile.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/planfile/PlanFile.h"
#include "core/presets/Presets.h"
#include "render/report/ReportPainter.h"
#include "render/style/Theme.h"
#include "ui/charts/MemoryChart.h"
#include "ui/charts/TimeBreakdownChart.h"
#include "ui/charts/TornadoChart.h"
#include "ui/document/PlanDocument.h"
#include "ui/inputs/InputPanel.h"
#include "ui/inputs/ValueSlider.h"
#include "ui/summary/SummaryCard.h"
#include "ui/summary/SummaryPanel.h"
#include "ui/summary/WarningsPanel.h"
#include "ui/window/DashboardPane.h"
#include "ui/window/MainWindow.h"

using trainplan::ParallelDim;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void opensOnTheDefaultPlan();
    void layoutSlidersKeepTheGpuCount_data();
    void layoutSlidersKeepTheGpuCount();
    void mfuMovesTimeNotMemory();
    void microBatchMovesActivations();
    void globalBatchMovesMicrobatchesAndBubble();
    void gpuCountCanFollow();
    void tpAcrossNodesRaisesRedFlag();
    void redFlagsBandFitsOnceADragPauses();
    void redFlagHighlightsItsControl();
    void layoutThatDoesNotFitStandsOut();
    void undoRestoresThePreviousPlan();
    void oneDragIsOneUndoStep();
    void saveAndOpenRoundTripExactly();
    void aFailedSaveKeepsTheFileAndTheEdits();
    void openReportsBadFilesAndKeepsThePlan();
    void titleShowsUnsavedMark();
    void closingWithUnsavedChangesAsks();
    void aDocumentDiesQuietly();
    void dropOpensAPlan();
    void dropOrImportReadsAModelOrScript();
    void enlargeShowsOnePane();
    void panelsComeBackWhereTheyWere();
    void cardTooltipsShowTheirFormula();
    void exportsOneView();
    void timeFollowsTheChosenBasis();
    void cardsSayWhenThePlanIsInvalid();

private:
    MainWindow* window_ = nullptr;
    PlanDocument* doc() { return window_->document(); }
    ValueSlider* slider(ParallelDim d) { return window_->inputPanel()->layoutSlider(d); }
    QTemporaryDir dir_;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TrainPlanTests");
    QCoreApplication::setApplicationName("tst_mainwindow");
}

void TestMainWindow::init()
{
    window_ = new MainWindow;
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_));
}

void TestMainWindow::cleanup()
{
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    delete window_;
    window_ = nullptr;
}

void TestMainWindow::opensOnTheDefaultPlan()
{
    const auto& plan = doc()->plan();
    QCOMPARE(plan.cluster.gpus, 2048);
    QCOMPARE(plan.layout.tp, 8);
    QCOMPARE(plan.layout.pp, 4);
    QCOMPARE(plan.layout.dp, 64);
    // Issue 23: the headline is the predicted basis, as the PDF report leads (one headline).
    QCOMPARE(doc()->timeBasis(), PlanDocument::TimeBasis::Predicted);
    QCOMPARE(window_->summary()->card("days")->titleText(), QString("Wall time, predicted"));
    QCOMPARE(window_->summary()->card("days")->valueText(),
        QString::fromStdString(trainplan::formatNumber(doc()->predicted().days)) + " days");
    QVERIFY(window_->summary()->card("days")->detailText().contains("range "));
    QVERIFY(window_->summary()->card("step")->detailText().contains("assumed MFU 2.33 s"));
    QCOMPARE(window_->summary()->card("bubble")->valueText(), QString("15.8 %"));
    QCOMPARE(window_->memoryChart()->categories().size(), 4);
    QVERIFY(window_->warnings()->codes().isEmpty());
}

void TestMainWindow::layoutSlidersKeepTheGpuCount_data()
{
    QTest::addColumn<int>("dimension");
    QTest::addColumn<int>("value");
    QTest::newRow("TP 4") << int(ParallelDim::Tp) << 4;
    QTest::newRow("TP 2") << int(ParallelDim::Tp) << 2;
    QTest::newRow("PP 8") << int(ParallelDim::Pp) << 8;
    QTest::newRow("PP 2") << int(ParallelDim::Pp) << 2;
    QTest::newRow("CP 2") << int(ParallelDim::Cp) << 2;
}

void TestMainWindow::layoutSlidersKeepTheGpuCount()
{
    QFETCH(int, dimension);
    QFETCH(int, value);
    QSignalSpy changed(doc(), &PlanDocument::planChanged);
    const double memoryBefore = doc()->estimate().perGpu.total;
    slider(ParallelDim(dimension))->moveTo(value);
    QCOMPARE(changed.count(), 1);
    const auto& l = doc()->plan().layout;
    QCOMPARE(l.size(ParallelDim(dimension)), value);
    QCOMPARE(l.tp * l.pp * l.dp * l.cp, 2048);  // DP followed
    QVERIFY(doc()->estimate().perGpu.total != memoryBefore);
    QCOMPARE(slider(ParallelDim::Dp)->value(), l.dp);  // the follower's control shows it
}

void TestMainWindow::mfuMovesTimeNotMemory()
{
    // Journey 1 on the assumed-MFU basis, switched in its one place.
    doc()->setTimeBasis(PlanDocument::TimeBasis::AssumedMfu);
    QSignalSpy changed(doc(), &PlanDocument::planChanged);
    const double memory = doc()->estimate().perGpu.total;
    window_->inputPanel()->mfuSlider()->moveTo(30);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc()->plan().training.mfu, 0.30);
    QCOMPARE(doc()->estimate().perGpu.total, memory);
    // Journey 1: "Drag MFU to 30%: days go from ~9 to ~12".
    QCOMPARE(window_->summary()->card("days")->valueText(), QString("12.0 days"));
}

void TestMainWindow::microBatchMovesActivations()
{
    const double activations = doc()->estimate().perGpu.activations;
    const double weights = doc()->estimate().perGpu.weights;
    window_->inputPanel()->microBatchSlider()->moveTo(2);
    QCOMPARE(doc()->plan().training.microBatchSize, 2);
    QVERIFY(doc()->estimate().perGpu.activations > 1.9 * activations);
    QCOMPARE(doc()->estimate().perGpu.weights, weights);
    QCOMPARE(doc()->estimate().pipeline.microbatches, 8);
}

void TestMainWindow::globalBatchMovesMicrobatchesAndBubble()
{
    window_->inputPanel()->globalBatchSlider()->moveTo(2048);
    QCOMPARE(doc()->plan().training.globalBatchSequences, 2048);
    QCOMPARE(doc()->estimate().pipeline.microbatches, 32);
    QCOMPARE(doc()->estimate().pipeline.bubbleFraction, 3.0 / 35.0);
    QCOMPARE(window_->summary()->card("bubble")->valueText(), QString("8.6 %"));
}

void TestMainWindow::gpuCountCanFollow()
{
    doc()->setFollower(trainplan::Follower::gpus());
    QVERIFY(slider(ParallelDim::Dp)->slider()->isEnabled());
    slider(ParallelDim::Dp)->moveTo(32);
    QCOMPARE(doc()->plan().layout.dp, 32);
    QCOMPARE(doc()->plan().cluster.gpus, 1024);
    QVERIFY(window_->warnings()->codes().isEmpty());
    doc()->setFollower(trainplan::Follower::of(ParallelDim::Dp));
    QVERIFY(!slider(ParallelDim::Dp)->slider()->isEnabled());
}

void TestMainWindow::tpAcrossNodesRaisesRedFlag()
{
    slider(ParallelDim::Tp)->moveTo(16);
    QCOMPARE(doc()->plan().layout.tp, 16);
    QCOMPARE(doc()->plan().layout.dp, 32);
    QVERIFY(window_->warnings()->codes().contains("TP_SPANS_NODES"));
    slider(ParallelDim::Tp)->moveTo(8);
    QVERIFY(!window_->warnings()->codes().contains("TP_SPANS_NODES"));
}

// During a drag the red-flags band keeps its height (its list scrolls), so raising and clearing
// flags does not resize the diagram and timeline under the pointer; it fits its flags once the
// steps pause or the slider is released, and at once after any other edit.
void TestMainWindow::redFlagsBandFitsOnceADragPauses()
{
    DashboardPane* band = window_->panes()[0];
    QCOMPARE(band->objectName(), QString("Red flags"));
    QTest::qWait(WarningsPanel::kSettleDelayMs + 100);
    const int calm = band->height();
    slider(ParallelDim::Tp)->moveTo(16);  // a drag step: merged into one undo step
    QVERIFY(window_->warnings()->codes().contains("TP_SPANS_NODES"));
    QTest::qWait(WarningsPanel::kSettleDelayMs / 4);
    QCOMPARE(band->height(), calm);
    QTRY_VERIFY_WITH_TIMEOUT(band->height() > calm, 10 * WarningsPanel::kSettleDelayMs);
    const int grown = band->height();
    slider(ParallelDim::Tp)->moveTo(8);
    QVERIFY(!window_->warnings()->codes().contains("TP_SPANS_NODES"));
    QTest::qWait(WarningsPanel::kSettleDelayMs / 4);
    QCOMPARE(band->height(), grown);
    QTRY_COMPARE_WITH_TIMEOUT(band->height(), calm, 10 * WarningsPanel::kSettleDelayMs);

    // Released: the band fits without waiting out the pause.
    slider(ParallelDim::Tp)->moveTo(16);
    doc()->endMerge();
    QTRY_VERIFY_WITH_TIMEOUT(band->height() > calm, WarningsPanel::kSettleDelayMs / 2);
    // An edit that is no drag step (here an undo) fits it at once too.
    doc()->undoStack()->undo();
    QVERIFY(!window_->warnings()->codes().contains("TP_SPANS_NODES"));
    QTRY_COMPARE_WITH_TIMEOUT(band->height(), calm, WarningsPanel::kSettleDelayMs / 2);
}

void TestMainWindow::redFlagHighlightsItsControl()
{
    slider(ParallelDim::Tp)->moveTo(16);
    auto* list = window_->warnings();
    int row = -1;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().contains("spans nodes"))
            row = i;
    QVERIFY(row >= 0);
    list->setCurrentRow(row);
    QWidget* tp = window_->inputPanel()->widgetForField("layout.tp");
    QCOMPARE(tp, static_cast<QWidget*>(slider(ParallelDim::Tp)));
    QVERIFY(tp->property("highlighted").toBool());
}

void TestMainWindow::layoutThatDoesNotFitStandsOut()
{
    // No model parallelism at all: 70B of state per GPU cannot fit in 80 GB.
    slider(ParallelDim::Tp)->moveTo(1);
    slider(ParallelDim::Pp)->moveTo(1);
    QVERIFY(!doc()->estimate().fits);
    QVERIFY(window_->warnings()->codes().contains("STAGE_OVER_CAPACITY"));
    QVERIFY(window_->memoryChart()->categories().first().contains(QChar(0x2716)));
    QVERIFY(window_->memoryChart()->barValue(0, 0) > 100.0);  // weights alone, GB
    QCOMPARE(window_->memoryChart()->capacityLine(), 85.03);  // the H100's CUDA-visible 81,090 MiB in GB
}

void TestMainWindow::undoRestoresThePreviousPlan()
{
    const trainplan::Plan original = doc()->plan();
    slider(ParallelDim::Tp)->moveTo(4);
    doc()->endMerge();
    window_->inputPanel()->mfuSlider()->moveTo(50);
    doc()->endMerge();
    QVERIFY(!(doc()->plan() == original));
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().training.mfu, 0.40);
    doc()->undoStack()->undo();
    QVERIFY(doc()->plan() == original);
    QVERIFY(!doc()->isModified());
    doc()->undoStack()->redo();
    QCOMPARE(doc()->plan().layout.tp, 4);
}

void TestMainWindow::oneDragIsOneUndoStep()
{
    const int before = doc()->undoStack()->count();
    auto* mfu = window_->inputPanel()->mfuSlider();
    for (int v : {41, 43, 47, 52, 55})
        mfu->moveTo(v);
    emit mfu->dragFinished();
    QCOMPARE(doc()->undoStack()->count(), before + 1);
    mfu->moveTo(60);
    QCOMPARE(doc()->undoStack()->count(), before + 2);
    doc()->undoStack()->undo();
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().training.mfu, 0.40);
}

void TestMainWindow::aFailedSaveKeepsTheFileAndTheEdits()
{
    // A full disk at the write: the window says so, the previous file stays whole, and the
    // document stays unsaved (it used to report success and leave a 0-byte plan).
    const QString path = dir_.filePath("full-disk.json");
    QVERIFY(window_->saveTo(path));
    QFile before(path);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray saved = before.readAll();
    before.close();
    window_->inputPanel()->mfuSlider()->moveTo(45);
    QVERIFY(doc()->isModified());
    trainplan::injectAtomicWriteFault(trainplan::AtomicWriteStep::Write, ENOSPC);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression("Could not save: .*No space left on device.*unchanged"));
    const bool ok = window_->saveTo(path);
    trainplan::injectAtomicWriteFault(std::nullopt);
    QVERIFY(!ok);
    QVERIFY(doc()->isModified());
    QFile after(path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), saved);
    QCOMPARE(QDir(dir_.path()).entryList({"*.json*", ".*json*"}, QDir::Files | QDir::Hidden).filter("full-disk").size(), 1);
}

void TestMainWindow::saveAndOpenRoundTripExactly()
{
    slider(ParallelDim::Pp)->moveTo(8);
    window_->inputPanel()->mfuSlider()->moveTo(37);
    const trainplan::Plan edited = doc()->plan();
    const QString path = dir_.filePath("round-trip.json");
    QVERIFY(window_->saveTo(path));
    QVERIFY(!doc()->isModified());
    QCOMPARE(doc()->filePath(), QFileInfo(path).absoluteFilePath());

    MainWindow other;
    QVERIFY(other.openFile(path));
    QVERIFY(other.document()->plan() == edited);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().toStdString(), trainplan::planToText(edited));
}

void TestMainWindow::openReportsBadFilesAndKeepsThePlan()
{
    const QString path = dir_.filePath("bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "trainplan.plan", "version": 1, "layout": {"tp": 2.5}})");
    f.close();
    const trainplan::Plan before = doc()->plan();
    QString error;
    QVERIFY(!doc()->load(path, &error));
    QVERIFY2(error.contains("layout.tp: must be a whole number"), qPrintable(error));
    QVERIFY(error.contains("model: is missing"));
    QVERIFY(doc()->plan() == before);
    QVERIFY(!window_->openFile(dir_.filePath("does-not-exist.json")));
}

void TestMainWindow::titleShowsUnsavedMark()
{
    QVERIFY(window_->windowTitle().contains("Untitled plan"));
    QVERIFY(!window_->isWindowModified());
    window_->inputPanel()->mfuSlider()->moveTo(45);
    QVERIFY(window_->isWindowModified());
    QVERIFY(window_->saveTo(dir_.filePath("titled.json")));
    QVERIFY(window_->windowTitle().startsWith("titled.json"));
    QVERIFY(!window_->isWindowModified());
}

void TestMainWindow::aDocumentDiesQuietly()
{
    // Close, then Discard: the document's undo stack, destroyed with the window, reports itself
    // clean again. Nobody may hear it: the window listening is already half destroyed (a Debug
    // build aborted in the title update).
    auto* doc = new PlanDocument;
    doc->edit("MFU", [](trainplan::Plan& p) { p.training.mfu = 0.45; });
    QVERIFY(doc->isModified());
    int heard = 0;
    connect(doc, &PlanDocument::fileStateChanged, this, [&] { ++heard; });
    connect(doc, &PlanDocument::planChanged, this, [&] { ++heard; });
    delete doc;
    QCOMPARE(heard, 0);

    window_->inputPanel()->mfuSlider()->moveTo(45);
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    QVERIFY(window_->close());
    delete window_;
    window_ = new MainWindow;  // cleanup() deletes it
}

void TestMainWindow::closingWithUnsavedChangesAsks()
{
    int asked = 0;
    window_->askToSaveChanges = [&] {
        ++asked;
        return QMessageBox::Cancel;
    };
    QVERIFY(window_->close());  // nothing unsaved: no question
    QCOMPARE(asked, 0);
    window_->show();
    window_->inputPanel()->mfuSlider()->moveTo(45);
    QVERIFY(!window_->close());  // cancelled: the window and the edit stay
    QCOMPARE(asked, 1);
    QVERIFY(window_->isVisible());
    QCOMPARE(doc()->plan().training.mfu, 0.45);

    // Save: goes through Save As, writes the file, then closes.
    const QString path = dir_.filePath("on-close.json");
    window_->askToSaveChanges = [&] {
        ++asked;
        return QMessageBox::Save;
    };
    window_->askSavePath = [&] { return path; };
    QVERIFY(window_->close());
    QCOMPARE(asked, 2);
    QCOMPARE(trainplan::loadPlanFile(path.toStdString()).training.mfu, 0.45);
}

void TestMainWindow::dropOpensAPlan()
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QString(TRAINPLAN_SOURCE_DIR) + "/examples/70b-512-gpu.json")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_, &drop);
    QCOMPARE(doc()->plan().cluster.gpus, 512);
    QVERIFY(window_->windowTitle().startsWith("70b-512-gpu.json"));
}

// A dropped Hugging Face model folder is imported onto the current plan's cluster, as a new
// unsaved plan, with the import report (what was not mapped, and why) in a non-modal box; File →
// Import reads a Megatron-LM script the same way.
void TestMainWindow::dropOrImportReadsAModelOrScript()
{
    const QString fixtures = QString(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/import/";
    const auto clusterBefore = doc()->plan().cluster;
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(fixtures + "llama-3.1-8b")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_, &drop);
    QCOMPARE(doc()->plan().model.layers, 32);
    QCOMPARE(doc()->plan().model.hiddenSize, 4096);
    QCOMPARE(doc()->plan().cluster, clusterBefore);
    QVERIFY(window_->windowTitle().contains("Untitled plan"));
    QVERIFY(window_->statusBar()->currentMessage().contains("keys mapped"));
    const auto boxes = window_->findChildren<QMessageBox*>();
    QVERIFY(!boxes.isEmpty());
    QVERIFY(!boxes.last()->isModal());
    const QString report = boxes.last()->detailedText();
    QVERIFY2(report.contains("no effect on the figures:") && report.contains("rope_scaling"), qPrintable(report));
    QVERIFY2(report.contains("not mapped: max_position_embeddings: the longest context"), qPrintable(report));
    boxes.last()->close();

    QVERIFY(window_->importFile(fixtures + "megatron-llama3-70b.sh"));
    QCOMPARE(doc()->plan().layout.tp, 8);
    QCOMPARE(doc()->plan().layout.virtualStages, 4);
    QCOMPARE(doc()->plan().model.layers, 80);
    for (auto* box : window_->findChildren<QMessageBox*>())
        box->close();
}

void TestMainWindow::enlargeShowsOnePane()
{
    auto panes = window_->panes();
    QVERIFY(panes.size() >= 3);
    const int bandHeight = panes[0]->height();
    panes[0]->setEnlarged(true);
    for (size_t i = 1; i < panes.size(); ++i)
        QVERIFY(!panes[i]->isVisible());
    panes[0]->setEnlarged(false);
    for (auto* p : panes)
        QVERIFY(p->isVisible());
    // The red-flags band (the first pane) grows to the dashboard's height when enlarged.
    QCOMPARE(panes[0]->objectName(), QString("Red flags"));
    QTRY_COMPARE(panes[0]->height(), bandHeight);
    panes[0]->setEnlarged(true);
    QTRY_VERIFY(panes[0]->height() > 2 * bandHeight);
    QVERIFY(panes[0]->height() > window_->centralWidget()->height() / 2);
    panes[0]->setEnlarged(false);
    QTRY_COMPARE(panes[0]->height(), bandHeight);
}

// The docks as the user left them come back with the next window; View → Reset panel layout
// puts them back as a first start has them.
void TestMainWindow::panelsComeBackWhereTheyWere()
{
    window_->resize(1900, 900);
    QTest::qWait(50);
    window_->openDock(window_->mathDock());
    QTRY_VERIFY(window_->mathDock()->isVisible());
    const Qt::DockWidgetArea area = window_->dockWidgetArea(window_->mathDock());
    const int width = window_->mathDock()->width();
    window_->close();  // saves the window's state
    delete window_;
    window_ = new MainWindow;
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_));
    QVERIFY(window_->mathDock()->isVisible());
    QCOMPARE(window_->dockWidgetArea(window_->mathDock()), area);
    QVERIFY(std::abs(window_->mathDock()->width() - width) <= 2);
    QAction* reset = nullptr;
    for (QAction* a : window_->findChildren<QAction*>())
        if (a->text() == "Reset panel layout")
            reset = a;
    QVERIFY(reset);
    reset->trigger();
    QVERIFY(!window_->mathDock()->isVisible());
    QVERIFY(window_->inputsDock()->isVisible());
    QCOMPARE(window_->dockWidgetArea(window_->inputsDock()), Qt::LeftDockWidgetArea);
    window_->close();  // the next test starts from a first start's layout
}

void TestMainWindow::cardTooltipsShowTheirFormula()
{
    const QString flops = window_->summary()->tooltipHtml("flops");
    QVERIFY2(flops.contains("6 · N · D") && flops.contains("5.93e23 FLOPs"), qPrintable(flops));
    const QString memory = window_->summary()->tooltipHtml("memory");
    QVERIFY(memory.contains("Korthikanti"));
    // The memory range, as the JSON and the PDF quote it.
    const auto& range = window_->document()->analysis().memoryRange;
    QVERIFY2(memory.contains(QString("Range %1 to %2").arg(QString::fromStdString(trainplan::formatBytes(range.lowBytes)),
                                                           QString::fromStdString(trainplan::formatBytes(range.highBytes)))),
             qPrintable(memory));
    window_->inputPanel()->mfuSlider()->moveTo(30);
    QVERIFY(window_->summary()->tooltipHtml("days").contains("11.98 days"));
    // GPU-hours carries the run's cost, energy and carbon steps; without a price it says what to set.
    const QString hours = window_->summary()->tooltipHtml("gpu_hours");
    QVERIFY2(hours.contains("Energy of the run") && hours.contains("MWh"), qPrintable(hours));
    QVERIFY2(hours.contains("cost.price_per_gpu_hour_usd"), qPrintable(hours));
}

void TestMainWindow::exportsOneView()
{
    const QString png = dir_.filePath("memory.png");
    QVERIFY(window_->exportView(ReportView::Memory, png));
    QCOMPARE(QImage(png).size(), QSize(1920, 1080));
    const QString png2x = dir_.filePath("layout@2x.png");
    QVERIFY(window_->exportView(ReportView::Layout, png2x));
    QCOMPARE(QImage(png2x).size(), QSize(3840, 2160));
    const QString svg = dir_.filePath("timeline.svg");
    QVERIFY(window_->exportView(ReportView::Timeline, svg));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("<svg"));
}

void TestMainWindow::cardsSayWhenThePlanIsInvalid()
{
    // 376 GB on an 80 GB GPU (no sharding, no pipeline): the wall-time card says the plan is
    // invalid instead of a normal-looking figure.
    doc()->edit("Break it", [](trainplan::Plan& p) {
        p.layout.tp = 1;
        p.layout.pp = 1;
        p.layout.dp = 2048;
        p.layout.zeroStage = 0;
    });
    QVERIFY(doc()->estimate().hasErrors());
    QCOMPARE(window_->summary()->card("days")->valueText(), QString("Plan invalid"));
    // Failures that outpace progress: no finite time "with failures".
    doc()->undoStack()->undo();
    doc()->edit("Fragile", [](trainplan::Plan& p) { p.cluster.mtbfSeconds = 0.2 * trainplan::units::secondsPerHour; });
    const auto& e = doc()->estimate();
    bool outpaced = false;
    for (const auto& w : e.warnings)
        outpaced = outpaced || w.code == trainplan::WarningCode::FailuresOutpaceProgress;
    QVERIFY(outpaced);
    const QString detail = window_->summary()->card("days")->detailText() + window_->summary()->card("days")->valueText();
    QVERIFY2(detail.contains("never finishes") || detail.contains("Plan invalid"), qPrintable(detail));
    // Issue 23: every other figure card is greyed and says so, and the status bar shows no
    // ordinary figures either.
    for (const char* id : {"parameters", "flops", "gpu_hours", "step", "memory", "bubble", "mfu"}) {
        const SummaryCard* card = window_->summary()->card(id);
        QCOMPARE(card->accent(), theme::faint());
        QVERIFY2(card->detailText().startsWith("plan invalid"), id);
    }
    const QString status = window_->statusBar()->currentMessage();
    QVERIFY2(status.startsWith("Plan invalid: FAILURES_OUTPACE_PROGRESS"), qPrintable(status));
    QVERIFY(!status.contains("with failures"));
    // Valid again: the cards are ordinary.
    doc()->undoStack()->undo();
    QVERIFY(window_->summary()->card("step")->accent() != theme::faint());
    QVERIFY(!window_->summary()->card("step")->detailText().startsWith("plan invalid"));
    QVERIFY(!window_->statusBar()->currentMessage().startsWith("Plan invalid"));
}

void TestMainWindow::timeFollowsTheChosenBasis()
{
    // Predicted by default; the assumed-MFU basis is one switch away.
    const QString predictedDays = window_->summary()->card("days")->valueText();
    QCOMPARE(predictedDays, QString::fromStdString(trainplan::formatNumber(doc()->predictedEstimate().time.days)) + " days");
    const auto& predicted = doc()->predicted();
    QVERIFY(predicted.mfu > 0.2 && predicted.mfu < 0.7);
    QVERIFY(window_->summary()->card("mfu")->valueText().startsWith("40 % / "));
    QCOMPARE(window_->tornado()->basis(), trainplan::SensitivityBasis::Predicted);
    doc()->setTimeBasis(PlanDocument::TimeBasis::AssumedMfu);
    QCOMPARE(window_->summary()->card("days")->valueText(), QString("8.98 days"));
    QVERIFY(predictedDays != QString("8.98 days"));
    // Both bases named the one way every view names them.
    QVERIFY(window_->summary()->card("days")->detailText().contains("predicted " + predictedDays.chopped(5)));
    QCOMPARE(window_->summary()->card("days")->titleText(), QString("Wall time, assumed MFU"));
    QCOMPARE(window_->tornado()->basis(), trainplan::SensitivityBasis::Assumed);
    // The plan itself is untouched: the basis is a way of reading it.
    QCOMPARE(doc()->plan().training.mfu, 0.40);
    QVERIFY(!doc()->isModified());
    doc()->setTimeBasis(PlanDocument::TimeBasis::Predicted);
    QCOMPARE(window_->tornado()->basis(), trainplan::SensitivityBasis::Predicted);
    // BF16 GEMMs: the MFU card names no other peak. NVFP4 GEMMs on a B200: MFU stays against the
    // BF16 peak, may pass 100 %, and the card says so with the share of the FP4 peak.
    QVERIFY(!window_->summary()->card("mfu")->detailText().contains("peak"));
    doc()->edit("NVFP4", [](trainplan::Plan& p) {
        trainplan::applyAccelerator(*trainplan::findAcceleratorPreset("B200 180GB"), p.cluster);
        p.training.matmulPrecision = trainplan::MatmulPrecision::Nvfp4;
    });
    const QString detail = window_->summary()->card("mfu")->detailText();
    QVERIFY2(detail.startsWith("BF16 peak; ") && detail.contains(" of nvfp4 peak"), qPrintable(detail));
    doc()->undoStack()->undo();
    QVERIFY(!window_->summary()->card("mfu")->detailText().contains("peak"));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
