// The range around the fullest GPU's predicted memory: what the plan leaves unknown (framework
// switches that change what is stored) and the memory model's own error against measured peaks.
#pragma once

#include "core/estimate/Estimate.h"
#include "core/estimate/MemoryFit.h"

namespace trainplan {

struct MemoryRange {
    double lowBytes = 0;    // unknown switches at their lighter values, no fragmentation allowance
    double highBytes = 0;   // unknown switches at their heavier values, plus the model's error
    int unknownSwitches = 0;  // dropout masks stored?, FP32 gradient accumulators?
    unsigned unknownLayoutFields = 0;  // LayoutUnknown bits that change what is stored
    bool unknownLoadImbalance = false; // MoE: the busiest expert rank's tokens (ActivationModel.h, loadImbalanceUnknown)
    double modelErrorAbove = 0;  // measured peaks up to this fraction above the prediction
    double usableBytes = 0;      // capacity less the margin (usableMemoryBytes())
    MemoryFit fit = MemoryFit::Fits;  // the range against usableBytes (MemoryFit.h)
};

// The fraction by which measured peaks have exceeded the prediction on the calibration runs with a
// published peak (BigScience 176B sweep, resources/reference/calibration_runs.json: up to 13.6 %
// above); tst_realitycheck fails if a measured peak leaves the range.
double memoryModelErrorAbove();

// est = estimate(plan); scratch holds the switch variants' estimates (reused storage). Layout
// fields the plan leaves unknown (LayoutUnknownFields.h) widen the range too: full recompute,
// sequence parallelism and 1F1B at the light end, the plan's own recompute (as the analysis
// settled it) without sequence parallelism and interleaved at the heavy end.
MemoryRange memoryRange(const Plan& plan, const Estimate& est, Estimate& scratch);

// memoryRange(plan, est, scratch).fit, estimating a variant only when the point estimate leaves the
// verdict open: the high end is at least total x (1 + model error) and the low end at most the
// total, so most layouts are settled by est alone (the layout search's hot loop calls this).
// variant is scratch storage for the variant plan (reused, so the search does not allocate).
MemoryFit memoryFitOfRange(const Plan& plan, const Estimate& est, Estimate& scratch, Plan& variant);

}  // namespace trainplan
