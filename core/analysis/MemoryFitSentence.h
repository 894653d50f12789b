// The one sentence every view gives beside the memory verdict (MemoryFit.h): why the fullest GPU
// fits, may not fit or does not fit, and, for "may not fit", what would settle it.
#pragma once

#include <string>

#include "core/estimate/MemoryRange.h"

namespace trainplan {

// "may not fit" names the unknown inputs that widen the range (the fields to give) and the memory
// model's own error band, which only a measured peak settles; the other two verdicts say which end
// of the range decides them.
std::string memoryFitSentence(const MemoryRange& range);

}  // namespace trainplan
