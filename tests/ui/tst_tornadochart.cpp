// The sensitivity tornado in the window, offscreen: the chart follows the document and the
// basis, shows the report's very result, and draws at its size. The painter itself: tests/render/tst_tornado.cpp.
#include "../TestPlans.h"
#include <QSignalSpy>
#include <QtTest>

#include "render/charts/TornadoPainter.h"
#include "render/report/ReportContext.h"
#include "ui/charts/TornadoChart.h"
#include "ui/document/PlanDocument.h"

using trainplan::SensitivityBasis;

class TestTornadoChart : public QObject {
    Q_OBJECT

private slots:
    void reactsToTheDocumentAndTheBasis();
    void windowAndReportShowOneSensitivity();
    void screenshot();
};

void TestTornadoChart::reactsToTheDocumentAndTheBasis()
{
    PlanDocument doc;
    TornadoChart chart(&doc);
    chart.resize(900, 500);
    const double baseDays = chart.tornado().result().baseDays;
    QCOMPARE(chart.tornado().result().basis, SensitivityBasis::Predicted);
    QCOMPARE(chart.barRects().size(), int(chart.tornado().result().bars.size()));
    // Half the inter-node bandwidth: a slower run, recomputed without being asked.
    doc.edit("Slower network", [](trainplan::Plan& p) { p.cluster.interNodeBytesPerSecond *= 0.5; });
    QVERIFY(chart.tornado().result().baseDays > baseDays);
    doc.undoStack()->undo();
    QCOMPARE(chart.tornado().result().baseDays, baseDays);
    // No MTBF: the failure inputs disappear, one bar fewer per input.
    const int before = int(chart.tornado().result().bars.size());
    doc.edit("No failures", [](trainplan::Plan& p) { p.cluster.mtbfSeconds.reset(); });
    QCOMPARE(int(chart.tornado().result().bars.size()), before - 1);
    QCOMPARE(chart.barRects().size(), before - 1);
    doc.undoStack()->undo();
    // The assumed-MFU basis has MFU as an input; the predicted one has the efficiencies.
    QSignalSpy basis(&chart, &TornadoChart::basisChanged);
    auto hasInput = [&](const char* name) {
        for (const auto& b : chart.tornado().result().bars)
            if (b.input == name)
                return true;
        return false;
    };
    QVERIFY(hasInput("Matmul efficiency"));
    chart.setBasis(SensitivityBasis::Assumed);
    QCOMPARE(basis.count(), 1);
    QCOMPARE(chart.tornado().result().basis, SensitivityBasis::Assumed);
    QVERIFY(hasInput("MFU (assumed)"));
    QVERIFY(!hasInput("Matmul efficiency"));
    chart.setMeasure(TornadoPainter::Measure::StepSeconds);
    QCOMPARE(chart.measure(), TornadoPainter::Measure::StepSeconds);
}

void TestTornadoChart::windowAndReportShowOneSensitivity()
{
    // A plan whose recompute is settled by the analysis: the window's tornado and the report's
    // read the same result (the analysis's, of the settled plan), not two sensitivities.
    PlanDocument doc;
    doc.resetTo(testplans::unknownRecomputePlan());
    QVERIFY(doc.analysis().plan.layout.recompute != doc.plan().layout.recompute);
    TornadoChart chart(&doc);
    chart.setBasis(SensitivityBasis::Predicted);
    const ReportContext report(doc.analysis());
    const trainplan::SensitivityResult& shown = chart.tornado().result();
    const trainplan::SensitivityResult& printed = report.sensitivity();
    QCOMPARE(&printed, &doc.analysis().sensitivity(SensitivityBasis::Predicted));  // computed once, for both
    QCOMPARE(shown.baseDays, printed.baseDays);
    QCOMPARE(shown.bars.size(), printed.bars.size());
    for (size_t i = 0; i < shown.bars.size(); ++i) {
        QCOMPARE(shown.bars[i].input, printed.bars[i].input);
        QCOMPARE(shown.bars[i].daysLow, printed.bars[i].daysLow);
        QCOMPARE(shown.bars[i].daysHigh, printed.bars[i].daysHigh);
    }
    // The centre is the figure the summary shows for the predicted basis.
    QCOMPARE(shown.baseDays, doc.analysis().atPredictedMfu.reliability.paddedDays);
}

void TestTornadoChart::screenshot()
{
    PlanDocument doc;
    TornadoChart chart(&doc);
    chart.resize(900, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QImage image = chart.grab().toImage();
    QCOMPARE(image.size(), QSize(900, 500));
    const QString dir = qEnvironmentVariable("TRAINPLAN_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QVERIFY(image.save(dir + "/tornado.png"));
        chart.setMeasure(TornadoPainter::Measure::StepSeconds);
        QVERIFY(chart.grab().save(dir + "/tornado-step.png"));
        chart.setMeasure(TornadoPainter::Measure::PaddedDays);
        chart.setBasis(SensitivityBasis::Assumed);
        QVERIFY(chart.grab().save(dir + "/tornado-assumed.png"));
        chart.setBasis(SensitivityBasis::Predicted);
        chart.resize(420, 300);
        QVERIFY(chart.grab().save(dir + "/tornado-small.png"));
    }
}

QTEST_MAIN(TestTornadoChart)
#include "tst_tornadochart.moc"
