#include "core/analysis/ScheduleComparison.h"

#include <algorithm>
#include <exception>
#include <string>

#include "core/analysis/Analysis.h"

namespace trainplan {

namespace {

constexpr ScheduleKind kComparedKinds[] = {
    ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved, ScheduleKind::ZeroBubbleH1, ScheduleKind::DualPipe};

}  // namespace

ScheduleComparison compareSchedules(const Analysis& analysis)
{
    const Plan& plan = analysis.plan;
    const ScheduleKind own = scheduleKindOf(plan.layout.schedule);
    // Interleaving is shown even for a plan that does not use it: with the plan's v when it has
    // one (>= 2), else v = 2, the smallest interleaving, whose estimate the costs need.
    Plan interleaved;
    Estimate interleavedEstimate;
    const bool interleavedVariant = plan.layout.virtualStages < 2;
    if (interleavedVariant) {
        interleaved = plan;
        interleaved.layout.virtualStages = 2;
        interleaved.layout.schedule = Schedule::Interleaved;
        estimateInto(interleaved, interleavedEstimate);
    }
    // DualPipe changes what a GPU holds and reduces (two stages), so its lane would need its own
    // estimate; and a fifth lane leaves a 720-pixel window no room for the in-flight strip. It is
    // compared only on a plan that runs it, beside the four others.
    ScheduleSimulator simulator;
    ScheduleComparison out;
    for (const ScheduleKind kind : kComparedKinds) {
        if (kind == ScheduleKind::DualPipe && own != ScheduleKind::DualPipe)
            continue;
        const bool variant = kind == ScheduleKind::Interleaved && interleavedVariant;
        const Plan& p = variant ? interleaved : plan;
        const Estimate& est = variant ? interleavedEstimate : analysis.estimate;
        ComparedSchedule lane;
        lane.kind = kind;
        lane.v = kind == ScheduleKind::Interleaved ? p.layout.virtualStages : 1;
        lane.chunkMicrobatches = (long long)p.layout.pp * lane.v * est.pipeline.microbatches;
        if (est.stages.size() != size_t(std::max(0, p.layout.pp))) {
            lane.problem = "the estimate has no per-stage split for PP = " + std::to_string(p.layout.pp);
        } else if (lane.chunkMicrobatches > kMaxComparedChunkMicrobatches) {
            lane.tooLarge = true;
        } else if (kind == own && !variant) {
            lane.isPlanSchedule = true;
        } else {
            try {
                // Op durations from the step-time model (the timeline shows the predicted
                // components), the same for every kind.
                auto result = std::make_shared<ScheduleResult>();
                simulator.simulate(predictedScheduleCosts(p, est, stepTimeOptionsFor(p), kind), kind, *result);
                lane.result = std::move(result);
            } catch (const std::exception& e) {
                // invalid_argument: the plan cannot run the kind. Anything else would be a bug;
                // the lane says so rather than taking the caller down.
                lane.problem = e.what();
            }
        }
        out.schedules.push_back(std::move(lane));
    }
    return out;
}

}  // namespace trainplan
