// The size-the-cluster window (ui/sizing/SizingWindow.h): the sizing runs off the window's thread
// and fills the chart, the answer and the table; a point opens as the plan in one undoable edit;
// cancel stops it; the sizing PDF is written, and the plan's PDF report gets the sizing section;
// no accelerator ticked says so instead of running.
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "../RunTool.h"
#include "ui/document/PlanDocument.h"
#include "ui/sizing/SizingWindow.h"
#include "ui/window/MainWindow.h"

class TestSizingWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void sizesInTheBackgroundAndOpensAPoint();
    void cancelStopsIt();
    void noAcceleratorSaysSo();
    void answersForBothWorkedExamplesAndAMoePlan_data();
    void answersForBothWorkedExamplesAndAMoePlan();
};

void TestSizingWindow::sizesInTheBackgroundAndOpensAPoint()
{
    MainWindow window;
    SizingWindow* sizing = window.sizingWindow();
    sizing->resize(1280, 720);
    sizing->show();
    QVERIFY(sizing->setAccelerator("H100 SXM 80GB", true, 2.5));
    QVERIFY(sizing->setAccelerator("B200 180GB", true, 5.0));
    sizing->setGpuRange(512, 2048);
    sizing->setDeadlineDays(20);
    QSignalSpy finished(sizing, &SizingWindow::sizingFinished);
    sizing->startSizing();
    QVERIFY(sizing->isRunning());
    QVERIFY(finished.wait(60000));
    const trainplan::SizingResult& r = sizing->result();
    QCOMPARE(int(r.points.size()), 2 * 5);  // 512, 768, 1,024, 1,536, 2,048 of each
    QVERIFY(r.cheapest.has_value());
    QCOMPARE(sizing->pointsTable()->rowCount(), int(r.points.size()));
    QVERIFY(sizing->answer()->text().contains("the cheapest that meets the"));

    QTemporaryDir dir;
    QString error;
    QVERIFY2(sizing->exportPdf(dir.filePath("sizing.pdf"), &error), qPrintable(error));
    QFile pdf(dir.filePath("sizing.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly) && pdf.read(5) == "%PDF-");
    QTest::qWait(50);
    QDir().mkpath(TRAINPLAN_ARTEFACT_DIR);
    QVERIFY(sizing->grab().save(TRAINPLAN_ARTEFACT_DIR "/sizing-window-1280x720.png"));

    // The cheapest opens as the plan, one undo step; undo takes it back.
    const trainplan::SizingPoint point = r.points[*r.cheapest];
    const int before = window.document()->undoStack()->count();
    const int gpusBefore = window.document()->plan().cluster.gpus;
    sizing->openPoint(int(*r.cheapest));
    QCOMPARE(window.document()->plan().cluster.gpus, point.gpus);
    QCOMPARE(window.document()->plan().cluster.accelerator, point.accelerator);
    QCOMPARE(window.document()->plan().layout.tp, point.layout.tp);
    QCOMPARE(window.document()->undoStack()->count(), before + 1);
    // The plan's own PDF report now carries the sizing: the same model and token budget.
    QVERIFY(window.exportPdf(dir.filePath("report.pdf"), false));
    const QString report = runTool("pdftotext", {dir.filePath("report.pdf"), "-"}).simplified();
    QVERIFY2(report.contains("Sizing the cluster") && report.contains("the cheapest that meets the 20-day deadline"), qPrintable(report.left(600)));
    trainplan::Plan otherBudget = window.document()->plan();
    otherBudget.training.tokens *= 2;
    QVERIFY(sizing->resultFor(window.document()->plan()) != nullptr);
    QVERIFY(sizing->resultFor(otherBudget) == nullptr);  // another question: no stale section
    window.document()->undoStack()->undo();
    QCOMPARE(window.document()->plan().cluster.gpus, gpusBefore);
}

void TestSizingWindow::cancelStopsIt()
{
    PlanDocument doc;
    SizingWindow sizing(&doc);
    sizing.setGpuRange(8, 32768);
    QSignalSpy finished(&sizing, &SizingWindow::sizingFinished);
    sizing.startSizing();
    sizing.cancelSizing();
    QVERIFY(finished.wait(60000));
    QVERIFY(!sizing.isRunning());
    QVERIFY(sizing.result().cancelled);
}

void TestSizingWindow::noAcceleratorSaysSo()
{
    PlanDocument doc;
    SizingWindow sizing(&doc);
    QVERIFY(sizing.setAccelerator(QString::fromStdString(doc.plan().cluster.accelerator), false));
    sizing.startSizing();
    QVERIFY(!sizing.isRunning());
    QVERIFY(sizing.answer()->text().contains("Tick at least one accelerator"));
    QString error;
    QVERIFY(!sizing.exportPdf("/tmp/never.pdf", &error));
    QVERIFY(error.contains("Size the cluster first"));
}

void TestSizingWindow::answersForBothWorkedExamplesAndAMoePlan_data()
{
    QTest::addColumn<QString>("plan");
    QTest::addColumn<double>("deadline");
    QTest::newRow("worked-example-a") << QString("70b-2048-h100.json") << 20.0;
    QTest::newRow("worked-example-b") << QString("70b-512-gpu.json") << 15.0;
    QTest::newRow("mixtral-8x22b") << QString("mixtral-8x22b-256-h100.json") << 40.0;
}

// The window answers each (a cheapest configuration on time, in words) and leaves a screenshot.
void TestSizingWindow::answersForBothWorkedExamplesAndAMoePlan()
{
    QFETCH(QString, plan);
    QFETCH(double, deadline);
    MainWindow window;
    window.askToSaveChanges = [] { return QMessageBox::Discard; };
    QVERIFY(window.openFile(TRAINPLAN_SOURCE_DIR "/examples/" + plan));
    SizingWindow* sizing = window.sizingWindow();
    sizing->resize(1280, 720);
    sizing->show();
    QVERIFY(sizing->setAccelerator("H100 SXM 80GB", true, 2.5));
    QVERIFY(sizing->setAccelerator("H200 SXM 141GB", true, 3.5));
    QVERIFY(sizing->setAccelerator("B200 180GB", true, 5.0));
    sizing->setGpuRange(256, 2048);
    sizing->setDeadlineDays(deadline);
    QSignalSpy finished(sizing, &SizingWindow::sizingFinished);
    sizing->startSizing();
    QVERIFY(finished.wait(120000));
    QVERIFY(sizing->result().cheapest.has_value());
    QVERIFY(sizing->answer()->text().contains("the cheapest that meets the"));
    QTest::qWait(50);
    QDir().mkpath(TRAINPLAN_ARTEFACT_DIR);
    QVERIFY(sizing->grab().save(QString(TRAINPLAN_ARTEFACT_DIR "/sizing-%1-1280x720.png").arg(QTest::currentDataTag())));
}

QTEST_MAIN(TestSizingWindow)
#include "tst_sizingwindow.moc"
