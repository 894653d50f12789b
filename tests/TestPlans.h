// Plans the tests and benchmarks share, so each case is defined once.
#pragma once

#include "plan/Plan.h"
#include "planfile/WorkedExamples.h"

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

}  // namespace testplans
