// The range around the predicted memory: unknown framework switches move it one way each, the
// light end drops the fragmentation allowance and the heavy end adds the model's error.
#include <QtTest>

#include <algorithm>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/text/EstimateJson.h"

using namespace testsupport;

class TestMemoryRange : public QObject {
    Q_OBJECT
private slots:
    void unknownSwitchesWidenTheRange();
    void knownSwitchesLeaveOnlyTheAllowances();
    void jsonCarriesTheRange();
    void verdictReadsTheRangeAgainstUsable_data();
    void verdictReadsTheRangeAgainstUsable();
    void searchShortcutGivesTheRangesVerdict();
    void rangeEndsAreTheVariantsEstimatedAlone();
};

void TestMemoryRange::unknownSwitchesWidenTheRange()
{
    // Worked example A names no framework: dropout and FP32 accumulators are both unknown.
    const auto a = trainplan::analyse(planWith("70b-2048-h100.json"));
    const auto& r = a.memoryRange;
    const auto& m = a.estimate.perGpu;
    QCOMPARE(r.unknownSwitches, 2);
    QVERIFY(r.lowBytes < m.total - 0.99 * m.fragmentation);
    QVERIFY(r.highBytes > m.total * (1.0 + trainplan::memoryModelErrorAbove()));
    // The heavy end is FP32 gradients (2 more bytes per parameter of the fullest stage) and the masks.
    const double fullestParameters = a.estimate.stages[size_t(a.estimate.fullestStage)].parametersPerGpu;
    QVERIFY(r.highBytes / (1.0 + r.modelErrorAbove) - m.total > 0.9 * 2.0 * fullestParameters);
}

void TestMemoryRange::knownSwitchesLeaveOnlyTheAllowances()
{
    const auto a = trainplan::analyse(planWith("70b-2048-h100.json", {"framework.dropout=false", "framework.fp32_gradients=true"}));
    const auto& r = a.memoryRange;
    const auto& m = a.estimate.perGpu;
    QCOMPARE(r.unknownSwitches, 0);
    QCOMPARE(r.lowBytes, m.total - m.fragmentation);
    QCOMPARE(r.highBytes, m.total * (1.0 + trainplan::memoryModelErrorAbove()));
}

void TestMemoryRange::jsonCarriesTheRange()
{
    const auto a = trainplan::analyse(planWith("70b-512-gpu.json"));
    const auto j = trainplan::estimateToJson(a);
    const auto& range = j.at("memory").at("range");
    QCOMPARE(range.at("low_bytes").get<double>(), a.memoryRange.lowBytes);
    QCOMPARE(range.at("high_bytes").get<double>(), a.memoryRange.highBytes);
    QCOMPARE(range.at("fits_at_high").get<bool>(), a.memoryRange.highBytes <= a.estimate.capacityBytes);
    QVERIFY(range.at("low_bytes").get<double>() < j.at("memory").at("per_gpu_bytes").at("total").get<double>());
}

void TestMemoryRange::verdictReadsTheRangeAgainstUsable_data()
{
    // Worked example B's fullest GPU: a range of about 50 to 85 GB. The capacity moves the line
    // that is usable (capacity less the 5 % margin) past either end.
    QTest::addColumn<double>("memoryGb");
    QTest::addColumn<int>("fit");
    QTest::newRow("high end within usable") << 120.0 << int(trainplan::MemoryFit::Fits);
    QTest::newRow("range straddles usable") << 80.0 << int(trainplan::MemoryFit::MayNotFit);
    QTest::newRow("low end above usable") << 50.0 << int(trainplan::MemoryFit::DoesNotFit);
}

void TestMemoryRange::verdictReadsTheRangeAgainstUsable()
{
    QFETCH(double, memoryGb);
    QFETCH(int, fit);
    const auto a = trainplan::analyse(planWith("70b-512-gpu.json", {"cluster.memory_gb=" + std::to_string(memoryGb)}));
    const auto& r = a.memoryRange;
    const double usable = a.estimate.capacityBytes * (1.0 - a.plan.training.memoryMarginFraction);
    QCOMPARE(r.usableBytes, usable);
    QCOMPARE(int(r.fit), fit);
    // The definition, independently: the low end above usable, else the high end above it.
    const auto expected = r.lowBytes > usable ? trainplan::MemoryFit::DoesNotFit
        : r.highBytes > usable                ? trainplan::MemoryFit::MayNotFit
                                              : trainplan::MemoryFit::Fits;
    QCOMPARE(r.fit, expected);
    // "may not fit" is a warning-level red flag, and only then.
    const bool flagged = std::any_of(a.estimate.warnings.begin(), a.estimate.warnings.end(), [](const trainplan::Warning& w) {
        return w.code == trainplan::WarningCode::MemoryMayNotFit && w.severity == trainplan::Severity::Warning;
    });
    QCOMPARE(flagged, r.fit == trainplan::MemoryFit::MayNotFit);
    // JSON: memory.verdict in the interface's words; memory.fits stays the point figure's.
    const auto j = trainplan::estimateToJson(a);
    QCOMPARE(j.at("memory").at("verdict").get<std::string>(), std::string(trainplan::memoryFitName(r.fit)));
    QCOMPARE(j.at("memory").at("fits").get<bool>(), a.estimate.perGpu.total <= a.estimate.capacityBytes);
    const char* words[] = {"fits", "may not fit", "does not fit"};
    QCOMPARE(j.at("memory").at("verdict").get<std::string>(), std::string(words[fit]));
    if (r.fit == trainplan::MemoryFit::MayNotFit) {
        // What would settle it: the unknown switches by their fields, and the model's own error.
        const std::string why = j.at("memory").at("verdict_reason").get<std::string>();
        QVERIFY(why.find("framework.dropout") != std::string::npos);
        QVERIFY(why.find("15 %") != std::string::npos);
    }
}

void TestMemoryRange::searchShortcutGivesTheRangesVerdict()
{
    // memoryFitOfRange() skips the variants where the point figure settles the verdict; it must
    // agree with the full range everywhere, including either side of each shortcut's edge.
    trainplan::Estimate scratch;
    trainplan::Plan variant;
    int seen[3] = {0, 0, 0};
    for (double gb = 40.0; gb <= 130.0; gb += 0.5) {
        for (const char* switches : {"framework.dropout=false", "framework.fp32_gradients=true", "layout.tp=8"}) {
            const trainplan::Plan plan = planWith("70b-512-gpu.json", {"cluster.memory_gb=" + std::to_string(gb), switches});
            const trainplan::Estimate est = trainplan::estimate(plan);
            const trainplan::MemoryRange full = trainplan::memoryRange(plan, est, scratch);
            QCOMPARE(trainplan::memoryFitOfRange(plan, est, scratch, variant), full.fit);
            ++seen[int(full.fit)];
        }
    }
    QVERIFY(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}

void TestMemoryRange::rangeEndsAreTheVariantsEstimatedAlone()
{
    // The range estimates its variants with the plan's stages copied rather than laid out again
    // (EstimateScope::MemoryOfSameStages) and skips the stages that cannot be the fullest: each
    // end must still be its variant's own full estimate, on pipelines up to 64 stages deep.
    for (const char* pp : {"4", "16", "64"}) {
        const std::vector<std::string> layout = {"layout.pp=" + std::string(pp), "layout.dp=" + std::to_string(256 / std::stoi(pp))};
        const trainplan::Plan plan = planWith("70b-2048-h100.json", layout);
        const trainplan::Estimate est = trainplan::estimate(plan);
        trainplan::Estimate scratch;
        const trainplan::MemoryRange range = trainplan::memoryRange(plan, est, scratch);
        QCOMPARE(range.unknownSwitches, 2);
        trainplan::Plan heavy = plan, light = plan;
        heavy.framework.dropout = true;
        heavy.framework.fp32Gradients = true;
        light.framework.dropout = false;
        light.framework.fp32Gradients = false;
        const trainplan::Estimate heavyAlone = trainplan::estimate(heavy), lightAlone = trainplan::estimate(light);
        QVERIFY(heavyAlone.perGpu.total > est.perGpu.total && lightAlone.perGpu.total < est.perGpu.total);
        QCOMPARE(range.highBytes, heavyAlone.perGpu.total * (1.0 + trainplan::memoryModelErrorAbove()));
        QCOMPARE(range.lowBytes, lightAlone.perGpu.total - lightAlone.perGpu.fragmentation);
    }
}

QTEST_GUILESS_MAIN(TestMemoryRange)
#include "tst_memoryrange.moc"
