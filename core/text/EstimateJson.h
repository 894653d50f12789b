// estimate --json: the scripting contract (keys that must exist, SI units).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/analysis/Analysis.h"

namespace trainplan {

// The estimate at the assumed MFU (top-level keys, "time.basis": "assumed_mfu") and, under
// "predicted", the step-time model's figures ("predicted.basis": "predicted"), both from one
// analysis.
nlohmann::json estimateToJson(const Analysis& analysis);

}  // namespace trainplan
