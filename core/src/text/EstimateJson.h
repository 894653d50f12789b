// estimate --json: the contract of interfaces.md ("keys that must exist"), SI units.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "estimate/Estimate.h"

namespace trainplan {

nlohmann::json estimateToJson(const Plan& plan, const Estimate& est);

}  // namespace trainplan
