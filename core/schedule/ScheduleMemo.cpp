#include "core/schedule/ScheduleMemo.h"

namespace trainplan {

namespace {

bool sameStage(const StageCosts& a, const StageCosts& b)
{
    return a.forwardSeconds == b.forwardSeconds && a.backwardSeconds == b.backwardSeconds && a.weightGradSeconds == b.weightGradSeconds
        && a.forwardCommSeconds == b.forwardCommSeconds && a.backwardCommSeconds == b.backwardCommSeconds;
}

bool sameCosts(const ScheduleCosts& a, const ScheduleCosts& b)
{
    if (a.p != b.p || a.m != b.m || a.v != b.v || a.sendSeconds != b.sendSeconds || a.dpSyncSeconds != b.dpSyncSeconds
        || a.pairedCommSlowdown != b.pairedCommSlowdown || a.stages.size() != b.stages.size())
        return false;
    for (std::size_t i = 0; i < a.stages.size(); ++i)
        if (!sameStage(a.stages[i], b.stages[i]))
            return false;
    return true;
}

// A field added to these structs must be compared (sameStage, sameCosts) or copied (copyTimes): these
// stop compiling when one is, until the mirrors below list it too.
struct StageCostsFields {
    double forward, backward, weightGrad, forwardComm, backwardComm;
};
struct ScheduleResultFields {
    ScheduleKind kind;
    int p;
    long long m;
    int v;
    ScheduleEvents events;
    double computeSeconds, stepSeconds, bubbleFraction, closedFormBubbleFraction;
    std::vector<StageScheduleStats> stages;
    double dpSyncHiddenSeconds, dpSyncExposedSeconds;
};
struct ScheduleCostsFields {
    std::vector<StageCosts> stages;
    double sendSeconds, dpSyncSeconds;
    int p;
    long long m;
    int v;
    double pairedCommSlowdown;
};
static_assert(sizeof(StageCosts) == sizeof(StageCostsFields), "a new StageCosts field: compare it in sameStage");
static_assert(sizeof(ScheduleCosts) == sizeof(ScheduleCostsFields), "a new ScheduleCosts field: compare it in sameCosts");
static_assert(sizeof(ScheduleResult) == sizeof(ScheduleResultFields), "a new ScheduleResult field: copy it in copyTimes");

}  // namespace

const ScheduleResult* ScheduleMemo::find(const ScheduleCosts& costs, ScheduleKind kind) const
{
    for (const Entry& e : entries_)
        if (e.used && e.kind == kind && sameCosts(e.costs, costs))
            return &e.result;
    return nullptr;
}

void ScheduleMemo::remember(const ScheduleCosts& costs, ScheduleKind kind, const ScheduleResult& result)
{
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e.used = true;
    e.kind = kind;
    e.costs = costs;
    copyTimes(result, e.result);
}

void ScheduleMemo::copyTimes(const ScheduleResult& result, ScheduleResult& out)
{
    out.kind = result.kind;
    out.p = result.p;
    out.m = result.m;
    out.v = result.v;
    out.events.clear();
    out.computeSeconds = result.computeSeconds;
    out.stepSeconds = result.stepSeconds;
    out.bubbleFraction = result.bubbleFraction;
    out.closedFormBubbleFraction = result.closedFormBubbleFraction;
    out.stages = result.stages;
    out.dpSyncHiddenSeconds = result.dpSyncHiddenSeconds;
    out.dpSyncExposedSeconds = result.dpSyncExposedSeconds;
}

}  // namespace trainplan
