// Fills a pre-sized event vector in the simulator's inner loop.
#pragma once

#include <cassert>
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

}  // namespace trainplan
