// The input panel's plan-level inputs, offscreen in the window: the plan's name follows the
// model, cluster and tokens until typed and reaches the title, PDF and slides; presets are
// recognised by their numbers; a preset that changes the sequence length says so; the layers
// per pipeline stage are edited and checked beside PP.
#include <QComboBox>
#include <QLineEdit>
#include <QProcess>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include "../RunTool.h"

#include "document/PlanDocument.h"
#include "inputs/InputPanel.h"
#include "inputs/StageLayersEdit.h"
#include "inputs/ValueSlider.h"
#include "planfile/PlanFile.h"
#include "planfile/PlanName.h"
#include "report/PdfReport.h"
#include "report/ReportContext.h"
#include "report/SlideExport.h"
#include "window/MainWindow.h"

using trainplan::ParallelDim;

namespace {

// pdftotext breaks lines and may hyphenate nothing, but spaces vary: compare without them.
QString squeezed(QString text)
{
    return text.remove(QRegularExpression(QStringLiteral("\\s+")));
}

}  // namespace

class TestInputPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void nameFollowsModelAndCluster();
    void typedNameStaysAndClearingFollowsAgain();
    void nameReachesTheFilePdfAndSlides();
    void presetsAreRecognisedByTheirNumbers();
    void presetThatChangesTheSequenceLengthSaysSo();
    void stageLayersAreEditedAndChecked();
    void changingPpReturnsToAnEvenSplit();

private:
    MainWindow* window_ = nullptr;
    PlanDocument* doc() { return window_->document(); }
    InputPanel* inputs() { return window_->inputPanel(); }
    QString planName() { return QString::fromStdString(doc()->plan().name); }
    void pickModel(const QString& name);
    void pickAccelerator(const QString& name);
    void setGpus(int gpus);
    void typeName(const QString& text);
    void typeStageLayers(const QString& text);
    QTemporaryDir dir_;
};

void TestInputPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("TrainPlanTests");
    QCoreApplication::setApplicationName("tst_inputpanel");
}

void TestInputPanel::init()
{
    window_ = new MainWindow;
    window_->askToSaveChanges = [] { return QMessageBox::Discard; };
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_));
}

void TestInputPanel::cleanup()
{
    delete window_;
    window_ = nullptr;
}

void TestInputPanel::pickModel(const QString& name)
{
    QComboBox* combo = inputs()->modelPresetCombo();
    const int index = combo->findText(name);
    QVERIFY2(index > 0, qPrintable(name));
    emit combo->activated(index);  // as a person's pick: activated, not currentIndexChanged
}

void TestInputPanel::pickAccelerator(const QString& name)
{
    QComboBox* combo = inputs()->acceleratorPresetCombo();
    const int index = combo->findText(name);
    QVERIFY2(index > 0, qPrintable(name));
    emit combo->activated(index);
}

void TestInputPanel::setGpus(int gpus)
{
    auto* spin = qobject_cast<QSpinBox*>(inputs()->widgetForField("cluster.gpus"));
    QVERIFY(spin);
    spin->setValue(gpus);
}

void TestInputPanel::typeName(const QString& text)
{
    QLineEdit* edit = inputs()->nameEdit();
    edit->setFocus();
    edit->selectAll();
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Delete);
    else
        QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

void TestInputPanel::typeStageLayers(const QString& text)
{
    QLineEdit* edit = inputs()->stageLayersEdit()->lineEdit();
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
}

void TestInputPanel::nameFollowsModelAndCluster()
{
    QCOMPARE(planName(), QString("70B on 2,048 H100s, 1.4T tokens"));
    QCOMPARE(inputs()->nameEdit()->text(), planName());
    QVERIFY(window_->windowTitle().contains(planName()));
    pickModel("Llama 3.1 405B");
    QCOMPARE(planName(), QString("405B on 2,048 H100s, 1.4T tokens"));
    pickAccelerator("H200 SXM 141GB");
    setGpus(16384);
    QCOMPARE(doc()->plan().cluster.gpus, 16384);
    QCOMPARE(planName(), QString("405B on 16,384 H200s, 1.4T tokens"));
    QCOMPARE(inputs()->nameEdit()->text(), planName());
    QVERIFY2(window_->windowTitle().contains("405B on 16,384 H200s, 1.4T tokens"), qPrintable(window_->windowTitle()));
    // The rename is part of the edit's undo step: one undo, the old count and the old name.
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().cluster.gpus, 2048);
    QCOMPARE(planName(), QString("405B on 2,048 H200s, 1.4T tokens"));
}

void TestInputPanel::typedNameStaysAndClearingFollowsAgain()
{
    typeName("Bid for the Q3 cluster");
    QCOMPARE(planName(), QString("Bid for the Q3 cluster"));
    QVERIFY(doc()->plan().nameUserSet);
    QVERIFY(window_->windowTitle().contains("Bid for the Q3 cluster"));
    pickModel("Llama 3.1 405B");
    setGpus(16384);
    QCOMPARE(planName(), QString("Bid for the Q3 cluster"));
    // Leaving the field without changing it changes nothing.
    typeName("Bid for the Q3 cluster");
    QCOMPARE(doc()->undoStack()->count(), 3);
    // Cleared: it follows again, with today's model and cluster.
    typeName(QString());
    QVERIFY(!doc()->plan().nameUserSet);
    QCOMPARE(planName(), QString("405B on 16,384 H100s, 1.4T tokens"));
    QCOMPARE(inputs()->nameEdit()->text(), planName());
    // Undoable like any edit: back to the typed name.
    doc()->undoStack()->undo();
    QCOMPARE(planName(), QString("Bid for the Q3 cluster"));
    QVERIFY(doc()->plan().nameUserSet);
    QCOMPARE(inputs()->nameEdit()->text(), planName());
}

void TestInputPanel::nameReachesTheFilePdfAndSlides()
{
    pickModel("Llama 3.1 405B");
    pickAccelerator("H200 SXM 141GB");
    setGpus(16384);
    const QString name = planName();
    QCOMPARE(name, QString("405B on 16,384 H200s, 1.4T tokens"));
    // The file.
    const QString path = dir_.filePath("renamed.json");
    QVERIFY(window_->saveTo(path));
    const trainplan::Plan saved = trainplan::loadPlanFile(path.toStdString());
    QCOMPARE(QString::fromStdString(saved.name), name);
    QVERIFY(!saved.nameUserSet);
    // The PDF: title and header, and its document title.
    const ReportContext context(doc()->analysis(), "renamed");
    const QString pdf = dir_.filePath("renamed.pdf");
    QString error;
    QVERIFY2(pdfreport::write(context, pdf, QPageSize::A4, &error), qPrintable(error));
    const QString text = runTool("pdftotext", {pdf, "-"});
    QVERIFY2(squeezed(text).contains(squeezed(name)), qPrintable(text.left(400)));
    QVERIFY(!text.contains("70B on 2,048"));
    QVERIFY2(runTool("pdfinfo", {pdf}).contains(name), "the PDF's title");
    // The slides.
    const QString folder = dir_.filePath("slides");
    QVERIFY2(slideexport::writeAll(context, folder, &error), qPrintable(error));
    const QString deck = runTool("pdftotext", {QDir(folder).filePath("deck.pdf"), "-"});
    QVERIFY(squeezed(deck).contains(squeezed(name)));
    QVERIFY(!deck.contains("70B on 2,048"));
}

void TestInputPanel::presetsAreRecognisedByTheirNumbers()
{
    // The default plan's model has Llama 3.1 70B's numbers under its own name.
    QVERIFY(doc()->plan().model.name != "Llama 3.1 70B");
    QCOMPARE(inputs()->modelPresetCombo()->currentText(), QString("Llama 3.1 70B"));
    QCOMPARE(inputs()->acceleratorPresetCombo()->currentText(), QString("H100 SXM 80GB"));
    // One number off: Custom.
    doc()->edit("layers", [](trainplan::Plan& p) { p.model.layers = 81; });
    QCOMPARE(inputs()->modelPresetCombo()->currentIndex(), 0);
    QCOMPARE(inputs()->modelPresetCombo()->currentText(), QString("Custom"));
    doc()->undoStack()->undo();
    QCOMPARE(inputs()->modelPresetCombo()->currentText(), QString("Llama 3.1 70B"));
    // The figures decide for the accelerator too, whatever the label says.
    doc()->edit("label", [](trainplan::Plan& p) { p.cluster.accelerator = "our own nodes"; });
    QCOMPARE(inputs()->acceleratorPresetCombo()->currentText(), QString("H100 SXM 80GB"));
    doc()->edit("network", [](trainplan::Plan& p) { p.cluster.interNodeBytesPerSecond = 25e9; });
    QCOMPARE(inputs()->acceleratorPresetCombo()->currentText(), QString("Custom"));
}

void TestInputPanel::presetThatChangesTheSequenceLengthSaysSo()
{
    QVERIFY(inputs()->modelNotice().isEmpty());
    QCOMPARE(doc()->plan().model.sequenceLength, 4096);
    pickModel("Llama 3.1 70B");  // the same shape, pre-trained at 8,192
    QCOMPARE(doc()->plan().model.sequenceLength, 8192);
    const QString notice = inputs()->modelNotice();
    QVERIFY2(notice.contains("4,096") && notice.contains("8,192"), qPrintable(notice));
    QVERIFY2(notice.contains("tokens per step"), qPrintable(notice));
    QVERIFY2(notice.contains("4,194,304") && notice.contains("8,388,608"), qPrintable(notice));  // 1,024 sequences of each
    QVERIFY(!window_->findChild<QWidget*>("modelNotice")->isHidden());
    // A preset at the same length says nothing more.
    pickModel("Llama 3.1 8B");
    QCOMPARE(doc()->plan().model.sequenceLength, 8192);
    QVERIFY(inputs()->modelNotice().isEmpty());
    // Undone back to 4,096, a notice about 8,192 would be stale.
    pickModel("Llama 2 70B");
    QVERIFY(inputs()->modelNotice().contains("4,096"));
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().model.sequenceLength, 8192);
    QVERIFY(inputs()->modelNotice().isEmpty());
}

void TestInputPanel::stageLayersAreEditedAndChecked()
{
    StageLayersEdit* stages = inputs()->stageLayersEdit();
    QCOMPARE(stages->lineEdit()->text(), QString("20, 20, 20, 20"));
    QVERIFY(!stages->evenButton()->isEnabled());
    // Worked example A's uneven split: first and last stages carry the embedding and LM head.
    typeStageLayers("19, 21, 21, 19");
    QCOMPARE(doc()->plan().layout.stageLayers, (std::vector<int>{19, 21, 21, 19}));
    QVERIFY(stages->evenButton()->isEnabled());
    QCOMPARE(doc()->estimate().stages.size(), size_t(4));
    QCOMPARE(doc()->estimate().stages.front().layers, 19);
    // Each rule, with its reason in words; the plan keeps its last valid split.
    const struct { const char* text; const char* reason; } bad[] = {
        {"19, 21, 40", "Lists 3 stages but PP is 4"},
        {"20, 20, 20, 21", "Sums to 81 layers but the model has 80 layers"},
        {"0, 40, 20, 20", "Stage 1 has 0 layers; every stage needs at least one layer"},
        {"20, twenty, 20, 20", "“twenty” is not a whole number"},
    };
    for (const auto& b : bad) {
        typeStageLayers(b.text);
        QVERIFY2(stages->note().contains(b.reason), qPrintable(stages->note()));
        QCOMPARE(stages->lineEdit()->text(), QString(b.text));  // kept for fixing
        QCOMPARE(doc()->plan().layout.stageLayers, (std::vector<int>{19, 21, 21, 19}));
    }
    // Even: back to no list at all.
    typeStageLayers("18, 22, 22, 18");
    QCOMPARE(doc()->plan().layout.stageLayers, (std::vector<int>{18, 22, 22, 18}));
    stages->evenButton()->click();
    QVERIFY(doc()->plan().layout.stageLayers.empty());
    QCOMPARE(stages->lineEdit()->text(), QString("20, 20, 20, 20"));
    // The even split typed out is the even split; undo walks back through the edits.
    typeStageLayers("20, 20, 20, 20");
    QVERIFY(doc()->plan().layout.stageLayers.empty());
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().layout.stageLayers, (std::vector<int>{18, 22, 22, 18}));
    QCOMPARE(stages->lineEdit()->text(), QString("18, 22, 22, 18"));
}

void TestInputPanel::changingPpReturnsToAnEvenSplit()
{
    StageLayersEdit* stages = inputs()->stageLayersEdit();
    typeStageLayers("19, 21, 21, 19");
    QCOMPARE(doc()->plan().layout.stageLayers.size(), size_t(4));
    inputs()->layoutSlider(ParallelDim::Pp)->moveTo(2);
    QCOMPARE(doc()->plan().layout.pp, 2);
    QVERIFY(doc()->plan().layout.stageLayers.empty());
    QCOMPARE(stages->lineEdit()->text(), QString("40, 40"));
    QVERIFY2(stages->note().contains("even split"), qPrintable(stages->note()));
    // A draft rejected for the old PP does not outlive the PP it was checked against.
    typeStageLayers("19, 21, 21, 19");
    QVERIFY(stages->note().contains("PP is 2"));
    inputs()->layoutSlider(ParallelDim::Pp)->moveTo(4);
    QCOMPARE(stages->lineEdit()->text(), QString("20, 20, 20, 20"));
    QVERIFY(!stages->note().contains("PP is"));
}

QTEST_MAIN(TestInputPanel)
#include "tst_inputpanel.moc"
