// One simulated pipeline step with the index the timeline needs: each stage's F, B and W
// ops in execution order, copied next to each other. The simulator writes events in
// simulation order, so one stage's events lie scattered over a 30 MB vector for a
// p = 64, m = 1,024, v = 4 step; walking them per stage missed the cache on nearly every
// event and cost the painter 20 ms. Binary search finds the ops in a time window.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/base/LargeBuffer.h"
#include "core/schedule/Schedule.h"

class TimelineTrack {
public:
    struct Op {
        double startSeconds;
        double endSeconds;
        std::uint32_t event;  // index into result().events
        trainplan::ScheduleEventKind kind;
        std::int16_t chunk;
    };

    // The result to draw: the track's own, filled in place (its storage is reused from one fill
    // to the next), or one shared with the analysis that computed it (the schedule comparison,
    // not copied). Either way, call reindex() after.
    trainplan::ScheduleResult& ownResult()
    {
        shared_.reset();
        return own_;
    }
    void share(std::shared_ptr<const trainplan::ScheduleResult> result)
    {
        shared_ = std::move(result);
        own_ = {};  // a lane that shares keeps sharing (one kind per lane): free what it held
    }
    const trainplan::ScheduleResult& result() const { return shared_ ? *shared_ : own_; }
    const trainplan::ScheduleEvent& event(std::uint32_t index) const { return result().events[index]; }

    // O(events); reuses the index's storage.
    void reindex();

    int stageCount() const { return int(dpSync_.size()); }
    // The stage's F, B and W ops. A stage runs one op at a time (ScheduleResult: "each
    // stage's events in that stage's execution order"), so both start and end times are
    // non-decreasing along the span.
    std::span<const Op> ops(int stage) const { return {ops_.data() + offsets_[size_t(stage)], ops_.data() + offsets_[size_t(stage) + 1]}; }
    // The stage's DP synchronisation event, or -1.
    std::int64_t dpSync(int stage) const { return dpSync_[size_t(stage)]; }

    // Position in ops(stage) of the first op ending after t (ops(stage).size() if none).
    size_t firstOpEndingAfter(int stage, double seconds) const;
    // The event of the op running on the stage at t, else of the nearest op within
    // tolerance; -1 if none.
    std::int64_t opNear(int stage, double seconds, double toleranceSeconds) const;

private:
    trainplan::ScheduleResult own_;
    std::shared_ptr<const trainplan::ScheduleResult> shared_;
    std::vector<std::uint32_t> offsets_;  // p + 1 entries into ops_
    std::vector<std::uint32_t> cursor_;   // reindex's write positions, kept for reuse
    std::vector<Op, trainplan::LargeBufferAllocator<Op>> ops_;  // 0.8 MB at p = 64, m = 256: on huge pages (LargeBuffer.h)
    std::vector<std::int64_t> dpSync_;
};
