// Checkpoint size and cadence, failures over the run, and the padded wall time.
#pragma once

#include "estimate/Estimate.h"

namespace trainplan {

// Fills est.reliability; needs parameters and time already estimated.
void estimateReliability(const Plan& plan, Estimate& est);

}  // namespace trainplan
