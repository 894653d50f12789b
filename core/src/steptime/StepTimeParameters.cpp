// Which accelerator's sustained efficiencies a plan's cluster gets.
#include <cmath>
#include <limits>

#include "plan/Presets.h"
#include "steptime/StepTimeModel.h"

namespace trainplan {

AcceleratorEfficiency efficiencyFor(const ClusterSpec& cluster, const char** sourceName)
{
    const AcceleratorPreset* chosen = nullptr;
    if (const auto* named = findAcceleratorPreset(cluster.accelerator); named && named->efficiency.valid()) {
        chosen = named;
    } else {
        // A custom label: the preset whose dense BF16 peak is nearest (relative distance), so
        // a "1 PFLOP/s" part gets H100-class efficiencies and HBM bandwidth.
        double best = std::numeric_limits<double>::infinity();
        for (const auto& a : acceleratorPresets()) {
            if (!a.efficiency.valid())
                continue;
            const double distance = std::abs(std::log(a.peakBf16FlopsPerSecond / cluster.peakFlopsPerGpu));
            if (distance < best) {
                best = distance;
                chosen = &a;
            }
        }
    }
    if (sourceName)
        *sourceName = chosen ? chosen->name.c_str() : nullptr;
    return chosen ? chosen->efficiency : AcceleratorEfficiency{};
}

FrameworkChoices frameworkChoicesFor(const Plan& plan)
{
    const FrameworkSpec spec = resolvedFramework(plan.framework);
    FrameworkChoices c;
    // Each switch: the known value everywhere, or the unknown default as expected and its faster
    // and slower values at the ends.
    const auto flag = [&](const std::optional<bool>& known, bool FrameworkOptions::*field, bool fastValue) {
        if (known) {
            c.expected.*field = c.fastest.*field = c.slowest.*field = *known;
            return;
        }
        c.fastest.*field = fastValue;
        c.slowest.*field = !fastValue;
        c.unknownSwitches += c.fastest.*field != c.slowest.*field;
    };
    // Unknown data-parallel overlaps are expected on: PyTorch DDP and FSDP always overlap, DeepSpeed
    // ZeRO-3 turns overlap_comm on, and NVIDIA's Megatron recipes set --overlap-grad-reduce and
    // --overlap-param-gather (opt-in flags there); the range covers them off.
    flag(spec.overlapGradReduce, &FrameworkOptions::overlapGradientReduce, true);
    flag(spec.overlapParamGather, &FrameworkOptions::overlapParamGather, true);
    flag(spec.tpCommOverlap, &FrameworkOptions::tpCommOverlap, true);
    flag(spec.fusedKernels, &FrameworkOptions::fusedKernels, true);
    flag(spec.cudaGraphs, &FrameworkOptions::cudaGraphs, true);
    flag(spec.dropout, &FrameworkOptions::dropout, false);
    flag(spec.fp32Gradients, &FrameworkOptions::fp32Gradients, false);
    if (spec.flashAttention) {
        c.expected.flashAttention = c.fastest.flashAttention = c.slowest.flashAttention = *spec.flashAttention;
    } else {
        c.fastest.flashAttention = FlashAttentionVersion::V3;
        c.slowest.flashAttention = FlashAttentionVersion::V2;
        ++c.unknownSwitches;
    }
    // Unknown accumulation is expected to be PyTorch's own (the middle of the three); the range
    // covers Megatron's fused accumulation and DeepSpeed's FP32 copy.
    if (spec.gradientAccumulation) {
        c.expected.gradientAccumulation = c.fastest.gradientAccumulation = c.slowest.gradientAccumulation = *spec.gradientAccumulation;
    } else {
        c.expected.gradientAccumulation = GradientAccumulation::Autograd;
        c.fastest.gradientAccumulation = GradientAccumulation::Fused;
        c.slowest.gradientAccumulation = GradientAccumulation::Fp32Copy;
        ++c.unknownSwitches;
    }
    if (spec.optimizer) {
        c.expected.optimizer = c.fastest.optimizer = c.slowest.optimizer = *spec.optimizer;
    } else {
        c.fastest.optimizer = OptimizerImplementation::Fused;
        c.slowest.optimizer = OptimizerImplementation::Foreach;
        ++c.unknownSwitches;
    }
    return c;
}

FrameworkOptions frameworkOptionsFor(const Plan& plan)
{
    return frameworkChoicesFor(plan).expected;
}

StepTimeOptions stepTimeOptionsFor(const Plan& plan)
{
    StepTimeOptions options;
    options.efficiency = efficiencyFor(plan.cluster, &options.efficiencySource);
    options.framework = frameworkOptionsFor(plan);
    options.fp8PeakFlopsPerGpu = fp8PeakFlopsPerGpu(plan.cluster);
    return options;
}

}  // namespace trainplan
