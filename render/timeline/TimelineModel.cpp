#include "render/timeline/TimelineModel.h"

#include <algorithm>
#include <string>

using trainplan::Schedule;
using trainplan::ScheduleKind;

namespace {

// The core's exception messages start with the function's name; the window shows only
// the reason.
QString reasonOf(const std::string& message)
{
    QString text = QString::fromStdString(message);
    const QString prefix = QStringLiteral("simulateSchedule: ");
    if (text.startsWith(prefix))
        text.remove(0, prefix.size());
    return text;
}

QString tooLargeText(long long chunkMicrobatches)
{
    return QStringLiteral("p × v × m = %L1 chunk micro-batches is more than the window draws live (%L2); "
                          "trainplan-cli schedule simulates it")
        .arg(chunkMicrobatches)
        .arg(TimelineModel::kMaxLiveChunkMicrobatches);
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
    case ScheduleKind::GPipe:
        return QStringLiteral("GPipe");
    case ScheduleKind::OneFOneB:
        return QStringLiteral("1F1B");
    case ScheduleKind::Interleaved:
        return QStringLiteral("Interleaved 1F1B, v = %1").arg(v);
    case ScheduleKind::ZeroBubbleH1:
        return QStringLiteral("Zero bubble (ZB-H1)");
    case ScheduleKind::DualPipe:
        return QStringLiteral("DualPipe (two directions)");
    }
    return {};
}

QString TimelineModel::kindShortTitle(ScheduleKind kind, int v)
{
    switch (kind) {
    case ScheduleKind::Interleaved:
        return QStringLiteral("Interleaved v=%1").arg(v);
    case ScheduleKind::ZeroBubbleH1:
        return QStringLiteral("ZB-H1");
    case ScheduleKind::DualPipe:
        return QStringLiteral("DualPipe");
    default:
        return kindTitle(kind, v);
    }
}

void TimelineModel::setAnalysis(const trainplan::Analysis& analysis)
{
    hasPlan_ = true;
    if (mode_ == Mode::PlanSchedule) {
        lanes_.resize(1);
        if (!lanes_[0])
            lanes_[0] = std::make_unique<TimelineLane>();
        planLane(*lanes_[0], analysis);
        return;
    }
    const auto& compared = analysis.scheduleComparison().schedules;
    lanes_.resize(compared.size());
    for (size_t i = 0; i < compared.size(); ++i) {
        if (!lanes_[i])
            lanes_[i] = std::make_unique<TimelineLane>();
        if (compared[i].isPlanSchedule)
            planLane(*lanes_[i], analysis);
        else
            comparedLane(*lanes_[i], compared[i]);
    }
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
        lane.forwardAllToAllShare.clear();
        lane.backwardAllToAllShare.clear();
        lane.kind = results[i].kind;
        lane.v = results[i].v;
        lane.problem.clear();
        lane.track.ownResult() = std::move(results[i]);
        finishLane(lane);
    }
}

void TimelineModel::planLane(TimelineLane& lane, const trainplan::Analysis& analysis)
{
    const trainplan::Plan& plan = analysis.plan;
    const trainplan::Estimate& est = analysis.estimate;
    lane.kind = trainplan::scheduleKindOf(plan.layout.schedule);
    lane.v = lane.kind == ScheduleKind::Interleaved ? plan.layout.virtualStages : 1;
    lane.problem.clear();
    const long long chunkMicrobatches = (long long)plan.layout.pp * lane.v * est.pipeline.microbatches;
    if (est.stages.size() != size_t(std::max(0, plan.layout.pp)))
        lane.problem = QStringLiteral("the estimate has no per-stage split for PP = %1").arg(plan.layout.pp);
    else if (chunkMicrobatches > kMaxLiveChunkMicrobatches)
        lane.problem = tooLargeText(chunkMicrobatches);
    else if (analysis.scheduleProblem)
        lane.problem = reasonOf(analysis.scheduleProblem->message);
    allToAllShares(lane, analysis);
    const trainplan::PredictedComponents& c = analysis.predicted.components;
    lane.afterStepSeconds = c.optimizer + std::max(0.0, c.dpCommunication - analysis.schedule.dpSyncExposedSeconds);
    if (lane.simulated())
        lane.track.ownResult() = analysis.schedule;  // copied into storage the last tick left
    else
        clearKeepingStorage(lane.track.ownResult(), lane.kind, lane.v);
    finishLane(lane);
}

void TimelineModel::allToAllShares(TimelineLane& lane, const trainplan::Analysis& analysis)
{
    lane.forwardAllToAllShare.clear();
    lane.backwardAllToAllShare.clear();
    const trainplan::Plan& plan = analysis.plan;
    const auto& layers = analysis.predicted.layers;
    if (!plan.model.hasMoeLayers() || layers.empty())
        return;
    for (const trainplan::StageEstimate& stage : analysis.estimate.stages) {
        double forward = 0, backward = 0, forwardA2a = 0, backwardA2a = 0;
        trainplan::forEachKindIn(plan.model, stage.firstLayer, stage.layers, [&](int k, int count) {
            if (size_t(k) >= layers.size())
                return;
            const trainplan::LayerTimes& L = layers[size_t(k)];
            forward += count * L.forward();
            backward += count * L.backward();
            forwardA2a += count * L.forwardAllToAll;
            backwardA2a += count * L.backwardAllToAll;
        });
        lane.forwardAllToAllShare.push_back(forward > 0 ? std::clamp(forwardA2a / forward, 0.0, 1.0) : 0.0);
        lane.backwardAllToAllShare.push_back(backward > 0 ? std::clamp(backwardA2a / backward, 0.0, 1.0) : 0.0);
    }
}

void TimelineModel::comparedLane(TimelineLane& lane, const trainplan::ComparedSchedule& compared)
{
    lane.forwardAllToAllShare.clear();
    lane.backwardAllToAllShare.clear();
    lane.kind = compared.kind;
    lane.v = compared.v;
    lane.afterStepSeconds = 0.0;
    lane.problem = compared.tooLarge ? tooLargeText(compared.chunkMicrobatches) : reasonOf(compared.problem);
    if (compared.simulated())
        lane.track.share(compared.result);
    else
        clearKeepingStorage(lane.track.ownResult(), lane.kind, lane.v);
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
