// The runtime reserve (ReserveModel.h): each term from its own field, the NCCL term per
// communicator, fragmentation on model state + activations, the margin warning naming the stage,
// the plan fields round-tripping, and the derivation showing each term as its own step.
#include <QtTest>

#include "TestSupport.h"
#include "core/base/Units.h"
#include "core/estimate/ReserveModel.h"
#include "core/text/Derivation.h"
#include "core/text/TextReport.h"

using namespace testsupport;
using namespace trainplan;

class TestReserve : public QObject {
    Q_OBJECT

private slots:
    void termsComeFromTheirFields();
    void ncclCountsCommunicators_data();
    void ncclCountsCommunicators();
    void reserveCanMakeALayoutNotFit();
    void nearCapacityWarningNamesTheStage();
    void fieldsRoundTrip();
    void badFieldsAreNamed_data();
    void badFieldsAreNamed();
    void derivationShowsEachTerm();
    void textOutputShowsTheReserve();
};

void TestReserve::termsComeFromTheirFields()
{
    const Plan plan = planWith("70b-2048-h100.json",
        {"training.reserve.cuda_context_gb=0.8", "training.reserve.workspace_mib=64", "training.reserve.nccl_channels=16",
            "training.reserve.nccl_buffer_mib_per_connection=4", "training.fragmentation_fraction=0.05", "training.buffer_gb=1"});
    const Estimate e = estimate(plan);
    for (const auto& st : e.stages) {
        const auto& m = st.memory;
        QCOMPARE(m.cudaContext, 0.8e9);
        QCOMPARE(m.workspace, 64 * units::MiB);
        // TP 8, PP 4, DP 64: three communicators, 16 channels x 2 connections x 4 MiB each.
        QCOMPARE(m.ncclBuffers, 3 * 16 * 2 * 4 * units::MiB);
        QCOMPARE(m.modelAndActivations, m.weights + m.gradients + m.optimizer + m.activations + m.shardingBuffers);
        QCOMPARE(m.fragmentation, 0.05 * m.modelAndActivations);
        QCOMPARE(m.extraAllowance, units::GB);
        QCOMPARE(m.buffers, m.cudaContext + m.workspace + m.ncclBuffers + m.fragmentation + m.extraAllowance);
        QCOMPARE(m.total, m.modelAndActivations + m.buffers);
        QCOMPARE(st.headroomBytes, plan.cluster.memoryBytesPerGpu - m.total);
    }
    QCOMPARE(e.headroomBytes, e.capacityBytes - e.perGpu.total);
}

void TestReserve::ncclCountsCommunicators_data()
{
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<int>("communicators");
    QTest::newRow("TP PP DP") << "" << 3;
    QTest::newRow("TP DP") << "layout.pp=1 layout.dp=256" << 2;
    QTest::newRow("TP PP DP CP") << "layout.cp=2 layout.dp=32" << 4;
    QTest::newRow("DP only") << "layout.tp=1 layout.pp=1 layout.dp=2048 layout.sequence_parallel=false" << 1;
    QTest::newRow("one GPU") << "cluster.gpus=1 layout.tp=1 layout.pp=1 layout.dp=1 layout.sequence_parallel=false" << 0;
}

void TestReserve::ncclCountsCommunicators()
{
    QFETCH(QString, overrides);
    QFETCH(int, communicators);
    const Plan plan = planWith("70b-2048-h100.json", toStd(splitOverrides(overrides)));
    const Estimate e = estimate(plan);
    QCOMPARE(e.ncclCommunicators, communicators);
    const auto& r = plan.training.reserve;
    QCOMPARE(e.perGpu.ncclBuffers, communicators * r.ncclChannels * kNcclConnectionsPerChannel * r.ncclBytesPerConnection);
}

void TestReserve::reserveCanMakeALayoutNotFit()
{
    // 27 GB fits in 28 GB without the reserve's context, NCCL and fragmentation, not with them.
    const Plan bare = planWith("70b-2048-h100.json",
        {"cluster.memory_gb=27", "training.fragmentation_fraction=0", "training.reserve.cuda_context_gb=0",
            "training.reserve.workspace_mib=0", "training.reserve.nccl_channels=0"});
    QVERIFY(estimate(bare).fits);
    const Plan reserved = planWith("70b-2048-h100.json", {"cluster.memory_gb=24"});
    const Estimate e = estimate(reserved);
    QVERIFY(!e.fits);
    QVERIFY(e.perGpu.modelAndActivations < 24e9);
    QVERIFY(e.hasErrors());
}

void TestReserve::nearCapacityWarningNamesTheStage()
{
    // Stage 1 needs 25.5 GB: on 26.5 GB it fits with 1 GB (3.8 %) free, under the 5 % margin.
    const Estimate e = estimate(planWith("70b-2048-h100.json", {"cluster.memory_gb=26.5"}));
    QVERIFY(e.fits);
    QVERIFY(!e.hasMargin);
    QVERIFY(!e.hasErrors());
    int flagged = 0;
    for (const auto& w : e.warnings) {
        if (w.code != WarningCode::StageNearCapacity)
            continue;
        ++flagged;
        QCOMPARE(w.severity, Severity::Warning);
        QVERIFY(e.stages[w.stage].withinMargin);
        QVERIFY2(describe(w).find("stage " + std::to_string(w.stage + 1)) != std::string::npos, describe(w).c_str());
    }
    QCOMPARE(flagged, 1);
    QVERIFY(e.stages[0].withinMargin && !e.stages[1].withinMargin);
    // A smaller margin clears it.
    QVERIFY(estimate(planWith("70b-2048-h100.json", {"cluster.memory_gb=26.5", "training.memory_margin_fraction=0.02"})).hasMargin);
}

void TestReserve::fieldsRoundTrip()
{
    const Plan plan = planWith("70b-2048-h100.json", {"training.reserve.cuda_context_gb=0.75", "training.reserve.nccl_channels=8",
                                                     "training.memory_margin_fraction=0.1"});
    const Plan again = planFromJson(planToJson(plan));
    QCOMPARE(again.training.reserve.cudaContextBytes, 0.75e9);
    QCOMPARE(again.training.reserve.ncclChannels, 8);
    QCOMPARE(again.training.memoryMarginFraction, 0.1);
    QVERIFY(again == plan);
    // Absent fields take the defaults.
    QVERIFY(planWith("70b-512-gpu.json").training.reserve == ReserveSpec{});
}

void TestReserve::badFieldsAreNamed_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("path");
    QTest::newRow("negative context") << "training.reserve.cuda_context_gb=-1" << "training.reserve.cuda_context_gb";
    QTest::newRow("fractional channels") << "training.reserve.nccl_channels=2.5" << "training.reserve.nccl_channels";
    QTest::newRow("typo") << "training.reserve.nccl_chanels=4" << "training.reserve.nccl_chanels";
    QTest::newRow("margin too large") << "training.memory_margin_fraction=0.9" << "training.memory_margin_fraction";
}

void TestReserve::badFieldsAreNamed()
{
    QFETCH(QString, assignment);
    QFETCH(QString, path);
    try {
        planWith("70b-2048-h100.json", {assignment.toStdString()});
        QFAIL("accepted");
    } catch (const PlanError& e) {
        bool named = false;
        for (const auto& p : e.problems())
            named = named || p.path == path.toStdString();
        QVERIFY2(named, e.what());
    }
}

void TestReserve::derivationShowsEachTerm()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const Estimate e = estimate(plan);
    const auto sections = derive(plan, e);
    const auto& m = e.perGpu;
    const std::pair<const char*, double> steps[] = {{"memory.model_and_activations", m.modelAndActivations},
        {"memory.reserve_cuda_context", m.cudaContext}, {"memory.reserve_workspace", m.workspace}, {"memory.reserve_nccl", m.ncclBuffers},
        {"memory.reserve_fragmentation", m.fragmentation}, {"memory.reserve", m.buffers}, {"memory.per_gpu_total", m.total},
        {"memory.headroom", e.headroomBytes}};
    for (const auto& [id, value] : steps) {
        const auto* step = findStep(sections, id);
        QVERIFY2(step, id);
        QCOMPARE(step->value, value);
        QVERIFY2(!step->source.empty(), id);
    }
    QVERIFY(findStep(sections, "memory.reserve_nccl")->source.find("NCCL") != std::string::npos);
}

void TestReserve::textOutputShowsTheReserve()
{
    const std::string text = estimateToText(analyse(planWith("70b-2048-h100.json")), false);
    for (const char* s : {"model state + activations", "runtime reserve", "NCCL", "3 communicators", "headroom", "1 micro-batch in flight",
                          "4 micro-batches in flight"})
        QVERIFY2(text.find(s) != std::string::npos, s);
    QVERIFY(text.find("1 micro-batches") == std::string::npos);
    const auto doc = estimateJsonFor(planWith("70b-2048-h100.json"));
    for (const char* path : {"memory.per_gpu_bytes.reserve", "memory.per_gpu_bytes.reserve_parts.nccl_buffers",
             "memory.stages.0.headroom_bytes", "memory.headroom_bytes", "memory.margin_bytes"})
        QVERIFY2(hasPath(doc, path), path);
}

QTEST_GUILESS_MAIN(TestReserve)
#include "tst_reserve.moc"
