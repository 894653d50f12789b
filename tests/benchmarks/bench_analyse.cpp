// Benchmark: time per analyse() of the default plan, with its ten framework switches unknown
// (each measured alone for the range: one or two more step predictions apiece) and with a profile
// that settles them (the range is the model's error alone). The difference is what the range's
// per-unknown effects cost a slider tick.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/planfile/PlanFile.h"

namespace {

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Analyses the plans in turn (one plan: the same one every round).
double medianMicroseconds(const std::vector<trainplan::Plan>& plans, int rounds, bool helper = false)
{
    using clock = std::chrono::steady_clock;
    trainplan::Analyser analyser;
    analyser.shareRangeWithHelperThread(helper);
    trainplan::Analysis out;
    std::vector<double> times;
    for (int i = 0; i < rounds; ++i) {
        const trainplan::Plan& plan = plans[size_t(i) % plans.size()];
        const auto t0 = clock::now();
        analyser.analyse(plan, out);
        times.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());
    }
    return medianOf(times);
}

}  // namespace

int main()
{
    const auto unknown = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/70b-2048-h100.json");
    auto known = unknown;
    known.framework.profile = "megatron-core-2024";
    constexpr int kRounds = 400;
    const double withUnknowns = medianMicroseconds({unknown}, kRounds);
    const double settled = medianMicroseconds({known}, kRounds);
    std::printf("analyse() of the default plan, median over %d rounds (reused storage)\n", kRounds);
    std::printf("  10 framework switches unknown : %8.1f us\n", withUnknowns);
    std::printf("  profile megatron-core-2024    : %8.1f us\n", settled);
    std::printf("  the unknowns' effects cost    : %8.1f us per analysis\n", withUnknowns - settled);
    // The PP slider's slowest positions: the schedule grows with the stages. The window shares the
    // range's variants with a helper thread (Analyser::shareRangeWithHelperThread). Analysing one
    // plan again recalls simulations its last analysis remembered (ScheduleMemo), which a slider
    // tick, onto another layout, cannot: the last column cycles four plans whose GPUs differ in
    // peak by 0.1 % steps, so every op's time, and every simulation, is new each round.
    std::printf("  %-30s %10s %12s %14s\n", "", "one thread", "with helper", "helper, fresh");
    for (int pp : {4, 8, 16, 32, 64}) {
        auto deep = unknown;
        deep.layout.pp = pp;
        deep.layout.dp = unknown.layout.dp * unknown.layout.pp / pp;
        std::vector<trainplan::Plan> fresh(4, deep);
        for (size_t i = 0; i < fresh.size(); ++i)
            fresh[i].cluster.peakFlopsPerGpu *= 1.0 + 1e-3 * double(i);
        std::printf("  PP = %2d (DP %2d), unknowns      %7.1f us %9.1f us %11.1f us\n", pp, deep.layout.dp,
                    medianMicroseconds({deep}, kRounds / 4), medianMicroseconds({deep}, kRounds / 4, true),
                    medianMicroseconds(fresh, kRounds / 4, true));
    }
    return 0;
}
