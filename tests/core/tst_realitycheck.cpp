// Reality check: the step-time model against the measured runs of resources/reference/published_runs.json
// (resources/reference). The plans, conventions and rules are in
// trainplan/RealityCheck.h; this test prints the predicted-against-measured table and fails if
// the median absolute error exceeds 10 % or any gated case exceeds 25 %.
#include <QCryptographicHash>
#include <QtTest>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

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

// The validation costs a grid of predictions per case: computed once for the tests that read it.
const ModelValidation& validation()
{
    static const ModelValidation v = validateModel(allCases());
    return v;
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
    void conformalBandOrderStatistics_data();
    void conformalBandOrderStatistics();
    void shippedBandIsWhatTheFoldsGive();
    void moeRunsPredictedOutOfSample();
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
        if (r.trainedLayout)
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
    // Every published layout that trained fits or may not fit (issue 22); the one-layer timings
    // without recompute are settings Korthikanti et al.'s Figure 1 shows exceed 80 GB for the
    // whole 22B model (45.6 + 59.3 GiB), and the verdict agrees.
    QCOMPARE(counts[2], 0);
    int untrained = 0;
    for (const auto& r : summary.rows) {
        if (r.id.find("baseline_no_recompute") != std::string::npos) {
            QVERIFY(!r.trainedLayout);
            QCOMPARE(r.memoryFit, MemoryFit::DoesNotFit);
        }
        untrained += !r.trainedLayout;
    }
    QCOMPARE(untrained, 5);  // Table 4's five settings
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
            // Issue 22's bar: the point figure within 10 % of every published peak (the memory
            // model is not fitted to these rows, so in and out of sample are the same figure).
            QVERIFY2(std::abs(r.error) <= 0.10, qPrintable(QString("%1: %2 %").arg(rc.id.c_str()).arg(r.error * 100, 0, 'f', 1)));
        }
    }
    QCOMPARE(memoryRows, 5);
    printRows(rows);
}

void TestRealityCheck::leaveOneFamilyOut()
{
    const ModelValidation& v = validation();
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
    const auto doc = modelValidationToJson(v);
    QVERIFY(doc.at("model_validation").at("folds").size() == v.folds.size());
    QVERIFY(doc.at("model_validation").contains("out_of_sample_by_accelerator"));
}

void TestRealityCheck::conformalBandOrderStatistics_data()
{
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<std::vector<int>>("families");  // family index of each value
    QTest::addColumn<bool>("perFamily");
    QTest::addColumn<double>("coverage");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    const double inf = std::numeric_limits<double>::infinity();
    // Equal weights: the floor((n+1) a/2)-th and ceil((n+1)(1-a/2))-th smallest (Lei et al.
    // 2018). n = 9 at 80 %: the 1st and 9th; n = 19: the 2nd and 18th at 80 %, the 1st and 19th
    // at 90 %; n = 8 is too few for 80 % (the 9th smallest does not exist).
    QTest::newRow("n=9, 80 %") << std::vector<double>{5, 3, 1, 9, 7, 2, 8, 4, 6} << std::vector<int>(9, 0) << false << 0.8 << 1.0 << 9.0;
    std::vector<double> nineteen;
    for (int i = 1; i <= 19; ++i)
        nineteen.push_back(i);
    QTest::newRow("n=19, 80 %") << nineteen << std::vector<int>(19, 0) << false << 0.8 << 2.0 << 18.0;
    QTest::newRow("n=19, 90 %") << nineteen << std::vector<int>(19, 0) << false << 0.9 << 1.0 << 19.0;
    QTest::newRow("n=8, 80 %: unbounded") << std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8} << std::vector<int>(8, 0) << false << 0.8 << -inf
                                          << inf;
    // 18 rows at 0 of one family and 2 rows at -1 and +1 of another: by rows the +-1 are the 1st
    // and 20th of 20 and the 2nd and 19th (the ends at 80 %) are 0; weighted per family the two
    // rows carry half the weight, 5 each of n = 20, and set both ends.
    std::vector<double> lopsided(18, 0.0);
    lopsided.push_back(-1.0);
    lopsided.push_back(1.0);
    std::vector<int> twoFamilies(18, 0);
    twoFamilies.push_back(1);
    twoFamilies.push_back(1);
    QTest::newRow("per row") << lopsided << twoFamilies << false << 0.8 << 0.0 << 0.0;
    QTest::newRow("per family") << lopsided << twoFamilies << true << 0.8 << -1.0 << 1.0;
}

void TestRealityCheck::conformalBandOrderStatistics()
{
    QFETCH(std::vector<double>, values);
    QFETCH(std::vector<int>, families);
    QFETCH(double, coverage);
    QFETCH(double, low);
    QFETCH(double, high);
    QFETCH(bool, perFamily);
    std::vector<StepResidual> residuals;
    for (size_t i = 0; i < values.size(); ++i)
        residuals.push_back(StepResidual{"row " + std::to_string(i), "family " + std::to_string(families[i]), values[i], 0.0, 0.0});
    const StepErrorBand band = conformalBand(residuals, coverage, perFamily ? ConformalWeights::PerFamily : ConformalWeights::PerRow);
    QCOMPARE(band.coverage, coverage);
    QCOMPARE(band.logLow, low);
    QCOMPARE(band.logHigh, high);
}

// The band every predicted range carries (StepTimeRange.cpp) is what the folds give today: a
// change to the step-time model, the presets or the reference data that moves the held-out
// residuals fails here until the shipped figures are updated from this test's output.
void TestRealityCheck::shippedBandIsWhatTheFoldsGive()
{
    const ModelValidation& v = validation();
    qInfo("%-58s %-26s %9s %9s %9s", "held-out row", "family", "measured/", "fastest/", "slowest/");
    qInfo("%-58s %-26s %9s %9s %9s", "", "", "predicted", "predicted", "predicted");
    for (const auto& r : v.heldOutResiduals)
        qInfo("%-58s %-26s %9.3f %9.3f %9.3f", r.id.c_str(), r.family.substr(0, 26).c_str(), std::exp(r.log), std::exp(r.logFastest),
            std::exp(r.logSlowest));
    const StepErrorBand& shipped = stepErrorBand();
    // The band weighted per family, for comparison (StepTimeRange.cpp says why it is not shipped).
    const StepErrorBand perFamily = conformalBand(v.heldOutResiduals, shipped.coverage, ConformalWeights::PerFamily);
    qInfo("band at %.0f %% from %zu held-out rows: log [%.4f, %.4f] = x%.3f to x%.3f (weighted per family: x%.3f to x%.3f); shipped "
          "[%.4f, %.4f]",
        v.band.coverage * 100, v.heldOutResiduals.size(), v.band.logLow, v.band.logHigh, std::exp(v.band.logLow), std::exp(v.band.logHigh),
        std::exp(perFamily.logLow), std::exp(perFamily.logHigh), shipped.logLow, shipped.logHigh);
    qInfo("range in sample: %d rows, %.1f %% inside, median high/low %.3f", v.inSampleRange.count, v.inSampleRange.coverage * 100,
        v.inSampleRange.medianWidth);
    qInfo("range leave-one-family-out: %d rows, %.1f %% inside, median high/low %.3f", v.outOfSampleRange.count,
        v.outOfSampleRange.coverage * 100, v.outOfSampleRange.medianWidth);
    QCOMPARE(int(v.heldOutResiduals.size()), v.outOfSample.count);
    QCOMPARE(v.band.coverage, shipped.coverage);
    // Shipped to four decimals of the log (0.01 % of the step).
    QVERIFY2(std::abs(v.band.logLow - shipped.logLow) <= 1e-4,
        qPrintable(QString("StepTimeRange.cpp: logLow %1, the folds give %2").arg(shipped.logLow).arg(v.band.logLow, 0, 'f', 4)));
    QVERIFY2(std::abs(v.band.logHigh - shipped.logHigh) <= 1e-4,
        qPrintable(QString("StepTimeRange.cpp: logHigh %1, the folds give %2").arg(shipped.logHigh).arg(v.band.logHigh, 0, 'f', 4)));
    // Issue 22's bar, judged leave-one-family-out (each family against a band from the others):
    // at least 80 % of runs inside their range, median high / low at most 1.5.
    QVERIFY2(v.outOfSampleRange.coverage >= 0.8, qPrintable(QString::number(v.outOfSampleRange.coverage)));
    QVERIFY2(v.outOfSampleRange.medianWidth <= 1.5, qPrintable(QString::number(v.outOfSampleRange.medianWidth)));
    QVERIFY2(v.inSampleRange.coverage >= 0.8, qPrintable(QString::number(v.inSampleRange.coverage)));
    const auto doc = modelValidationToJson(v);
    QCOMPARE(doc.at("model_validation").at("range_out_of_sample").at("coverage").get<double>(), v.outOfSampleRange.coverage);
}

// The three MoE runs of the reference (calibration_runs.json moe_cases), predicted with nothing
// fitted to them: tokens per second per GPU against the published figure. Printed for the notes;
// held to the reality check's outer gate (a prediction more than 35 % off, or outside its own
// range by far, means a mechanism is missing); FP8 runs to 45 % until FP8 timing is reworked.
void TestRealityCheck::moeRunsPredictedOutOfSample()
{
    const auto cases = calibrationMoeCases(loadCalibration());
    QCOMPARE(int(cases.size()), 3);
    std::vector<RealityRow> rows;
    for (const auto& rc : cases) {
        QVERIFY2(rc.plan.model.moe && rc.plan.model.mla, rc.id.c_str());
        QVERIFY2(!rc.gated, rc.id.c_str());
        const Estimate est = estimate(rc.plan);
        QVERIFY2(est.gpusUsed == rc.plan.cluster.gpus, rc.id.c_str());
        rows.push_back(evaluateRealityCase(rc));
        const RealityRow& r = rows.back();
        QVERIFY2(std::isfinite(r.predicted) && r.predicted > 0, rc.id.c_str());
        QVERIFY2(r.low <= r.predicted && r.predicted <= r.high, rc.id.c_str());
        // FP8 runs get a looser gate, and say why: the step-time model runs FP8 GEMMs at the FP8
        // peak with BF16's shape efficiency, a speed-up near 2x where published end-to-end FP8
        // gains are 13-28 % (issue 25 reworks FP8 timing). Under the DualPipe its data states,
        // whose pairs hide most of the all-to-all and halve the bubble (DeepSeek-V3 report,
        // Sec. 3.2.1), DeepSeek-V3 predicts about 2,150 tokens/s per GPU against a published
        // 1,543 (+39 %); before its MTP depth's work was put on the last stage, 2,470 (+60 %).
        // The gate for FP8 runs is wide enough for that known miss, not for a worse one.
        const bool fp8 = rc.plan.training.matmulPrecision != MatmulPrecision::Bf16;
        const double gate = fp8 ? 0.45 : 0.35;
        QVERIFY2(std::abs(r.error) < gate, qPrintable(QString("%1: predicted %2 tokens/s per GPU, published %3")
                                                          .arg(rc.id.c_str()).arg(r.predicted).arg(r.measured)));
    }
    printRows(rows);
}

QTEST_GUILESS_MAIN(TestRealityCheck)
#include "tst_realitycheck.moc"
