// Which of the layout fields a plan leaves unknown (Plan.h, LayoutUnknown) can act on it: the
// memory range (MemoryRange.h), the predicted range and sensitivity (analysis/PlanUnknowns.h) read
// the same answer.
#pragma once

#include "core/plan/LayoutUnknownFields.h"

namespace trainplan {

// What the estimate knows about where the range's ends lie (LayoutUnknownFields.h).
LayoutUnknownEnds layoutUnknownEnds(const Plan& plan);

// The LayoutUnknown bits that act on this plan: each row's acts() (LayoutUnknownFields.h), e.g.
// sequence parallelism needs TP above 1, the schedule a valid interleaving (fewestInterleavingChunks).
unsigned actingLayoutUnknowns(const Plan& plan);

}  // namespace trainplan
