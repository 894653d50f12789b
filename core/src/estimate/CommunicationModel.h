// Communication volumes and large-message ring times for TP, PP, DP, ZeRO-3 and CP.
#pragma once

#include "estimate/Estimate.h"

namespace trainplan {

// Ring collectives on n ranks moving S bytes at B bytes/s per rank (Patarasuk and
// Yuan 2009; worked example B, "Check communication"):
//   all-reduce 2 (n - 1)/n S / B;  reduce-scatter or all-gather (n - 1)/n S / B.
double ringAllReduceSeconds(double bytes, int ranks, double bytesPerSecond);
double ringGatherSeconds(double bytes, int ranks, double bytesPerSecond);

// Fills est.communication; needs stages, pipeline and time already estimated.
void estimateCommunication(const Plan& plan, Estimate& est);

}  // namespace trainplan
