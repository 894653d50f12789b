// Which of the layout fields a plan leaves unknown (Plan.h, LayoutUnknown) can act on it: the
// memory range (MemoryRange.h), the predicted range and sensitivity (analysis/PlanUnknowns.h) read
// the same answer.
#pragma once

#include "plan/Plan.h"

namespace trainplan {

// The LayoutUnknown bits that act on this plan: sequence parallelism needs TP above 1, the schedule
// a valid interleaving (fewestInterleavingChunks), FlashAttention a stack that has it.
unsigned actingLayoutUnknowns(const Plan& plan);

}  // namespace trainplan
