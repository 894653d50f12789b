// Red flags and impossible layouts, appended to est.warnings (numbers only).
#pragma once

#include "estimate/Estimate.h"

namespace trainplan {

// Thresholds the checks use; named so the report can quote them.
inline constexpr double kLargeBubbleFraction = 0.20;
inline constexpr double kHighMfu = 0.65;
inline constexpr double kLowMfu = 0.15;

void checkLayout(const Plan& plan, Estimate& est);

}  // namespace trainplan
