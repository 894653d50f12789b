// The CLI's readable estimate: aligned, with units, grouped like a plan.
#pragma once

#include <string>

#include "trainplan/Estimate.h"

namespace trainplan {

std::string estimateToText(const Plan& plan, const Estimate& est, bool withDerivation);

}  // namespace trainplan
