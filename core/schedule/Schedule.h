// The pipeline schedule of one optimizer step for one pipeline replica, simulated op by op.
//
// The closed-form bubble (PipelineModel.h) assumes equal stages and free communication; the
// simulator drops both assumptions. Each stage runs its schedule's fixed op order (GPipe,
// Megatron's 1F1B and interleaved 1F1B, ZB-H1), every op starts at the earliest time its
// stage is free and its inputs have arrived (list scheduling), and durations come from the
// step-time model (predictedScheduleCosts, steptime/StepTimeModel.h). Times are seconds from
// the step's first forward.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/base/LargeBuffer.h"
#include "core/estimate/Estimate.h"
#include "core/plan/EnumNames.h"

namespace trainplan {

enum class ScheduleKind {
    GPipe,         // all forwards, then all backwards (Huang et al. 2019)
    OneFOneB,      // PipeDream-Flush 1F1B (Narayanan et al. 2021, Sec. 2.2.1)
    Interleaved,   // interleaved 1F1B over v model chunks (Narayanan et al. 2021, Sec. 2.2.2)
    ZeroBubbleH1,  // ZB-H1: backward split into B and W (Qi et al. 2023, Sec. 3.1)
    DualPipe,      // bidirectional, paired F&B chunks (DeepSeek-V3 report, Sec. 3.2.1; DualPipe.h)
};

// File and JSON spellings (docs/plan-format.md, "schedule --json": schedule.kind).
inline constexpr NameTable<ScheduleKind, 5> kScheduleKindNames{{
    {ScheduleKind::GPipe, "gpipe"},
    {ScheduleKind::OneFOneB, "1f1b"},
    {ScheduleKind::Interleaved, "interleaved"},
    {ScheduleKind::ZeroBubbleH1, "zero-bubble"},
    {ScheduleKind::DualPipe, "dualpipe"},
}};

inline const char* scheduleKindName(ScheduleKind kind)
{
    return nameOf(kScheduleKindNames, kind).data();  // the table holds string literals
}

inline std::optional<ScheduleKind> scheduleKindFromName(std::string_view name)
{
    return valueOf(kScheduleKindNames, name);
}

// The simulated kind of a plan's layout.schedule.
ScheduleKind scheduleKindOf(Schedule schedule);

enum class ScheduleEventKind : std::uint8_t {
    Forward,     // F
    Backward,    // B: the whole backward, or ZB-H1's input-gradient part
    WeightGrad,  // W: ZB-H1's deferred weight-gradient part
    Send,        // an activation (after F) or a gradient (after B) to the neighbouring stage
    DpSync,      // the stage's data-parallel gradient reduction after its last backward
};

// No default values: the simulator writes every event whole (ScheduleEventWriter.h) into storage
// it leaves uninitialised (ScheduleEvents), so the type stays trivial.
struct ScheduleEvent {
    int stage;       // pipeline stage (GPU row), 0-based
    int chunk;       // model chunk on that stage (0 unless interleaved; DualPipe: the direction); -1 for DpSync
    int microbatch;  // -1 for DpSync
    ScheduleEventKind kind;
    // Send only: the receiving stage (-1 otherwise). 16 bits so the event stays 32 bytes:
    // a p = 64, m = 1024, v = 4 step has a million events, and storing them is 40 % of its time.
    std::int16_t peerStage;
    double startSeconds;
    double endSeconds;
};
static_assert(std::is_trivial_v<ScheduleEvent>, "ScheduleEvents leaves events uninitialised until written");

// A vector whose resize() leaves new elements default-initialised (for a trivial type: not
// written). Value-initialising a million events before the simulator overwrote them doubled the
// memory a new or larger step wrote, and flushed the caches the next simulation reads.
template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
    using Traits = std::allocator_traits<Base>;

public:
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using Base::Base;
    template <class U>
    void construct(U* at) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(at)) U;
    }
    template <class U, class... Args>
    void construct(U* at, Args&&... args)
    {
        Traits::construct(static_cast<Base&>(*this), at, std::forward<Args>(args)...);
    }
};
// Huge-page backed (LargeBuffer.h): a deep pipeline's first step writes megabytes of fresh events.
using ScheduleEvents = std::vector<ScheduleEvent, DefaultInitAllocator<ScheduleEvent, LargeBufferAllocator<ScheduleEvent>>>;

// Durations of one micro-batch through one model chunk (a virtual stage), seconds.
struct StageCosts {
    double forwardSeconds = 0;
    double backwardSeconds = 0;    // the whole backward: input and weight gradients + recompute
    double weightGradSeconds = 0;  // the part of backwardSeconds that ZB-H1 defers as W
    // Of forwardSeconds and backwardSeconds, the exposed collectives (TP, CP, ZeRO-3 gathers, EP
    // dispatch and combine) that DualPipe's paired chunks run under the other chunk's compute.
    double forwardCommSeconds = 0;
    double backwardCommSeconds = 0;
};

struct ScheduleCosts {
    // One entry per virtual stage: p entries, or p * v for interleaving, where virtual stage
    // c * p + i is model chunk c of pipeline stage i (Megatron-LM's chunk placement). DualPipe:
    // p entries, the model's stages; rank r runs stage r and stage p - 1 - r (DualPipe.h).
    std::vector<StageCosts> stages;
    double sendSeconds = 0;    // one stage-to-stage send (activation or gradient)
    double dpSyncSeconds = 0;  // one stage's gradient reduction over its DP group
    int p = 1;                 // pipeline stages
    long long m = 1;           // micro-batches per step per replica
    int v = 1;                 // model chunks per stage (1 unless interleaved)
    // DualPipe: the compute slowdown while a pair's collectives run beside it (collectiveSmShare).
    double pairedCommSlowdown = 0;
};

struct StageScheduleStats {
    double busySeconds = 0;  // sum of the stage's F, B and W durations
    double idleSeconds = 0;  // computeSeconds - busySeconds: waiting before, between, after
    // Peak micro-batches whose activations the stage holds at once: counted from a chunk's F
    // to the op that frees it (B, or W under ZB-H1 since W still reads the layer inputs), in
    // whole-stage units (one chunk = 1/v). For GPipe, 1F1B and interleaved this is what
    // microbatchesInFlight() of PipelineModel.h gives the memory estimate; ZB-H1 holds
    // min(p, m) on every stage, as many as 1F1B's stage 0.
    double peakInFlightMicrobatches = 0;
    double dpSyncHiddenSeconds = 0;  // part of this stage's DP sync before computeSeconds
};

struct ScheduleResult {
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int p = 1;
    long long m = 1;
    int v = 1;
    // In simulation order: each stage's F/B/W events appear in that stage's execution order
    // (interleaved with other stages' events), each Send right after the op that produced
    // it, the p DpSync events last. Not sorted by start time.
    ScheduleEvents events;
    double computeSeconds = 0;  // end of the last F/B/W: the step without the DP tail
    double stepSeconds = 0;     // computeSeconds + dpSyncExposedSeconds
    // Sum of idleSeconds / (p * computeSeconds): the share of GPU time in the compute part of
    // the step spent waiting. Excludes the DP tail, like the closed forms.
    double bubbleFraction = 0;
    // (p-1)/(m+p-1) for GPipe and 1F1B, (p-1)/(v m+p-1) interleaved (bubbleFraction() of
    // PipelineModel.h); ZB-H1 (p-1)(F+B-W)/(m(F+B+W)+(p-1)(F+B-W)) with the mean stage's
    // F, input-gradient B and W, which the simulation meets for equal stages when m >= p
    // and W <= B (always so for predictedScheduleCosts(): B keeps the attention core and recompute).
    double closedFormBubbleFraction = 0;
    std::vector<StageScheduleStats> stages;
    // Of the DP sync that ends last: the part overlapping other stages' compute and the part
    // after it, which lengthens the step (hidden + exposed = dpSyncSeconds).
    double dpSyncHiddenSeconds = 0;
    double dpSyncExposedSeconds = 0;
};

// What a simulation writes. TimesOnly leaves ScheduleResult::events empty and fills the rest as
// Events does (the same list scheduling): for callers that read only the totals and per-stage
// figures, such as the step-time model's predictions, where writing the events was 40 % of a step.
enum class ScheduleDetail { Events, TimesOnly };

// Throws std::invalid_argument for inconsistent costs (sizes, negative or non-finite
// times, Interleaved with v < 2 or m not a multiple of p, v > 1 for other kinds).
ScheduleResult simulateSchedule(const ScheduleCosts& costs, ScheduleKind kind);

// Reuses its scratch buffers and the result's storage across calls (for live views and
// benchmarks); one instance per thread.
class ScheduleSimulator {
public:
    ScheduleSimulator();
    ~ScheduleSimulator();
    ScheduleSimulator(ScheduleSimulator&&) noexcept;
    ScheduleSimulator& operator=(ScheduleSimulator&&) noexcept;

    void simulate(const ScheduleCosts& costs, ScheduleKind kind, ScheduleResult& out,
                  ScheduleDetail detail = ScheduleDetail::Events);

    struct Scratch;  // opaque: the op orders and per-(chunk, micro-batch) end times

private:
    std::unique_ptr<Scratch> scratch_;
};

}  // namespace trainplan
