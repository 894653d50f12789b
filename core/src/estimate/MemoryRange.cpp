#include "estimate/MemoryRange.h"

#include <algorithm>

#include "estimate/LayoutUnknowns.h"
#include "estimate/PipelineModel.h"

namespace trainplan {

namespace {

constexpr double kMemoryModelErrorAbove = 0.15;

}  // namespace

double memoryModelErrorAbove()
{
    return kMemoryModelErrorAbove;
}

MemoryRange memoryRange(const Plan& plan, const Estimate& est, Estimate& scratch)
{
    MemoryRange r;
    r.modelErrorAbove = kMemoryModelErrorAbove;
    const FrameworkSpec known = resolvedFramework(plan.framework);
    r.unknownSwitches = !known.dropout + !known.fp32Gradients;
    r.unknownLayoutFields = actingLayoutUnknowns(plan);
    const int chunks = r.unknownLayoutFields & kUnknownSchedule ? fewestInterleavingChunks(plan) : 0;
    double lightest = est.perGpu.total, lightestFragmentation = est.perGpu.fragmentation, heaviest = est.perGpu.total;
    if (r.unknownSwitches > 0 || r.unknownLayoutFields != 0) {
        // Each switch moves memory one way: dropout stores two mask bytes of Korthikanti's 34,
        // FP32 accumulators double 16-bit gradients (ActivationModel.cpp); full recompute keeps
        // only layer inputs, sequence parallelism splits them over TP, FlashAttention keeps no
        // scores.
        Plan variant = plan;
        const auto setUnknown = [&](bool heavy) {
            if (!known.dropout)
                variant.framework.dropout = heavy;
            if (!known.fp32Gradients)
                variant.framework.fp32Gradients = heavy;
            const unsigned bits = r.unknownLayoutFields;
            if (bits & kUnknownRecompute) {
                variant.layout.recompute = heavy ? plan.layout.recompute : Recompute::Full;
                variant.layout.recomputeLayers = heavy ? plan.layout.recomputeLayers : 0;  // 0: every layer
            }
            if (bits & kUnknownSequenceParallel)
                variant.layout.sequenceParallel = !heavy;
            if (bits & kUnknownFlashAttention)
                variant.layout.flashAttention = !heavy;
            // Interleaving keeps more micro-batches in flight on the first stage (PipelineModel.h).
            if (bits & kUnknownSchedule) {
                variant.layout.schedule = heavy ? Schedule::Interleaved : Schedule::OneFOneB;
                variant.layout.virtualStages = heavy ? chunks : 1;
            }
        };
        setUnknown(false);
        estimateInto(variant, scratch);
        if (scratch.perGpu.total < lightest) {
            lightest = scratch.perGpu.total;
            lightestFragmentation = scratch.perGpu.fragmentation;
        }
        setUnknown(true);
        estimateInto(variant, scratch);
        heaviest = std::max(heaviest, scratch.perGpu.total);
    }
    // The fragmentation term is an allowance (ReserveModel.cpp): an allocator with expandable
    // segments may lose next to nothing, so the light end leaves it out.
    r.lowBytes = lightest - lightestFragmentation;
    r.highBytes = heaviest * (1.0 + kMemoryModelErrorAbove);
    return r;
}

}  // namespace trainplan
