// The plan's pipeline step under each schedule kind (GPipe, 1F1B, interleaved 1F1B, ZB-H1, DualPipe), with
// the step-time model's op costs: what the timeline's comparison draws. Computed from an
// Analysis (its settled plan and estimate), once per analysis (Analysis::scheduleComparison()),
// so a view never simulates a schedule itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/schedule/Schedule.h"

namespace trainplan {

struct Analysis;

// A comparison simulates no kind past this many chunk micro-batches (p x v x m). Each costs
// about 250 bytes of events and index (4 to 5 events of 32 bytes, 2 to 3 indexed ops of 24), so
// 2^20 is a quarter GB per kind; `trainplan-cli schedule` simulates 4x more for one kind, and a
// picture of that many blocks is past reading anyway.
inline constexpr long long kMaxComparedChunkMicrobatches = 1LL << 20;

struct ComparedSchedule {
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int v = 1;                        // model chunks per stage simulated (or that would be)
    long long chunkMicrobatches = 0;  // p x v x m
    // The plan's own schedule: the analysis already simulated it (Analysis::schedule,
    // Analysis::scheduleProblem), so it is not simulated or copied again here.
    bool isPlanSchedule = false;
    bool tooLarge = false;  // chunkMicrobatches > kMaxComparedChunkMicrobatches: not simulated
    std::string problem;    // why the plan cannot run this kind; empty otherwise
    // The simulated step, shared with whoever draws it; null for the plan's own schedule, a
    // problem or a kind too large.
    std::shared_ptr<const ScheduleResult> result;

    bool simulated() const { return result != nullptr; }
};

struct ScheduleComparison {
    std::vector<ComparedSchedule> schedules;  // GPipe, 1F1B, interleaved 1F1B, ZB-H1, and DualPipe if the plan runs it
};

// Every kind with the analysis's plan and the same op costs (predictedScheduleCosts). A plan
// that does not interleave is compared at v = 2, the smallest interleaving (its estimate redone
// for that v); one that does keeps its own v.
ScheduleComparison compareSchedules(const Analysis& analysis);

}  // namespace trainplan
