// DualPipe (DualPipe.h): the simulated step against the published bubble (p/2 - 1)(F&B + B - 3W)
// and activation memory p + 1, every event's dependencies, the preconditions, and a plan's
// memory and prediction under it.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/analysis/ScheduleComparison.h"
#include "core/estimate/PipelineModel.h"
#include "core/schedule/DualPipe.h"
#include "core/schedule/SchedulePreconditions.h"
#include "core/schedule/Schedule.h"
#include "core/steptime/StepTimeModel.h"

using namespace testsupport;
using trainplan::ScheduleCosts;
using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;

namespace {

bool near(double a, double b, double tolerance = 1e-9)
{
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

// Equal stages: F, whole B (of it W), and the communication a pair can hide on each side.
ScheduleCosts equalStages(int p, int m, double f, double b, double w, double forwardComm, double backwardComm, double send = 0)
{
    ScheduleCosts c;
    c.p = p;
    c.m = m;
    c.sendSeconds = send;
    trainplan::StageCosts s;
    s.forwardSeconds = f;
    s.backwardSeconds = b;
    s.weightGradSeconds = w;
    s.forwardCommSeconds = forwardComm;
    s.backwardCommSeconds = backwardComm;
    c.stages.assign(size_t(p), s);
    return c;
}

}  // namespace

class DualPipeTest : public QObject {
    Q_OBJECT
private slots:
    void bubbleMatchesTheClosedForm_data()
    {
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("hidden");  // communication per pair: F&B = F + B - hidden
        for (int p : {2, 4, 8, 16})
            for (int m : {2 * p, 2 * p + 2, 4 * p, 64})
                for (double hidden : {0.0, 0.5, 1.0})
                    if (m >= 2 * p)
                        QTest::addRow("p%d m%d hidden %.1f", p, m, hidden) << p << m << hidden;
    }
    void bubbleMatchesTheClosedForm()
    {
        QFETCH(int, p);
        QFETCH(int, m);
        QFETCH(double, hidden);
        // F = 1, B = 2 (W = 1 of it); half the hidden communication in each chunk of a pair.
        const ScheduleCosts c = equalStages(p, m, 1.0, 2.0, 1.0, hidden / 2, hidden / 2);
        const double pair = trainplan::dualPipePairSeconds(c.stages[0], c.stages[0], 0.0);
        QVERIFY(near(pair, 3.0 - hidden));
        const auto r = trainplan::simulateSchedule(c, ScheduleKind::DualPipe);
        // The middle ranks idle exactly the published bubble; the others less.
        const double bubble = (p / 2 - 1) * (pair + 2.0 - 3.0 * 1.0);
        const int middle = p / 2 - 1;
        QVERIFY2(near(r.stages[size_t(middle)].idleSeconds, bubble), qPrintable(QString::number(r.stages[size_t(middle)].idleSeconds)));
        for (const auto& s : r.stages)
            QVERIFY(s.idleSeconds <= bubble + 1e-9);
        QVERIFY(near(r.computeSeconds, trainplan::dualPipeComputeSecondsClosedForm(c)));
        QVERIFY(near(r.bubbleFraction, r.closedFormBubbleFraction));
        QVERIFY(near(r.computeSeconds, trainplan::pipelineComputeSecondsClosedForm(c, ScheduleKind::DualPipe)));
    }

    // Sends lie on the paired steady state's critical path: m (p - 1)/p + 3 (p/2 - 1) of them
    // for equal stages (DualPipe.h), which the closed form takes.
    void sendsOnTheCriticalPath()
    {
        for (int p : {4, 8, 16})
            for (int m : {2 * p, 4 * p, 8 * p}) {
                const ScheduleCosts quiet = equalStages(p, m, 1.0, 2.0, 1.0, 0.25, 0.25);
                const ScheduleCosts sending = equalStages(p, m, 1.0, 2.0, 1.0, 0.25, 0.25, 0.01);
                const double withSends = trainplan::simulateSchedule(sending, ScheduleKind::DualPipe).computeSeconds;
                QVERIFY2(near(withSends, trainplan::dualPipeComputeSecondsClosedForm(sending)),
                         qPrintable(QStringLiteral("p %1 m %2: %3 vs %4").arg(p).arg(m).arg(withSends).arg(
                             trainplan::dualPipeComputeSecondsClosedForm(sending))));
                QVERIFY(withSends > trainplan::simulateSchedule(quiet, ScheduleKind::DualPipe).computeSeconds);
            }
    }

    // Peak activations per rank: p + 1 (a pair's forward before its backward frees), as the memory model counts.
    void inFlightMatchesTheMemoryModel()
    {
        for (int p : {2, 4, 8, 16}) {
            const auto r = trainplan::simulateSchedule(equalStages(p, 4 * p, 1.0, 2.0, 1.0, 0.2, 0.2), ScheduleKind::DualPipe);
            for (int i = 0; i < p; ++i) {
                const double expected = trainplan::microbatchesInFlight(trainplan::Schedule::DualPipe, i, p, 4 * p, 1);
                QCOMPARE(r.stages[size_t(i)].peakInFlightMicrobatches, expected);
                QCOMPARE(expected, double(p + 1));
            }
        }
    }

    // Every F after stage 0 starts once the previous stage's F of its micro-batch has ended and
    // been sent; every B once its own F and the next stage's B have; each rank runs m F's and m
    // B's, half per direction, each direction's stages on the ranks DualPipe.h names.
    void eventsKeepTheirDependencies()
    {
        const int p = 8, m = 24;
        const double send = 0.05;
        ScheduleCosts c = equalStages(p, m, 1.0, 2.0, 0.8, 0.3, 0.4, send);
        c.stages[3].forwardSeconds = 1.7;  // an uneven stage
        c.stages[3].backwardSeconds = 2.9;
        const auto r = trainplan::simulateSchedule(c, ScheduleKind::DualPipe);
        // (direction, stage, micro-batch) -> end of F and B; a pair's F counts as ready at the pair's end.
        std::map<std::tuple<int, int, int>, double> forwardSent, backwardEnd;
        std::map<std::pair<int, int>, int> forwards, backwards;
        for (const auto& e : r.events) {
            if (e.kind == ScheduleEventKind::Send) {
                const int stage = trainplan::dualPipeStage(e.stage, e.chunk, p);
                // The send leaves after a F (towards the path's end) or a B.
                const bool ahead = e.peerStage == (e.chunk == 0 ? e.stage + 1 : e.stage - 1);
                if (ahead)
                    forwardSent[{e.chunk, stage, e.microbatch}] = e.startSeconds;
                continue;
            }
            if (e.kind == ScheduleEventKind::Forward)
                ++forwards[{e.stage, e.chunk}];
            if (e.kind == ScheduleEventKind::Backward) {
                ++backwards[{e.stage, e.chunk}];
                backwardEnd[{e.chunk, trainplan::dualPipeStage(e.stage, e.chunk, p), e.microbatch}] = e.endSeconds;
            }
        }
        for (int rank = 0; rank < p; ++rank)
            for (int d = 0; d < 2; ++d) {
                QCOMPARE(forwards[std::make_pair(rank, d)], m / 2);
                QCOMPARE(backwards[std::make_pair(rank, d)], m / 2);
            }
        for (const auto& e : r.events) {
            if (e.kind != ScheduleEventKind::Forward && e.kind != ScheduleEventKind::Backward)
                continue;
            const int stage = trainplan::dualPipeStage(e.stage, e.chunk, p);
            if (e.kind == ScheduleEventKind::Forward && stage > 0) {
                const auto from = forwardSent.find({e.chunk, stage - 1, e.microbatch});
                QVERIFY(from != forwardSent.end());
                QVERIFY(e.startSeconds >= from->second + send - 1e-12);
            }
            if (e.kind == ScheduleEventKind::Backward && stage < p - 1) {
                const auto from = backwardEnd.find({e.chunk, stage + 1, e.microbatch});
                QVERIFY(from != backwardEnd.end());
                QVERIFY(e.endSeconds >= from->second + send - 1e-12);
            }
        }
        // Overlap pays: the same costs without hidden communication take longer.
        ScheduleCosts exposed = c;
        for (auto& s : exposed.stages)
            s.forwardCommSeconds = s.backwardCommSeconds = 0.0;
        QVERIFY(trainplan::simulateSchedule(exposed, ScheduleKind::DualPipe).computeSeconds > r.computeSeconds);
    }

    void preconditionsNameTheField()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(equalStages(3, 12, 1, 2, 1, 0, 0), ScheduleKind::DualPipe));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(equalStages(4, 6, 1, 2, 1, 0, 0), ScheduleKind::DualPipe));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(equalStages(4, 9, 1, 2, 1, 0, 0), ScheduleKind::DualPipe));
        // Communication larger than the chunk it belongs to is inconsistent.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, trainplan::simulateSchedule(equalStages(4, 8, 1, 2, 1, 1.5, 0), ScheduleKind::DualPipe));
        QVERIFY(trainplan::pipelineProblem(ScheduleKind::DualPipe, 3, 12, 1)->field == std::string("layout.pp"));
        QVERIFY(trainplan::pipelineProblem(ScheduleKind::DualPipe, 4, 6, 1)->field == std::string("training.global_batch_sequences"));

        trainplan::Plan plan = planWith("70b-2048-h100.json");
        plan.layout.schedule = trainplan::Schedule::DualPipe;
        plan.layout.pp = 3;
        const auto est = trainplan::estimate(plan);
        QVERIFY(std::any_of(est.warnings.begin(), est.warnings.end(), [](const trainplan::Warning& w) {
            return w.code == trainplan::WarningCode::DualPipeNeedsLayout && w.severity == trainplan::Severity::Error;
        }));
    }

    // A plan under DualPipe: each GPU row holds two stages' model state (twice 1F1B's for equal
    // stages), p or p + 1 micro-batches of activations, and the prediction's parts sum to the step.
    void planHoldsTwoStagesAndPredicts()
    {
        trainplan::Plan plan = planWith("70b-2048-h100.json");  // worked example A: TP 8 x PP 4, 80 layers
        const auto oneF = trainplan::estimate(plan);
        plan.layout.schedule = trainplan::Schedule::DualPipe;
        const auto dual = trainplan::estimate(plan);
        QVERIFY(!dual.hasErrors());
        for (int i = 0; i < plan.layout.pp; ++i) {
            const auto& a = oneF.stages[size_t(i)].memory;
            const auto& b = dual.stages[size_t(i)].memory;
            const auto& mirror = oneF.stages[size_t(plan.layout.pp - 1 - i)].memory;
            QVERIFY(near(b.weights, a.weights + mirror.weights));
            QVERIFY(near(b.optimizer, a.optimizer + mirror.optimizer));
            QCOMPARE(dual.stages[size_t(i)].microbatchesInFlight, double(plan.layout.pp + 1));
        }
        const auto predicted = trainplan::predictStep(plan, dual);
        QVERIFY(predicted.simulated);
        QVERIFY(near(predicted.components.total(), predicted.stepSeconds));
        QVERIFY(predicted.bubbleFraction > 0 && predicted.bubbleFraction < 1);
        // The closed form the search uses stays near the simulation.
        auto options = trainplan::stepTimeOptionsFor(plan);
        options.pipeline = trainplan::PipelineMethod::ClosedForm;
        const auto closed = trainplan::predictStep(plan, dual, options);
        QVERIFY2(std::abs(closed.stepSeconds / predicted.stepSeconds - 1) < 0.02,
                 qPrintable(QStringLiteral("%1 vs %2").arg(closed.stepSeconds).arg(predicted.stepSeconds)));
        const auto schedule = trainplan::simulatePredictedSchedule(plan, dual);
        QCOMPARE(schedule.kind, ScheduleKind::DualPipe);
        QVERIFY(near(schedule.computeSeconds + schedule.dpSyncExposedSeconds, schedule.stepSeconds));
        // The comparison adds DualPipe as the plan's own lane after the four others.
        const auto analysis = trainplan::analyse(plan);
        const auto& lanes = analysis.scheduleComparison().schedules;
        QCOMPARE(lanes.size(), size_t(5));
        QCOMPARE(lanes.back().kind, ScheduleKind::DualPipe);
        QVERIFY(lanes.back().isPlanSchedule);
        for (size_t i = 0; i + 1 < lanes.size(); ++i)
            QVERIFY2(lanes[i].problem.empty() || lanes[i].kind == ScheduleKind::Interleaved, lanes[i].problem.c_str());
    }
};

QTEST_APPLESS_MAIN(DualPipeTest)
#include "tst_dualpipe.moc"
