// The range around the predicted memory: unknown framework switches move it one way each, the
// light end drops the fragmentation allowance and the heavy end adds the model's error.
#include <QtTest>

#include <algorithm>
#include <functional>

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
    void variantsOnCopiedStagesAreTheirOwnEstimates();
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
        // Exact, not QCOMPARE's relative tolerance: the same arithmetic on the same inputs.
        QVERIFY(range.highBytes == heavyAlone.perGpu.total * (1.0 + trainplan::memoryModelErrorAbove()));
        QVERIFY(range.lowBytes == lightAlone.perGpu.total - lightAlone.perGpu.fragmentation);
    }
}

void TestMemoryRange::variantsOnCopiedStagesAreTheirOwnEstimates()
{
    // The range's variants of the same schedule are estimated on a copy of the plan's stages
    // (EstimateScope::MemoryOfSameStages): for every change a variant makes (the framework's
    // switches, the routed experts' load imbalance, recompute, sequence parallelism) the stages'
    // layers, kinds, parameters and micro-batches in flight must be the variant's own, so the
    // memory comes out exactly as the variant's full estimate. A variant of another schedule
    // takes MemoryOfSameModel, which lays the stages out again: checked alike.
    using namespace trainplan;
    const std::pair<const char*, std::vector<std::string>> plans[] = {
        {"70b-2048-h100.json", {"layout.pp=16", "layout.dp=16"}},
        {"70b-2048-h100.json", {"layout.pp=64", "layout.dp=4", "layout.recompute=full", "layout.recompute_layers=1"}},
        {"mixtral-8x22b-256-h100.json", {}},
        {"deepseek-v3-2048-h800.json", {}}};
    using Change = std::function<void(Plan&)>;
    const std::vector<std::pair<const char*, Change>> changes = {
        {"dropout", [](Plan& v) { v.framework.dropout = !v.framework.dropout.value_or(false); }},
        {"fp32 gradients", [](Plan& v) { v.framework.fp32Gradients = !v.framework.fp32Gradients.value_or(false); }},
        {"imbalance worst", [](Plan& v) { if (v.model.moe) v.model.moe->loadImbalance = kWorstLoadImbalance; }},
        {"imbalance best", [](Plan& v) { if (v.model.moe) v.model.moe->loadImbalance = kBestLoadImbalance; }},
        {"full recompute", [](Plan& v) { v.layout.recompute = Recompute::Full; v.layout.recomputeLayers = 0; }},
        {"no recompute", [](Plan& v) { v.layout.recompute = Recompute::None; v.layout.recomputeLayers = 0; }},
        {"sequence parallel", [](Plan& v) { v.layout.sequenceParallel = !v.layout.sequenceParallel; }},
        {"interleaved", [](Plan& v) { v.layout.schedule = Schedule::Interleaved; v.layout.virtualStages = 2; }}};
    int copied = 0;
    for (const auto& [example, sets] : plans) {
        const Plan plan = planWith(example, sets);
        const Estimate est = estimate(plan);
        for (const auto& [name, change] : changes) {
            Plan variant = plan;
            change(variant);
            const bool sameSchedule = variant.layout.schedule == plan.layout.schedule;
            Estimate scratch;
            scratch.parameters = est.parameters;
            if (sameSchedule) {
                scratch.stages = est.stages;
                scratch.stageKinds = est.stageKinds;
                ++copied;
            }
            estimateInto(variant, scratch, sameSchedule ? EstimateScope::MemoryOfSameStages : EstimateScope::MemoryOfSameModel);
            const Estimate alone = estimate(variant);
            const QByteArray where = QByteArray(example) + " pp " + QByteArray::number(plan.layout.pp) + ": " + name;
            QVERIFY2(scratch.perGpu.total == alone.perGpu.total, where.constData());
            QVERIFY2(scratch.fullestStage == alone.fullestStage && scratch.fits == alone.fits && scratch.hasMargin == alone.hasMargin,
                     where.constData());
            QVERIFY2(scratch.parametersPerGpuMean == alone.parametersPerGpuMean, where.constData());
            QVERIFY2(scratch.stages.size() == alone.stages.size(), where.constData());
            for (size_t i = 0; i < alone.stages.size(); ++i) {
                const StageEstimate &a = scratch.stages[i], &b = alone.stages[i];
                QVERIFY2(a.layers == b.layers && a.parameters == b.parameters && a.parametersPerGpu == b.parametersPerGpu
                             && a.microbatchesInFlight == b.microbatchesInFlight && a.activationsPerMicrobatch == b.activationsPerMicrobatch,
                         where.constData());
                if (a.memoryEstimated)
                    QVERIFY2(a.memory.total == b.memory.total, where.constData());
            }
        }
    }
    QVERIFY(copied >= 25);
}

QTEST_GUILESS_MAIN(TestMemoryRange)
#include "tst_memoryrange.moc"
