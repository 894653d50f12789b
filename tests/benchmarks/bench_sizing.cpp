// Benchmark: sizing the default plan (worked example A, 70B) over six accelerators and every GPU
// count from 8 to 32,768 (issue 27's target: under 2 s on the project's 2-core machine), the
// same question as `trainplan-cli size examples/70b-2048-h100.json --deadline-days 12 --gpus 8:32768`
// with six --gpu parts. Three rounds; prints the median and the spread, and the cores' share.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "core/planfile/PlanFile.h"
#include "core/sizing/ClusterSizing.h"

namespace {

double processCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

}  // namespace

int main()
{
    const auto plan = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/70b-2048-h100.json");
    trainplan::SizingOptions options;
    options.deadlineDays = 12;
    options.minGpus = 8;
    options.maxGpus = 32768;
    for (const char* part : {"A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "B200 180GB", "MI300X 192GB", "GB200 NVL72 186GB"})
        options.accelerators.push_back({part, std::nullopt});
    constexpr int kRounds = 3;
    std::vector<double> wall, cpu;
    trainplan::SizingResult last;
    for (int i = 0; i < kRounds; ++i) {
        const double cpu0 = processCpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        last = trainplan::sizeCluster(plan, options);
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpu.push_back(processCpuSeconds() - cpu0);
    }
    std::vector<double> sorted = wall;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::printf("sizing, default plan, 6 accelerators x 8..32,768 GPUs: %zu configurations, %lld layouts searched\n",
                last.points.size(), last.layoutsEvaluated);
    std::printf("  wall time: %.3f / %.3f / %.3f s (median %.3f s, spread %.3f s)\n", wall[0], wall[1], wall[2], median,
                sorted.back() - sorted.front());
    std::printf("  CPU time per round %.2f s: %.2fx the wall time on %s\n", cpu[kRounds / 2], cpu[kRounds / 2] / wall[kRounds / 2],
                "this machine's cores");
    std::printf("  target: under 2 s -> %s\n", median < 2.0 ? "met" : "NOT met");
    return last.points.empty() || !last.cheapest ? 1 : 0;
}
