// DualPipe: DeepSeek-V3's bidirectional pipeline (DeepSeek-AI 2024, "DeepSeek-V3 Technical
// Report", Sec. 3.2.1 and Fig. 5; the reference implementation deepseek-ai/DualPipe,
// dualpipe/dualpipe.py, DualPipe.step).
//
// p ranks (p even) run the model's p stages twice over: half of the step's m micro-batches enter
// at rank 0 and pass stages 0, 1, ..., p - 1 on ranks 0, 1, ..., p - 1 (direction 0); the other
// half enter at rank p - 1 and pass the same stages on ranks p - 1, ..., 0 (direction 1). Rank r
// therefore holds model stage r for direction 0 and stage p - 1 - r for direction 1: two stages'
// parameters, "two copies of the model parameters" in the report's words. In the steady state a
// forward chunk of one direction and a full backward chunk of the other run as one pair whose
// communication (EP dispatch and combine, TP collectives) overlaps the other chunk's compute.
// The report's bubble is (p/2 - 1)(F&B + B - 3W) and its activation memory p + 1 micro-batches
// (DualPipe README, "Pipeline Bubbles and Memory Usage Comparison"); DualPipeTest checks the
// simulation against both.
#pragma once

#include <cstdint>
#include <vector>

#include "core/schedule/Schedule.h"

namespace trainplan {

enum class DualPipeOpKind : std::uint8_t {
    Forward,
    Backward,       // the whole backward
    BackwardInput,  // the input-gradient part; its W joins the rank's queue (zero-bubble)
    WeightGrad,     // the oldest queued W
    Pair,           // a forward of `direction` overlapped with a whole backward of `backwardDirection`
};

struct DualPipeOp {
    DualPipeOpKind kind = DualPipeOpKind::Forward;
    std::uint8_t direction = 0;
    std::uint8_t backwardDirection = 0;  // Pair only
};

// Rank `rank`'s ops in the reference implementation's order (its steps 1 to 8), appended to out.
// Needs p even and m even with m >= 2p (pipelineProblem()).
void dualPipeOrder(int rank, int p, long long m, std::vector<DualPipeOp>& out);

// The model stage a rank runs for a direction.
inline int dualPipeStage(int rank, int direction, int p)
{
    return direction == 0 ? rank : p - 1 - rank;
}

// A forward of stage f paired with a whole backward of stage b: the two chunks' compute runs
// back to back while each one's collectives run under the other's compute, so the pair takes
// the longer of the two sums, plus the slowdown the collectives' SMs cause under the overlap
// (costs.pairedCommSlowdown, as for overlapped DP buckets).
double dualPipePairSeconds(const StageCosts& f, const StageCosts& b, double slowdown);

// Compute time of the step in closed form (no DP tail): the busiest rank's work, less what its
// m - p - 1 pairs overlap (the middle ranks' count: the others pair less and wait as much less),
// plus the bubble (p/2 - 1)(F&B + B - 3W) with the stages' mean F&B, whole B and W, plus
// (m (p - 1)/p + 3 (p/2 - 1)) sends: the hand-overs on the simulated critical path for equal
// stages (the pairs leave no slack, so each steady iteration waits for one).
double dualPipeComputeSecondsClosedForm(const ScheduleCosts& costs);

// What a rank's pairs save in the closed form: m - p - 1 pairs, each F + B - F&B (the mean of
// its two pairings).
double dualPipePairSavingSeconds(const ScheduleCosts& costs, int rank);

// The closed form's bubble as the simulator counts it (idle share of all ranks): the middle
// ranks idle (p/2 - 1)(F&B + B - 3W), rank h from the end p/2 - 2 - h pair savings less.
double dualPipeBubbleFractionClosedForm(const ScheduleCosts& costs);

// The simulator's buffers for DualPipe, kept across calls (ScheduleSimulator).
struct DualPipeScratch {
    std::vector<std::vector<DualPipeOp>> orders;  // per rank
    std::vector<size_t> next;                     // per rank: its next op
    // Per (direction, stage) and micro-batch of that direction: end of F and B; counts done.
    std::vector<double> forwardEnd, backwardEnd;
    std::vector<int> forwardsDone, backwardsDone;
    // Per rank: W's queued by input-gradient backwards, as (direction, micro-batch), FIFO.
    std::vector<std::vector<std::pair<int, int>>> weightQueue;
    std::vector<size_t> weightHead;
    std::vector<double> freeAt;
    std::vector<int> inFlight, peakInFlight;
    std::vector<int> pending;
    std::vector<char> isPending;
};

// List scheduling of the orders above, as simulateSchedule() does for the other kinds; costs
// checked by the caller. Events: chunk = direction, micro-batch = direction x m/2 + its index in
// that direction; a pair appears as its F then its B, splitting its time in their proportion.
void simulateDualPipe(const ScheduleCosts& costs, DualPipeScratch& scratch, ScheduleResult& out, ScheduleDetail detail);

}  // namespace trainplan
