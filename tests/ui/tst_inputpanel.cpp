// The input panel's plan-level inputs, offscreen in the window: the plan's name follows the
// model, cluster and tokens until typed and reaches the title, PDF and slides; presets are
// recognised by their numbers; a preset that changes the sequence length says so; the layers
// per pipeline stage are edited and checked beside PP. The panel's inputs and the PDF's input
// rows take their titles, ranges and units from the plan-field table, and a field without a row
// in it breaks both.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QtTest>

#include "../RunTool.h"

#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"
#include "core/plan/ShownUnits.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/PlanName.h"
#include "core/steptime/StepTimeModel.h"
#include "render/report/InputsPage.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportPainter.h"
#include "render/report/SlideExport.h"
#include "render/style/Theme.h"
#include "ui/document/PlanDocument.h"
#include "ui/inputs/CandidateSpinBox.h"
#include "ui/inputs/InputPanel.h"
#include "ui/inputs/StageLayersEdit.h"
#include "ui/inputs/ValueSlider.h"
#include "ui/widgets/CachedFrameGroupBox.h"
#include "ui/window/MainWindow.h"

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
    void inputsTakeTitlesRangesAndUnitsFromTheFieldTable();
    void flashAttentionIsOneControl();
    void pdfInputRowsTakeTitlesAndUnitsFromTheFieldTable();
    void deletingAFieldRowBreaksTheWindowAndThePdf();
    void layerKindsAreListedAndKeptWhole();
    void efficienciesShowThePresetsAndKeepTheUsers();
    void groupBoxFramesAreCachedAndLookTheSame();

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
    // A name set from outside shows from its start, however wide (setText leaves the cursor at the end).
    QCOMPARE(inputs()->nameEdit()->cursorPosition(), 0);
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
    const struct {
        const char* text;
        const char* reason;
    } bad[] = {
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

namespace {

QString titleOf(const QString& path)
{
    const auto& f = trainplan::planField(path.toStdString());
    return QString::fromStdString(std::string(f.title));
}

QString suffixOf(const QString& path)
{
    return QString::fromStdString(trainplan::shownUnit(trainplan::planField(path.toStdString())).suffix);
}

QStringList pdfFields(const ReportContext& context)
{
    QStringList fields;
    for (const auto& section : inputspage::sections(context.plan(), context.estimate()))
        for (const auto& row : section.rows)
            fields << row.fields;
    return fields;
}

}  // namespace

// Every input the panel shows is titled by the table, and a number's box has the table's bounds
// (rounded inward to the box's decimals; 0 below them where it means "not given") and its unit.
void TestInputPanel::inputsTakeTitlesRangesAndUnitsFromTheFieldTable()
{
    const QStringList shown = inputs()->shownFields();
    for (const char* path : {"layout.tp", "layout.pp", "layout.dp", "layout.cp", "layout.virtual_stages", "layout.schedule",
             "layout.recompute", "layout.sequence_parallel", "model.layers", "cluster.memory_gb", "training.tokens", "training.mfu",
             "framework.profile", "framework.flash_attention", "reliability.restart_seconds"})
        QVERIFY2(shown.contains(path), path);
    int numbers = 0;
    for (const QString& path : shown) {
        const auto& f = trainplan::planField(path.toStdString());
        QVERIFY2(inputs()->shownTitle(path).startsWith(titleOf(path)), qPrintable(path + ": " + inputs()->shownTitle(path)));
        QWidget* w = inputs()->widgetForField(path);
        const double top = trainplan::shownValue(f, f.max * f.toSi);
        const double bottom = trainplan::shownValue(f, f.min * f.toSi);
        if (auto* spin = qobject_cast<QSpinBox*>(w); spin && !qobject_cast<CandidateSpinBox*>(w)) {
            QCOMPARE(spin->maximum(), int(std::floor(top + 1e-9)));
            QVERIFY2(spin->minimum() == int(std::ceil(bottom - 1e-9)) || (spin->minimum() == 0 && !spin->specialValueText().isEmpty()),
                qPrintable(path));
            QCOMPARE(spin->suffix(), suffixOf(path));
            ++numbers;
        } else if (auto* box = qobject_cast<QDoubleSpinBox*>(w)) {
            const double scale = std::pow(10.0, box->decimals());
            QCOMPARE(box->maximum(), std::floor(top * scale + 1e-9) / scale);
            QVERIFY2(
                box->minimum() == std::ceil(bottom * scale - 1e-9) / scale || (box->minimum() == 0 && !box->specialValueText().isEmpty()),
                qPrintable(path));
            QCOMPARE(box->suffix(), suffixOf(path));
            ++numbers;
        } else if (auto* slider = qobject_cast<ValueSlider*>(w)) {
            QCOMPARE(slider->spinBox()->suffix(), suffixOf(path));
        }
    }
    QVERIFY2(numbers >= 20, qPrintable(QString::number(numbers)));
    // The file's 1,024 virtual stages, not a window's own 64.
    QCOMPARE(qobject_cast<QSpinBox*>(inputs()->widgetForField("layout.virtual_stages"))->maximum(), 1024);
    // The MFU slider's practical range lies within the table's.
    const auto& mfu = trainplan::planField("training.mfu");
    QVERIFY(inputs()->mfuSlider()->spinBox()->minimum() >= trainplan::shownValue(mfu, mfu.min));
    QVERIFY(inputs()->mfuSlider()->spinBox()->maximum() <= trainplan::shownValue(mfu, mfu.max));
}

// FlashAttention is one field, framework.flash_attention: its control sets the version, "none",
// or leaves it to the profile, and says what that means for the plan.
void TestInputPanel::flashAttentionIsOneControl()
{
    auto* combo = qobject_cast<QComboBox*>(inputs()->widgetForField("framework.flash_attention"));
    QVERIFY(combo);
    QVERIFY(!inputs()->shownFields().contains("layout.flash_attention"));
    QVERIFY(!doc()->plan().framework.flashAttention);
    QCOMPARE(combo->currentIndex(), 0);
    QVERIFY(combo->currentText().startsWith("Not given"));
    const double flashStep = doc()->predicted().stepSeconds;
    emit combo->activated(combo->findText("None"));
    QCOMPARE(doc()->plan().framework.flashAttention, std::optional(trainplan::FlashAttentionVersion::None));
    QVERIFY(doc()->predicted().stepSeconds != flashStep);  // unfused attention: two batched GEMMs per head
    emit combo->activated(combo->findText("FlashAttention-3"));
    QCOMPARE(doc()->plan().framework.flashAttention, std::optional(trainplan::FlashAttentionVersion::V3));
    emit combo->activated(0);
    QVERIFY(!doc()->plan().framework.flashAttention);
    doc()->edit("profile", [](trainplan::Plan& p) { p.framework.profile = "megatron-core-2024"; });
    QCOMPARE(combo->itemText(0), QString("From the profile: FlashAttention-3"));
}

// The PDF's input rows: each label names the fields of its row by their table titles, numbers
// carry the table's units, and every label reaches the PDF's text.
void TestInputPanel::pdfInputRowsTakeTitlesAndUnitsFromTheFieldTable()
{
    const ReportContext context(doc()->analysis(), "inputs");
    const auto sections = inputspage::sections(context.plan(), context.estimate());
    int fields = 0;
    for (const auto& section : sections)
        for (const auto& row : section.rows)
            for (const QString& path : row.fields) {
                QVERIFY2(row.label.contains(titleOf(path).toHtmlEscaped()), qPrintable(row.label + " / " + path));
                ++fields;
            }
    QVERIFY2(fields >= 30, qPrintable(QString::number(fields)));
    for (const char* path :
        {"cluster.peak_bf16_tflops", "cluster.memory_gb", "training.tokens", "training.mfu", "reliability.restart_seconds"})
        for (const auto& section : sections)
            for (const auto& row : section.rows)
                if (row.fields == QStringList{path})
                    QVERIFY2(row.value.endsWith(suffixOf(path)), qPrintable(row.value));
    const QString pdf = dir_.filePath("inputs.pdf");
    QString error;
    QVERIFY2(pdfreport::write(context, pdf, QPageSize::A4, &error), qPrintable(error));
    const QString text = squeezed(runTool("pdftotext", {pdf, "-"}));
    for (const auto& section : sections)
        for (const auto& row : section.rows)
            if (!row.fields.isEmpty())
                QVERIFY2(text.contains(squeezed(QTextDocumentFragment::fromHtml(row.label).toPlainText())), qPrintable(row.label));
}

// A field without its row in the table (hidden by the test-only PlanFieldHiddenForTest) breaks
// the window's panel and the PDF's inputs page: each throws std::logic_error naming the field
// instead of showing it with a title, range or unit of its own.
void TestInputPanel::deletingAFieldRowBreaksTheWindowAndThePdf()
{
    const ReportContext context(doc()->analysis(), "inputs");
    const QStringList panelFields = inputs()->shownFields();
    const QStringList pageFields = pdfFields(context);
    QStringList all = panelFields + pageFields;
    all.removeDuplicates();
    for (const QString& path : all) {
        const trainplan::PlanFieldHiddenForTest hidden(path.toStdString());
        if (panelFields.contains(path)) {
            try {
                InputPanel panel(doc());
                QFAIL(qPrintable("the panel was built without the row of " + path));
            } catch (const std::logic_error& e) {
                QVERIFY2(QString(e.what()).contains(path), e.what());
            }
        }
        if (pageFields.contains(path)) {
            QVERIFY_THROWS_EXCEPTION(std::logic_error, reportpainter::viewHtml(ReportView::Inputs, context));
            bool written = false;
            QString error;
            try {
                written = pdfreport::write(context, dir_.filePath("hidden.pdf"), QPageSize::A4, &error);
            } catch (const std::logic_error&) {
            }
            QVERIFY2(!written, qPrintable("the PDF was written without the row of " + path));
        }
    }
    // With every row back, both are whole again.
    InputPanel panel(doc());
    QCOMPARE(panel.shownFields(), panelFields);
    QCOMPARE(pdfFields(context), pageFields);
}

// A plan whose layers come in kinds: the panel lists them (as the PDF's inputs page does), the
// model-wide FFN fields, which no kind would read, are disabled, and a new layer count keeps the
// runs adding up to it (the last run takes the change) and undoes in one step.
// The efficiency boxes show the figure the prediction uses (the preset's); typing one makes it the
// plan's own, which moves the prediction and undoes in one step; "Use the preset's figures" and
// picking a preset forget the plan's own.
void TestInputPanel::efficienciesShowThePresetsAndKeepTheUsers()
{
    const trainplan::AcceleratorEfficiency preset = trainplan::efficiencyFor(doc()->plan().cluster);
    auto* gemm = qobject_cast<QDoubleSpinBox*>(inputs()->widgetForField("cluster.efficiency.matmul_fraction"));
    QVERIFY(gemm);
    QCOMPARE(gemm->value(), std::round(preset.matmulEfficiency * 1000) / 10);  // shown in per cent, one decimal
    QCOMPARE(doc()->plan().cluster.efficiency.given(), 0);
    auto* button = inputs()->findChild<QPushButton*>("usePresetEfficiencies");
    QVERIFY(button);
    QVERIFY(!button->isEnabled());
    // The preset's figure reads faint, the plan's own in the normal colour.
    auto* form = qobject_cast<QFormLayout*>(gemm->parentWidget()->layout());
    QVERIFY(form);
    auto* label = qobject_cast<QLabel*>(form->labelForField(gemm));
    QVERIFY(label);
    const auto labelColour = [label] { return label->palette().color(QPalette::WindowText); };
    QCOMPARE(labelColour(), theme::faint());
    const double step = doc()->analysis().predicted.stepSeconds;
    gemm->setValue(50.0);
    QCOMPARE(doc()->plan().cluster.efficiency.matmul, std::optional<double>(0.5));
    QCOMPARE(labelColour(), label->palette().color(QPalette::Text));
    QVERIFY(doc()->analysis().predicted.stepSeconds > step);
    QVERIFY(button->isEnabled());
    // The PDF's inputs list the figure the plan gives, in the window's unit.
    bool listed = false;
    for (const auto& section : inputspage::sections(doc()->plan(), doc()->estimate()))
        for (const auto& row : section.rows)
            if (row.fields.contains("cluster.efficiency.matmul_fraction"))
                listed = row.value.contains("50") && row.value.contains("%");
    QVERIFY(listed);
    doc()->undoStack()->undo();
    QVERIFY(!doc()->plan().cluster.efficiency.matmul);
    QCOMPARE(doc()->analysis().predicted.stepSeconds, step);
    QCOMPARE(labelColour(), theme::faint());
    doc()->undoStack()->redo();
    QCOMPARE(gemm->value(), 50.0);
    button->click();
    QCOMPARE(doc()->plan().cluster.efficiency.given(), 0);
    QCOMPARE(gemm->value(), std::round(preset.matmulEfficiency * 1000) / 10);
    gemm->setValue(60.0);
    pickAccelerator("B200 180GB");
    QCOMPARE(doc()->plan().cluster.efficiency.given(), 0);
    QCOMPARE(gemm->value(), std::round(trainplan::efficiencyFor(doc()->plan().cluster).matmulEfficiency * 1000) / 10);
}

void TestInputPanel::layerKindsAreListedAndKeptWhole()
{
    auto* kinds = qobject_cast<QLabel*>(inputs()->widgetForField("model.layer_kinds"));
    QVERIFY(kinds);
    QVERIFY(inputs()->widgetForField("model.ffn_hidden_size")->isEnabled());
    doc()->edit("kinds", [](trainplan::Plan& p) {
        p.model.layerKinds = {{"narrow", 8, 14336, trainplan::FfnKind::SwiGlu}, {"", 72, 28672, trainplan::FfnKind::Gelu}};
    });
    const QString text = kinds->text();
    QVERIFY2(
        text.contains("narrow: 8 layers, FFN 14,336 SwiGLU") && text.contains("layers 9-80: 72 layers, FFN 28,672 GeLU"), qPrintable(text));
    QVERIFY(!inputs()->widgetForField("model.ffn_hidden_size")->isEnabled());
    QVERIFY(!inputs()->widgetForField("model.ffn_kind")->isEnabled());
    const ReportContext context(doc()->analysis(), "kinds");
    QVERIFY(QTextDocumentFragment::fromHtml(reportpainter::viewHtml(ReportView::Inputs, context)).toPlainText().contains(text));

    auto* layers = qobject_cast<QSpinBox*>(inputs()->widgetForField("model.layers"));
    QVERIFY(layers);
    layers->setValue(90);
    QCOMPARE(doc()->plan().model.layers, 90);
    QCOMPARE(doc()->plan().model.layerKinds.back().layers, 82);
    layers->setValue(5);  // the last run keeps one layer: 8 + 1
    QCOMPARE(doc()->plan().model.layers, 9);
    QCOMPARE(doc()->plan().model.layerKinds.back().layers, 1);
    QCOMPARE(layers->value(), 9);
    doc()->undoStack()->undo();
    doc()->undoStack()->undo();
    QCOMPARE(doc()->plan().model.layers, 80);
    QCOMPARE(doc()->plan().model.layerKinds.back().layers, 72);
}

void TestInputPanel::groupBoxFramesAreCachedAndLookTheSame()
{
    // Painted from its cached copy, a box looks as the style draws one.
    QWidget host;
    host.resize(640, 240);
    auto* plain = new QGroupBox(QStringLiteral("Parallel layout"), &host);
    auto* cached = new CachedFrameGroupBox(QStringLiteral("Parallel layout"), &host);
    plain->setGeometry(0, 0, 300, 200);
    cached->setGeometry(320, 0, 300, 200);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    // The copy is composited over the background, so a translucent edge may round one level
    // apart; the frame and the title are there, where they are.
    const auto largestDifference = [](const QImage& a, const QImage& b) {
        int largest = a.size() == b.size() ? 0 : 256;
        for (int y = 0; largest < 256 && y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) {
                const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
                largest = std::max({largest, std::abs(qRed(p) - qRed(q)), std::abs(qGreen(p) - qGreen(q)), std::abs(qBlue(p) - qBlue(q))});
            }
        return largest;
    };
    const QImage expected = plain->grab().toImage();
    for (int pass = 0; pass < 2; ++pass)  // the first paint draws the copy, the second reads it
        QVERIFY(largestDifference(cached->grab().toImage(), expected) <= 2);
    plain->setTitle(QStringLiteral("Training"));
    QVERIFY(largestDifference(plain->grab().toImage(), expected) > 2);  // the comparison sees a title
    host.close();

    // In the window, a drag repaints the rows inside the layout box, not its frame; a new size
    // or title draws the frame again. (The window active again first: the frame is drawn in
    // the active or the inactive colours.)
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_));
    QApplication::processEvents();
    auto* box = qobject_cast<CachedFrameGroupBox*>(inputs()->widgetForField("layout.dp")->parentWidget());
    QVERIFY(box);
    window_->repaint();
    const int drawn = box->framesDrawn();
    QVERIFY(drawn >= 1);
    auto* dp = qobject_cast<ValueSlider*>(inputs()->widgetForField("layout.dp"));
    QVERIFY(dp);
    for (int step = 0; step < 3; ++step) {
        dp->slider()->setValue(step % 2 == 0 ? dp->slider()->value() + 1 : dp->slider()->value() - 1);
        window_->repaint();
    }
    QCOMPARE(box->framesDrawn(), drawn);
    box->setTitle(QStringLiteral("Layout"));
    box->repaint();
    QCOMPARE(box->framesDrawn(), drawn + 1);
    box->resize(box->width() - 10, box->height());
    box->repaint();
    QCOMPARE(box->framesDrawn(), drawn + 2);
}

QTEST_MAIN(TestInputPanel)
#include "tst_inputpanel.moc"
