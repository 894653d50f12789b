// Red flags and impossible layouts, appended to est.warnings (numbers only).
#pragma once

#include <optional>

#include "core/estimate/Estimate.h"

namespace trainplan {

// Thresholds the checks use; named so the report can quote them.
inline constexpr double kLargeBubbleFraction = 0.20;
inline constexpr double kHighMfu = 0.65;
inline constexpr double kLowMfu = 0.15;

void checkLayout(const Plan& plan, Estimate& est);
// Only the error-level checks of a layout that cannot run as given (product of the layout, heads,
// stages, batch, sequence, interleaving, FP8) and of stages over capacity: what the layout search
// needs, in the order checkLayout() adds them.
void checkLayoutValidity(const Plan& plan, Estimate& est);
// The red flags of the layout itself (TP across nodes, stages, bubble, ZeRO-3 with a pipeline, DP
// not hidden, a stage under the margin), in the order checkLayout() adds them: what the layout
// search marks its rows with. checkLayout() = validity + these + the plan's other advisories.
// insideEpFits: whether the layout with EP = largestEpInsideNode(plan) fits memory, when the
// caller knows (the layout search estimated that layout already); else it is estimated here when
// the layout's EP groups cross nodes (EP_SPANS_NODES is raised only when it fits).
void checkLayoutAdvisories(const Plan& plan, Estimate& est, std::optional<bool> insideEpFits = std::nullopt);
// The largest EP that keeps each EP group inside a node with the layout's ETP (EP x ETP within
// gpus_per_node, dividing the experts and the stage's ranks), or 1 when none above 1 does.
int largestEpInsideNode(const Plan& plan);
// The codes of the warning-level red flags in est.warnings, as a mask of warningBit() (Warning.h).
unsigned layoutRedFlags(const Estimate& est);

}  // namespace trainplan
