// Activation memory per transformer layer (Korthikanti et al. 2022, Table 2).
#pragma once

#include "estimate/Estimate.h"

namespace trainplan {

// Bytes per GPU that one layer stores for one micro-batch, for the plan's TP, SP,
// recompute, flash-attention and CP choices.
ActivationEstimate activationPerLayer(const Plan& plan);

// Bytes one layer materialises while it is being recomputed (full recompute only):
// the same layer with nothing recomputed, which exists once per GPU at a time.
double recomputeWorkingSet(const Plan& plan);

// FP32 logits and the final norm's input kept for the loss on the last stage:
// 4 s b h / t (1 + v / h) (Korthikanti et al. 2022, Sec. 4.3, output-layer term).
double logitsBytes(const Plan& plan);

}  // namespace trainplan
