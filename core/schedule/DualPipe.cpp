#include "core/schedule/DualPipe.h"

#include <algorithm>

namespace trainplan {

void dualPipeOrder(int rank, int p, long long m, std::vector<DualPipeOp>& out)
{
    // The reference's "phase 0" is the direction in which this rank sits in the first half of
    // the path, "phase 1" the other (dualpipe.py: phase ^= is_in_second_half).
    const int half = p / 2;
    const long long halfM = m / 2;
    const int h = std::min(rank, p - 1 - rank);
    const bool middle = rank == half - 1 || rank == half;
    const std::uint8_t near = rank >= half ? 1 : 0;
    const std::uint8_t far = 1 - near;
    const auto forward = [&](std::uint8_t d) { out.push_back({DualPipeOpKind::Forward, d, 0}); };
    const auto backward = [&](std::uint8_t d, bool zeroBubble) {
        out.push_back({zeroBubble ? DualPipeOpKind::BackwardInput : DualPipeOpKind::Backward, d, 0});
    };
    const auto weight = [&] { out.push_back({DualPipeOpKind::WeightGrad, 0, 0}); };
    const auto pair = [&](std::uint8_t f, std::uint8_t b) { out.push_back({DualPipeOpKind::Pair, f, b}); };

    // Step 1: forwards of the near direction fill the path ahead.
    for (int i = 0; i < 2 * (half - h - 1); ++i)
        forward(near);
    // Step 2: alternate near and far forwards.
    for (int i = 0; i <= h; ++i) {
        forward(near);
        forward(far);
    }
    // Step 3: far backward (input gradient), its W, far forward.
    for (int i = 0; i < half - h - 1; ++i) {
        backward(far, true);
        weight();
        forward(far);
    }
    // Step 4, the steady state: pairs F(near)&B(far), F(far)&B(near). The middle ranks do not
    // overlap their first pair ("to further reduce bubble size").
    for (long long i = 0; i < halfM - p + h + 1; ++i) {
        if (i == 0 && middle) {
            forward(near);
            backward(far, false);
        } else {
            pair(near, far);
        }
        pair(far, near);
    }
    // Step 5: far backward, then F(far)&B(near).
    for (int i = 0; i < half - h - 1; ++i) {
        backward(far, false);
        pair(far, near);
    }
    // Step 6: both directions' last backwards; from the middle of the step on they defer W.
    bool zeroBubble = false;
    for (int i = 0; i <= h; ++i) {
        if (i == (h + 1) / 2 && h % 2 == 1)
            zeroBubble = true;
        backward(far, zeroBubble);
        if (i == (h + 1) / 2 && h % 2 == 0)
            zeroBubble = true;
        backward(near, zeroBubble);
    }
    // Step 7: a queued W, then a near backward that defers its own.
    for (int i = 0; i < half - h - 1; ++i) {
        weight();
        backward(near, true);
    }
    // Step 8: the queued W's.
    for (int i = 0; i <= h; ++i)
        weight();
}

double dualPipePairSeconds(const StageCosts& f, const StageCosts& b, double slowdown)
{
    const double communication = f.forwardCommSeconds + b.backwardCommSeconds;
    const double compute = (f.forwardSeconds - f.forwardCommSeconds) + (b.backwardSeconds - b.backwardCommSeconds);
    return std::max(compute, communication) + slowdown * std::min(compute, communication);
}

namespace {

double pairSaving(const ScheduleCosts& c, int rank)
{
    const StageCosts& a = c.stages[size_t(rank)];
    const StageCosts& b = c.stages[size_t(c.p - 1 - rank)];
    const double pairAB = dualPipePairSeconds(a, b, c.pairedCommSlowdown);
    const double pairBA = dualPipePairSeconds(b, a, c.pairedCommSlowdown);
    return 0.5 * ((a.forwardSeconds + b.backwardSeconds - pairAB) + (b.forwardSeconds + a.backwardSeconds - pairBA));
}

struct ClosedFormTerms {
    double busiest = 0;   // the busiest rank's work with m - p - 1 pairs overlapped
    double bubble = 0;    // (p/2 - 1)(F&B + B - 3W), stage means
    double saving = 0;    // mean F + B - F&B of one pair
};

ClosedFormTerms closedFormTerms(const ScheduleCosts& c)
{
    const int p = c.p;
    const double m = double(c.m);
    ClosedFormTerms t;
    double pairSum = 0, backwardSum = 0, weightSum = 0, savingSum = 0;
    for (int r = 0; r < p; ++r) {
        const StageCosts& a = c.stages[size_t(r)];
        const StageCosts& b = c.stages[size_t(p - 1 - r)];
        const double saving = pairSaving(c, r);
        const double work = 0.5 * m * (a.forwardSeconds + a.backwardSeconds + b.forwardSeconds + b.backwardSeconds);
        t.busiest = std::max(t.busiest, work - (m - p - 1) * saving);
        pairSum += 0.5 * (a.forwardSeconds + b.backwardSeconds + b.forwardSeconds + a.backwardSeconds) - saving;
        backwardSum += a.backwardSeconds;
        weightSum += a.weightGradSeconds;
        savingSum += saving;
    }
    t.bubble = (p / 2 - 1) * (pairSum + backwardSum - 3.0 * weightSum) / p;
    t.saving = savingSum / p;
    return t;
}

}  // namespace

double dualPipeComputeSecondsClosedForm(const ScheduleCosts& c)
{
    const ClosedFormTerms t = closedFormTerms(c);
    const int p = c.p;
    const double sends = double(c.m) * (p - 1) / p + 3.0 * (p / 2 - 1);
    return t.busiest + t.bubble + sends * c.sendSeconds;
}

double dualPipePairSavingSeconds(const ScheduleCosts& c, int rank)
{
    return std::max(0.0, double(c.m) - c.p - 1) * pairSaving(c, rank);
}

double dualPipeBubbleFractionClosedForm(const ScheduleCosts& c)
{
    const ClosedFormTerms t = closedFormTerms(c);
    const int p = c.p;
    const int half = p / 2;
    const double step = t.busiest + t.bubble;
    // Rank h from the end (h < p/2 - 1) pairs p/2 - 2 - h fewer times than a middle rank (its
    // steps 4 and 5 hold m - 3p/2 + h + 1 pairs, the middle ranks' one unpaired less), so it is
    // busy that many savings longer and idles as much less: (p/2 - 1)(p/2 - 2) over both halves.
    const double idle = p * t.bubble - double(half - 1) * std::max(0, half - 2) * t.saving;
    return step > 0 ? std::max(0.0, idle) / (p * step) : 0.0;
}

}  // namespace trainplan
