// Moving one layout dimension keeps TP x PP x DP x CP = GPUs through the chosen follower,
// sliders offer only values the follower can absorb, and nothing is silently clamped.
#include <QtTest>

#include "TestSupport.h"
#include "core/search/LayoutAdjuster.h"

using namespace testsupport;
using trainplan::Follower;
using trainplan::ParallelDim;

class TestLayoutAdjuster : public QObject {
    Q_OBJECT

private slots:
    void followerAbsorbs_data();
    void followerAbsorbs();
    void candidatesAreExactlyTheAbsorbableValues();
    void gpuCountFollows();
    void unabsorbableValueIsReportedNotClamped();
    void batchCandidates();
    void changingPpDropsAStaleUnevenSplit();
};

void TestLayoutAdjuster::followerAbsorbs_data()
{
    QTest::addColumn<int>("dimension");
    QTest::addColumn<int>("value");
    QTest::addColumn<QString>("follower");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::newRow("TP 16, DP follows") << int(ParallelDim::Tp) << 16 << QString("dp") << 16 << 4 << 32 << 1;
    QTest::newRow("TP 4, DP follows") << int(ParallelDim::Tp) << 4 << QString("dp") << 4 << 4 << 128 << 1;
    QTest::newRow("PP 8, DP follows") << int(ParallelDim::Pp) << 8 << QString("dp") << 8 << 8 << 32 << 1;
    QTest::newRow("DP 32, PP follows") << int(ParallelDim::Dp) << 32 << QString("pp") << 8 << 8 << 32 << 1;
    QTest::newRow("CP 4, DP follows") << int(ParallelDim::Cp) << 4 << QString("dp") << 8 << 4 << 16 << 4;
    QTest::newRow("DP 16, TP follows") << int(ParallelDim::Dp) << 16 << QString("tp") << 32 << 4 << 16 << 1;
}

void TestLayoutAdjuster::followerAbsorbs()
{
    QFETCH(int, dimension);
    QFETCH(int, value);
    QFETCH(QString, follower);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    const auto plan = planWith("70b-2048-h100.json");
    const auto out = trainplan::withLayoutValue(plan, ParallelDim(dimension), value, trainplan::followerFromKey(follower.toStdString()));
    QCOMPARE(out.layout.tp, tp);
    QCOMPARE(out.layout.pp, pp);
    QCOMPARE(out.layout.dp, dp);
    QCOMPARE(out.layout.cp, cp);
    QCOMPARE(out.cluster.gpus, 2048);
    QVERIFY(!trainplan::estimate(out).hasErrors() || tp > 8);
}

void TestLayoutAdjuster::candidatesAreExactlyTheAbsorbableValues()
{
    const auto plan = planWith("70b-2048-h100.json");
    // TP with DP following: divisors of 2048 / (PP 4 x CP 1) = 512.
    const auto tp = trainplan::candidateValues(plan, ParallelDim::Tp, Follower::of(ParallelDim::Dp));
    QCOMPARE(tp, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
    // PP is also bounded by the number of layers (80).
    const auto pp = trainplan::candidateValues(plan, ParallelDim::Pp, Follower::of(ParallelDim::Dp));
    QCOMPARE(pp, (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
    for (int v : tp) {
        const auto out = trainplan::withLayoutValue(plan, ParallelDim::Tp, v, Follower::of(ParallelDim::Dp));
        QCOMPARE(out.layout.tp * out.layout.pp * out.layout.dp * out.layout.cp, 2048);
    }
    QVERIFY(trainplan::follows(Follower::of(ParallelDim::Dp), ParallelDim::Dp));
    QVERIFY(!trainplan::follows(Follower::gpus(), ParallelDim::Dp));
}

void TestLayoutAdjuster::gpuCountFollows()
{
    const auto plan = planWith("70b-2048-h100.json");
    const auto out = trainplan::withLayoutValue(plan, ParallelDim::Dp, 128, Follower::gpus());
    QCOMPARE(out.layout.dp, 128);
    QCOMPARE(out.cluster.gpus, 8 * 4 * 128);
    QVERIFY(!trainplan::estimate(out).hasErrors());
}

void TestLayoutAdjuster::unabsorbableValueIsReportedNotClamped()
{
    const auto plan = planWith("70b-2048-h100.json");
    const auto out = trainplan::withLayoutValue(plan, ParallelDim::Tp, 3, Follower::of(ParallelDim::Dp));
    QCOMPARE(out.layout.tp, 3);
    QCOMPARE(out.layout.dp, 64);  // could not absorb 3; left for the red flag
    const auto est = trainplan::estimate(out);
    QVERIFY(std::any_of(est.warnings.begin(), est.warnings.end(),
                        [](const auto& w) { return w.code == trainplan::WarningCode::LayoutProductMismatch; }));
}

void TestLayoutAdjuster::batchCandidates()
{
    const auto plan = planWith("70b-2048-h100.json");
    QCOMPARE(trainplan::microBatchCandidates(plan), (std::vector<int>{1, 2, 4, 8, 16}));
    const auto batches = trainplan::globalBatchCandidates(plan, 4);
    QCOMPARE(batches, (std::vector<long long>{64, 128, 192, 256, 1024}));
}

void TestLayoutAdjuster::changingPpDropsAStaleUnevenSplit()
{
    const auto plan = planWith("70b-2048-h100.json", {"layout.stage_layers=[19,21,21,19]"});
    const auto out = trainplan::withLayoutValue(plan, ParallelDim::Pp, 8, Follower::of(ParallelDim::Dp));
    QVERIFY(out.layout.stageLayers.empty());
    const auto same = trainplan::withLayoutValue(plan, ParallelDim::Tp, 4, Follower::of(ParallelDim::Dp));
    QCOMPARE(same.layout.stageLayers.size(), size_t(4));
}

QTEST_GUILESS_MAIN(TestLayoutAdjuster)
#include "tst_layoutadjuster.moc"
