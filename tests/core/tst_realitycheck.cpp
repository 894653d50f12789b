// Reality check: the step-time model against the measured runs of resources/reference/published_runs.json
// (resources/reference). The plans, conventions and rules are in
// trainplan/RealityCheck.h; this test prints the predicted-against-measured table and fails if
// the median absolute error exceeds 10 % or any gated case exceeds 25 %.
#include <QCryptographicHash>
#include <QtTest>

#include <cmath>
#include <set>

#include "TestSupport.h"
#include "core/analysis/RealityCheck.h"
#include "core/analysis/Thresholds.h"
#include "core/base/Units.h"

using namespace trainplan;

namespace {

nlohmann::json loadRuns()
{
    return testsupport::readJsonFile(std::string(TRAINPLAN_SOURCE_DIR) + "/resources/reference/published_runs.json");
}

nlohmann::json loadCalibration()
{
    return testsupport::readJsonFile(std::string(TRAINPLAN_SOURCE_DIR) + "/resources/reference/calibration_runs.json");
}

std::vector<RealityCase> allCases()
{
    std::vector<RealityCase> cases = realityCases(loadRuns());
    for (auto& c : calibrationCases(loadCalibration()))
        cases.push_back(std::move(c));
    return cases;
}

void printRows(const std::vector<RealityRow>& rows)
{
    qInfo("%-58s %-18s %10s %10s %8s %21s", "case", "metric", "predicted", "measured", "error", "range");
    for (const auto& r : rows)
        qInfo("%-58s %-18s %10.4g %10.4g %+7.1f%% [%8.4g, %8.4g]%s%s", r.id.c_str(), realityMetricName(r.metric), r.predicted, r.measured,
            r.error * 100, r.low, r.high, r.gated ? "" : "  (not gated)", r.fits ? "" : "  (estimate: does not fit)");
}

void printStats(const char* label, const ErrorStats& s)
{
    qInfo("%-44s n=%3d  median %5.1f %%  p90 %5.1f %%  mean optimism %+5.1f %%", label, s.count, s.median * 100, s.p90 * 100,
        s.meanSigned * 100);
}

}  // namespace

class TestRealityCheck : public QObject {
    Q_OBJECT

private slots:
    void dataIsTheSharedReference();
    void everyUsableCaseIsBuilt();
    void conventionsMatchThePapers();
    void publishedRunsWithinTolerance();
    void calibrationRunsAreBuilt();
    void leaveOneFamilyOut();
};

void TestRealityCheck::dataIsTheSharedReference()
{
    // The repository ships its own copy (resources/reference), taken from the team's reference
    // set; its SHA-256 is recorded beside it, so a changed copy is caught in every clone.
    const QString copy = QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/published_runs.json");
    QFile file(copy);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QFile recorded(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/SHA256SUMS"));
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    const QByteArray sums = recorded.readAll();
    QVERIFY2(sums.contains(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex() + "  published_runs.json"),
        "resources/reference/published_runs.json differs from its recorded SHA-256");
}

void TestRealityCheck::everyUsableCaseIsBuilt()
{
    const auto cases = realityCases(loadRuns());
    // 10 Table 1 rows, 6 Table 2 PTD-P and 6 ZeRO-3 rows, 4 Korthikanti runs x 2 (present work
    // and full-recompute baseline), 530B-dp8 x 2, 5 Table 4 layer timings.
    QCOMPARE(int(cases.size()), 10 + 12 + 8 + 2 + 5);
    int gated = 0;
    for (const auto& rc : cases) {
        const Estimate est = estimate(rc.plan);
        QVERIFY2(est.gpusUsed == rc.plan.cluster.gpus, rc.id.c_str());
        for (const auto& w : est.warnings)  // only memory may be a problem (Table 4 ran single layers)
            QVERIFY2(w.severity != Severity::Error || w.code == WarningCode::StageOverCapacity, rc.id.c_str());
        QVERIFY(rc.measured > 0);
        gated += rc.gated;
    }
    QCOMPARE(gated, int(cases.size()) - 6);  // the six ZeRO-3 rows are reported, not gated
}

void TestRealityCheck::conventionsMatchThePapers()
{
    // Narayanan's Eq. 3 and Korthikanti's Eq. 7 against the estimate's FLOP counts, per step,
    // to the rounding of the published derived figures (< 1 %: learned positions and biases).
    const auto runs = loadRuns();
    for (const auto& rc : realityCases(runs)) {
        const Estimate est = estimate(rc.plan);
        const auto& m = rc.plan.model;
        const double B = double(rc.plan.training.globalBatchSequences), s = m.sequenceLength, l = m.layers, h = m.hiddenSize,
                     V = m.vocabSize;
        const double perStep = 1.0 / est.time.stepsExact;
        if (rc.metric == RealityMetric::HardwareTflopsPerGpu) {
            const double eq3 = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
            QVERIFY2(std::abs(est.flops.hardware * perStep / eq3 - 1.0) < 0.01, rc.id.c_str());
        } else if (rc.metric == RealityMetric::Mfu && rc.plan.layout.recompute == Recompute::Selective) {
            const double eq7 = 72.0 * B * l * s * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * h * l));
            QVERIFY2(std::abs(est.flops.total * perStep / eq7 - 1.0) < 0.01, rc.id.c_str());
        }
    }
}

void TestRealityCheck::publishedRunsWithinTolerance()
{
    const RealitySummary summary = realityCheck(loadRuns());
    qInfo("%-52s %-20s %10s %10s %8s", "case", "metric", "predicted", "measured", "error");
    for (const auto& r : summary.rows) {
        qInfo("%-52s %-20s %10.4g %10.4g %+7.1f%%%s%s", r.id.c_str(), realityMetricName(r.metric), r.predicted, r.measured, r.error * 100,
            r.gated ? "" : "  (not gated)", r.fits ? "" : "  (estimate: does not fit)");
        QVERIFY2(std::isfinite(r.predicted) && r.predicted > 0, r.id.c_str());
    }
    qInfo("gated cases: %d, median |error| %.1f %%, worst %.1f %% (%s)", summary.gatedCount, summary.medianAbsError * 100,
        summary.worstAbsError * 100, summary.worstId.c_str());
    QVERIFY(summary.gatedCount >= 30);
    // The gates the reality-check view colours by (analysis/Thresholds.h).
    QVERIFY2(summary.medianAbsError <= kRealityMedianGate,
        qPrintable(QString("median |error| %1 % > %2 %").arg(summary.medianAbsError * 100, 0, 'f', 1).arg(kRealityMedianGate * 100)));
    QVERIFY2(summary.worstAbsError <= kRealityCaseGate,
        qPrintable(QString("%1: |error| %2 % > %3 %")
                       .arg(summary.worstId.c_str())
                       .arg(summary.worstAbsError * 100, 0, 'f', 1)
                       .arg(kRealityCaseGate * 100)));
    const auto doc = realityCheckToJson(summary);
    QCOMPARE(doc.at("reality_check").at("rows").size(), summary.rows.size());
    // Each row carries the memory verdict every view gives (the range's, MemoryFit.h), and the
    // counts by verdict cover each published layout once (they all trained: "does not fit" is a miss).
    std::set<std::string> ids;
    for (const auto& r : summary.rows) {
        ids.insert(r.id);
        QVERIFY(r.memoryFit != MemoryFit::Fits || r.fits);  // a range within usable means the point figure fits too
    }
    const auto counts = realityFitCounts(summary);
    QCOMPARE(counts[0] + counts[1] + counts[2], int(ids.size()));
    const auto& byVerdict = doc.at("reality_check").at("layouts_by_verdict");
    QCOMPARE(byVerdict.at("fits").get<int>(), counts[0]);
    QCOMPARE(byVerdict.at("may not fit").get<int>(), counts[1]);
    QCOMPARE(byVerdict.at("does not fit").get<int>(), counts[2]);
    qInfo("published layouts by memory verdict: %d fit, %d may not fit, %d do not fit", counts[0], counts[1], counts[2]);
    for (size_t i = 0; i < summary.rows.size(); ++i)
        QCOMPARE(doc.at("reality_check").at("rows").at(i).at("verdict").get<std::string>(),
            std::string(memoryFitName(summary.rows[i].memoryFit)));
}

void TestRealityCheck::calibrationRunsAreBuilt()
{
    QFile file(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/calibration_runs.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QFile recorded(QStringLiteral(TRAINPLAN_SOURCE_DIR "/resources/reference/SHA256SUMS"));
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    QVERIFY2(recorded.readAll().contains(
                 QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256).toHex() + "  calibration_runs.json"),
        "resources/reference/calibration_runs.json differs from its recorded SHA-256");
    const auto cases = calibrationCases(loadCalibration());
    // 36 throughput rows and the 5 BigScience peak-memory rows.
    QCOMPARE(int(cases.size()), 36 + 5);
    for (const auto& rc : cases) {
        const Estimate est = estimate(rc.plan);
        QVERIFY2(est.gpusUsed == rc.plan.cluster.gpus, rc.id.c_str());
        QVERIFY2(!est.hasErrors() || !est.fits, rc.id.c_str());
        QVERIFY(rc.measured > 0);
    }
    std::vector<RealityRow> rows;
    int memoryRows = 0;
    for (const auto& rc : cases) {
        rows.push_back(evaluateRealityCase(rc));
        // Every published peak lies inside the memory range (its high end carries the model
        // error memoryModelErrorAbove() quotes from these rows).
        if (rc.metric == RealityMetric::PeakMemoryGib) {
            ++memoryRows;
            const RealityRow& r = rows.back();
            QVERIFY2(r.low < r.predicted && r.predicted < r.high, rc.id.c_str());
            QVERIFY2(r.inRange,
                qPrintable(QString("%1: measured %2 GiB outside [%3, %4]").arg(rc.id.c_str()).arg(r.measured).arg(r.low).arg(r.high)));
        }
    }
    QCOMPARE(memoryRows, 5);
    printRows(rows);
}

void TestRealityCheck::leaveOneFamilyOut()
{
    const ModelValidation v = validateModel(allCases());
    qInfo("fitted on every gated row: matmul scale %.3f, kernel overhead %.1f us", v.fitted.matmulScale,
          v.fitted.kernelOverheadSeconds * units::microsecondsPerSecond);
    printStats("in sample", v.inSample);
    printStats("out of sample (leave one family out)", v.outOfSample);
    for (const auto& f : v.folds) {
        qInfo("  without %-40s scale %.3f overhead %.1f us", f.family.c_str(), f.fitted.matmulScale,
              f.fitted.kernelOverheadSeconds * units::microsecondsPerSecond);
        printStats(("    held out: " + f.family).substr(0, 44).c_str(), f.heldOut);
    }
    for (const auto& [key, s] : v.inSampleByAccelerator)
        printStats(("in sample, " + key).c_str(), s);
    for (const auto& [key, s] : v.outOfSampleByAccelerator)
        printStats(("out of sample, " + key).c_str(), s);
    for (const auto& [key, s] : v.inSampleByFramework)
        printStats(("in sample, " + key).c_str(), s);
    for (const auto& [key, s] : v.outOfSampleByFramework)
        printStats(("out of sample, " + key).c_str(), s);
    qInfo("held-out rows inside the predicted range: %.0f %%", v.rangeCoverage * 100);

    // The presets carry the in-sample fit (accelerators.json cites it): refitting moves nothing.
    QCOMPARE(v.fitted.matmulScale, 1.0);
    QCOMPARE(v.fitted.kernelOverheadSeconds, 4e-6);
    QVERIFY2(v.inSample.median <= 0.06, qPrintable(QString::number(v.inSample.median)));
    // Out of sample: every family predicted from the others (2026-12: median 5.0 %, p90 14.8 %,
    // no family's median above 13.1 %).
    QVERIFY2(v.outOfSample.median <= 0.06, qPrintable(QString::number(v.outOfSample.median)));
    QVERIFY2(v.outOfSample.p90 <= 0.18, qPrintable(QString::number(v.outOfSample.p90)));
    for (const auto& f : v.folds)
        QVERIFY2(f.heldOut.median <= 0.15, f.family.c_str());
    // Neither systematically optimistic nor pessimistic out of sample.
    QVERIFY2(std::abs(v.outOfSample.meanSigned) <= 0.05, qPrintable(QString::number(v.outOfSample.meanSigned)));
    // The range's model-error band covers the out-of-sample 90th percentile, and most held-out
    // measurements fall inside their predicted range.
    QVERIFY(modelErrorSlower() >= v.outOfSample.p90);
    QVERIFY2(v.rangeCoverage >= 0.8, qPrintable(QString::number(v.rangeCoverage)));
    const auto doc = modelValidationToJson(v);
    QVERIFY(doc.at("model_validation").at("folds").size() == v.folds.size());
    QVERIFY(doc.at("model_validation").contains("out_of_sample_by_accelerator"));
}

QTEST_GUILESS_MAIN(TestRealityCheck)
#include "tst_realitycheck.moc"
