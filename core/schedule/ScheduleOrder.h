// The fixed order in which one pipeline stage runs its ops under each schedule.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/schedule/Schedule.h"

namespace trainplan {

enum class StageOpKind : std::uint8_t { Forward, Backward, WeightGrad };

struct StageOp {
    StageOpKind kind = StageOpKind::Forward;
    int chunk = 0;
    int microbatch = 0;
};

// Walks one stage's ops without storing them. Every schedule here has the same shape
// (Megatron-LM, megatron/core/pipeline_parallel/schedules.py):
//   warm-up:   w forwards;
//   steady:    one forward (while any remain), then one backward, (ZB-H1) then one W;
//   drain:     (ZB-H1) the deferred W's.
// Only w, the chunk order and the W deferral differ:
//   GPipe        w = m (all forwards, then all backwards; Huang et al. 2019, Fig. 2c)
//   1F1B         w = min(p - i - 1, m) (Narayanan et al. 2021, Sec. 2.2.1)
//   interleaved  w = min(2 (p - i - 1) + (v - 1) p, v m) chunk forwards; the k-th forward
//                runs chunk (k / p) mod v of micro-batch (k / (p v)) p + k mod p, backwards
//                the chunks in reverse (Narayanan et al. 2021, Sec. 2.2.2; Megatron-LM's
//                get_model_chunk_id and get_microbatch_id_in_model_chunk)
//   ZB-H1        1F1B's w, and stage i starts its W's i steady iterations late so every stage
//                holds p micro-batches, stage 0 as many as under 1F1B (Qi et al. 2023,
//                Sec. 3.1, Fig. 3; PyTorch's _get_1f1b_rank_ops with enable_zero_bubble)
// Forwards, backwards and W's of each chunk each run in ascending micro-batch order.
class StageOpOrder {
public:
    void reset(ScheduleKind kind, int stage, int p, long long m, int v);
    bool done() const { return done_; }
    const StageOp& current() const { return op_; }
    void advance();

private:
    // Megatron's virtual micro-batch order, stepped without divisions: p micro-batches of
    // chunk 0, the same p of chunk 1, ..., then the next group of p.
    struct Cursor {
        int lane = 0;
        int chunk = 0;
        int group = 0;
        void next(int p, int v)
        {
            if (++lane == p) {
                lane = 0;
                if (++chunk == v) {
                    chunk = 0;
                    ++group;
                }
            }
        }
    };

    void select();

    int p_ = 1;
    int v_ = 1;
    long long total_ = 0;     // chunk forwards (= backwards) on this stage: m v
    long long warmup_ = 0;
    long long wDelay_ = -1;   // steady iterations before the first W; -1: no separate W
    long long forwards_ = 0, backwards_ = 0, weightGrads_ = 0;  // issued before current()
    Cursor forwardCursor_, backwardCursor_, weightCursor_;
    StageOp op_;
    bool done_ = false;
};

// advance() and select() run once per op when the simulator walks a new shape's order: inline.
inline void StageOpOrder::advance()
{
    switch (op_.kind) {
    case StageOpKind::Forward:
        ++forwards_;
        forwardCursor_.next(p_, v_);
        break;
    case StageOpKind::Backward:
        ++backwards_;
        backwardCursor_.next(p_, v_);
        break;
    case StageOpKind::WeightGrad:
        ++weightGrads_;
        weightCursor_.next(p_, v_);
        break;
    }
    select();
}

// Picks the next op from the counts issued so far; see the class comment for the shape.
inline void StageOpOrder::select()
{
    const auto forward = [&] {
        op_ = {StageOpKind::Forward, forwardCursor_.chunk, forwardCursor_.group * p_ + forwardCursor_.lane};
    };
    const auto backwardLike = [&](StageOpKind kind, const Cursor& c) {
        op_ = {kind, v_ - 1 - c.chunk, c.group * p_ + c.lane};
    };
    const bool splitsBackward = wDelay_ >= 0;

    if (forwards_ < warmup_)
        return forward();
    // The W owed by the steady iteration just finished (ZB-H1), before the next forward.
    if (splitsBackward && weightGrads_ < backwards_ - wDelay_)
        return backwardLike(StageOpKind::WeightGrad, weightCursor_);
    if (backwards_ < total_) {
        // Steady iteration k = backwards_: forward number warmup + k first, if any is left.
        if (forwards_ < std::min(total_, warmup_ + backwards_ + 1))
            return forward();
        return backwardLike(StageOpKind::Backward, backwardCursor_);
    }
    if (splitsBackward && weightGrads_ < total_)
        return backwardLike(StageOpKind::WeightGrad, weightCursor_);
    done_ = true;
}

}  // namespace trainplan
