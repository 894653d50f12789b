// What an Analysis computes on first use (Analysis.h): sensitivity, the schedule comparison and
// the plan's place in the layout search come from the settled plan, are computed once and shared
// by copies (so the window and an export read one result), and start afresh with every analyse().
#include "../TestPlans.h"
#include <QtTest>

#include <cmath>

#include "core/analysis/Analysis.h"
#include "core/analysis/ScheduleComparison.h"
#include "core/analysis/Sensitivity.h"
#include "core/planfile/PlanFile.h"
#include "core/search/LayoutSearch.h"

using namespace trainplan;

namespace {

void compareBars(const SensitivityResult& a, const SensitivityResult& b)
{
    QCOMPARE(a.bars.size(), b.bars.size());
    for (size_t i = 0; i < a.bars.size(); ++i) {
        QCOMPARE(a.bars[i].input, b.bars[i].input);
        QCOMPARE(a.bars[i].daysLow, b.bars[i].daysLow);
        QCOMPARE(a.bars[i].daysHigh, b.bars[i].daysHigh);
        QCOMPARE(a.bars[i].stepSecondsLow, b.bars[i].stepSecondsLow);
        QCOMPARE(a.bars[i].stepSecondsHigh, b.bars[i].stepSecondsHigh);
    }
}

}  // namespace

class TestAnalysis : public QObject {
    Q_OBJECT

private slots:
    void sensitivityIsOfTheSettledPlan();
    void copiesShareAndAnalyseStartsAfresh();
    void comparisonHasEveryKind();
    void comparisonSaysWhyAKindCannotRun();
    void comparisonStopsAtTheLimit();
    void searchRowIsTheSearchsPrediction();
    void rangeIsTheSameOnTheHelperThread();
};

void TestAnalysis::sensitivityIsOfTheSettledPlan()
{
    const Plan given = testplans::unknownRecomputePlan();
    const Analysis a = analyse(given);
    QVERIFY(a.plan.layout.recompute != given.layout.recompute);  // settled
    for (const SensitivityBasis basis : {SensitivityBasis::Predicted, SensitivityBasis::Assumed}) {
        const SensitivityResult& r = a.sensitivity(basis);
        QCOMPARE(r.basis, basis);
        SensitivityOptions options;
        options.basis = basis;
        compareBars(r, sensitivity(a.plan, options));
        // Its centre is the analysis's own figure, on the basis asked for.
        const TimeBasis time = basis == SensitivityBasis::Predicted ? TimeBasis::Predicted : TimeBasis::AssumedMfu;
        QCOMPARE(r.baseStepSeconds, a.stepSeconds(time));
        QCOMPARE(r.baseDays, a.timeEstimate(time).reliability.paddedDays);
    }
    // The plan as given moves differently (the micro-batch bar's low end, for one): reading the
    // unsettled plan would show other numbers than the analysis stands for.
    const SensitivityResult unsettled = sensitivity(given);
    bool differs = false;
    for (size_t i = 0; i < unsettled.bars.size(); ++i)
        differs = differs || unsettled.bars[i].daysLow != a.sensitivity(SensitivityBasis::Predicted).bars[i].daysLow;
    QVERIFY(differs);
}

void TestAnalysis::copiesShareAndAnalyseStartsAfresh()
{
    Analyser analyser;
    Analysis a;
    analyser.analyse(defaultPlan(), a);
    const SensitivityResult* first = &a.sensitivity(SensitivityBasis::Predicted);
    QCOMPARE(&a.sensitivity(SensitivityBasis::Predicted), first);  // computed once
    const Analysis copy = a;
    QCOMPARE(&copy.sensitivity(SensitivityBasis::Predicted), first);  // shared, not recomputed
    QCOMPARE(&copy.scheduleComparison(), &a.scheduleComparison());
    // A new analysis in the same storage: new results, and the copy keeps the old ones.
    Plan slower = defaultPlan();
    slower.cluster.interNodeBytesPerSecond *= 0.5;
    analyser.analyse(slower, a);
    QVERIFY(a.sensitivity(SensitivityBasis::Predicted).baseDays > copy.sensitivity(SensitivityBasis::Predicted).baseDays);
    QCOMPARE(copy.sensitivity(SensitivityBasis::Predicted).baseDays, analyse(defaultPlan()).atPredictedMfu.reliability.paddedDays);
    // Alone in its storage, it starts afresh in place too.
    Analysis alone;
    analyser.analyse(defaultPlan(), alone);
    const double before = alone.sensitivity(SensitivityBasis::Predicted).baseDays;
    analyser.analyse(slower, alone);
    QVERIFY(alone.sensitivity(SensitivityBasis::Predicted).baseDays > before);
    QCOMPARE(alone.sensitivity(SensitivityBasis::Predicted).baseDays, a.sensitivity(SensitivityBasis::Predicted).baseDays);
}

void TestAnalysis::comparisonHasEveryKind()
{
    const Analysis a = analyse(defaultPlan());  // p = 4, m = 16, 1F1B
    const auto& lanes = a.scheduleComparison().schedules;
    const ScheduleKind kinds[] = {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved, ScheduleKind::ZeroBubbleH1};
    QCOMPARE(lanes.size(), size_t(4));
    for (size_t i = 0; i < 4; ++i) {
        QCOMPARE(lanes[i].kind, kinds[i]);
        QVERIFY2(lanes[i].problem.empty(), lanes[i].problem.c_str());
        // The plan's own kind is the analysis's simulated step, not a second one.
        QCOMPARE(lanes[i].isPlanSchedule, kinds[i] == ScheduleKind::OneFOneB);
        QCOMPARE(lanes[i].simulated(), !lanes[i].isPlanSchedule);
    }
    // Closed forms (p-1)/(m+p-1) = 3/19 and, at v = 2 (the plan has none), (p-1)/(vm+p-1) = 3/35.
    QCOMPARE(lanes[0].result->closedFormBubbleFraction, 3.0 / 19.0);
    QCOMPARE(lanes[2].v, 2);
    QCOMPARE(lanes[2].result->closedFormBubbleFraction, 3.0 / 35.0);
    QCOMPARE(a.schedule.closedFormBubbleFraction, 3.0 / 19.0);
    // GPipe holds every micro-batch.
    QCOMPARE(lanes[0].result->stages[0].peakInFlightMicrobatches, 16.0);
}

void TestAnalysis::comparisonSaysWhyAKindCannotRun()
{
    Plan plan = defaultPlan();
    plan.training.globalBatchSequences = 1152;  // over 64 replicas: m = 18, not a multiple of p = 4
    const Analysis a = analyse(plan);  // kept: the comparison lives in it
    const auto& lanes = a.scheduleComparison().schedules;
    QVERIFY(!lanes[2].simulated());
    QVERIFY2(lanes[2].problem.find("multiple of the pipeline stages") != std::string::npos, lanes[2].problem.c_str());
    for (int i : {0, 3})
        QVERIFY(lanes[size_t(i)].simulated());
}

void TestAnalysis::comparisonStopsAtTheLimit()
{
    Plan plan = defaultPlan();
    // m = 262,145 micro-batches over p = 4: p x m is past the limit for every kind. Interleaved
    // with m not a multiple of p, so that the analysis itself predicts in closed form and the
    // test simulates nothing that large.
    plan.training.globalBatchSequences = 64LL * (kMaxComparedChunkMicrobatches / 4 + 1);
    plan.training.tokens = double(plan.training.globalBatchSequences) * plan.model.sequenceLength * 10;
    plan.layout.schedule = Schedule::Interleaved;
    plan.layout.virtualStages = 2;
    const Analysis a = analyse(plan);
    QVERIFY(a.scheduleProblem);
    for (const auto& lane : a.scheduleComparison().schedules) {
        QVERIFY(lane.tooLarge);
        QVERIFY(lane.chunkMicrobatches > kMaxComparedChunkMicrobatches);
        QVERIFY(!lane.simulated());
    }
}

void TestAnalysis::searchRowIsTheSearchsPrediction()
{
    const Analysis a = analyse(testplans::unknownRecomputePlan());
    const auto& row = a.searchRow();
    QVERIFY(row);
    QCOMPARE(row->layout, searchLayoutOf(a.plan));
    // The search's prediction: the closed-form pipeline, from the settled plan and its estimate.
    StepTimeOptions options = stepTimeOptionsFor(a.plan);
    options.pipeline = PipelineMethod::ClosedForm;
    const PredictedStep closed = predictStep(a.plan, a.estimate, options);
    QCOMPARE(row->stepSeconds, closed.stepSeconds);
    QCOMPARE(row->totalSeconds, closed.totalSeconds);
    QCOMPARE(row->memoryBytes, a.estimate.perGpu.total);
    QCOMPARE(&a.searchRow(), &row);
}


void TestAnalysis::rangeIsTheSameOnTheHelperThread()
{
    // The window shares the range's variants with a second thread
    // (Analyser::shareRangeWithHelperThread): the range must come out exactly as one thread
    // computes it, for pipelines deep enough to share and for those that are not.
    std::vector<Plan> plans;
    for (int pp : {4, 16, 32, 64})
        plans.push_back(testplans::defaultPlanAtStages(pp));  // its framework switches are unknown: ten variants and more
    plans.push_back(testplans::largePipelinePlan());
    Plan settledRecompute = testplans::unknownRecomputePlan();
    settledRecompute.layout.dp /= 8;
    settledRecompute.layout.pp *= 8;
    plans.push_back(settledRecompute);
    for (const char* example : {"mixtral-8x22b-256-h100.json", "deepseek-v3-2048-h800.json"}) {
        Plan plan = loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + example);
        plans.push_back(plan);
        plan.layout.dp /= 2;
        plan.layout.pp *= 2;
        plans.push_back(plan);
    }

    Analyser alone, shared;
    shared.shareRangeWithHelperThread(true);
    Analysis a, b;
    int sharedPlans = 0;
    for (const Plan& plan : plans) {
        const std::string name = "PP " + std::to_string(plan.layout.pp) + ", " + std::to_string(plan.model.layers) + " layers";
        alone.analyse(plan, a);
        shared.analyse(plan, b);
        QCOMPARE(alone.variantsOnHelperThread(), 0);
        sharedPlans += shared.variantsOnHelperThread() > 0;
        const PredictedRange& ra = a.predicted.range;
        const PredictedRange& rb = b.predicted.range;
        QVERIFY2(!ra.unknownEffects.empty(), name.c_str());
        QCOMPARE(rb.unknownEffects.size(), ra.unknownEffects.size());
        for (size_t i = 0; i < ra.unknownEffects.size(); ++i) {
            QCOMPARE(rb.unknownEffects[i].field, ra.unknownEffects[i].field);
            QCOMPARE(rb.unknownEffects[i].slowerValue, ra.unknownEffects[i].slowerValue);
            QCOMPARE(rb.unknownEffects[i].fasterValue, ra.unknownEffects[i].fasterValue);
            QVERIFY2(rb.unknownEffects[i].slowerFactor == ra.unknownEffects[i].slowerFactor, name.c_str());
            QVERIFY2(rb.unknownEffects[i].fasterFactor == ra.unknownEffects[i].fasterFactor, name.c_str());
        }
        QVERIFY2(b.predicted.stepSeconds == a.predicted.stepSeconds, name.c_str());
        // The helper starts on the variants while the plan's own step is predicted and simulated:
        // that run, the timeline's, is the same too.
        QCOMPARE(b.schedule.events.size(), a.schedule.events.size());
        QVERIFY2(b.schedule.computeSeconds == a.schedule.computeSeconds && b.schedule.stepSeconds == a.schedule.stepSeconds, name.c_str());
        QVERIFY2(rb.low.stepSeconds == ra.low.stepSeconds && rb.high.stepSeconds == ra.high.stepSeconds, name.c_str());
        QVERIFY2(ra.low.stepSeconds > ra.high.stepSeconds, name.c_str());  // the unknowns act: a range to compare
    }
    // The deep pipelines went to the helper (else this compared one thread with itself), the
    // shallow ones did not (a hand-over would cost more than their simulations).
    QVERIFY(sharedPlans >= 4);
    QVERIFY(sharedPlans < int(plans.size()));
}

QTEST_MAIN(TestAnalysis)
#include "tst_analysis.moc"
