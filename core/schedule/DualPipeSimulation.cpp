// List scheduling of DualPipe: each rank takes its ops in the reference order (DualPipe.h); an
// op starts when its rank is free and its inputs have arrived.
#include <stdexcept>

#include "core/schedule/DualPipe.h"
#include "core/schedule/ScheduleEventWriter.h"

namespace trainplan {

namespace {

// The rank that runs a direction's stage (its inverse is its own: dualPipeStage()).
int rankOf(int direction, int stage, int p)
{
    return direction == 0 ? stage : p - 1 - stage;
}

struct Readiness {
    bool ready = false;
    double at = 0.0;
};

}  // namespace

void simulateDualPipe(const ScheduleCosts& costs, DualPipeScratch& s, ScheduleResult& out, ScheduleDetail detail)
{
    const int p = costs.p;
    const int halfM = int(costs.m / 2);  // bounded by pipelineProblem()
    const double hop = costs.sendSeconds;
    const double slowdown = costs.pairedCommSlowdown;
    const auto slot = [&](int direction, int stage) { return size_t(direction) * p + stage; };

    s.orders.resize(p);
    size_t weightGrads = 0;
    for (int r = 0; r < p; ++r) {
        s.orders[r].clear();
        dualPipeOrder(r, p, costs.m, s.orders[r]);
        for (const DualPipeOp& op : s.orders[r])
            weightGrads += op.kind == DualPipeOpKind::WeightGrad;
    }
    s.next.assign(p, 0);
    s.forwardEnd.resize(size_t(2) * p * halfM);
    s.backwardEnd.resize(size_t(2) * p * halfM);
    s.forwardsDone.assign(size_t(2) * p, 0);
    s.backwardsDone.assign(size_t(2) * p, 0);
    s.weightQueue.resize(p);
    for (auto& queue : s.weightQueue)
        queue.clear();
    s.weightHead.assign(p, 0);
    s.freeAt.assign(p, 0.0);
    s.inFlight.assign(p, 0);
    s.peakInFlight.assign(p, 0);
    s.isPending.assign(p, 1);
    s.pending.clear();
    for (int r = p - 1; r >= 0; --r)
        s.pending.push_back(r);

    out.p = p;
    out.m = costs.m;
    out.v = 1;
    out.stages.assign(p, StageScheduleStats{});
    // Per rank m forwards and m backwards, the W's the orders hold, a send per hand-over (each
    // direction's m/2 micro-batches cross p - 1 boundaries both ways), a DP sync per rank.
    const size_t chunks = size_t(2) * p * halfM;
    sizeEvents(out.events, 2 * chunks + weightGrads + 2 * (chunks - size_t(2) * halfM) + p, detail);
    EventWriter events(out.events, detail);

    const auto wake = [&](int rank) {
        if (!s.isPending[rank]) {
            s.isPending[rank] = 1;
            s.pending.push_back(rank);
        }
    };
    // F of (direction, stage) for its next micro-batch needs the previous stage's F of it.
    const auto forwardInput = [&](int d, int stage) {
        const int mb = s.forwardsDone[slot(d, stage)];
        if (stage == 0)
            return Readiness{true, 0.0};
        if (s.forwardsDone[slot(d, stage - 1)] <= mb)
            return Readiness{};
        return Readiness{true, s.forwardEnd[slot(d, stage - 1) * halfM + mb] + hop};
    };
    // B needs its own F (earlier on this rank) and the next stage's B of the micro-batch.
    const auto backwardInput = [&](int d, int stage) {
        const int mb = s.backwardsDone[slot(d, stage)];
        if (s.forwardsDone[slot(d, stage)] <= mb)
            return Readiness{};
        if (stage == p - 1)
            return Readiness{true, 0.0};
        if (s.backwardsDone[slot(d, stage + 1)] <= mb)
            return Readiness{};
        return Readiness{true, s.backwardEnd[slot(d, stage + 1) * halfM + mb] + hop};
    };

    while (!s.pending.empty()) {
        const int r = s.pending.back();
        s.pending.pop_back();
        s.isPending[r] = 0;
        const std::vector<DualPipeOp>& order = s.orders[r];
        StageScheduleStats& stats = out.stages[r];
        double freeAt = s.freeAt[r];
        int inFlight = s.inFlight[r];
        int peak = s.peakInFlight[r];
        // Records a finished F (B) and sends its output on along its direction. A pair's F is
        // drawn ending where its B starts, but its output leaves with the pair's end, as the
        // reference sends both after the overlapped pair (DualPipe._forward_backward_chunk).
        const auto finishForward = [&](int d, int stage, double start, double end, double sent) {
            const size_t at = slot(d, stage);
            const int mb = s.forwardsDone[at]++;
            s.forwardEnd[at * halfM + mb] = sent;
            events.add(r, d, d * halfM + mb, ScheduleEventKind::Forward, -1, start, end);
            if (stage + 1 < p) {
                const int to = rankOf(d, stage + 1, p);
                events.add(r, d, d * halfM + mb, ScheduleEventKind::Send, to, sent, sent + hop);
                wake(to);
            }
            peak = std::max(peak, ++inFlight);
        };
        const auto finishBackward = [&](int d, int stage, double start, double end, bool defersWeight) {
            const size_t at = slot(d, stage);
            const int mb = s.backwardsDone[at]++;
            s.backwardEnd[at * halfM + mb] = end;
            events.add(r, d, d * halfM + mb, ScheduleEventKind::Backward, -1, start, end);
            if (stage > 0) {
                const int to = rankOf(d, stage - 1, p);
                events.add(r, d, d * halfM + mb, ScheduleEventKind::Send, to, end, end + hop);
                wake(to);
            }
            if (defersWeight)
                s.weightQueue[r].emplace_back(d, mb);
            else
                --inFlight;
        };
        while (s.next[r] < order.size()) {
            const DualPipeOp& op = order[s.next[r]];
            const int d = op.direction;
            const int stage = dualPipeStage(r, d, p);
            const StageCosts& c = costs.stages[size_t(stage)];
            if (op.kind == DualPipeOpKind::Forward) {
                const Readiness in = forwardInput(d, stage);
                if (!in.ready)
                    break;
                const double start = std::max(freeAt, in.at);
                freeAt = start + c.forwardSeconds;
                stats.busySeconds += c.forwardSeconds;
                finishForward(d, stage, start, freeAt, freeAt);
            } else if (op.kind == DualPipeOpKind::Backward || op.kind == DualPipeOpKind::BackwardInput) {
                const Readiness in = backwardInput(d, stage);
                if (!in.ready)
                    break;
                const bool defers = op.kind == DualPipeOpKind::BackwardInput;
                const double duration = defers ? c.backwardSeconds - c.weightGradSeconds : c.backwardSeconds;
                const double start = std::max(freeAt, in.at);
                freeAt = start + duration;
                stats.busySeconds += duration;
                finishBackward(d, stage, start, freeAt, defers);
            } else if (op.kind == DualPipeOpKind::WeightGrad) {
                auto& queue = s.weightQueue[r];
                if (s.weightHead[r] >= queue.size())
                    throw std::logic_error("simulateSchedule: a DualPipe W with none queued (a bug in dualPipeOrder)");
                const auto [wd, wmb] = queue[s.weightHead[r]++];
                const double duration = costs.stages[size_t(dualPipeStage(r, wd, p))].weightGradSeconds;
                events.add(r, wd, wd * halfM + wmb, ScheduleEventKind::WeightGrad, -1, freeAt, freeAt + duration);
                freeAt += duration;
                stats.busySeconds += duration;
                --inFlight;  // W still reads the layer inputs (Qi et al. 2023, Sec. 2)
            } else {
                const int bd = op.backwardDirection;
                const int bStage = dualPipeStage(r, bd, p);
                const Readiness f = forwardInput(d, stage);
                if (!f.ready)
                    break;
                const Readiness b = backwardInput(bd, bStage);
                if (!b.ready)
                    break;
                const StageCosts& bc = costs.stages[size_t(bStage)];
                const double duration = dualPipePairSeconds(c, bc, slowdown);
                const double start = std::max({freeAt, f.at, b.at});
                const double whole = c.forwardSeconds + bc.backwardSeconds;
                const double split = start + (whole > 0 ? duration * c.forwardSeconds / whole : 0.0);
                freeAt = start + duration;
                stats.busySeconds += duration;
                finishForward(d, stage, start, split, freeAt);
                finishBackward(bd, bStage, split, freeAt, false);
            }
            ++s.next[r];
        }
        s.freeAt[r] = freeAt;
        s.inFlight[r] = inFlight;
        s.peakInFlight[r] = peak;
    }
    for (int r = 0; r < p; ++r)
        if (s.next[r] != s.orders[r].size())
            throw std::logic_error("simulateSchedule: the DualPipe order deadlocks (a bug in dualPipeOrder)");

    // Every chunk is a whole stage's layers: in-flight counts are stage micro-batches already.
    finishSchedule(costs, s.freeAt, s.peakInFlight, 1.0, events, out);
    out.closedFormBubbleFraction = dualPipeBubbleFractionClosedForm(costs);
}

}  // namespace trainplan
