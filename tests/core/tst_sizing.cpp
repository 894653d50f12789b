// Sizing the cluster (core/sizing/ClusterSizing.h): the GPU counts sized, the cheapest
// configuration that meets the deadline being the cheapest of all evaluated that meet it (both
// worked examples and a MoE plan), the front undominated, every point's figures the analysis of
// the plan it describes, the batch limit said in words, tokens per parameter against Chinchilla,
// and bad options named.
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/base/PlanError.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/sizing/ClusterSizing.h"

using namespace trainplan;

namespace {

std::string example(const char* name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + name;
}

double costOf(const SizingResult& r, const SizingPoint& p)
{
    return r.costInDollars ? *p.usd : p.gpuHours;
}

std::vector<std::string> problemPaths(const Plan& plan, const SizingOptions& o)
{
    try {
        sizeCluster(plan, o);
    } catch (const PlanError& e) {
        std::vector<std::string> paths;
        for (const auto& p : e.problems())
            paths.push_back(p.path);
        return paths;
    }
    return {};
}

}  // namespace

class TestSizing : public QObject {
    Q_OBJECT

private slots:
    void gpuCountsAreWholeNodesInOneAndAHalfSteps();
    void cheapestMeetingTheDeadlineIsTheCheapestOfThoseThatMeetIt_data();
    void cheapestMeetingTheDeadlineIsTheCheapestOfThoseThatMeetIt();
    void pointsAreTheAnalysisOfTheirPlans();
    void anImpossibleDeadlineSaysWhatLimitsIt();
    void tokensPerParameterAgainstChinchilla();
    void badOptionsNameTheirField();
};

void TestSizing::gpuCountsAreWholeNodesInOneAndAHalfSteps()
{
    const std::vector<int> counts = sizingGpuCounts(8, 0, 0);
    QCOMPARE(counts.front(), 8);
    QCOMPARE(counts.back(), 32768);
    QCOMPARE(int(counts.size()), 24);  // 1, 2, 4 … 4,096 nodes (13) and 3, 6 … 3,072 (11): never half a node
    QVERIFY(std::find(counts.begin(), counts.end(), 12) == counts.end());
    for (int c : counts)
        QCOMPARE(c % 8, 0);
    QVERIFY(std::find(counts.begin(), counts.end(), 1536) != counts.end());
    QCOMPARE(sizingGpuCounts(4, 100, 1000), (std::vector<int>{128, 192, 256, 384, 512, 768}));
}

void TestSizing::cheapestMeetingTheDeadlineIsTheCheapestOfThoseThatMeetIt_data()
{
    QTest::addColumn<QString>("plan");
    QTest::addColumn<double>("deadline");
    QTest::newRow("worked example A") << QString("70b-2048-h100.json") << 20.0;
    QTest::newRow("worked example B") << QString("70b-512-gpu.json") << 15.0;
    QTest::newRow("Mixtral 8x22B (MoE)") << QString("mixtral-8x22b-256-h100.json") << 40.0;
}

void TestSizing::cheapestMeetingTheDeadlineIsTheCheapestOfThoseThatMeetIt()
{
    QFETCH(QString, plan);
    QFETCH(double, deadline);
    const Plan p = loadPlanFile(example(plan.toStdString().c_str()));
    SizingOptions o;
    o.deadlineDays = deadline;
    o.minGpus = 256;
    o.maxGpus = 2048;
    o.accelerators = {{"H100 SXM", 2.5}, {"B200", 5.0}};
    const SizingResult r = sizeCluster(p, o);
    QVERIFY(r.costInDollars);
    QVERIFY2(r.cheapest.has_value(), "some configuration meets the deadline");
    const SizingPoint& cheapest = r.points[*r.cheapest];
    QVERIFY(cheapest.meetsDeadline && cheapest.days <= deadline);
    int meeting = 0;
    for (const auto& point : r.points) {
        QCOMPARE(point.meetsDeadline, point.usable && point.days <= deadline);
        if (!point.meetsDeadline)
            continue;
        ++meeting;
        QVERIFY2(costOf(r, cheapest) <= costOf(r, point), qPrintable(QString("%1 x %2 is cheaper").arg(point.gpus).arg(point.accelerator.c_str())));
    }
    QVERIFY(meeting > 1);
    // The front: no point of its part is both no slower and no dearer than a front point.
    for (const auto& a : r.points)
        for (const auto& b : r.points)
            if (a.pareto && b.usable && &a != &b && a.accelerator == b.accelerator)
                QVERIFY(!(b.days <= a.days && costOf(r, b) <= costOf(r, a) && (b.days < a.days || costOf(r, b) < costOf(r, a))));
    QVERIFY(r.sentences.front().find("the cheapest that meets the") != std::string::npos);
}

void TestSizing::pointsAreTheAnalysisOfTheirPlans()
{
    const Plan p = loadPlanFile(example("70b-2048-h100.json"));
    SizingOptions o;
    o.deadlineDays = 30;
    o.minGpus = 512;
    o.maxGpus = 1024;
    o.accelerators = {{"", 2.0}, {"H200", 3.0}};
    const SizingResult r = sizeCluster(p, o);
    QCOMPARE(int(r.points.size()), 6);  // 512, 768, 1024 of each
    for (const auto& point : r.points) {
        QVERIFY(point.usable);
        const Analysis a = analyse(planForPoint(p, point, o));
        QCOMPARE(a.plan.cluster.gpus, point.gpus);
        QCOMPARE(a.plan.cluster.accelerator, point.accelerator);
        QCOMPARE(a.atPredictedMfu.reliability.paddedDays, point.days);
        QCOMPARE(*a.costAtPredicted.usdWithFailures, *point.usd);
        QVERIFY(point.daysLow <= point.days && point.days <= point.daysHigh);
    }
}

void TestSizing::anImpossibleDeadlineSaysWhatLimitsIt()
{
    const Plan p = loadPlanFile(example("70b-2048-h100.json"));
    SizingOptions o;
    o.deadlineDays = 0.5;
    o.minGpus = 4096;
    o.maxGpus = 8192;
    const SizingResult r = sizeCluster(p, o);
    QVERIFY(!r.cheapest);
    QVERIFY2(r.sentences.front().find("No configuration meets the") != std::string::npos, r.sentences.front().c_str());
    bool batch = false;
    for (const auto& s : r.sentences)
        batch = batch || s.find("needs a larger batch") != std::string::npos;
    QVERIFY2(batch, "the fastest point uses the whole batch: more GPUs cannot add data parallelism");
}

void TestSizing::tokensPerParameterAgainstChinchilla()
{
    SizingOptions o;
    o.deadlineDays = 30;
    o.minGpus = o.maxGpus = 2048;
    const SizingResult dense = sizeCluster(loadPlanFile(example("70b-2048-h100.json")), o);
    QVERIFY(std::abs(dense.tokensPerParameter - 1.4e12 / 70.55e9) < 0.1);
    QVERIFY(!dense.moeActiveParameters);
    QVERIFY(dense.sentences.back().find("near compute-optimal") != std::string::npos);
    o.minGpus = o.maxGpus = 256;
    const SizingResult moe = sizeCluster(loadPlanFile(example("mixtral-8x22b-256-h100.json")), o);
    QVERIFY(moe.moeActiveParameters);
    QVERIFY(moe.sentences.back().find("active parameter") != std::string::npos);
}

void TestSizing::badOptionsNameTheirField()
{
    const Plan p = defaultPlan();
    SizingOptions o;
    QVERIFY(problemPaths(p, o) == std::vector<std::string>{"sizing.deadline_days"});
    o.deadlineDays = std::numeric_limits<double>::infinity();
    QVERIFY(problemPaths(p, o) == std::vector<std::string>{"sizing.deadline_days"});
    o.deadlineDays = 10;
    o.budgetUsd = -1;
    o.minGpus = 64;
    o.maxGpus = 8;
    o.accelerators = {{"no such part", std::nullopt}, {"H200", 0.0}};
    o.maxGlobalBatchTokens = 1000;
    const auto paths = problemPaths(p, o);
    for (const char* path : {"sizing.budget_usd", "sizing.gpus", "sizing.accelerators[0]", "sizing.accelerators[1].price_per_gpu_hour_usd",
             "sizing.max_global_batch_tokens"})
        QVERIFY2(std::find(paths.begin(), paths.end(), path) != paths.end(), path);
}

QTEST_GUILESS_MAIN(TestSizing)
#include "tst_sizing.moc"
