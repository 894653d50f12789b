// List scheduling of one pipeline step: each stage takes its ops in its schedule's fixed
// order (ScheduleOrder.h); an op starts when its stage is free and its input has arrived.
#include "core/schedule/Schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/base/PlanError.h"

#include "core/estimate/PipelineModel.h"
#include "core/schedule/DualPipe.h"
#include "core/schedule/ScheduleEventWriter.h"
#include "core/schedule/ScheduleOrder.h"
#include "core/schedule/SchedulePreconditions.h"

namespace trainplan {

namespace {

Schedule closedFormScheduleOf(ScheduleKind kind)
{
    switch (kind) {
    case ScheduleKind::GPipe: return Schedule::GPipe;
    case ScheduleKind::Interleaved: return Schedule::Interleaved;
    case ScheduleKind::OneFOneB:
    case ScheduleKind::ZeroBubbleH1:
    case ScheduleKind::DualPipe: break;
    }
    return Schedule::OneFOneB;
}

void checkCosts(const ScheduleCosts& c, ScheduleKind kind)
{
    if (const auto problem = pipelineProblem(kind, c.p, c.m, c.v))
        throw std::invalid_argument("simulateSchedule: " + problem->message);
    if (c.stages.size() != size_t(c.p) * size_t(c.v))
        throw std::invalid_argument("simulateSchedule: costs.stages needs p * v = " + std::to_string(c.p * c.v)
                                    + " entries, got " + std::to_string(c.stages.size()));
    const auto valid = [](double s) { return std::isfinite(s) && s >= 0.0; };
    for (const auto& s : c.stages) {
        if (!valid(s.forwardSeconds) || !valid(s.backwardSeconds) || !valid(s.weightGradSeconds)
            || s.weightGradSeconds > s.backwardSeconds)
            throw std::invalid_argument("simulateSchedule: stage times must be finite, non-negative, and "
                                        "weightGradSeconds must not exceed backwardSeconds");
        if (!valid(s.forwardCommSeconds) || !valid(s.backwardCommSeconds) || s.forwardCommSeconds > s.forwardSeconds
            || s.backwardCommSeconds > s.backwardSeconds)
            throw std::invalid_argument("simulateSchedule: a stage's communication must be finite, non-negative and "
                                        "part of its forward or backward");
    }
    if (!valid(c.sendSeconds) || !valid(c.dpSyncSeconds) || !valid(c.pairedCommSlowdown))
        throw std::invalid_argument("simulateSchedule: send and DP times and the paired slowdown must be finite and non-negative");
}

// ZB-H1's bubble per stage is (p - 1)(T_F + T_B - T_W) against 1F1B's (p - 1)(T_F + T_B + T_W)
// (Qi et al. 2023, Sec. 3.1), with T_B the input-gradient part only; the mean stage stands in
// for the uniform stages the paper assumes.
double zeroBubbleH1ClosedForm(const ScheduleCosts& c)
{
    double f = 0, b = 0, w = 0;
    for (const auto& s : c.stages) {
        f += s.forwardSeconds;
        b += s.backwardSeconds - s.weightGradSeconds;
        w += s.weightGradSeconds;
    }
    const double bubble = (c.p - 1) * (f + b - w);
    const double work = double(c.m) * (f + b + w);
    return bubble + work > 0 ? bubble / (bubble + work) : 0.0;
}

}  // namespace

ScheduleKind scheduleKindOf(Schedule schedule)
{
    switch (schedule) {
    case Schedule::GPipe: return ScheduleKind::GPipe;
    case Schedule::OneFOneB: return ScheduleKind::OneFOneB;
    case Schedule::Interleaved: return ScheduleKind::Interleaved;
    case Schedule::ZeroBubble: return ScheduleKind::ZeroBubbleH1;
    case Schedule::DualPipe: return ScheduleKind::DualPipe;
    }
    return ScheduleKind::OneFOneB;
}

static_assert(std::uint8_t(StageOpKind::Forward) == std::uint8_t(ScheduleEventKind::Forward)
                  && std::uint8_t(StageOpKind::Backward) == std::uint8_t(ScheduleEventKind::Backward)
                  && std::uint8_t(StageOpKind::WeightGrad) == std::uint8_t(ScheduleEventKind::WeightGrad),
              "an op's kind is its event's kind");

// One op of a stage's order in four bytes (the order of a p = 64, m = 1,024, v = 4 step is half a
// million ops, read once per simulation): at << 2 | StageOpKind, where `at` indexes forwardEnd
// and backwardEnd (virtual stage x m + micro-batch, below kMaxScheduleChunkMicrobatches = 2^22).
using PackedStageOp = std::uint32_t;
static_assert(kMaxScheduleChunkMicrobatches <= (1LL << 30), "a packed op holds `at` in 30 bits");
constexpr PackedStageOp packed(size_t at, StageOpKind kind)
{
    return PackedStageOp(at) << 2 | PackedStageOp(kind);
}
// Ends each stage's order: its kind bits (3) are no StageOpKind, so no op ever equals it.
constexpr PackedStageOp kEndOfOrder = ~PackedStageOp(0);

// The shape a packed order was walked for.
struct OrderShape {
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int p = 0;
    long long m = 0;
    int v = 0;
    bool operator==(const OrderShape&) const = default;
};

struct ScheduleSimulator::Scratch {
    // Every stage's ops in order (stage i's are [orderStart[i], orderStart[i + 1] - 1), then
    // kEndOfOrder), walked once per shape: the live view re-simulates the same (kind, p, m, v) on every tick but a layout
    // change, and walking StageOpOrder took 1.5 of the 6.5 ms of a p = 64, m = 1,024, v = 4 step.
    std::vector<PackedStageOp> orders;
    std::vector<size_t> orderStart, nextOp;
    std::vector<int> chunkOf;  // by virtual stage
    std::optional<OrderShape> orderShape;
    // End time of F and B of (virtual stage, micro-batch), valid once the virtual stage's
    // count of finished F's (B's) passes the micro-batch: each chunk runs them in order.
    std::vector<double> forwardEnd, backwardEnd;
    std::vector<int> forwardsDone, backwardsDone;
    std::vector<double> opSeconds;  // F, B and W of virtual stage vs at 3 vs + StageOpKind
    std::vector<double> freeAt;
    std::vector<int> inFlight, peakInFlight;  // in chunks
    std::vector<int> pending;                 // stages whose next op has become ready
    std::vector<char> isPending;
    DualPipeScratch dualPipe;
};

namespace {

// When op's input from another stage has arrived (its producer's end plus the send), or
// false while the producer has not run. Inputs made on the op's own stage (B's forward, W's
// B) ran earlier in the stage's order, so freeAt already covers them; their counts are still
// checked, so a wrong order deadlocks loudly instead of reading unset times.
bool inputReady(const ScheduleSimulator::Scratch& s, StageOpKind kind, int microbatch, int vs, size_t at, int m,
                int virtualStages, double hop, double& ready)
{
    switch (kind) {
    case StageOpKind::Forward:
        // F(vs, mb) needs F(vs - 1, mb) and the activation send.
        if (vs == 0)
            return true;
        if (s.forwardsDone[vs - 1] <= microbatch)
            return false;
        ready = s.forwardEnd[at - m] + hop;
        return true;
    case StageOpKind::Backward:
        // B(vs, mb) needs its own F and the gradient send from B(vs + 1, mb).
        if (s.forwardsDone[vs] <= microbatch)
            return false;
        if (vs + 1 < virtualStages) {
            if (s.backwardsDone[vs + 1] <= microbatch)
                return false;
            ready = s.backwardEnd[at + m] + hop;
        }
        return true;
    case StageOpKind::WeightGrad:
        // W(vs, mb) needs B(vs, mb).
        return s.backwardsDone[vs] > microbatch;
    }
    return false;
}

}  // namespace

ScheduleSimulator::ScheduleSimulator() : scratch_(std::make_unique<Scratch>()) {}
ScheduleSimulator::~ScheduleSimulator() = default;
ScheduleSimulator::ScheduleSimulator(ScheduleSimulator&&) noexcept = default;
ScheduleSimulator& ScheduleSimulator::operator=(ScheduleSimulator&&) noexcept = default;

void ScheduleSimulator::simulate(const ScheduleCosts& costs, ScheduleKind kind, ScheduleResult& out, ScheduleDetail detail)
{
    checkCosts(costs, kind);
    Scratch& s = *scratch_;
    if (kind == ScheduleKind::DualPipe) {
        out.kind = kind;
        simulateDualPipe(costs, s.dualPipe, out, detail);
        return;
    }
    const int p = costs.p;
    const int v = costs.v;
    const int m = int(costs.m);  // bounded by pipelineProblem()
    const int virtualStages = p * v;
    const bool splitBackward = kind == ScheduleKind::ZeroBubbleH1;
    // Consecutive virtual stages sit on different GPUs whenever p > 1 (chunk c of stage p - 1
    // feeds chunk c + 1 of stage 0); with p = 1 every hand-over stays on the GPU.
    const double hop = p > 1 ? costs.sendSeconds : 0.0;

    s.opSeconds.resize(size_t(virtualStages) * 3);
    for (int vs = 0; vs < virtualStages; ++vs) {
        const StageCosts& c = costs.stages[vs];
        double* seconds = &s.opSeconds[size_t(vs) * 3];
        seconds[size_t(StageOpKind::Forward)] = c.forwardSeconds;
        seconds[size_t(StageOpKind::Backward)] = splitBackward ? c.backwardSeconds - c.weightGradSeconds : c.backwardSeconds;
        seconds[size_t(StageOpKind::WeightGrad)] = c.weightGradSeconds;
    }
    s.forwardEnd.resize(size_t(virtualStages) * m);
    s.backwardEnd.resize(size_t(virtualStages) * m);
    s.forwardsDone.assign(virtualStages, 0);
    s.backwardsDone.assign(virtualStages, 0);
    const OrderShape shape{kind, p, m, v};
    if (s.orderShape != shape) {
        s.orderShape.reset();  // stays unset if the walk below fails to allocate
        s.orders.clear();
        s.orders.reserve(size_t(virtualStages) * m * (splitBackward ? 3 : 2) + size_t(p));
        s.orderStart.resize(size_t(p) + 1);
        for (int i = 0; i < p; ++i) {
            s.orderStart[size_t(i)] = s.orders.size();
            StageOpOrder order;
            for (order.reset(kind, i, p, m, v); !order.done(); order.advance()) {
                const StageOp& op = order.current();
                const size_t at = (size_t(op.chunk) * p + i) * m + op.microbatch;
                s.orders.push_back(packed(at, op.kind));
            }
            s.orders.push_back(kEndOfOrder);
        }
        s.orderStart[size_t(p)] = s.orders.size();
        s.chunkOf.resize(size_t(virtualStages));
        for (int vs = 0; vs < virtualStages; ++vs)
            s.chunkOf[size_t(vs)] = vs / p;
        s.orderShape = shape;
    }
    s.nextOp.assign(s.orderStart.begin(), s.orderStart.end() - 1);
    s.freeAt.assign(p, 0.0);
    s.inFlight.assign(p, 0);
    s.peakInFlight.assign(p, 0);
    s.isPending.assign(p, 1);
    s.pending.clear();
    for (int i = p - 1; i >= 0; --i)
        s.pending.push_back(i);

    out.kind = kind;
    out.p = p;
    out.m = m;
    out.v = v;
    out.stages.assign(p, StageScheduleStats{});
    // One event per F, B and W, one send per hand-over between GPUs, one DP sync per stage.
    const size_t chunkMicrobatches = size_t(virtualStages) * m;
    sizeEvents(out.events, chunkMicrobatches * (splitBackward ? 3 : 2) + (p > 1 ? 2 * (chunkMicrobatches - m) : 0) + p, detail);
    EventWriter events(out.events, detail);

    // Wakes a stage whose next op is the one just made possible. A stage waits on one input from
    // another stage at a time (its own inputs come first in its order), so waking it for any
    // other op ran it for nothing: half of all runs before this check. A finished stage's next
    // op is its kEndOfOrder, which matches no consumer.
    const auto wakeFor = [&](int stage, PackedStageOp consumer) {
        if (!s.isPending[stage] && s.orders[s.nextOp[size_t(stage)]] == consumer) {
            s.isPending[stage] = 1;
            s.pending.push_back(stage);
        }
    };

    while (!s.pending.empty()) {
        const int i = s.pending.back();
        s.pending.pop_back();
        s.isPending[i] = 0;
        StageScheduleStats& stats = out.stages[i];
        const int next = i + 1 == p ? 0 : i + 1;
        const int previous = i == 0 ? p - 1 : i - 1;
        // Locals, not the vectors: event stores could alias them and force reloads per op.
        double freeAt = s.freeAt[i];
        double busy = stats.busySeconds;
        int inFlight = s.inFlight[i];
        int peakInFlight = s.peakInFlight[i];
        size_t k = s.nextOp[i];
        const size_t stageEnd = s.orderStart[size_t(i) + 1] - 1;
        // Run this stage until its next op waits for another stage.
        for (; k < stageEnd; ++k) {
            const PackedStageOp op = s.orders[k];
            const auto opKind = StageOpKind(op & 3u);
            const std::uint32_t at = op >> 2;
            // Off the critical path (the chain of freeAt), so the division costs little.
            const int vs = int(at / std::uint32_t(m));
            const int chunk = s.chunkOf[size_t(vs)];
            const int microbatch = int(at - std::uint32_t(vs) * std::uint32_t(m));
            double ready = 0.0;
            if (!inputReady(s, opKind, microbatch, vs, at, m, virtualStages, hop, ready))
                break;
            const double duration = s.opSeconds[size_t(vs) * 3 + size_t(opKind)];
            const auto eventKind = ScheduleEventKind(opKind);  // the same order (static_assert above)
            const double start = std::max(freeAt, ready);
            const double end = start + duration;
            freeAt = end;
            busy += duration;
            events.add(i, chunk, microbatch, eventKind, -1, start, end);
            if (opKind == StageOpKind::Forward) {
                s.forwardEnd[at] = end;
                ++s.forwardsDone[vs];
                peakInFlight = std::max(peakInFlight, ++inFlight);
                if (vs + 1 < virtualStages && p > 1) {
                    events.add(i, chunk, microbatch, ScheduleEventKind::Send, next, end, end + hop);
                    wakeFor(next, packed(at + std::uint32_t(m), StageOpKind::Forward));
                }
            } else if (opKind == StageOpKind::Backward) {
                s.backwardEnd[at] = end;
                ++s.backwardsDone[vs];
                if (!splitBackward)
                    --inFlight;
                if (vs > 0 && p > 1) {
                    events.add(i, chunk, microbatch, ScheduleEventKind::Send, previous, end, end + hop);
                    wakeFor(previous, packed(at - std::uint32_t(m), StageOpKind::Backward));
                }
            } else {
                --inFlight;  // W still reads the layer inputs (Qi et al. 2023, Sec. 2)
            }
        }
        s.nextOp[i] = k;
        s.freeAt[i] = freeAt;
        stats.busySeconds = busy;
        s.inFlight[i] = inFlight;
        s.peakInFlight[i] = peakInFlight;
    }
    for (int i = 0; i < p; ++i) {
        if (s.nextOp[size_t(i)] != s.orderStart[size_t(i) + 1] - 1)
            throw std::logic_error("simulateSchedule: the op order deadlocks (a bug in ScheduleOrder)");
    }


    finishSchedule(costs, s.freeAt, s.peakInFlight, double(v), events, out);
    out.closedFormBubbleFraction = kind == ScheduleKind::ZeroBubbleH1
        ? zeroBubbleH1ClosedForm(costs)
        : bubbleFraction(closedFormScheduleOf(kind), p, m, v);
}

ScheduleResult simulateSchedule(const ScheduleCosts& costs, ScheduleKind kind)
{
    ScheduleSimulator simulator;
    ScheduleResult result;
    simulator.simulate(costs, kind, result);
    return result;
}

}  // namespace trainplan
