#include "core/schedule/SchedulePreconditions.h"

#include <cstdint>
#include <limits>

namespace trainplan {

std::optional<ScheduleProblem> pipelineProblem(ScheduleKind kind, int p, long long m, int v)
{
    const auto num = [](long long x) { return std::to_string(x); };
    if (p < 1 || p > std::numeric_limits<std::int16_t>::max())
        return ScheduleProblem{"layout.pp", "pipeline stages must be 1 to 32767, got " + num(p)};
    if (m < 1)
        return ScheduleProblem{"training.global_batch_sequences", "needs at least one micro-batch per step, got " + num(m)};
    if (kind == ScheduleKind::Interleaved) {
        // Megatron-LM interleaves chunks in groups of p micro-batches, so the schedule needs
        // m to be a multiple of p (Narayanan et al. 2021, Sec. 2.2.2).
        if (v < 2)
            return ScheduleProblem{"layout.virtual_stages", "interleaved 1F1B needs at least 2 model chunks per stage, got " + num(v)};
        if (m % p != 0)
            return ScheduleProblem{"training.global_batch_sequences",
                                   "interleaved 1F1B needs the micro-batches per step (" + num(m)
                                       + ") to be a multiple of the pipeline stages (" + num(p) + ")"};
    } else if (kind == ScheduleKind::DualPipe) {
        // Two directions of m/2 micro-batches each over p/2 rank pairs; the reference
        // implementation asserts p even and m even with m >= 2p (dualpipe.py, DualPipe.step).
        if (p < 2 || p % 2 != 0)
            return ScheduleProblem{"layout.pp", "DualPipe needs an even number of pipeline stages, at least 2, got " + num(p)};
        if (m % 2 != 0 || m < 2LL * p)
            return ScheduleProblem{"training.global_batch_sequences",
                                   "DualPipe needs an even number of micro-batches per step, at least twice the pipeline stages ("
                                       + num(2LL * p) + "), got " + num(m)};
        if (v != 1)
            return ScheduleProblem{"layout.virtual_stages", "DualPipe runs one model chunk per stage and direction, got v = " + num(v)};
    } else if (v != 1) {
        return ScheduleProblem{"layout.virtual_stages", "only interleaved 1F1B runs several model chunks per stage, got v = " + num(v)};
    }
    if ((long long)p * v * m > kMaxScheduleChunkMicrobatches)
        return ScheduleProblem{"training.global_batch_sequences",
                               "p * v * m = " + num((long long)p * v * m) + " chunk micro-batches is too large to simulate (limit "
                                   + num(kMaxScheduleChunkMicrobatches) + ")"};
    return std::nullopt;
}

}  // namespace trainplan
