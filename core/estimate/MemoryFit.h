// Whether the fullest GPU fits, read from its memory range (MemoryRange.h) rather than from the
// point estimate: a planner that calls a layout safe when the heavy end of its own range is over
// the line, or out of memory when the light end is under it, misleads either way. The window, the
// reports, the JSON, the search and the reality check all read this one verdict.
#pragma once

namespace trainplan {

struct Estimate;

// "fits": even the range's high end stays within what is usable; "may not fit": the range
// straddles it; "does not fit": even its low end is above it.
enum class MemoryFit { Fits, MayNotFit, DoesNotFit };

// What a GPU may use: capacity less training.memory_margin_fraction of it (the margin the
// STAGE_NEAR_CAPACITY red flag keeps free; docs/plan-format.md).
double usableMemoryBytes(const Estimate& est);

// The verdict of a range [lowBytes, highBytes] against usableBytes.
MemoryFit memoryFitOf(double lowBytes, double highBytes, double usableBytes);

// "fits", "may not fit", "does not fit": the JSON's memory.verdict values (docs/interfaces.md) and
// the words every view shows.
const char* memoryFitName(MemoryFit fit);

}  // namespace trainplan
