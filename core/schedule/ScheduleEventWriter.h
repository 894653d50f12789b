// Fills a pre-sized event vector in the simulator's inner loop, and finishes a simulated step.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <stdexcept>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/schedule/Schedule.h"

namespace trainplan {

// Sizes the events of a step about to be simulated: every one will be written, so a larger step
// drops the old storage before allocating (no copy of events about to be overwritten). TimesOnly:
// none (the storage is kept for a later simulation with events).
inline void sizeEvents(ScheduleEvents& events, size_t count, ScheduleDetail detail)
{
    if (detail == ScheduleDetail::TimesOnly)
        count = 0;
    if (events.capacity() < count)
        ScheduleEvents().swap(events);
    events.resize(count);
}

// Appends events to storage sized up front (the count is known exactly), or with TimesOnly drops
// them. A p = 64, m = 1,024, v = 4 step writes a million 32-byte events (33.5 MB), far more than
// the caches hold: on x86-64 each event goes out as two 16-byte non-temporal stores, built in
// registers (no read of the line before writing it, which ordinary stores make, and no
// narrow-store-then-wide-load stall, which push_back of a temporary made: 40 % of
// bench_schedule's time once). Even so the stores take 2 of that step's 5.5 ms (streaming the
// same bytes alone takes 0.9). finish() fences them before anyone reads the events.
class EventWriter {
public:
    EventWriter(ScheduleEvents& events, ScheduleDetail detail)
        : next_(events.data()), end_(events.data() + events.size()), keep_(detail == ScheduleDetail::Events)
    {
    }
    ~EventWriter() { finish(); }
    EventWriter(const EventWriter&) = delete;
    EventWriter& operator=(const EventWriter&) = delete;

    void add(int stage, int chunk, int microbatch, ScheduleEventKind kind, int peer, double start, double end)
    {
        if (!keep_)
            return;
        assert(next_ != end_ && "the event count in simulate() is wrong");
#if defined(__SSE2__)
        // The layout the two stores write (checked below): stage, chunk, microbatch, then kind,
        // a zero byte and peerStage in the fourth word; start and end in the second half.
        const int last = int(std::uint8_t(kind)) | int(std::uint32_t(std::uint16_t(std::int16_t(peer))) << 16);
        __m128i* slot = reinterpret_cast<__m128i*>(next_++);
        _mm_stream_si128(slot, _mm_set_epi32(last, microbatch, chunk, stage));
        _mm_stream_pd(reinterpret_cast<double*>(slot + 1), _mm_set_pd(end, start));
#else
        ScheduleEvent& e = *next_++;
        e.stage = stage;
        e.chunk = chunk;
        e.microbatch = microbatch;
        e.kind = kind;
        e.peerStage = std::int16_t(peer);
        e.startSeconds = start;
        e.endSeconds = end;
#endif
    }
    bool full() const { return !keep_ || next_ == end_; }
    // Orders the streamed stores before whatever reads the events next (another thread included).
    void finish()
    {
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }

private:
    ScheduleEvent* next_;
    ScheduleEvent* end_;
    bool keep_;
};

#if defined(__SSE2__)
static_assert(sizeof(ScheduleEvent) == 32 && offsetof(ScheduleEvent, stage) == 0 && offsetof(ScheduleEvent, chunk) == 4
                  && offsetof(ScheduleEvent, microbatch) == 8 && offsetof(ScheduleEvent, kind) == 12
                  && offsetof(ScheduleEvent, peerStage) == 14 && offsetof(ScheduleEvent, startSeconds) == 16
                  && offsetof(ScheduleEvent, endSeconds) == 24 && sizeof(ScheduleEventKind) == 1,
    "EventWriter::add streams events in this layout");
static_assert(alignof(std::max_align_t) >= 16, "the event vector's storage is 16-byte aligned for the streaming stores");
#endif

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
