// The calibrate-from-a-measured-run dialog (ui/calibration/CalibrationDialog.h) and its place in
// the window: nothing to apply until a fit succeeds; a measured step, a throughput or a log fits
// live; a refused fit keeps Apply off and says why; applying is one undoable edit; and no two of
// the window's actions share a shortcut (the import once took the inputs' Ctrl+I).
#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QUndoStack>
#include <QTemporaryDir>
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/planfile/WorkedExamples.h"
#include "ui/calibration/CalibrationDialog.h"
#include "ui/document/PlanDocument.h"
#include "ui/window/MainWindow.h"

namespace {

QPushButton* applyButton(CalibrationDialog& dialog)
{
    for (auto* box : dialog.findChildren<QDialogButtonBox*>())
        for (QAbstractButton* b : box->buttons())
            if (box->buttonRole(b) == QDialogButtonBox::AcceptRole)
                return qobject_cast<QPushButton*>(b);
    return nullptr;
}

}  // namespace

class TestCalibrationDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void fitsLiveAndRefusesWithItsReason();
    void readsALog();
    void applyingIsOneUndoableEdit();
    void noTwoActionsShareAShortcut();
    void clusterProfileSavesAndAppliesUndoably();
};

void TestCalibrationDialog::fitsLiveAndRefusesWithItsReason()
{
    const trainplan::Plan plan = trainplan::defaultPlan();
    const double predicted = trainplan::analyse(plan).predicted.stepSeconds;
    CalibrationDialog dialog(plan);
    QVERIFY(applyButton(dialog));
    QVERIFY(!applyButton(dialog)->isEnabled());
    QVERIFY(dialog.reportView()->toPlainText().contains("Enter the measured step"));
    dialog.throughputBox()->setValue(1.1 * predicted);
    dialog.recompute();
    QVERIFY(applyButton(dialog)->isEnabled());
    const auto calibrated = dialog.calibratedPlan();
    QVERIFY(calibrated && calibrated->cluster.calibration);
    QVERIFY(std::abs(trainplan::analyse(*calibrated).predicted.stepSeconds / dialog.throughputBox()->value() - 1.0) < 1e-3);
    QVERIFY(dialog.reportView()->toPlainText().contains("GEMM efficiency"));
    // For a person to look at (build/tests/artefacts).
    QDir().mkpath(TRAINPLAN_ARTEFACT_DIR);
    dialog.show();
    QVERIFY(dialog.grab().save(TRAINPLAN_ARTEFACT_DIR "/calibration-dialog.png"));
    // Tokens per second per GPU instead.
    dialog.throughputKind()->setCurrentIndex(1);
    dialog.throughputBox()->setValue(0.9 * trainplan::analyse(plan).predicted.tokensPerSecondPerGpu);
    dialog.recompute();
    QVERIFY(dialog.calibratedPlan());
    // Far faster than the GEMMs' peak allows: refused, with the reason, and nothing to apply.
    dialog.throughputKind()->setCurrentIndex(0);
    dialog.throughputBox()->setValue(0.2 * predicted);
    dialog.recompute();
    QVERIFY(!applyButton(dialog)->isEnabled());
    QVERIFY(!dialog.calibratedPlan());
    QVERIFY2(dialog.reportView()->toPlainText().contains("shorter than the model gives"), qPrintable(dialog.reportView()->toPlainText()));
}

void TestCalibrationDialog::readsALog()
{
    CalibrationDialog dialog(trainplan::defaultPlan());
    QVERIFY(dialog.loadLog(QStringLiteral(TRAINPLAN_SOURCE_DIR "/tests/core/fixtures/calibration/megatron-train.log")));
    QVERIFY(applyButton(dialog)->isEnabled());
    QVERIFY(dialog.calibratedPlan()->cluster.calibration->source.find("megatron-train.log") != std::string::npos);
    QVERIFY(!dialog.loadLog(QStringLiteral(TRAINPLAN_SOURCE_DIR "/tests/core/fixtures/import/gemma-7b.json")));
    QVERIFY(!applyButton(dialog)->isEnabled());
}

void TestCalibrationDialog::applyingIsOneUndoableEdit()
{
    MainWindow window;
    const trainplan::Plan before = window.document()->plan();
    QAction* action = window.findChild<QAction*>("calibrateAction");
    QVERIFY(action);
    action->trigger();
    auto* dialog = window.findChild<CalibrationDialog*>();
    QVERIFY(dialog && dialog->isVisible());
    dialog->throughputBox()->setValue(1.2 * trainplan::analyse(before).predicted.stepSeconds);
    dialog->recompute();
    dialog->accept();
    QVERIFY(window.document()->plan().cluster.calibration.has_value());
    QVERIFY(window.document()->plan().cluster.efficiency.matmul.has_value());
    // The inputs' efficiency group says where its figures came from.
    bool said = false;
    for (QLabel* label : window.findChildren<QLabel*>())
        said = said || label->text().contains("Calibrated from entered: step");
    QVERIFY(said);
    // "Use the preset's figures" forgets the fitted figures and their record together.
    auto* usePreset = window.findChild<QPushButton*>("usePresetEfficiencies");
    QVERIFY(usePreset && usePreset->isEnabled());
    usePreset->click();
    QVERIFY(!window.document()->plan().cluster.calibration);
    QVERIFY(!window.document()->plan().cluster.efficiency.matmul);
    window.document()->undoStack()->undo();
    QVERIFY(window.document()->plan().cluster.calibration.has_value());
    window.document()->undoStack()->undo();
    QVERIFY(window.document()->plan() == before);
}

void TestCalibrationDialog::noTwoActionsShareAShortcut()
{
    MainWindow window;
    QMap<QString, QString> owners;
    for (QAction* a : window.findChildren<QAction*>()) {
        for (const QKeySequence& key : a->shortcuts()) {
            const QString k = key.toString();
            if (k.isEmpty())
                continue;
            QVERIFY2(!owners.contains(k) || owners[k] == a->text(), qPrintable(k + ": " + owners.value(k) + " and " + a->text()));
            owners[k] = a->text();
        }
    }
    QVERIFY(owners.size() > 10);
}

// File → Cluster Profile: the calibrated cluster saved from one plan and applied to another as
// one undoable edit; a file that is no profile leaves the plan as it was and says why.
void TestCalibrationDialog::clusterProfileSavesAndAppliesUndoably()
{
    QTemporaryDir dir;
    MainWindow window;
    window.document()->edit("calibrated", [](trainplan::Plan& p) { p.cluster.efficiency.matmul = 0.5; });
    QString error;
    const QString path = dir.filePath("ours.json");
    QVERIFY2(window.saveClusterProfile(path, &error), qPrintable(error));

    MainWindow other;
    other.document()->edit("256 GPUs", [](trainplan::Plan& p) {
        p.cluster.gpus = 256;
        p.layout.dp = 256 / (p.layout.tp * p.layout.pp);
    });
    const int steps = other.document()->undoStack()->count();
    QVERIFY2(other.applyClusterProfile(path, &error), qPrintable(error));
    QCOMPARE(other.document()->plan().cluster.gpus, 2048);
    QCOMPARE(other.document()->plan().cluster.efficiency.matmul, std::optional<double>(0.5));
    QCOMPARE(other.document()->undoStack()->count(), steps + 1);
    other.document()->undoStack()->undo();
    QCOMPARE(other.document()->plan().cluster.gpus, 256);

    QFile bad(dir.filePath("plan.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"model\": {}}");
    bad.close();
    QVERIFY(!other.applyClusterProfile(bad.fileName(), &error));
    QVERIFY2(error.contains("plan.json") && error.contains("format"), qPrintable(error));
    QCOMPARE(other.document()->plan().cluster.gpus, 256);
}

QTEST_MAIN(TestCalibrationDialog)
#include "tst_calibrationdialog.moc"
