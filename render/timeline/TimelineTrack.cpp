#include "render/timeline/TimelineTrack.h"

#include <algorithm>

using trainplan::ScheduleEventKind;

namespace {

bool isComputeOp(ScheduleEventKind kind)
{
    return kind == ScheduleEventKind::Forward || kind == ScheduleEventKind::Backward || kind == ScheduleEventKind::WeightGrad;
}

}  // namespace

void TimelineTrack::reindex()
{
    const trainplan::ScheduleResult& r = result();
    const auto& events = r.events;
    const size_t p = size_t(std::max(0, r.p));
    offsets_.assign(p + 1, 0);
    dpSync_.assign(p, -1);
    // Counting sort by stage: stable, so each stage keeps the simulator's execution order.
    for (const auto& e : events)
        if (isComputeOp(e.kind) && size_t(e.stage) < p)
            ++offsets_[size_t(e.stage) + 1];
    for (size_t i = 0; i < p; ++i)
        offsets_[i + 1] += offsets_[i];
    ops_.resize(offsets_[p]);
    cursor_.assign(offsets_.begin(), offsets_.end() - 1);
    for (size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (size_t(e.stage) >= p)
            continue;
        if (isComputeOp(e.kind))
            ops_[cursor_[size_t(e.stage)]++] = Op{e.startSeconds, e.endSeconds, std::uint32_t(i), e.kind, std::int16_t(e.chunk)};
        else if (e.kind == ScheduleEventKind::DpSync)
            dpSync_[size_t(e.stage)] = std::int64_t(i);
    }
}

size_t TimelineTrack::firstOpEndingAfter(int stage, double seconds) const
{
    const auto list = ops(stage);
    const auto it = std::partition_point(list.begin(), list.end(), [&](const Op& op) { return op.endSeconds <= seconds; });
    return size_t(it - list.begin());
}

std::int64_t TimelineTrack::opNear(int stage, double seconds, double toleranceSeconds) const
{
    if (stage < 0 || stage >= stageCount())
        return -1;
    const auto list = ops(stage);
    const size_t at = firstOpEndingAfter(stage, seconds);
    if (at < list.size() && list[at].startSeconds <= seconds)
        return list[at].event;
    // Between two ops (or past the ends): the closer one, if within tolerance.
    std::int64_t best = -1;
    double bestDistance = toleranceSeconds;
    if (at < list.size() && list[at].startSeconds - seconds <= bestDistance) {
        best = list[at].event;
        bestDistance = list[at].startSeconds - seconds;
    }
    if (at > 0 && seconds - list[at - 1].endSeconds <= bestDistance)
        best = list[at - 1].event;
    return best;
}
