// Benchmark: one simulated pipeline step for p = 64, m = 1,024, v = 4 (target:
// under 10 ms on the project's 2-core machine), for each schedule kind (DualPipe: v = 1, its two
// directions over the same p stages).
//   fresh:  simulateSchedule(), allocating its result and scratch every call
//   reused: ScheduleSimulator::simulate() into a result kept across calls (the live view)
// Costs come from the worked-example plan's cost model with the layout changed to p = 64.
#include "../TestPlans.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/estimate/Estimate.h"
#include "core/plan/PlanIO.h"
#include "core/schedule/Schedule.h"
#include "core/steptime/StepTimeModel.h"

namespace {

struct Summary {
    double medianMs;
    double p99Ms;
};

Summary summarize(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, size_t(0.99 * ms.size()))]};
}

}  // namespace

int main(int argc, char** argv)
{
    using clock = std::chrono::steady_clock;
    const int repetitions = argc > 1 ? std::max(1, std::stoi(argv[1])) : 200;

    const trainplan::Plan plan = testplans::largePipelinePlan();
    const auto est = trainplan::estimate(plan);

    std::printf("p = %d, m = %lld, v = %d; %d repetitions per kind\n", plan.layout.pp,
                (long long)est.pipeline.microbatches, plan.layout.virtualStages, repetitions);
    std::printf("%-12s %9s %12s %12s %12s %12s\n", "kind", "events", "fresh med", "fresh p99", "reused med", "reused p99");

    double sink = 0;
    for (auto kind : {trainplan::ScheduleKind::Interleaved, trainplan::ScheduleKind::OneFOneB,
                      trainplan::ScheduleKind::GPipe, trainplan::ScheduleKind::ZeroBubbleH1, trainplan::ScheduleKind::DualPipe}) {
        const auto costs = trainplan::predictedScheduleCosts(plan, est, trainplan::stepTimeOptionsFor(plan), kind);
        std::vector<double> fresh, reused;
        trainplan::ScheduleSimulator simulator;
        trainplan::ScheduleResult result;
        simulator.simulate(costs, kind, result);  // warm the reused buffers
        for (int i = 0; i < repetitions; ++i) {
            const auto t0 = clock::now();
            const auto r = trainplan::simulateSchedule(costs, kind);
            const auto t1 = clock::now();
            sink += r.stepSeconds;
            simulator.simulate(costs, kind, result);
            const auto t2 = clock::now();
            sink += result.bubbleFraction;
            fresh.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            reused.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        }
        const auto f = summarize(fresh);
        const auto r = summarize(reused);
        std::printf("%-12s %9zu %9.3f ms %9.3f ms %9.3f ms %9.3f ms\n", trainplan::scheduleKindName(kind),
                    result.events.size(), f.medianMs, f.p99Ms, r.medianMs, r.p99Ms);
    }
    std::printf("(checksum %.6g)\n", sink);
    return 0;
}
