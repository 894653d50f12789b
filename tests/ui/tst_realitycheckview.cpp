// The reality check view , offscreen: it reads the published runs shipped in the
// resources, shows every case (every gated one counted), a median error under 10 %, the
// predicted-against-measured scatter with y = x and the ±10 % band, and says so when the
// data cannot be read.
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <limits>

#include <nlohmann/json.hpp>

#include <QChartView>

#include "core/analysis/Thresholds.h"
#include "render/style/Theme.h"
#include "ui/realitycheck/RealityCheckView.h"

namespace {

nlohmann::json sourceData(const char* name = "published_runs.json")
{
    QFile f(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/") + QString::fromLatin1(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = f.readAll();
    return nlohmann::json::parse(bytes.constBegin(), bytes.constEnd());
}

// Cases the scatter plot draws: every metric but peak memory.
int plottedRows(const trainplan::RealitySummary& s, bool gatedOnly)
{
    int n = 0;
    for (const auto& r : s.rows)
        n += r.metric != trainplan::RealityMetric::PeakMemoryGib && (!gatedOnly || r.gated);
    return n;
}

int countScatterPoints(QChart* chart, bool gatedOnly)
{
    int n = 0;
    for (QAbstractSeries* s : chart->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            if (!gatedOnly || !scatter->name().contains("not gated"))
                n += scatter->count();
    return n;
}

}  // namespace

class TestRealityCheckView : public QObject {
    Q_OBJECT

private slots:
    void theAppShipsThePublishedRuns();
    void showsEveryCaseAndAMedianUnderTenPercent();
    void scatterHasEveryCaseTheDiagonalAndTheBand();
    void oneMetricUsesLinearAxes();
    void sortsByError();
    void errorsAreColouredByTheCoreGates();
    void unreadableDataIsSaid();
    void validationShowsInAndOutOfSample();
    void screenshot();
};

void TestRealityCheckView::theAppShipsThePublishedRuns()
{
    for (const auto& [resourcePath, file] : {std::pair{RealityCheckView::kDefaultPath, "published_runs.json"},
             std::pair{RealityCheckView::kCalibrationPath, "calibration_runs.json"}}) {
        QFile resource(QString::fromLatin1(resourcePath));
        QVERIFY(resource.open(QIODevice::ReadOnly));
        QFile source(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/") + QString::fromLatin1(file));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QCOMPARE(resource.readAll(), source.readAll());
    }
}

void TestRealityCheckView::showsEveryCaseAndAMedianUnderTenPercent()
{
    RealityCheckView view;
    QCOMPARE(view.table()->model()->rowCount(), 0);  // lazy: nothing computed before shown or asked
    const auto& summary = view.summary();
    QVERIFY(view.errorText().isEmpty());
    // The same cases as the core's check of the repository's copy.
    const auto expected = trainplan::realityCheck(sourceData(), sourceData("calibration_runs.json"));
    QCOMPARE(summary.rows.size(), expected.rows.size());
    QCOMPARE(summary.gatedCount, expected.gatedCount);
    QVERIFY(summary.gatedCount >= 20);
    QVERIFY2(summary.medianAbsError < 0.10, qPrintable(QString::number(summary.medianAbsError)));

    // Every case is a row; every gated case is marked gated, with its id.
    auto* model = view.table()->model();
    QCOMPARE(model->rowCount(), int(summary.rows.size()));
    QStringList gatedIds;
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 5).data().toString() == "yes")
            gatedIds << model->index(r, 0).data(RealityCheckView::kIdRole).toString();
    QCOMPARE(gatedIds.size(), summary.gatedCount);
    for (const auto& row : summary.rows)
        if (row.gated)
            QVERIFY2(gatedIds.contains(QString::fromStdString(row.id)), row.id.c_str());

    // The summary line gives the median and the worst case.
    const QString text = view.summaryLabel()->text();
    QVERIFY2(text.contains(QString::number(summary.medianAbsError * 100, 'f', 1) + " %"), qPrintable(text));
    QVERIFY(text.contains(QString::fromStdString(summary.worstId)));
}

void TestRealityCheckView::scatterHasEveryCaseTheDiagonalAndTheBand()
{
    RealityCheckView view;
    const auto& summary = view.summary();
    QChart* chart = view.chartView()->chart();
    QCOMPARE(countScatterPoints(chart, false), plottedRows(summary, false));
    QCOMPARE(countScatterPoints(chart, true), plottedRows(summary, true));
    // y = x and y = (1 ± 10 %) x: lines through the origin with those slopes.
    QList<double> slopes;
    for (QAbstractSeries* s : chart->series())
        if (auto* line = qobject_cast<QLineSeries*>(s); line && !qobject_cast<QScatterSeries*>(s)) {
            QCOMPARE(line->count(), 2);
            slopes << line->at(1).y() / line->at(1).x();
            QCOMPARE(line->at(0).y() / line->at(0).x(), slopes.last());
        }
    std::sort(slopes.begin(), slopes.end());
    QCOMPARE(slopes.size(), 3);
    QVERIFY(qFuzzyCompare(slopes[0], 0.9));
    QVERIFY(qFuzzyCompare(slopes[1], 1.0));
    QVERIFY(qFuzzyCompare(slopes[2], 1.1));
    // Every case lies inside the axes' range (none drawn off the chart).
    for (QAbstractSeries* s : chart->series())
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            for (const QPointF& p : scatter->points()) {
                const QPointF position = chart->mapToPosition(p, scatter);
                QVERIFY(chart->plotArea().adjusted(-1, -1, 1, 1).contains(position) || chart->plotArea().isEmpty());
            }
}

void TestRealityCheckView::oneMetricUsesLinearAxes()
{
    RealityCheckView view;
    const auto& summary = view.summary();
    view.setPlotMetric(RealityCheckView::PlotMetric::TflopsPerGpu);
    int tflops = 0;
    for (const auto& r : summary.rows)
        tflops += r.metric == trainplan::RealityMetric::HardwareTflopsPerGpu;
    QCOMPARE(countScatterPoints(view.chartView()->chart(), false), tflops);
    for (QAbstractAxis* axis : view.chartView()->chart()->axes())
        QCOMPARE(axis->type(), QAbstractAxis::AxisTypeValue);
    view.setPlotMetric(RealityCheckView::PlotMetric::All);
    for (QAbstractAxis* axis : view.chartView()->chart()->axes())
        QCOMPARE(axis->type(), QAbstractAxis::AxisTypeLogValue);
    QCOMPARE(countScatterPoints(view.chartView()->chart(), false), plottedRows(summary, false));
}

void TestRealityCheckView::sortsByError()
{
    RealityCheckView view;
    const auto& summary = view.summary();
    view.table()->sortByColumn(4, Qt::DescendingOrder);
    auto* model = view.table()->model();
    // The largest error first, by number: "−18.5 %" above "+9.0 %".
    double last = std::numeric_limits<double>::infinity();
    for (int r = 0; r < model->rowCount(); ++r) {
        const double e = std::abs(model->index(r, 4).data(Qt::UserRole + 1).toDouble());
        QVERIFY(e <= last);
        last = e;
    }
    // The first row shows the largest error the model makes (a number, not a string sort).
    double largest = 0;
    for (const auto& row : summary.rows)
        largest = std::max(largest, std::abs(row.error));
    const QString top = model->index(0, 4).data().toString();
    QVERIFY2(top.contains(QString::number(largest * 100, 'f', 1)), qPrintable(top));
}

void TestRealityCheckView::errorsAreColouredByTheCoreGates()
{
    // Each gated case's error is coloured by the core's verdict (analysis/Thresholds.h), the
    // gates tst_realitycheck holds the model to; the summary's colour says whether the median
    // is within its gate.
    RealityCheckView view;
    view.summary();
    auto* proxy = qobject_cast<QSortFilterProxyModel*>(view.table()->model());
    QVERIFY(proxy);
    int gated = 0;
    bool beyondTheMedianGate = false;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        if (proxy->index(r, 5).data().toString() != "yes")
            continue;
        ++gated;
        const double absError = proxy->index(r, 4).data(proxy->sortRole()).toDouble();
        beyondTheMedianGate = beyondTheMedianGate || absError > trainplan::kRealityMedianGate;
        const QColor shown = proxy->index(r, 4).data(Qt::ForegroundRole).value<QBrush>().color();
        QCOMPARE(shown, theme::verdict(trainplan::realityErrorVerdict(absError), theme::ok()));
    }
    QVERIFY(gated >= 20);
    QVERIFY(beyondTheMedianGate);  // both colours are exercised
    const bool pass = view.summary().medianAbsError <= trainplan::kRealityMedianGate;
    QVERIFY(view.summaryLabel()->text().contains((pass ? theme::ok() : theme::capacity()).name()));
}

void TestRealityCheckView::unreadableDataIsSaid()
{
    RealityCheckView view;
    QVERIFY(!view.load("/nonexistent/published_runs.json"));
    QVERIFY(view.summaryLabel()->text().contains("Cannot read"));
    QCOMPARE(view.table()->model()->rowCount(), 0);
    QVERIFY(view.load(QString::fromLatin1(RealityCheckView::kDefaultPath)));
    QVERIFY(view.table()->model()->rowCount() > 0);
}

// The second tab: in-sample and leave-one-family-out error, overall, per accelerator, per framework
// and per family, the core's validateModel() figures, computed off the window's thread.
void TestRealityCheckView::validationShowsInAndOutOfSample()
{
    RealityCheckView view;
    view.summary();  // loads both files and starts the worker
    QTRY_VERIFY_WITH_TIMEOUT(view.validationReady(), 300000);
    const auto& v = view.validation();
    auto* model = view.validationTable()->model();
    const int expectedRows = 1 + int(v.inSampleByAccelerator.size() + v.inSampleByFramework.size() + v.folds.size());
    QCOMPARE(model->rowCount(), expectedRows);
    QVERIFY(v.inSampleByAccelerator.size() >= 2);  // A100 and H100
    QVERIFY(v.folds.size() >= 5);
    QCOMPARE(model->index(0, 1).data().toInt(), v.outOfSample.count);
    QCOMPARE(model->index(0, 2).data().toString(), QStringLiteral("%1 %").arg(v.inSample.median * 100, 0, 'f', 1));
    QCOMPARE(model->index(0, 4).data().toString(), QStringLiteral("%1 %").arg(v.outOfSample.median * 100, 0, 'f', 1));
    QStringList labels;
    for (int r = 0; r < model->rowCount(); ++r)
        labels << model->index(r, 0).data().toString();
    QVERIFY(labels.contains("Accelerator: H100 SXM 80GB"));
    QVERIFY(labels.filter("Framework: ").size() >= 3);
    QVERIFY(labels.filter("Family: ").size() == int(v.folds.size()));
    // The step-time range's coverage and median width, in sample and leave one family out.
    const QString note = view.validationNote()->text();
    QVERIFY(v.outOfSampleRange.count == v.outOfSample.count && v.inSampleRange.count > 0);
    for (const auto* score : {&v.inSampleRange, &v.outOfSampleRange}) {
        QVERIFY2(note.contains(QStringLiteral("%1 % of runs inside").arg(score->coverage * 100, 0, 'f', 1))
                || note.contains(QStringLiteral("%1 % inside").arg(score->coverage * 100, 0, 'f', 1)),
            qPrintable(note));
        QVERIFY2(note.contains(QStringLiteral("median high/low %1").arg(score->medianWidth, 0, 'f', 2)), qPrintable(note));
    }
    // The cases tab's summary gives the in-sample figures at once, without the validation.
    const auto& s = view.summary();
    QVERIFY(s.rangeCount == v.inSampleRange.count);
    QCOMPARE(s.rangeCoverage, v.inSampleRange.coverage);
    QVERIFY2(view.summaryLabel()->text().contains(QStringLiteral("predicted range: %1 % of runs, median high/low %2")
                                                      .arg(s.rangeCoverage * 100, 0, 'f', 0)
                                                      .arg(s.medianRangeWidth, 0, 'f', 2)),
        qPrintable(view.summaryLabel()->text()));
}

void TestRealityCheckView::screenshot()
{
    RealityCheckView view;
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.table()->model()->rowCount() > 0);  // shown: the check ran
    const QString dir = qEnvironmentVariable("TRAINPLAN_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QVERIFY(view.grab().save(dir + "/realitycheck.png"));
        view.setPlotMetric(RealityCheckView::PlotMetric::TflopsPerGpu);
        QCoreApplication::processEvents();
        QVERIFY(view.grab().save(dir + "/realitycheck-tflops.png"));
        view.setPlotMetric(RealityCheckView::PlotMetric::Mfu);
        QCoreApplication::processEvents();
        QVERIFY(view.grab().save(dir + "/realitycheck-mfu.png"));
        QTRY_VERIFY_WITH_TIMEOUT(view.validationReady(), 300000);
        auto* tabs = view.findChild<QTabWidget*>();
        QVERIFY(tabs);
        tabs->setCurrentIndex(1);
        QCoreApplication::processEvents();
        QVERIFY(view.grab().save(dir + "/realitycheck-validation.png"));
    }
}

QTEST_MAIN(TestRealityCheckView)
#include "tst_realitycheckview.moc"
