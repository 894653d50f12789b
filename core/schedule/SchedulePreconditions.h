// What a pipeline must satisfy before it can be simulated; shared by the costs-level API
// (std::invalid_argument) and the plan-level one (PlanError naming the plan field).
#pragma once

#include <optional>
#include <string>

#include "core/schedule/Schedule.h"

namespace trainplan {

struct ScheduleProblem {
    const char* field;    // the plan's JSON path to blame
    std::string message;
};

// Upper bound on p * v * m: about 4 chunk-ops each, 32 bytes per event, so ~0.5 GB of
// events at the bound; beyond that a timeline is no longer something to look at.
inline constexpr long long kMaxScheduleChunkMicrobatches = 1LL << 22;

std::optional<ScheduleProblem> pipelineProblem(ScheduleKind kind, int p, long long m, int v);

}  // namespace trainplan
