// The range around the predicted memory: unknown framework switches move it one way each, the
// light end drops the fragmentation allowance and the heavy end adds the model's error.
#include <QtTest>

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

QTEST_GUILESS_MAIN(TestMemoryRange)
#include "tst_memoryrange.moc"
