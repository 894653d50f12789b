// Benchmark: time per estimate() for the default plan and a sweep of layouts (target: median under
// 5 µs per plan on the project's 2-core machine), and per estimate plus step-time prediction of one
// layout as the layout search runs them (targets: 1 µs for a dense plan, 2 µs for an MoE plan;
// issues 24 and 28).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/base/Units.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/PlanFile.h"
#include "core/steptime/StepTimeModel.h"

namespace {

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * v.size()))];
}

}  // namespace

int main()
{
    using clock = std::chrono::steady_clock;
    const auto base = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/70b-2048-h100.json");

    // A sweep of layouts a search would visit: TP x PP x micro-batch x recompute.
    std::vector<trainplan::Plan> plans;
    for (int tp : {1, 2, 4, 8})
        for (int pp : {1, 2, 4, 8, 16})
            for (int mb : {1, 2, 4})
                for (auto rc : {trainplan::Recompute::None, trainplan::Recompute::Selective, trainplan::Recompute::Full}) {
                    auto p = base;
                    p.layout.tp = tp;
                    p.layout.pp = pp;
                    p.layout.dp = 2048 / (tp * pp);
                    p.training.microBatchSize = mb;
                    p.layout.recompute = rc;
                    plans.push_back(p);
                }

    trainplan::Estimate reused;
    constexpr int kRounds = 200;
    std::vector<double> perPlanFresh, perPlanReused, defaultOnly;
    double sink = 0;
    for (int round = 0; round < kRounds; ++round) {
        auto t0 = clock::now();
        for (const auto& p : plans)
            sink += trainplan::estimate(p).time.days;
        auto t1 = clock::now();
        for (const auto& p : plans) {
            trainplan::estimateInto(p, reused);
            sink += reused.perGpu.total;
        }
        auto t2 = clock::now();
        constexpr int kRepeat = 100;
        for (int i = 0; i < kRepeat; ++i) {
            trainplan::estimateInto(base, reused);
            sink += reused.time.days;
        }
        auto t3 = clock::now();
        perPlanFresh.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / plans.size());
        perPlanReused.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count() / plans.size());
        defaultOnly.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count() / kRepeat);
    }
    std::printf("estimate() over %zu layouts x %d rounds\n", plans.size(), kRounds);
    std::printf(
        "  fresh Estimate each call : median %.3f us, p99 %.3f us per plan\n", medianOf(perPlanFresh), percentile(perPlanFresh, 0.99));
    std::printf("  reused Estimate storage  : median %.3f us, p99 %.3f us per plan (%.0f plans/s)\n", medianOf(perPlanReused),
                percentile(perPlanReused, 0.99), trainplan::units::microsecondsPerSecond / medianOf(perPlanReused));
    std::printf("  default plan (worked example A)  : median %.3f us per plan\n", medianOf(defaultOnly));
    std::printf("  target: median < 5 us per plan -> %s\n", medianOf(perPlanFresh) < 5.0 ? "met" : "NOT met");

    // Estimate plus prediction of one layout, as the search's inner loop calls them (the search
    // scope, the closed-form pipeline, storage reused).
    std::printf("estimate + step-time prediction of one layout, as the layout search runs them (median of 15 rounds of 20,000)\n");
    struct Case {
        const char* name;
        const char* file;
        double targetMicroseconds;
    };
    for (const Case& c : {Case{"default plan (dense, 70B)", "70b-2048-h100.json", 1.0},
                          Case{"Mixtral 8x22B (MoE)", "mixtral-8x22b-256-h100.json", 2.0},
                          Case{"DeepSeek-V3 (MoE, MLA, MTP)", "deepseek-v3-2048-h800.json", 2.0}}) {
        const auto plan = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + c.file);
        auto options = trainplan::stepTimeOptionsFor(plan);
        options.pipeline = trainplan::PipelineMethod::ClosedForm;
        trainplan::Estimate est;
        trainplan::StepTimeWorkspace workspace;
        trainplan::PredictedStep predicted;
        std::vector<double> rounds;
        for (int round = 0; round < 15; ++round) {
            constexpr int kCalls = 20000;
            const auto t0 = clock::now();
            for (int i = 0; i < kCalls; ++i) {
                trainplan::estimateInto(plan, est, trainplan::EstimateScope::LayoutSearch);
                workspace.predict(plan, est, options, predicted);
                sink += predicted.stepSeconds;
            }
            rounds.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count() / kCalls);
        }
        std::sort(rounds.begin(), rounds.end());
        std::printf("  %-28s: median %.3f us (min %.3f, max %.3f); target %.0f us -> %s\n", c.name, medianOf(rounds), rounds.front(),
                    rounds.back(), c.targetMicroseconds, medianOf(rounds) <= c.targetMicroseconds ? "met" : "NOT met");
    }
    return sink == 42.0 ? 1 : 0;
}
