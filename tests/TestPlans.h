// Plans the tests and benchmarks share, so each case is defined once.
#pragma once

#include "core/plan/ParallelDims.h"
#include "core/plan/Plan.h"
#include "core/planfile/WorkedExamples.h"

namespace testplans {

// The worked example A plan stretched to p = 64 stages of v = 4 chunks (256 layers, one per chunk)
// with DP = 1 at b = 1, so that B = 1,024 sequences make m = 1,024 micro-batches: the timeline's
// speed case for the schedule simulator and the timeline.
inline trainplan::Plan largePipelinePlan()
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.layout.pp = 64;
    plan.layout.dp = 1;
    plan.layout.tp = 8;
    plan.layout.virtualStages = 4;
    plan.layout.schedule = trainplan::Schedule::Interleaved;
    plan.model.layers = 256;
    plan.cluster.gpus = 512;
    plan.training.globalBatchSequences = 1024;
    return plan;
}

// Worked example A (the default plan, its framework switches unknown) at `pp` stages on the same
// GPUs, DP shrinking as the window's PP slider does: at 64 stages of 256 micro-batches, the
// slider's slowest tick (the analysis's range variants, the timeline's rows, the diagram).
inline trainplan::Plan defaultPlanAtStages(int pp)
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.layout.dp = plan.layout.dp * plan.layout.pp / pp;
    plan.layout.pp = pp;
    return plan;
}

// Worked example A with a different size in every parallel dimension (2, 4, 8, 16 in table
// order) on exactly the GPUs they use: a view that mixes two dimensions up shows it.
inline trainplan::Plan distinctSizesPlan()
{
    trainplan::Plan plan = trainplan::defaultPlan();
    int size = 2;
    for (trainplan::ParallelDim d : trainplan::kParallelDims) {
        plan.layout.size(d) = size;
        size *= 2;
    }
    plan.layout.dpAuto = false;
    plan.cluster.gpus = int(plan.layout.gpus());
    return plan;
}

// Worked example A at micro-batch 8 and 8k tokens with its recompute left unknown: it fits only
// with recompute, so the analysis settles one (analysis/PlanUnknowns.h) and the settled plan's
// figures differ from the plan's as given (sensitivity's micro-batch bar, for one).
inline trainplan::Plan unknownRecomputePlan()
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.training.microBatchSize = 8;
    plan.model.sequenceLength = 8192;
    plan.training.globalBatchSequences = 2048;
    plan.layout.recompute = trainplan::Recompute::None;
    plan.layout.recomputeLayers = 0;
    plan.layout.unknownFields |= trainplan::kUnknownRecompute;
    return plan;
}

}  // namespace testplans
