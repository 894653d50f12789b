#include "core/estimate/MemoryRange.h"

#include <algorithm>

#include "core/estimate/ActivationModel.h"
#include "core/estimate/LayoutUnknowns.h"

namespace trainplan {

namespace {

constexpr double kMemoryModelErrorAbove = 0.15;

// The range's ends from the plan's estimate and, when the plan leaves inputs unknown, its light
// and heavy variants (each estimated only when asked for).
MemoryRange rangeOf(const Plan& plan, const Estimate& est, Estimate& scratch, Plan& variant, bool lightEnd, bool heavyEnd)
{
    MemoryRange r;
    r.modelErrorAbove = kMemoryModelErrorAbove;
    const FrameworkSpec known = resolvedFramework(plan.framework);
    r.unknownSwitches = !known.dropout + !known.fp32Gradients;
    r.unknownLayoutFields = actingLayoutUnknowns(plan);
    r.unknownLoadImbalance = loadImbalanceUnknown(plan.model);
    const LayoutUnknownEnds ends = r.unknownLayoutFields ? layoutUnknownEnds(plan) : LayoutUnknownEnds{};
    double lightest = est.perGpu.total, lightestFragmentation = est.perGpu.fragmentation, heaviest = est.perGpu.total;
    if (r.unknownSwitches > 0 || r.unknownLayoutFields != 0 || r.unknownLoadImbalance) {
        // Each switch moves memory one way: dropout stores two mask bytes of Korthikanti's 34,
        // FP32 accumulators double 16-bit gradients (ActivationModel.cpp). Each layout unknown
        // stores less at one end of its range (LayoutUnknownFields.h, lighterWhenFaster): full
        // recompute keeps only layer inputs, sequence parallelism splits them over TP, 1F1B keeps
        // fewer micro-batches in flight than interleaving (PipelineModel.h).
        variant = plan;
        const auto setUnknown = [&](bool heavy) {
            if (!known.dropout)
                variant.framework.dropout = heavy;
            if (!known.fp32Gradients)
                variant.framework.fp32Gradients = heavy;
            // The busiest expert rank's routed tokens set its expert activations (ActivationModel.h).
            if (r.unknownLoadImbalance)
                variant.model.moe->loadImbalance = heavy ? kWorstLoadImbalance : kBestLoadImbalance;
            variant.layout = plan.layout;  // the value the analysis expects: each end starts there
            for (const LayoutUnknownField& u : layoutUnknownFields())
                if (r.unknownLayoutFields & u.bit)
                    u.setEnd(variant.layout, heavy != u.lighterWhenFaster, ends);
        };
        // The variants' model counts the same parameters (switches, imbalance and layout fields
        // change none): only their memory is estimated, all the range reads. A variant of the
        // same schedule also has the plan's stages (layers, kinds, parameters, micro-batches in
        // flight): they are copied rather than laid out again.
        scratch.parameters = est.parameters;
        const auto estimateVariant = [&] {
            const LayoutSpec& a = variant.layout;
            const LayoutSpec& b = plan.layout;
            if (a.schedule == b.schedule && a.virtualStages == b.virtualStages && a.pp == b.pp && a.stageLayers == b.stageLayers) {
                scratch.stages = est.stages;
                scratch.stageKinds = est.stageKinds;
                estimateInto(variant, scratch, EstimateScope::MemoryOfSameStages);
            } else {
                estimateInto(variant, scratch, EstimateScope::MemoryOfSameModel);
            }
        };
        if (lightEnd) {
            setUnknown(false);
            estimateVariant();
            if (scratch.perGpu.total < lightest) {
                lightest = scratch.perGpu.total;
                lightestFragmentation = scratch.perGpu.fragmentation;
            }
        }
        if (heavyEnd) {
            setUnknown(true);
            estimateVariant();
            heaviest = std::max(heaviest, scratch.perGpu.total);
        }
    }
    // The fragmentation term is an allowance (ReserveModel.cpp): an allocator with expandable
    // segments may lose next to nothing, so the light end leaves it out, unless a measured peak on
    // this cluster settled it (calibration/Calibration.h fits it and records so).
    const bool slackMeasured = plan.cluster.calibrated("training.fragmentation_fraction");
    r.lowBytes = slackMeasured ? lightest : lightest - lightestFragmentation;
    r.highBytes = heaviest * (1.0 + kMemoryModelErrorAbove);
    r.usableBytes = usableMemoryBytes(est);
    r.fit = memoryFitOf(r.lowBytes, r.highBytes, r.usableBytes);
    return r;
}

}  // namespace

double memoryModelErrorAbove()
{
    return kMemoryModelErrorAbove;
}

MemoryRange memoryRange(const Plan& plan, const Estimate& est, Estimate& scratch)
{
    Plan variant;
    return rangeOf(plan, est, scratch, variant, true, true);
}

MemoryFit memoryFitOfRange(const Plan& plan, const Estimate& est, Estimate& scratch, Plan& variant)
{
    // The high end is the heaviest variant (at least the plan's own total) plus the model's error;
    // the low end is the lightest variant less its fragmentation allowance (at most the total).
    const double total = est.perGpu.total, usable = usableMemoryBytes(est);
    const bool highOver = total * (1.0 + kMemoryModelErrorAbove) > usable;
    if (highOver && total <= usable)
        return MemoryFit::MayNotFit;
    // Open: the heavy end decides between fits and may not fit, or the light end between may not
    // fit and does not fit.
    return rangeOf(plan, est, scratch, variant, highOver, !highOver).fit;
}

}  // namespace trainplan
