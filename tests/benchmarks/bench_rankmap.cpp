// Rank map speed at 16,384 GPUs (the window queries it every frame).
// Measures: building the map; one "frame" of queries (for every rank: location,
// coordinates, its TP, CP, DP groups and pipeline with their node crossing, its pipeline
// neighbours); walking every member of every group of every rank; and the summary.
// Prints figures; asserts nothing (speed targets are measured, not asserted).
#include <chrono>
#include <cstdio>

#include "core/base/Units.h"
#include "core/estimate/Estimate.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/PlanFile.h"
#include "core/rankmap/RankMap.h"

using namespace trainplan;

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double secondsPerRun(int runs, F&& f)
{
    const auto start = Clock::now();
    for (int i = 0; i < runs; ++i)
        f();
    return std::chrono::duration<double>(Clock::now() - start).count() / runs;
}

volatile long long g_sink = 0;  // keeps results alive

}  // namespace

int main()
{
    // The seed's 70B plan scaled to 16,384 H100s: TP 8 x PP 8 x DP 256, 8 GPUs per node.
    Plan plan = loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/70b-2048-h100.json");
    plan.layout.tp = 8;
    plan.layout.pp = 8;
    plan.layout.dp = 256;
    plan.layout.cp = 1;
    plan.cluster.gpus = 16384;
    plan.training.globalBatchSequences = 4096;

    const double build = secondsPerRun(1'000'000, [&] {
        RankMap map(plan);
        g_sink = g_sink + map.worldSize();
    });
    const RankMap map(plan);
    const int world = map.worldSize();

    // One frame: everything the window asks about every GPU.
    const auto frame = [&] {
        long long sum = 0;
        for (int r = 0; r < world; ++r) {
            const GpuLocation at = map.location(r);
            const RankCoords c = map.coordinates(r);
            sum += at.node + at.localGpu + c.tp + c.cp + c.dp + c.pp;
            for (ParallelDim d : kParallelDims) {
                const RankGroup g = map.group(d, r);
                sum += g.first + g.size + map.crossesNodes(g);
            }
            sum += map.previousStage(r).value_or(-1) + map.nextStage(r).value_or(-1);
        }
        g_sink = g_sink + sum;
    };
    const int frames = 200;
    const double frameSeconds = secondsPerRun(frames, frame);
    const double queriesPerRank = 2 + kParallelDimCount * 2 + 2;  // location, coords, 4 x (group, crossing), 2 neighbours

    // Every member of every group of every rank: sum over ranks of TP + CP + DP + PP sizes.
    long long members = 0;
    const double walkSeconds = secondsPerRun(20, [&] {
        long long sum = 0;
        members = 0;
        for (int r = 0; r < world; ++r)
            for (ParallelDim d : kParallelDims) {
                const RankGroup g = map.group(d, r);
                for (int i = 0; i < g.size; ++i)
                    sum += map.node(g[i]);
                members += g.size;
            }
        g_sink = g_sink + sum;
    });

    const Estimate est = estimate(plan);
    const double summarySeconds = secondsPerRun(200, [&] {
        const RankMapSummary s = map.summarize(est);
        g_sink = g_sink + s.nodesPerReplica;
    });
    const RankMapSummary s = map.summarize(est);

    std::printf("rank map, %d GPUs (TP %d x CP %d x DP %d x PP %d, %d per node, %d nodes)\n", world,
                map.size(ParallelDim::Tp), map.size(ParallelDim::Cp), map.size(ParallelDim::Dp), map.size(ParallelDim::Pp),
                map.gpusPerNode(), map.nodes());
    std::printf("  build the map:                    %10.1f ns\n", build / units::nano);
    std::printf("  one frame, all ranks, all groups: %10.3f ms  (%.0f queries, %.2f ns per query)\n",
                frameSeconds * units::millisecondsPerSecond,
                world * queriesPerRank, frameSeconds / (world * queriesPerRank) / units::nano);
    std::printf("  walk every group member:          %10.3f ms  (%lld members, %.2f ns per member)\n",
                walkSeconds * units::millisecondsPerSecond,
                members, walkSeconds / double(members) / units::nano);
    std::printf("  summary (counts, crossings, bytes): %8.3f ms\n", summarySeconds * units::millisecondsPerSecond);
    std::printf("  replicas %d, nodes per replica %d; TP groups inside a node %d of %d; DP groups crossing %d of %d\n",
                s.replicas, s.nodesPerReplica, s[ParallelDim::Tp].groupsInsideNode, s[ParallelDim::Tp].groups,
                s[ParallelDim::Dp].groupsCrossingNodes, s[ParallelDim::Dp].groups);
    return g_sink == 42 ? 1 : 0;
}
