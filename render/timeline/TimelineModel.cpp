#include "timeline/TimelineModel.h"

#include "steptime/StepTimeModel.h"

#include <algorithm>
#include <exception>

using trainplan::Schedule;
using trainplan::ScheduleKind;

namespace {

constexpr ScheduleKind kComparedKinds[] = {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved,
                                           ScheduleKind::ZeroBubbleH1};

// The core's exception messages start with the function's name; the window shows only
// the reason.
QString reasonOf(const std::exception& e)
{
    QString text = QString::fromUtf8(e.what());
    const QString prefix = QStringLiteral("simulateSchedule: ");
    if (text.startsWith(prefix))
        text.remove(0, prefix.size());
    return text;
}

// Nothing stale to draw for a lane that could not be simulated, but its buffers stay
// allocated for the next tick.
void clearKeepingStorage(trainplan::ScheduleResult& r, ScheduleKind kind, int v)
{
    r.events.clear();
    r.stages.clear();
    r.kind = kind;
    r.p = 0;
    r.m = 0;
    r.v = v;
    r.computeSeconds = r.stepSeconds = r.bubbleFraction = r.closedFormBubbleFraction = 0;
    r.dpSyncHiddenSeconds = r.dpSyncExposedSeconds = 0;
}

}  // namespace

TimelineModel::TimelineModel() = default;
TimelineModel::~TimelineModel() = default;

QString TimelineModel::kindTitle(ScheduleKind kind, int v)
{
    switch (kind) {
    case ScheduleKind::GPipe: return QStringLiteral("GPipe");
    case ScheduleKind::OneFOneB: return QStringLiteral("1F1B");
    case ScheduleKind::Interleaved: return QStringLiteral("Interleaved 1F1B, v = %1").arg(v);
    case ScheduleKind::ZeroBubbleH1: return QStringLiteral("Zero bubble (ZB-H1)");
    }
    return {};
}

QString TimelineModel::kindShortTitle(ScheduleKind kind, int v)
{
    switch (kind) {
    case ScheduleKind::Interleaved: return QStringLiteral("Interleaved v=%1").arg(v);
    case ScheduleKind::ZeroBubbleH1: return QStringLiteral("ZB-H1");
    default: return kindTitle(kind, v);
    }
}

void TimelineModel::setPlan(const trainplan::Plan& plan, const trainplan::Estimate& est)
{
    plan_ = plan;
    est_ = est;
    hasPlan_ = true;
    simulateLanes();
}

void TimelineModel::setAnalysis(const trainplan::Analysis& analysis)
{
    plan_ = analysis.plan;
    est_ = analysis.estimate;
    hasPlan_ = true;
    analysis_ = &analysis;
    simulateLanes();
    analysis_ = nullptr;
}

void TimelineModel::setMode(Mode mode)
{
    if (mode == mode_)
        return;
    mode_ = mode;
    if (hasPlan_)
        simulateLanes();
}

void TimelineModel::setResults(std::vector<trainplan::ScheduleResult> results)
{
    hasPlan_ = false;
    ++revision_;  // also when there are no lanes left
    lanes_.resize(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
        if (!lanes_[i])
            lanes_[i] = std::make_unique<TimelineLane>();
        TimelineLane& lane = *lanes_[i];
        lane.kind = results[i].kind;
        lane.v = results[i].v;
        lane.problem.clear();
        lane.track.result() = std::move(results[i]);
        finishLane(lane);
    }
}

void TimelineModel::simulateLanes()
{
    const size_t count = mode_ == Mode::Comparison ? std::size(kComparedKinds) : 1;
    lanes_.resize(count);
    for (auto& lane : lanes_)
        if (!lane)
            lane = std::make_unique<TimelineLane>();
    if (mode_ == Mode::PlanSchedule) {
        simulateLane(*lanes_[0], trainplan::scheduleKindOf(plan_.layout.schedule));
        return;
    }
    for (size_t i = 0; i < count; ++i)
        simulateLane(*lanes_[i], kComparedKinds[i]);
}

void TimelineModel::simulateLane(TimelineLane& lane, ScheduleKind kind)
{
    lane.kind = kind;
    lane.problem.clear();
    const trainplan::Plan* plan = &plan_;
    const trainplan::Estimate* est = &est_;
    // The comparison shows interleaving even for a plan that does not use it: with the
    // plan's v when it has one (>= 2), else v = 2, the smallest interleaving.
    if (kind == ScheduleKind::Interleaved && mode_ == Mode::Comparison && plan_.layout.virtualStages < 2) {
        interleavedPlan_ = plan_;
        interleavedPlan_.layout.virtualStages = 2;
        interleavedPlan_.layout.schedule = Schedule::Interleaved;
        trainplan::estimateInto(interleavedPlan_, interleavedEst_);  // scheduleCosts wants estimate(plan)
        plan = &interleavedPlan_;
        est = &interleavedEst_;
    }
    lane.v = kind == ScheduleKind::Interleaved ? plan->layout.virtualStages : 1;
    const long long chunkMicrobatches = (long long)plan->layout.pp * lane.v * est->pipeline.microbatches;
    if (est->stages.size() != size_t(std::max(0, plan->layout.pp))) {
        lane.problem = QStringLiteral("the estimate has no per-stage split for PP = %1").arg(plan->layout.pp);
    } else if (chunkMicrobatches > kMaxLiveChunkMicrobatches) {
        lane.problem = QStringLiteral("p × v × m = %L1 chunk micro-batches is more than the window draws live (%L2); "
                                      "trainplan-cli schedule simulates it")
                           .arg(chunkMicrobatches)
                           .arg(kMaxLiveChunkMicrobatches);
    } else if (analysis_ && kind == trainplan::scheduleKindOf(plan_.layout.schedule) && plan == &plan_) {
        // The plan's own schedule: the analysis already simulated it.
        if (analysis_->scheduleProblem)
            lane.problem = QString::fromStdString(analysis_->scheduleProblem->message);
        else
            lane.track.result() = analysis_->schedule;
    } else {
        try {
            // Op durations from the step-time model (the timeline shows the
            // predicted components), the same for every compared kind.
            simulator_.simulate(trainplan::predictedScheduleCosts(*plan, *est, trainplan::stepTimeOptionsFor(*plan), kind), kind,
                                lane.track.result());
        } catch (const std::exception& e) {
            // invalid_argument: the plan cannot run the kind. Anything else would be a core
            // bug; the lane says so rather than taking the window down.
            lane.problem = reasonOf(e);
        }
    }
    if (!lane.simulated())
        clearKeepingStorage(lane.track.result(), kind, lane.v);
    finishLane(lane);
}

void TimelineModel::finishLane(TimelineLane& lane)
{
    ++revision_;
    lane.track.reindex();
    lane.inFlight.build(lane.track);
}

double TimelineModel::fullSeconds() const
{
    double longest = 0;
    for (const auto& lane : lanes_)
        if (lane->simulated())
            longest = std::max(longest, lane->result().stepSeconds);
    return longest;
}
