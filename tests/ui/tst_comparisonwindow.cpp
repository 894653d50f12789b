// The comparison window (ui/compare/ComparisonWindow.h) and its place in the main window: File →
// Compare with a Variant keeps a copy of the plan and compares it with the plan as it changes
// (worked example A's FSDP + TP 8 against TP 8 x PP 4, the comparison the example suggests);
// files come and go; every figure is the analysis's own; the PDF has a page per plan.
#include <QAction>
#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/base/Format.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/WorkedExamples.h"
#include "render/compare/ComparisonSet.h"
#include "ui/compare/ComparisonWindow.h"
#include "ui/document/PlanDocument.h"
#include "ui/window/MainWindow.h"

namespace {

const trainplan::ComparedFigure* figure(const ComparisonSet& set, const std::string& key)
{
    for (const auto& f : set.comparison().figures)
        if (f.key == key)
            return &f;
    return nullptr;
}

bool changed(const ComparisonSet& set, const std::string& path)
{
    for (const auto& f : set.comparison().changedFields)
        if (f.path == path)
            return true;
    return false;
}

QString writePlan(const QTemporaryDir& dir, const QString& name, const trainplan::Plan& plan)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QByteArray::fromStdString(trainplan::planToJson(plan).dump(2)));
    return path;
}

}  // namespace

class TestComparisonWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void variantFollowsTheEditedPlan();
    void plansComeAndGo();
    void exportsTheComparisonPdf();
};

void TestComparisonWindow::variantFollowsTheEditedPlan()
{
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    auto* variant = window.findChild<QAction*>("compareVariantAction");
    QVERIFY(variant);
    QCOMPARE(variant->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    variant->trigger();
    ComparisonWindow* compare = window.comparisonWindow();
    QVERIFY(compare->isVisible());
    QCOMPARE(compare->keptCount(), 1);
    QCOMPARE(compare->comparisonSet().size(), 2);
    QVERIFY(compare->comparisonSet().comparison().changedFields.empty());  // the copy is the plan as it was

    // Worked example A's alternative, made in the main window: the comparison follows it live.
    window.document()->edit("FSDP with TP 8", [](trainplan::Plan& p) {
        p.layout.pp = 1;
        p.layout.dp = p.cluster.gpus / p.layout.tp;
        p.layout.zeroStage = 3;
    });
    QCoreApplication::processEvents();
    const ComparisonSet& set = compare->comparisonSet();
    QCOMPARE(set.size(), 2);
    QVERIFY(changed(set, "layout.pp"));
    QVERIFY(changed(set, "layout.zero_stage"));
    QVERIFY(!changed(set, "cluster.gpus"));
    // One figure, one value: each column is that plan's own analysis.
    const auto* step = figure(set, "predicted.step_seconds");
    QVERIFY(step);
    QCOMPARE(step->values[0].get<double>(), trainplan::analyse(trainplan::defaultPlan()).predicted.stepSeconds);
    QCOMPARE(step->values[1].get<double>(), window.document()->analysis().predicted.stepSeconds);
    QVERIFY(step->values[0] != step->values[1]);
    auto* tables = compare->findChild<QLabel*>("comparisonTables");
    QVERIFY(tables->text().contains("B against A"));
    QVERIFY(tables->text().contains(QString::fromStdString(trainplan::formatSeconds(window.document()->analysis().predicted.stepSeconds))));
    // Undo in the main window takes the comparison back with it.
    window.document()->undoStack()->undo();
    QCoreApplication::processEvents();
    QVERIFY(compare->comparisonSet().comparison().changedFields.empty());
    window.document()->undoStack()->redo();
    QCoreApplication::processEvents();

    compare->resize(1280, 720);
    QTest::qWait(50);
    QDir().mkpath(TRAINPLAN_ARTEFACT_DIR);
    QVERIFY(compare->grab().save(TRAINPLAN_ARTEFACT_DIR "/comparison-window-1280x720.png"));
}

void TestComparisonWindow::plansComeAndGo()
{
    PlanDocument doc;
    ComparisonWindow compare(&doc);
    QCOMPARE(compare.comparisonSet().size(), 1);  // the live plan alone: the window asks for another
    QTemporaryDir dir;
    trainplan::Plan other = trainplan::defaultPlan();
    other.layout.tp = 4;
    other.layout.dp = other.cluster.gpus / (other.layout.tp * other.layout.pp);
    const QString path = writePlan(dir, "tp4.json", other);
    QString error;
    QVERIFY2(compare.addPlanFile(path, &error), qPrintable(error));
    QCOMPARE(compare.keptCount(), 1);
    QCOMPARE(compare.comparisonSet().size(), 2);
    QCOMPARE(compare.comparisonSet().source(0), QString("tp4.json"));
    QVERIFY(changed(compare.comparisonSet(), "layout.tp"));

    // A file that is no plan is refused with its name and the field, and nothing is added.
    QFile bad(dir.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"model": {"layers": -3}})");
    bad.close();
    QVERIFY(!compare.addPlanFile(bad.fileName(), &error));
    QVERIFY2(error.contains("bad.json"), qPrintable(error));
    QCOMPARE(compare.keptCount(), 1);

    compare.setIncludesCurrentPlan(false);
    QCOMPARE(compare.comparisonSet().size(), 1);
    compare.setIncludesCurrentPlan(true);
    compare.keepCurrentPlan();
    QCOMPARE(compare.comparisonSet().size(), 3);
    compare.removePlan(0);
    QCOMPARE(compare.keptCount(), 1);
    QCOMPARE(compare.comparisonSet().size(), 2);
    QVERIFY(compare.comparisonSet().comparison().changedFields.empty());  // the copy and the live plan
}

void TestComparisonWindow::exportsTheComparisonPdf()
{
    PlanDocument doc;
    ComparisonWindow compare(&doc);
    QTemporaryDir dir;
    QString error;
    // One plan is no comparison: the export says what to do instead of writing a one-column PDF.
    QVERIFY(!compare.exportPdf(dir.filePath("one.pdf"), &error));
    QVERIFY2(error.contains("two plans"), qPrintable(error));
    QVERIFY(!QFile::exists(dir.filePath("one.pdf")));
    compare.keepCurrentPlan();
    doc.edit("PP 8", [](trainplan::Plan& p) {
        p.layout.pp = 8;
        p.layout.dp = p.cluster.gpus / (p.layout.tp * p.layout.pp);
    });
    const QString path = dir.filePath("two.pdf");
    QVERIFY2(compare.exportPdf(path, &error), qPrintable(error));
    QFile pdf(path);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
}

QTEST_MAIN(TestComparisonWindow)
#include "tst_comparisonwindow.moc"
