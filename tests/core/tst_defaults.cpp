// Every default that cites a source reproduces the cited figure, computed here from the default
// itself; where a worked example assumes something else, the example says so.
#include <QtTest>

#include "TestSupport.h"
#include "core/base/Units.h"
#include "core/estimate/ReliabilityModel.h"
#include "core/estimate/ReserveModel.h"
#include "core/planfile/WorkedExamples.h"
#include "core/text/Derivation.h"

using namespace testsupport;
using namespace trainplan;

class TestDefaults : public QObject {
    Q_OBJECT

private slots:
    void failureRateReproducesLlama3();
    void defaultPlanIsTheShippedExample();
    void reserveDefaultsReproduceTheirSources();
    void assumptionsAreLabelled();
};

void TestDefaults::failureRateReproducesLlama3()
{
    // Llama 3, Sec. 3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs (2,048 nodes).
    const double nodes = 16384.0 / 8.0;
    const double interruptions = 54.0 * 24.0 * nodes / kDefaultMtbfHoursPerNode;
    QVERIFY2(std::abs(interruptions - 419.0) < 0.5, qPrintable(QString::number(interruptions)));
    // ... "about one failure every 3 hours" at that scale, through the estimate itself.
    Plan plan = defaultPlan();
    plan.cluster.mtbfSeconds = kDefaultMtbfHoursPerNode * units::secondsPerHour;
    plan.cluster.gpus = 16384;
    plan.layout.dp = 512;
    plan.training.globalBatchSequences = 4096;
    const Estimate e = estimate(plan);
    const double hours = e.reliability.clusterMtbfSeconds / units::secondsPerHour;
    QVERIFY2(hours > 2.9 && hours < 3.3, qPrintable(QString::number(hours)));
    QVERIFY(!e.hasErrors());
}

void TestDefaults::defaultPlanIsTheShippedExample()
{
    // Issue 23: the window opens on examples/70b-2048-h100.json as shipped, so its figures are the
    // CLI's on that file (the docs say so); worked example A's own 1,000 h per node included.
    const Plan plan = defaultPlan();
    const Plan file = planWith("70b-2048-h100.json");
    QVERIFY(plan == file);
    QCOMPARE(*plan.cluster.mtbfSeconds, 1000.0 * units::secondsPerHour);
    QCOMPARE(plan.cluster.mtbfBasis, MtbfBasis::PerNode);
    QCOMPARE(workedExampleOf(plan), WorkedExample::A);
    // Its name is generated, so a changed plan is named after what it plans.
    QVERIFY(!plan.nameUserSet);
    QCOMPARE(QString::fromStdString(plan.name), QString("70B on 2,048 H100s, 1.4T tokens"));
    // The derivation calls Llama 3's rate a comparison, not a default (an absent MTBF models no
    // failures, as docs/plan-format.md says), and quotes worked example A's own assumption.
    const auto sections = derive(plan, estimate(plan));
    const auto* step = findStep(sections, "reliability.cluster_mtbf_seconds");
    QVERIFY(step && step->note.find("worked example A: assumes 1,000 h per node") != std::string::npos);
    QVERIFY(step->note.find("419 interruptions in 54 days") != std::string::npos);
    QVERIFY(step->note.find("the default") == std::string::npos);
}

void TestDefaults::reserveDefaultsReproduceTheirSources()
{
    const ReserveSpec r;
    // cuBLAS API reference: 32 MiB workspace on Hopper; PyTorch keeps a cuBLAS and a cuBLASLt
    // workspace per stream; two streams.
    QCOMPARE(r.workspaceBytes, 2 * (32 + 32) * units::MiB);
    // NCCL computeBuffSizes: Simple 1 << 22 bytes, LL128 120 x 640 x 8 steps x 8 bytes,
    // LL 8 x 512 x 8 steps x 16 bytes, per connection and channel.
    const double simple = double(1 << 22);
    const double ll128 = 120.0 * 640 * 8 * 8;
    const double ll = 8.0 * 512 * 8 * 16;
    QCOMPARE(r.ncclBytesPerConnection, simple + ll128 + ll);
    QCOMPARE(r.ncclChannels, 32);
    // CUDA context: about 400 MB with lazy loading, over 1 GB without; the default sits between.
    QVERIFY(r.cudaContextBytes >= 0.4e9 && r.cudaContextBytes <= units::GB);
    // Fragmentation: within the 5-15 % the caching allocator loses.
    const TrainingSpec t;
    QVERIFY(t.fragmentationFraction >= 0.05 && t.fragmentationFraction <= 0.15);
    QCOMPARE(t.memoryMarginFraction, 0.05);
    // One TP/DP/PP communicator then holds 32 x 2 x 9.19 MiB = 588 MiB.
    QCOMPARE(r.ncclChannels * kNcclConnectionsPerChannel * r.ncclBytesPerConnection, 588.0 * units::MiB);
}

void TestDefaults::assumptionsAreLabelled()
{
    // Checkpoint stall and restart time have no published default: the derivation says
    // "assumption" rather than citing a worked example.
    const Plan plan = defaultPlan();
    const auto sections = derive(plan, estimate(plan));
    const auto* stall = findStep(sections, "reliability.checkpoint_write_seconds");
    QVERIFY(stall && stall->source.find("assumption") != std::string::npos);
    const auto* context = findStep(sections, "memory.reserve_cuda_context");
    QVERIFY(context && context->source.find("400 MB") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestDefaults)
#include "tst_defaults.moc"
