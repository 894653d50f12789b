// The pipeline schedule simulator: closed forms (Narayanan et al. 2021, Sec. 2.2; Qi et al.
// 2023, Sec. 3.1), every event's dependencies, in-flight peaks against the memory model,
// the cost model against the FLOP count, the worked-example plan, and the JSON contract.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "TestSupport.h"
#include "core/base/PlanError.h"
#include "core/schedule/Schedule.h"
#include "core/schedule/ScheduleMemo.h"
#include "core/schedule/ScheduleJson.h"
#include "core/steptime/StepTimeCosts.h"
#include "core/steptime/StepTimeModel.h"

using namespace testsupport;
using trainplan::ScheduleCosts;
using trainplan::ScheduleEvent;
using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;
using trainplan::ScheduleResult;

Q_DECLARE_METATYPE(trainplan::ScheduleKind)

namespace {

constexpr double kTolerance = 1e-9;  // relative, for sums of a few thousand doubles

bool near(double a, double b, double tolerance = kTolerance)
{
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

// The plan's op costs as the step-time model predicts them (the costs the timeline draws).
ScheduleCosts predictedCosts(const trainplan::Plan& plan, const trainplan::Estimate& est)
{
    return trainplan::predictedScheduleCosts(plan, est, trainplan::stepTimeOptionsFor(plan));
}
ScheduleCosts predictedCosts(const trainplan::Plan& plan, const trainplan::Estimate& est, ScheduleKind kind)
{
    return trainplan::predictedScheduleCosts(plan, est, trainplan::stepTimeOptionsFor(plan), kind);
}

// Equal stages: per stage F, whole backward Bfull (W of it separable), split into v chunks.
ScheduleCosts uniformCosts(int p, int m, int v, double f, double bFull, double w, double send = 0, double dp = 0)
{
    ScheduleCosts c;
    c.p = p;
    c.m = m;
    c.v = v;
    c.sendSeconds = send;
    c.dpSyncSeconds = dp;
    c.stages.assign(size_t(p) * v, trainplan::StageCosts{f / v, bFull / v, w / v});
    return c;
}

// Stage `slow` (every chunk of it) takes `factor` times as long.
ScheduleCosts withSlowStage(ScheduleCosts c, int slow, double factor)
{
    for (int chunk = 0; chunk < c.v; ++chunk) {
        auto& s = c.stages[size_t(chunk) * c.p + slow];
        s.forwardSeconds *= factor;
        s.backwardSeconds *= factor;
        s.weightGradSeconds *= factor;
    }
    return c;
}

// Checks every event against the costs and the dependency rules; returns the first
// violation, or an empty string.
QString dependencyViolation(const ScheduleResult& r, const ScheduleCosts& c, ScheduleKind kind)
{
    const int p = c.p, v = c.v, virtualStages = p * v;
    const long long m = c.m;
    const bool split = kind == ScheduleKind::ZeroBubbleH1;
    const double hop = p > 1 ? c.sendSeconds : 0.0;
    const auto where = [](const ScheduleEvent& e) {
        return QString("stage %1 chunk %2 mb %3 kind %4 [%5, %6]")
            .arg(e.stage).arg(e.chunk).arg(e.microbatch).arg(trainplan::scheduleEventKindName(e.kind))
            .arg(e.startSeconds, 0, 'g', 12).arg(e.endSeconds, 0, 'g', 12);
    };

    // Index compute events by (kind, virtual stage, micro-batch); keep each stage's order.
    std::map<std::tuple<int, int, long long>, const ScheduleEvent*> byKey;
    std::vector<std::vector<const ScheduleEvent*>> perStage(p);
    std::vector<const ScheduleEvent*> sends, syncs;
    for (const auto& e : r.events) {
        if (e.stage < 0 || e.stage >= p)
            return "stage out of range: " + where(e);
        if (e.kind == ScheduleEventKind::Send) {
            sends.push_back(&e);
            continue;
        }
        if (e.kind == ScheduleEventKind::DpSync) {
            syncs.push_back(&e);
            continue;
        }
        if (e.chunk < 0 || e.chunk >= v || e.microbatch < 0 || e.microbatch >= m)
            return "chunk or micro-batch out of range: " + where(e);
        if (!split && e.kind == ScheduleEventKind::WeightGrad)
            return "W outside ZB-H1: " + where(e);
        const int vs = e.chunk * p + e.stage;
        if (!byKey.emplace(std::make_tuple(int(e.kind), vs, (long long)e.microbatch), &e).second)
            return "duplicate op: " + where(e);
        perStage[e.stage].push_back(&e);
    }
    const long long expectedCompute = (long long)virtualStages * m * (split ? 3 : 2);
    if ((long long)byKey.size() != expectedCompute)
        return QString("%1 compute events, expected %2").arg(byKey.size()).arg(expectedCompute);
    const auto find = [&](ScheduleEventKind k, int vs, long long mb) { return byKey.at(std::make_tuple(int(k), vs, mb)); };

    for (const auto& [key, e] : byKey) {
        const auto [k, vs, mb] = key;
        const auto& sc = c.stages[vs];
        double duration = sc.forwardSeconds;
        if (e->kind == ScheduleEventKind::Backward)
            duration = split ? sc.backwardSeconds - sc.weightGradSeconds : sc.backwardSeconds;
        else if (e->kind == ScheduleEventKind::WeightGrad)
            duration = sc.weightGradSeconds;
        if (!near(e->endSeconds - e->startSeconds, duration))
            return "duration differs from the costs: " + where(*e);
        if (e->kind == ScheduleEventKind::Forward && vs > 0) {
            const auto* before = find(ScheduleEventKind::Forward, vs - 1, mb);
            if (e->startSeconds < before->endSeconds + hop - kTolerance)
                return "F starts before the previous stage's F and send: " + where(*e);
        }
        if (e->kind == ScheduleEventKind::Backward) {
            if (e->startSeconds < find(ScheduleEventKind::Forward, vs, mb)->endSeconds - kTolerance)
                return "B before its own F: " + where(*e);
            if (vs + 1 < virtualStages
                && e->startSeconds < find(ScheduleEventKind::Backward, vs + 1, mb)->endSeconds + hop - kTolerance)
                return "B starts before the next stage's B and send: " + where(*e);
        }
        if (e->kind == ScheduleEventKind::WeightGrad
            && e->startSeconds < find(ScheduleEventKind::Backward, vs, mb)->endSeconds - kTolerance)
            return "W before its B: " + where(*e);
    }

    // One op at a time per stage, and each op as early as allowed (list scheduling): it starts
    // at the later of the stage's previous op's end and its cross-stage input's arrival.
    double computeEnd = 0;
    for (int i = 0; i < p; ++i) {
        double freeAt = 0, busy = 0;
        for (const auto* e : perStage[i]) {
            const int vs = e->chunk * p + i;
            if (e->startSeconds < freeAt - kTolerance)
                return "overlaps the stage's previous op: " + where(*e);
            double ready = 0;
            if (e->kind == ScheduleEventKind::Forward && vs > 0)
                ready = find(ScheduleEventKind::Forward, vs - 1, e->microbatch)->endSeconds + hop;
            if (e->kind == ScheduleEventKind::Backward && vs + 1 < virtualStages)
                ready = find(ScheduleEventKind::Backward, vs + 1, e->microbatch)->endSeconds + hop;
            if (!near(e->startSeconds, std::max(freeAt, ready)))
                return "starts later than it could: " + where(*e);
            freeAt = e->endSeconds;
            busy += e->endSeconds - e->startSeconds;
        }
        if (!near(r.stages[i].busySeconds, busy))
            return QString("stage %1 busy time differs from its events").arg(i);
        computeEnd = std::max(computeEnd, freeAt);
    }
    if (!near(r.computeSeconds, computeEnd))
        return "computeSeconds is not the last compute event's end";
    for (int i = 0; i < p; ++i)
        if (!near(r.stages[i].idleSeconds, computeEnd - r.stages[i].busySeconds))
            return QString("stage %1 idle time is not compute time minus busy time").arg(i);

    // Sends: one per hand-over between GPUs, right after the op that produced it.
    const long long expectedSends = p > 1 ? 2LL * (virtualStages - 1) * m : 0;
    if ((long long)sends.size() != expectedSends)
        return QString("%1 sends, expected %2").arg(sends.size()).arg(expectedSends);
    for (const auto* s : sends) {
        const int vs = s->chunk * p + s->stage;
        const bool forward = s->peerStage == (s->stage + 1) % p && vs + 1 < virtualStages
            && byKey.count(std::make_tuple(int(ScheduleEventKind::Forward), vs, (long long)s->microbatch))
            && near(find(ScheduleEventKind::Forward, vs, s->microbatch)->endSeconds, s->startSeconds);
        const bool backward = s->peerStage == (s->stage + p - 1) % p && vs > 0
            && near(find(ScheduleEventKind::Backward, vs, s->microbatch)->endSeconds, s->startSeconds);
        if (!(forward || backward) || !near(s->endSeconds - s->startSeconds, hop))
            return "send does not follow its producer: " + where(*s);
    }

    // DP sync: one per stage from its last compute op; the step ends with the last one.
    if (int(syncs.size()) != p)
        return QString("%1 dp_sync events, expected %2").arg(syncs.size()).arg(p);
    double stepEnd = computeEnd;
    for (const auto* s : syncs) {
        const double lastEnd = perStage[s->stage].back()->endSeconds;
        if (!near(s->startSeconds, lastEnd) || !near(s->endSeconds - s->startSeconds, c.dpSyncSeconds))
            return "dp_sync not right after the stage's last op: " + where(*s);
        if (!near(r.stages[s->stage].dpSyncHiddenSeconds, std::min(c.dpSyncSeconds, computeEnd - lastEnd)))
            return QString("stage %1 hidden DP time is wrong").arg(s->stage);
        stepEnd = std::max(stepEnd, s->endSeconds);
    }
    if (!near(r.stepSeconds, stepEnd) || !near(r.dpSyncExposedSeconds, stepEnd - computeEnd)
        || !near(r.dpSyncHiddenSeconds + r.dpSyncExposedSeconds, c.dpSyncSeconds))
        return "step time or DP split is wrong";
    return {};
}

double expectedPeak(ScheduleKind kind, int stage, int p, long long m, int v)
{
    switch (kind) {
    case ScheduleKind::GPipe: return double(m);
    case ScheduleKind::OneFOneB: return double(std::min<long long>(p - stage, m));
    case ScheduleKind::Interleaved: return double(std::min<long long>(2LL * (p - stage - 1) + (v - 1) * p + 1, m * v)) / v;
    case ScheduleKind::ZeroBubbleH1: return double(std::min<long long>(p, m));  // every stage holds p (Qi et al., Sec. 3.1)
    case ScheduleKind::DualPipe: break;  // two directions at once: tst_dualpipe checks its peaks
    }
    return 0;
}

double maxPeak(const ScheduleResult& r)
{
    double peak = 0;
    for (const auto& s : r.stages)
        peak = std::max(peak, s.peakInFlightMicrobatches);
    return peak;
}

}  // namespace

class TestSchedule : public QObject {
    Q_OBJECT

private slots:
    void closedForms_data();
    void closedForms();
    void dependencies_data();
    void dependencies();
    void unevenStagesEnlargeBubble_data();
    void unevenStagesEnlargeBubble();
    void inFlightPeaks_data();
    void inFlightPeaks();
    void inFlightPeaksMatchMemoryEstimate_data();
    void inFlightPeaksMatchMemoryEstimate();
    void zeroBubbleBeatsOneFOneB_data();
    void zeroBubbleBeatsOneFOneB();
    void dpSyncTail();
    void costModelPerLayer_data();
    void costModelPerLayer();
    void unevenLayerSplit();
    void seedPlan();
    void jsonContract_data();
    void jsonContract();
    void rejectsImpossiblePipelines();
    void reusedSimulatorMatchesFresh();
    void timesOnlyMatchesTheFullSimulation();
    void memoRecallsOnlyTheSameCosts();
};

// With equal stages and free communication the simulation is the closed form exactly:
// GPipe and 1F1B (p-1)/(m+p-1), interleaved (p-1)/(v m+p-1) (Narayanan et al. 2021,
// Sec. 2.2.1-2.2.2), ZB-H1 with T_F = T_B = T_W (p-1)/(3m+p-1) (Qi et al. 2023, Sec. 3.1).
void TestSchedule::closedForms_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("expected");
    for (int p : {1, 2, 4, 8})
        for (int m : {1, 4, 8, 16, 32}) {
            const double flat = double(p - 1) / (m + p - 1);
            QTest::addRow("gpipe p%d m%d", p, m) << ScheduleKind::GPipe << p << m << 1 << flat;
            QTest::addRow("1f1b p%d m%d", p, m) << ScheduleKind::OneFOneB << p << m << 1 << flat;
            for (int v : {2, 4})
                if (m % p == 0)
                    QTest::addRow("interleaved p%d m%d v%d", p, m, v) << ScheduleKind::Interleaved << p << m << v
                                                                     << double(p - 1) / (v * m + p - 1);
            // ZB-H1's W's fill the tail only once every stage has p micro-batches (m >= p).
            if (m >= p)
                QTest::addRow("zero-bubble p%d m%d", p, m) << ScheduleKind::ZeroBubbleH1 << p << m << 1
                                                           << double(p - 1) / (3.0 * m + p - 1);
        }
}

void TestSchedule::closedForms()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    QFETCH(double, expected);
    // F = 1 ms, whole backward 2 ms of which W = 1 ms: T_F = T_B = T_W under ZB-H1.
    const auto costs = uniformCosts(p, m, v, 1e-3, 2e-3, 1e-3);
    const auto r = trainplan::simulateSchedule(costs, kind);
    QVERIFY2(near(r.bubbleFraction, expected), qPrintable(QString("simulated %1, closed form %2").arg(r.bubbleFraction).arg(expected)));
    QVERIFY(near(r.closedFormBubbleFraction, expected));
    // The step is the work plus the bubble: m (F + B) / (1 - bubble).
    QVERIFY(near(r.stepSeconds, m * 3e-3 / (1.0 - expected)));
    QCOMPARE(r.dpSyncExposedSeconds, 0.0);
}

void TestSchedule::dependencies_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("slowStage");  // -1: all equal
    QTest::addColumn<double>("sendSeconds");
    for (auto kind : {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved, ScheduleKind::ZeroBubbleH1}) {
        const int v = kind == ScheduleKind::Interleaved ? 2 : 1;
        const char* name = trainplan::scheduleKindName(kind);
        QTest::addRow("%s p4 m8 even", name) << kind << 4 << 8 << v << -1 << 0.0;
        QTest::addRow("%s p4 m8 slow stage 2, sends", name) << kind << 4 << 8 << v << 2 << 2e-4;
        QTest::addRow("%s p8 m16 slow stage 0, sends", name) << kind << 8 << 16 << v << 0 << 5e-4;
        QTest::addRow("%s p1 m4", name) << kind << 1 << 4 << v << -1 << 1e-3;
        if (kind != ScheduleKind::Interleaved)
            QTest::addRow("%s p8 m3 (m < p), sends", name) << kind << 8 << 3 << v << 7 << 1e-4;
        else
            QTest::addRow("interleaved p2 m4 v4, sends") << kind << 2 << 4 << 4 << 1 << 1e-4;
    }
}

void TestSchedule::dependencies()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    QFETCH(int, slowStage);
    QFETCH(double, sendSeconds);
    auto costs = uniformCosts(p, m, v, 1e-3, 2.2e-3, 0.9e-3, sendSeconds, 3e-3);
    if (slowStage >= 0)
        costs = withSlowStage(costs, slowStage, 1.7);
    const auto r = trainplan::simulateSchedule(costs, kind);
    const QString violation = dependencyViolation(r, costs, kind);
    QVERIFY2(violation.isEmpty(), qPrintable(violation));
}

void TestSchedule::unevenStagesEnlargeBubble_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("slowStage");
    QTest::addColumn<double>("exactComputeSeconds");  // 0: no simple closed form
    // p = 4, m = 16, F + B = 3 ms, one stage 25% slower. With the slow stage last, GPipe and
    // 1F1B take the fast stages' fill and drain, (p - 1)(F + B), plus the slow stage's
    // 1.25 m (F + B) back to back.
    const double slowLast = 3 * 3e-3 + 1.25 * 16 * 3e-3;
    for (int slow : {0, 3}) {
        QTest::addRow("gpipe slow %d", slow) << ScheduleKind::GPipe << 1 << slow << (slow == 3 ? slowLast : 0.0);
        QTest::addRow("1f1b slow %d", slow) << ScheduleKind::OneFOneB << 1 << slow << (slow == 3 ? slowLast : 0.0);
        QTest::addRow("interleaved slow %d", slow) << ScheduleKind::Interleaved << 2 << slow << 0.0;
        QTest::addRow("zero-bubble slow %d", slow) << ScheduleKind::ZeroBubbleH1 << 1 << slow << 0.0;
    }
}

// One stage 25% slower paces the steady state and the other stages wait for it every
// micro-batch, idling 0.25 / 1.25 of it: the bubble rises well above the closed form,
// which knows nothing of stage times.
void TestSchedule::unevenStagesEnlargeBubble()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, v);
    QFETCH(int, slowStage);
    QFETCH(double, exactComputeSeconds);
    const auto even = uniformCosts(4, 16, v, 1e-3, 2e-3, 1e-3);
    const auto r = trainplan::simulateSchedule(withSlowStage(even, slowStage, 1.25), kind);
    QVERIFY(near(trainplan::simulateSchedule(even, kind).bubbleFraction, r.closedFormBubbleFraction));
    QVERIFY2(r.bubbleFraction > r.closedFormBubbleFraction + 0.05,
             qPrintable(QString("uneven %1, closed form %2").arg(r.bubbleFraction).arg(r.closedFormBubbleFraction)));
    if (exactComputeSeconds > 0)
        QVERIFY2(near(r.computeSeconds, exactComputeSeconds), qPrintable(QString::number(r.computeSeconds)));
}

void TestSchedule::inFlightPeaks_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    for (int p : {1, 2, 4, 8})
        for (int m : {1, 3, 8, 32}) {
            QTest::addRow("gpipe p%d m%d", p, m) << ScheduleKind::GPipe << p << m << 1;
            QTest::addRow("1f1b p%d m%d", p, m) << ScheduleKind::OneFOneB << p << m << 1;
            QTest::addRow("zero-bubble p%d m%d", p, m) << ScheduleKind::ZeroBubbleH1 << p << m << 1;
            for (int v : {2, 3, 4})
                if (m % p == 0)
                    QTest::addRow("interleaved p%d m%d v%d", p, m, v) << ScheduleKind::Interleaved << p << m << v;
        }
}

// GPipe holds all m, 1F1B min(p - i, m) on stage i (Narayanan et al. 2021, Sec. 2.2.1),
// interleaved Megatron's warm-up + 1 chunks, ZB-H1 p on every stage (Qi et al. 2023, Sec. 3.1).
void TestSchedule::inFlightPeaks()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    const auto r = trainplan::simulateSchedule(uniformCosts(p, m, v, 1e-3, 2e-3, 1e-3, 1e-4), kind);
    QCOMPARE(int(r.stages.size()), p);
    for (int i = 0; i < p; ++i)
        QCOMPARE(r.stages[i].peakInFlightMicrobatches, expectedPeak(kind, i, p, m, v));
}

void TestSchedule::inFlightPeaksMatchMemoryEstimate_data()
{
    QTest::addColumn<QString>("overrides");
    QTest::newRow("seed 1f1b") << "";
    QTest::newRow("seed gpipe") << "layout.schedule=gpipe";
    QTest::newRow("interleaved v2") << "layout.schedule=interleaved layout.virtual_stages=2";
    QTest::newRow("interleaved v4") << "layout.schedule=interleaved layout.virtual_stages=4";
    QTest::newRow("interleaved v5 (stage holds 20 layers)") << "layout.schedule=interleaved layout.virtual_stages=5";
    QTest::newRow("pp8 1f1b") << "layout.pp=8 layout.dp=32";
    QTest::newRow("pp8 interleaved v2") << "layout.pp=8 layout.dp=32 layout.schedule=interleaved layout.virtual_stages=2";
    QTest::newRow("pp8 few micro-batches") << "layout.pp=8 layout.dp=32 training.global_batch_sequences=128";
    QTest::newRow("pp16 gpipe") << "layout.pp=16 layout.dp=16 layout.schedule=gpipe";
    QTest::newRow("seed zero-bubble") << "layout.schedule=zero-bubble";
    QTest::newRow("pp8 zero-bubble few micro-batches")
        << "layout.pp=8 layout.dp=32 layout.schedule=zero-bubble training.global_batch_sequences=128";
}

// The simulated peaks and the memory estimate's microbatchesInFlight come from separate code
// (the op order here, PipelineModel's formula there); if they disagree one of them is wrong.
void TestSchedule::inFlightPeaksMatchMemoryEstimate()
{
    QFETCH(QString, overrides);
    const auto plan = planWith("70b-2048-h100.json", toStd(splitOverrides(overrides)));
    const auto est = trainplan::estimate(plan);
    const auto r = trainplan::simulatePredictedSchedule(plan, est);
    QCOMPARE(int(r.stages.size()), int(est.stages.size()));
    for (size_t i = 0; i < est.stages.size(); ++i)
        QCOMPARE(r.stages[i].peakInFlightMicrobatches, est.stages[i].microbatchesInFlight);
}

void TestSchedule::zeroBubbleBeatsOneFOneB_data()
{
    QTest::addColumn<QString>("overrides");  // "" uniform costs, else the worked-example plan with these
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::newRow("uniform p4 m16") << QString() << 4 << 16;
    QTest::newRow("uniform p8 m8") << QString() << 8 << 8;
    QTest::newRow("uniform p8 m64") << QString() << 8 << 64;
    QTest::newRow("worked-example plan") << "-" << 0 << 0;
    QTest::newRow("worked-example plan, full recompute") << "layout.recompute=full" << 0 << 0;
    QTest::newRow("worked-example plan pp8") << "layout.pp=8 layout.dp=32" << 0 << 0;
}

// Splitting B from W lets B run ahead and W fill the cool-down (Qi et al. 2023, Sec. 3.1):
// a smaller bubble and a shorter step at 1F1B's peak activation memory.
void TestSchedule::zeroBubbleBeatsOneFOneB()
{
    QFETCH(QString, overrides);
    QFETCH(int, p);
    QFETCH(int, m);
    ScheduleCosts zbCosts, oneCosts;
    if (overrides.isEmpty()) {
        zbCosts = oneCosts = uniformCosts(p, m, 1, 1e-3, 2e-3, 1e-3, 1e-4);
    } else {
        const auto plan = planWith("70b-2048-h100.json", overrides == "-" ? std::vector<std::string>{} : toStd(splitOverrides(overrides)));
        const auto est = trainplan::estimate(plan);
        zbCosts = predictedCosts(plan, est, ScheduleKind::ZeroBubbleH1);
        oneCosts = predictedCosts(plan, est, ScheduleKind::OneFOneB);
    }
    const auto zb = trainplan::simulateSchedule(zbCosts, ScheduleKind::ZeroBubbleH1);
    const auto one = trainplan::simulateSchedule(oneCosts, ScheduleKind::OneFOneB);
    QVERIFY2(zb.bubbleFraction < one.bubbleFraction,
             qPrintable(QString("ZB-H1 %1, 1F1B %2").arg(zb.bubbleFraction).arg(one.bubbleFraction)));
    QVERIFY(zb.computeSeconds < one.computeSeconds);
    QVERIFY(zb.closedFormBubbleFraction < one.closedFormBubbleFraction);
    QCOMPARE(maxPeak(zb), maxPeak(one));
    QCOMPARE(zb.stages[0].peakInFlightMicrobatches, one.stages[0].peakInFlightMicrobatches);
    QVERIFY(dependencyViolation(zb, zbCosts, ScheduleKind::ZeroBubbleH1).isEmpty());
}

// Each stage reduces its gradients after its own last backward; under 1F1B stage i finishes
// i backwards before stage 0, so i B's of its reduction hide under stage 0's work and only
// stage 0's reduction is exposed at the end of the step.
void TestSchedule::dpSyncTail()
{
    const int p = 4, m = 8;
    const double b = 2e-3, dp = 5e-3;
    const auto r = trainplan::simulateSchedule(uniformCosts(p, m, 1, 1e-3, b, 1e-3, 0.0, dp), ScheduleKind::OneFOneB);
    QVERIFY(near(r.computeSeconds, (m + p - 1) * 3e-3));
    QVERIFY(near(r.dpSyncExposedSeconds, dp));
    QVERIFY(near(r.dpSyncHiddenSeconds, 0.0));
    QVERIFY(near(r.stepSeconds, r.computeSeconds + dp));
    for (int i = 0; i < p; ++i)
        QVERIFY2(near(r.stages[i].dpSyncHiddenSeconds, std::min(dp, i * b)), qPrintable(QString("stage %1").arg(i)));
    // The bubble is about compute only: the DP tail does not change it.
    QVERIFY(near(r.bubbleFraction, double(p - 1) / (m + p - 1)));
}

void TestSchedule::costModelPerLayer_data()
{
    QTest::addColumn<QString>("overrides");
    QTest::newRow("seed: selective") << "";
    QTest::newRow("no recompute") << "layout.recompute=none";
    QTest::newRow("full recompute") << "layout.recompute=full";
    QTest::newRow("full recompute of 3 layers a stage") << "layout.recompute=full layout.recompute_layers=3";
    QTest::newRow("tp4 b2") << "layout.tp=4 layout.dp=128 training.micro_batch_size=2 training.global_batch_sequences=2048";
    QTest::newRow("cp2") << "layout.cp=2 layout.dp=32";
    QTest::newRow("interleaved v4") << "layout.schedule=interleaved layout.virtual_stages=4";
    QTest::newRow("two layer kinds") << R"(model.layer_kinds=[{"layers":10,"ffn_hidden_size":14336},{"layers":70}])";
    QTest::newRow("two layer kinds, interleaved v2, partial recompute")
        << R"(model.layer_kinds=[{"layers":30,"ffn_hidden_size":8192,"ffn_kind":"gelu"},{"layers":50}])"
           R"( layout.schedule=interleaved layout.virtual_stages=2 layout.recompute=full layout.recompute_layers=2)";
    // MoE kinds: the middle stages whose layers match the stage before are priced once.
    QTest::newRow("MoE after 3 dense layers, pp 8")
        << R"(model.moe={"experts":16,"top_k":2,"expert_ffn_hidden_size":7168,"dense_layers":3} layout.pp=8 layout.dp=32)";
    QTest::newRow("MoE every other layer, pp 16, partial recompute")
        << R"(model.moe={"experts":16,"top_k":2,"expert_ffn_hidden_size":7168,"layer_step":2} layout.pp=16 layout.dp=16)"
           R"( layout.recompute=full layout.recompute_layers=2)";
}

// Every op of the timeline is the step-time model's per-layer cost (StepTimeCosts.h) times the
// layers of each kind its chunk holds, plus the embedding on the first chunk and the LM head on
// the last: F = sum n_k F_k + ends, B = sum n_k (B_k less the unrecomputed share of the
// recompute) + ends, W = sum n_k W_k + the head's. And the reference stage's busy time (the
// predicted step's components) is that stage's F + B over the step's micro-batches.
void TestSchedule::costModelPerLayer()
{
    QFETCH(QString, overrides);
    const auto plan = planWith("70b-2048-h100.json", toStd(splitOverrides(overrides)));
    const auto est = trainplan::estimate(plan);
    const auto options = trainplan::stepTimeOptionsFor(plan);
    const auto groups = trainplan::communicationGroups(plan, est, options.efficiency);
    const auto mc = trainplan::microbatchCosts(plan, est, options, groups);
    const auto costs = predictedCosts(plan, est);
    QCOMPARE(int(mc.layers.size()), plan.model.kindCount());
    QCOMPARE(costs.p, plan.layout.pp);
    QCOMPARE(costs.m, (long long)est.pipeline.microbatches);
    const int v = costs.v;
    QCOMPARE(v, plan.layout.schedule == trainplan::Schedule::Interleaved ? plan.layout.virtualStages : 1);
    const bool partial = plan.layout.recompute == trainplan::Recompute::Full && plan.layout.recomputeLayers > 0;
    for (int i = 0; i < costs.p; ++i) {
        const auto& stage = est.stages[size_t(i)];
        const double unrecomputed = partial ? 1.0 - double(trainplan::recomputedLayers(plan.layout, stage.layers)) / stage.layers : 0.0;
        int layer = stage.firstLayer;
        double stageWork = 0.0;
        for (int c = 0; c < v; ++c) {
            const int layers = stage.layers / v + (c < stage.layers % v ? 1 : 0);
            double f = 0, b = 0, w = 0;
            for (int n = 0; n < layers; ++n, ++layer) {
                const auto& L = mc.layers[size_t(plan.model.kindOfLayer(layer))];
                f += L.forward();
                b += L.backward() - L.recompute * unrecomputed;
                w += L.weightGradMatmul;
            }
            if (stage.hasEmbedding && c == 0) {
                f += mc.embedding.forward();
                b += mc.embedding.backward();
            }
            if (stage.hasLmHead && c == v - 1) {
                f += mc.lmHead.forward();
                b += mc.lmHead.backward();
                w += mc.lmHead.weightGradMatmul;
            }
            const auto& sc = costs.stages[size_t(c) * costs.p + i];
            QVERIFY2(near(sc.forwardSeconds, f),
                qPrintable(QString("stage %1 chunk %2 F %3 vs %4").arg(i).arg(c).arg(sc.forwardSeconds).arg(f)));
            QVERIFY2(near(sc.backwardSeconds, b), qPrintable(QString("stage %1 chunk %2 B").arg(i).arg(c)));
            QVERIFY2(near(sc.weightGradSeconds, w), qPrintable(QString("stage %1 chunk %2 W").arg(i).arg(c)));
            stageWork += sc.forwardSeconds + sc.backwardSeconds;
        }
        QCOMPARE(layer, stage.firstLayer + stage.layers);
        // The predicted step's busy components are the reference stage's ops over m micro-batches.
        const auto predicted = trainplan::predictStep(plan, est, options);
        if (i == predicted.referenceStage) {
            const auto& parts = predicted.components;
            const double busy = parts.forwardCompute + parts.backwardCompute + parts.memoryBound + parts.recompute + parts.tpCommunication +
                                parts.cpCommunication + parts.zeroCommunication + parts.epCommunication + parts.expertImbalance + parts.kernelOverhead;
            QVERIFY2(
                near(busy, stageWork * double(costs.m)), qPrintable(QString("busy %1 vs %2").arg(busy).arg(stageWork * double(costs.m))));
        }
    }
}

// An uneven split (layout.stage_layers) gives proportionally uneven stages, and the
// bubble grows past the closed form.
void TestSchedule::unevenLayerSplit()
{
    const auto even = planWith("70b-2048-h100.json", {"layout.recompute=none"});
    const auto uneven = planWith("70b-2048-h100.json", {"layout.recompute=none", "layout.stage_layers=[16,24,22,18]"});
    const auto evenEst = trainplan::estimate(even);
    const auto unevenEst = trainplan::estimate(uneven);
    const auto evenCosts = predictedCosts(even, evenEst);
    const auto unevenCosts = predictedCosts(uneven, unevenEst);
    // Middle stages hold layers only: their ops scale with their layer counts.
    QVERIFY(near(unevenCosts.stages[1].forwardSeconds, evenCosts.stages[1].forwardSeconds * 24 / 20));
    QVERIFY(near(unevenCosts.stages[2].backwardSeconds, evenCosts.stages[2].backwardSeconds * 22 / 20));
    const auto r = trainplan::simulatePredictedSchedule(uneven, unevenEst);
    const auto e = trainplan::simulatePredictedSchedule(even, evenEst);
    QVERIFY(r.closedFormBubbleFraction == e.closedFormBubbleFraction);
    QVERIFY2(r.bubbleFraction > e.bubbleFraction + 0.05,
             qPrintable(QString("uneven %1, even %2").arg(r.bubbleFraction).arg(e.bubbleFraction)));
    QVERIFY(r.computeSeconds > e.computeSeconds);
}

// Worked example A: TP 8, PP 4, DP 64, B = 1024, b = 1 gives m = 16 micro-batches on 4 stages and
// the closed-form bubble 3/19. The simulation sits a little above it: the last stage also
// runs the LM head (2 V h per token, about 1.1 layers), which paces the pipeline.
void TestSchedule::seedPlan()
{
    const auto plan = trainplan::loadPlanFile(examplePath("70b-2048-h100.json"));
    const auto est = trainplan::estimate(plan);
    const auto r = trainplan::simulatePredictedSchedule(plan, est);
    QCOMPARE(r.kind, ScheduleKind::OneFOneB);
    QCOMPARE(r.p, 4);
    QCOMPARE(r.m, 16LL);
    QCOMPARE(r.v, 1);
    QVERIFY(near(r.closedFormBubbleFraction, 3.0 / 19.0));
    QVERIFY(near(r.closedFormBubbleFraction, est.pipeline.bubbleFraction));
    QVERIFY2(r.bubbleFraction > 3.0 / 19.0 && r.bubbleFraction < 3.0 / 19.0 + 0.03,
             qPrintable(QString("simulated bubble %1").arg(r.bubbleFraction)));
    QVERIFY(dependencyViolation(r, predictedCosts(plan, est), r.kind).isEmpty());

    // Without the ends' extra work, the sends and the DP tail, the worked example's stages are
    // equal and the simulation gives 3/19 exactly.
    auto costs = predictedCosts(plan, est);
    for (auto& stage : costs.stages)
        stage = costs.stages[1];
    costs.sendSeconds = 0;
    costs.dpSyncSeconds = 0;
    QVERIFY(near(trainplan::simulateSchedule(costs, r.kind).bubbleFraction, 3.0 / 19.0));
}

void TestSchedule::jsonContract_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("v");
    QTest::newRow("gpipe") << ScheduleKind::GPipe << "gpipe" << 1;
    QTest::newRow("1f1b") << ScheduleKind::OneFOneB << "1f1b" << 1;
    QTest::newRow("interleaved") << ScheduleKind::Interleaved << "interleaved" << 2;
    QTest::newRow("zero-bubble") << ScheduleKind::ZeroBubbleH1 << "zero-bubble" << 1;
}

// docs/plan-format.md, "schedule --json": keys that must exist.
void TestSchedule::jsonContract()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(QString, name);
    QFETCH(int, v);
    QCOMPARE(QString(trainplan::scheduleKindName(kind)), name);
    QCOMPARE(trainplan::scheduleKindFromName(name.toStdString()), std::optional<ScheduleKind>(kind));

    const auto r = trainplan::simulateSchedule(uniformCosts(4, 8, v, 1e-3, 2e-3, 1e-3, 1e-4, 2e-3), kind);
    const auto doc = trainplan::scheduleToJson(r);
    for (const char* key : {"schedule.kind", "schedule.step_seconds", "schedule.bubble_fraction",
                            "schedule.closed_form_bubble_fraction", "schedule.stages", "schedule.events"})
        QVERIFY2(hasPath(doc, key), key);
    const auto& s = doc.at("schedule");
    QCOMPARE(QString::fromStdString(s.at("kind").get<std::string>()), name);
    QCOMPARE(s.at("step_seconds").get<double>(), r.stepSeconds);
    QCOMPARE(s.at("bubble_fraction").get<double>(), r.bubbleFraction);
    QCOMPARE(s.at("closed_form_bubble_fraction").get<double>(), r.closedFormBubbleFraction);
    QCOMPARE(s.at("stages").size(), size_t(4));
    for (const auto& st : s.at("stages")) {
        QVERIFY(st.at("idle_seconds").is_number());
        QVERIFY(st.at("peak_in_flight_microbatches").is_number());
    }
    QCOMPARE(s.at("events").size(), r.events.size());
    std::set<std::string> kinds;
    for (const auto& e : s.at("events")) {
        for (const char* key : {"stage", "chunk", "microbatch", "kind", "start_seconds", "end_seconds"})
            QVERIFY2(e.contains(key), key);
        QVERIFY(e.at("end_seconds").get<double>() >= e.at("start_seconds").get<double>());
        kinds.insert(e.at("kind").get<std::string>());
    }
    std::set<std::string> expected{"F", "B", "send", "dp_sync"};
    if (kind == ScheduleKind::ZeroBubbleH1)
        expected.insert("W");
    QCOMPARE(kinds, expected);
}

void TestSchedule::rejectsImpossiblePipelines()
{
    // Interleaving needs m to be a multiple of p and at least two chunks per stage.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trainplan::simulateSchedule(uniformCosts(4, 6, 2, 1, 2, 1), ScheduleKind::Interleaved));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trainplan::simulateSchedule(uniformCosts(4, 8, 1, 1, 2, 1), ScheduleKind::Interleaved));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trainplan::simulateSchedule(uniformCosts(4, 8, 2, 1, 2, 1), ScheduleKind::OneFOneB));
    auto wrongSize = uniformCosts(4, 8, 1, 1, 2, 1);
    wrongSize.stages.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(wrongSize, ScheduleKind::OneFOneB));
    auto negative = uniformCosts(4, 8, 1, 1, 2, 1);
    negative.stages[2].forwardSeconds = -1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(negative, ScheduleKind::GPipe));
    auto wTooLarge = uniformCosts(4, 8, 1, 1, 2, 3);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(wTooLarge, ScheduleKind::ZeroBubbleH1));

    // From a plan, the error names the field: 1024 / (64 x 1) = 16 micro-batches on 3 stages.
    const auto plan = planWith("70b-2048-h100.json", {"layout.pp=3", "layout.schedule=interleaved", "layout.virtual_stages=2"});
    try {
        trainplan::simulatePredictedSchedule(plan, trainplan::estimate(plan));
        QFAIL("expected a PlanError");
    } catch (const trainplan::PlanError& e) {
        QCOMPARE(QString::fromStdString(e.problems().at(0).path), QString("training.global_batch_sequences"));
    }
}

namespace {

// A step for the reuse tests: uniform stages with sends and a DP tail, one stage 1.7x slower
// unless slowStage is -1.
struct SimulatedShape {
    ScheduleKind kind;
    int p, m, v, slowStage;
    ScheduleCosts costs() const
    {
        const ScheduleCosts uniform = uniformCosts(p, m, v, 1e-3, 2.2e-3, 0.9e-3, 2e-4, 3e-3);
        return slowStage >= 0 ? withSlowStage(uniform, slowStage, 1.7) : uniform;
    }
    QString name() const
    {
        return QString("%1 p%2 m%3 v%4 slow %5").arg(trainplan::scheduleKindName(kind)).arg(p).arg(m).arg(v).arg(slowStage);
    }
};

// Every figure but the events, equal to the last bit.
bool sameTimes(const ScheduleResult& a, const ScheduleResult& b)
{
    if (!(a.kind == b.kind && a.p == b.p && a.m == b.m && a.v == b.v && a.computeSeconds == b.computeSeconds
          && a.stepSeconds == b.stepSeconds && a.bubbleFraction == b.bubbleFraction
          && a.closedFormBubbleFraction == b.closedFormBubbleFraction && a.dpSyncHiddenSeconds == b.dpSyncHiddenSeconds
          && a.dpSyncExposedSeconds == b.dpSyncExposedSeconds && a.stages.size() == b.stages.size()))
        return false;
    for (size_t i = 0; i < a.stages.size(); ++i) {
        const auto& x = a.stages[i];
        const auto& y = b.stages[i];
        if (!(x.busySeconds == y.busySeconds && x.idleSeconds == y.idleSeconds && x.peakInFlightMicrobatches == y.peakInFlightMicrobatches
              && x.dpSyncHiddenSeconds == y.dpSyncHiddenSeconds))
            return false;
    }
    return true;
}

}  // namespace

// The live view keeps one simulator, which keeps each shape's op order (kind, p, m, v) until the
// shape changes: every step it simulates must equal a fresh simulation, event for event, whether
// the order was kept (same shape, new costs) or walked anew (a kind or a size changed).
void TestSchedule::reusedSimulatorMatchesFresh()
{
    const SimulatedShape steps[] = {
        {ScheduleKind::Interleaved, 4, 8, 2, -1}, {ScheduleKind::Interleaved, 4, 8, 2, 1},  // kept, new costs
        {ScheduleKind::OneFOneB, 4, 8, 1, -1},    {ScheduleKind::GPipe, 4, 8, 1, -1},         // same sizes, other kinds
        {ScheduleKind::ZeroBubbleH1, 4, 8, 1, 3}, {ScheduleKind::OneFOneB, 4, 8, 1, 2},
        {ScheduleKind::OneFOneB, 4, 12, 1, -1},   {ScheduleKind::OneFOneB, 6, 12, 1, 0},      // m, then p changed
        {ScheduleKind::DualPipe, 4, 8, 1, -1},    {ScheduleKind::OneFOneB, 4, 8, 1, -1},      // DualPipe between
        {ScheduleKind::Interleaved, 4, 8, 4, 2},  {ScheduleKind::Interleaved, 2, 8, 4, -1},   // v, then p changed
    };
    trainplan::ScheduleSimulator simulator;
    ScheduleResult reused;
    for (const SimulatedShape& step : steps) {
        const ScheduleCosts costs = step.costs();
        const QString shape = step.name();
        simulator.simulate(costs, step.kind, reused);
        const ScheduleResult fresh = trainplan::simulateSchedule(costs, step.kind);
        QVERIFY2(reused.events.size() == fresh.events.size(), qPrintable(shape));
        for (size_t e = 0; e < fresh.events.size(); ++e) {
            const ScheduleEvent& a = reused.events[e];
            const ScheduleEvent& b = fresh.events[e];
            QVERIFY2(a.stage == b.stage && a.chunk == b.chunk && a.microbatch == b.microbatch && a.kind == b.kind
                         && a.peerStage == b.peerStage && a.startSeconds == b.startSeconds && a.endSeconds == b.endSeconds,
                     qPrintable(shape + QString(": event %1 differs").arg(e)));
        }
        QCOMPARE(reused.stepSeconds, fresh.stepSeconds);
        QCOMPARE(reused.bubbleFraction, fresh.bubbleFraction);
        // A rejected shape between steps leaves the kept order alone.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, simulator.simulate(uniformCosts(4, 6, 2, 1, 2, 1), ScheduleKind::Interleaved, reused));
    }
}

void TestSchedule::timesOnlyMatchesTheFullSimulation()
{
    // Without events the simulation is the same list scheduling: every total and per-stage figure
    // equal to the last bit, for every kind, uneven stages and a DP tail included; and storage
    // left by a run without events serves a run with them.
    const SimulatedShape steps[] = {
        {ScheduleKind::Interleaved, 4, 8, 2, 1}, {ScheduleKind::OneFOneB, 6, 12, 1, 0}, {ScheduleKind::GPipe, 4, 8, 1, 3},
        {ScheduleKind::ZeroBubbleH1, 4, 8, 1, 2}, {ScheduleKind::DualPipe, 4, 8, 1, 1}, {ScheduleKind::OneFOneB, 1, 4, 1, -1},
    };
    trainplan::ScheduleSimulator simulator;
    ScheduleResult timesOnly;
    for (const SimulatedShape& step : steps) {
        const ScheduleCosts costs = step.costs();
        const QString shape = step.name();
        const ScheduleResult full = trainplan::simulateSchedule(costs, step.kind);
        simulator.simulate(costs, step.kind, timesOnly, trainplan::ScheduleDetail::TimesOnly);
        QVERIFY2(timesOnly.events.empty() && !full.events.empty(), qPrintable(shape));
        QVERIFY2(sameTimes(timesOnly, full), qPrintable(shape));
        ScheduleResult again = timesOnly;
        simulator.simulate(costs, step.kind, again);
        QCOMPARE(again.events.size(), full.events.size());
        QCOMPARE(again.events.back().endSeconds, full.events.back().endSeconds);
    }
}

// The memo hands back a simulation only for the very same costs and kind (one changed
// double, the kind, a size: no), without its events, and keeps the last eight.
void TestSchedule::memoRecallsOnlyTheSameCosts()
{
    trainplan::ScheduleMemo memo;
    const SimulatedShape shape{ScheduleKind::Interleaved, 4, 8, 2, 1};
    const ScheduleCosts costs = shape.costs();
    const ScheduleResult full = trainplan::simulateSchedule(costs, shape.kind);
    QVERIFY(!memo.find(costs, shape.kind));
    memo.remember(costs, shape.kind, full);
    const ScheduleResult* known = memo.find(costs, shape.kind);
    QVERIFY(known);
    QVERIFY(known->events.empty());
    QVERIFY(sameTimes(*known, full));
    ScheduleResult copied = full;
    trainplan::ScheduleMemo::copyTimes(*known, copied);
    QVERIFY(copied.events.empty());
    QVERIFY(sameTimes(copied, full));

    QVERIFY(!memo.find(costs, ScheduleKind::OneFOneB));
    const auto missesWhen = [&](const std::function<void(ScheduleCosts&)>& change) {
        ScheduleCosts other = costs;
        change(other);
        return memo.find(other, shape.kind) == nullptr;
    };
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.stages.back().weightGradSeconds = std::nextafter(c.stages.back().weightGradSeconds, 1.0); }));
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.stages[3].backwardCommSeconds += 1e-9; }));
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.sendSeconds *= 2; }));
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.dpSyncSeconds = 0; }));
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.pairedCommSlowdown = 0.1; }));
    QVERIFY(missesWhen([](ScheduleCosts& c) { c.m = 16; }));

    // Eight newer entries push the first one out.
    for (int i = 1; i <= 8; ++i) {
        ScheduleCosts other = costs;
        other.sendSeconds = i * 1e-3;
        memo.remember(other, shape.kind, full);
        QCOMPARE(memo.find(costs, shape.kind) != nullptr, i < 8);
    }
}

QTEST_GUILESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
