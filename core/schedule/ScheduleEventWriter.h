// Fills a pre-sized event vector in the simulator's inner loop, and finishes a simulated step.
#pragma once

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <vector>

#include "core/schedule/Schedule.h"

namespace trainplan {

// Appends events to storage sized up front (the count is known exactly), field by field:
// push_back of a temporary made wide loads of narrow, just-written stores, which stalled
// store forwarding and took 40% of bench_schedule's time.
class EventWriter {
public:
    explicit EventWriter(std::vector<ScheduleEvent>& events) : next_(events.data()), end_(events.data() + events.size()) {}
    void add(int stage, int chunk, int microbatch, ScheduleEventKind kind, int peer, double start, double end)
    {
        assert(next_ != end_ && "the event count in simulate() is wrong");
        ScheduleEvent& e = *next_++;
        e.stage = stage;
        e.chunk = chunk;
        e.microbatch = microbatch;
        e.kind = kind;
        e.peerStage = std::int16_t(peer);
        e.startSeconds = start;
        e.endSeconds = end;
    }
    bool full() const { return next_ == end_; }

private:
    ScheduleEvent* next_;
    ScheduleEvent* end_;
};

// After the ops: each stage's idle time, peak in flight (chunksPerStage chunks make a stage's
// micro-batch), its DP sync after its last op (the last op of every stage is a backward or a W,
// so freeAt is where its gradients are complete), and the step's totals; the last p events.
inline void finishSchedule(const ScheduleCosts& costs, const std::vector<double>& freeAt, const std::vector<int>& peakInFlight,
                           double chunksPerStage, EventWriter& events, ScheduleResult& out)
{
    const int p = costs.p;
    double computeEnd = 0.0;
    for (int i = 0; i < p; ++i)
        computeEnd = std::max(computeEnd, freeAt[i]);
    double stepEnd = computeEnd;
    double idle = 0.0;
    for (int i = 0; i < p; ++i) {
        StageScheduleStats& stats = out.stages[i];
        stats.idleSeconds = computeEnd - stats.busySeconds;
        stats.peakInFlightMicrobatches = double(peakInFlight[i]) / chunksPerStage;
        stats.dpSyncHiddenSeconds = std::clamp(computeEnd - freeAt[i], 0.0, costs.dpSyncSeconds);
        idle += stats.idleSeconds;
        const double syncEnd = freeAt[i] + costs.dpSyncSeconds;
        events.add(i, -1, -1, ScheduleEventKind::DpSync, -1, freeAt[i], syncEnd);
        stepEnd = std::max(stepEnd, syncEnd);
    }
    if (!events.full())
        throw std::logic_error("simulateSchedule: fewer events than counted (a bug in simulate)");
    out.computeSeconds = computeEnd;
    out.stepSeconds = stepEnd;
    out.dpSyncExposedSeconds = stepEnd - computeEnd;
    // Rounding of stepEnd - computeEnd can leave -1e-17 here; hidden time is never negative.
    out.dpSyncHiddenSeconds = std::clamp(costs.dpSyncSeconds - out.dpSyncExposedSeconds, 0.0, costs.dpSyncSeconds);
    out.bubbleFraction = computeEnd > 0 ? idle / (p * computeEnd) : 0.0;
}

}  // namespace trainplan
