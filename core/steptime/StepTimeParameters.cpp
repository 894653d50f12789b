// Which accelerator's sustained efficiencies a plan's cluster gets.
#include <cmath>
#include <limits>

#include "core/plan/FrameworkNames.h"
#include "core/presets/Presets.h"
#include "core/steptime/StepTimeModel.h"
#include "core/steptime/EfficiencyFields.h"

namespace trainplan {

namespace {

// The figures the plan gives itself (cluster.efficiency) in place of the preset's.
void applyEfficiencySpec(const EfficiencySpec& s, AcceleratorEfficiency& e)
{
    for (const EfficiencyField& f : kEfficiencyFields)
        f.apply(s, e);
}

}  // namespace

const AcceleratorPreset* efficiencyPresetFor(const ClusterSpec& cluster, bool* borrowed)
{
    const AcceleratorPreset* chosen = nullptr;
    bool nearest = false;
    if (const auto* named = findAcceleratorPreset(cluster.accelerator); named && named->efficiency.valid()) {
        chosen = named;
    } else if (const auto* same = acceleratorPresetOf(cluster); same && same->efficiency.valid()) {
        chosen = same;  // a label of the user's own on a preset's hardware figures
    } else {
        nearest = true;
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
    if (borrowed)
        *borrowed = nearest && chosen;
    return chosen;
}

bool efficienciesBorrowed(const ClusterSpec& cluster)
{
    bool borrowed = false;
    efficiencyPresetFor(cluster, &borrowed);
    return borrowed && cluster.efficiency.given() < EfficiencySpec::kFields;
}

AcceleratorEfficiency efficiencyFor(const ClusterSpec& cluster, const char** sourceName)
{
    const AcceleratorPreset* chosen = efficiencyPresetFor(cluster);
    if (sourceName)
        *sourceName = chosen ? chosen->name.c_str() : nullptr;
    AcceleratorEfficiency e = chosen ? chosen->efficiency : AcceleratorEfficiency{};
    applyEfficiencySpec(cluster.efficiency, e);
    return e;
}

namespace {

// A yes/no switch of the table: the plan's field, the option it sets, and its faster value.
template <std::optional<bool> FrameworkSpec::*Spec, bool FrameworkOptions::*Option, bool Fast>
FrameworkSwitch flagSwitch(const char* label, const char* field)
{
    return {label, field, [](const FrameworkSpec& s) { return bool(s.*Spec); },
        [](const FrameworkSpec& s, FrameworkOptions& o) { o.*Option = *(s.*Spec); },
        [](FrameworkOptions& o, bool fast) { o.*Option = fast ? Fast : !Fast; },
        [](const FrameworkOptions& o) { return std::string(o.*Option ? "on" : "off"); }};
}

// A switch that acts only on a model with MoE layers.
FrameworkSwitch moeSwitch(FrameworkSwitch sw)
{
    sw.actsOn = [](const Plan& plan) { return plan.model.hasMoeLayers(); };
    return sw;
}

}  // namespace

const std::vector<FrameworkSwitch>& frameworkSwitches()
{
    // Unknown data-parallel overlaps are expected on (FrameworkOptions' defaults): PyTorch DDP and
    // FSDP always overlap, DeepSpeed ZeRO-3 turns overlap_comm on, and NVIDIA's Megatron recipes
    // set --overlap-grad-reduce and --overlap-param-gather (opt-in flags there); the range covers
    // them off. Unknown accumulation is expected to be PyTorch's own (the middle of the three);
    // the range covers Megatron's fused accumulation and DeepSpeed's FP32 copy.
    static const std::vector<FrameworkSwitch> table = {
        flagSwitch<&FrameworkSpec::overlapGradReduce, &FrameworkOptions::overlapGradientReduce, true>(
            "Gradient reduce overlap", "framework.overlap_grad_reduce"),
        flagSwitch<&FrameworkSpec::overlapParamGather, &FrameworkOptions::overlapParamGather, true>(
            "Parameter gather overlap", "framework.overlap_param_gather"),
        flagSwitch<&FrameworkSpec::tpCommOverlap, &FrameworkOptions::tpCommOverlap, true>(
            "TP communication overlap", "framework.tp_comm_overlap"),
        flagSwitch<&FrameworkSpec::fusedKernels, &FrameworkOptions::fusedKernels, true>("Fused kernels", "framework.fused_kernels"),
        flagSwitch<&FrameworkSpec::cudaGraphs, &FrameworkOptions::cudaGraphs, true>("CUDA graphs", "framework.cuda_graphs"),
        flagSwitch<&FrameworkSpec::dropout, &FrameworkOptions::dropout, false>("Dropout", "framework.dropout"),
        flagSwitch<&FrameworkSpec::fp32Gradients, &FrameworkOptions::fp32Gradients, false>("FP32 gradients", "framework.fp32_gradients"),
        {"FlashAttention version", "framework.flash_attention", [](const FrameworkSpec& s) { return s.flashAttention.has_value(); },
            [](const FrameworkSpec& s, FrameworkOptions& o) { o.flashAttention = *s.flashAttention; },
            [](FrameworkOptions& o, bool fast) { o.flashAttention = fast ? FlashAttentionVersion::V3 : FlashAttentionVersion::V2; },
            [](const FrameworkOptions& o) { return std::string(nameOf(kFlashAttentionVersionNames, o.flashAttention)); }},
        {"Gradient accumulation", "framework.gradient_accumulation",
            [](const FrameworkSpec& s) { return s.gradientAccumulation.has_value(); },
            [](const FrameworkSpec& s, FrameworkOptions& o) { o.gradientAccumulation = *s.gradientAccumulation; },
            [](FrameworkOptions& o, bool fast) {
                o.gradientAccumulation = fast ? GradientAccumulation::Fused : GradientAccumulation::Fp32Copy;
            },
            [](const FrameworkOptions& o) { return std::string(nameOf(kGradientAccumulationNames, o.gradientAccumulation)); }},
        moeSwitch(flagSwitch<&FrameworkSpec::moeGroupedGemm, &FrameworkOptions::moeGroupedGemm, true>(
            "Grouped expert GEMM", "framework.moe_grouped_gemm")),
        moeSwitch(flagSwitch<&FrameworkSpec::moeCommOverlap, &FrameworkOptions::moeCommOverlap, true>(
            "All-to-all overlap", "framework.moe_comm_overlap")),
        moeSwitch({"MoE dispatcher", "framework.moe_dispatcher", [](const FrameworkSpec& s) { return s.moeDispatcher.has_value(); },
            [](const FrameworkSpec& s, FrameworkOptions& o) { o.moeDispatcher = *s.moeDispatcher; },
            // DeepEP sends a token across the network once per node (the faster); all-gather moves
            // every token of the group to every rank (the slower, at any EP above a few ranks).
            [](FrameworkOptions& o, bool fast) { o.moeDispatcher = fast ? MoeDispatcher::DeepEp : MoeDispatcher::AllGather; },
            [](const FrameworkOptions& o) { return std::string(nameOf(kMoeDispatcherNames, o.moeDispatcher)); }}),
        {"Optimizer implementation", "framework.optimizer", [](const FrameworkSpec& s) { return s.optimizer.has_value(); },
            [](const FrameworkSpec& s, FrameworkOptions& o) { o.optimizer = *s.optimizer; },
            [](FrameworkOptions& o, bool fast) { o.optimizer = fast ? OptimizerImplementation::Fused : OptimizerImplementation::Foreach; },
            [](const FrameworkOptions& o) { return std::string(nameOf(kOptimizerImplementationNames, o.optimizer)); }},
    };
    return table;
}

FrameworkChoices frameworkChoicesFor(const Plan& plan)
{
    const FrameworkSpec spec = resolvedFramework(plan.framework);
    FrameworkChoices c;
    // Each switch: the known value, or the unknown default (counted).
    for (const FrameworkSwitch& sw : frameworkSwitches()) {
        if (sw.known(spec))
            sw.setKnown(spec, c.expected);
        else if (sw.appliesTo(plan))
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
    options.formatPeakFlopsPerGpu = formatPeakFlopsPerGpu(plan.cluster, plan.training.matmulPrecision);
    return options;
}

}  // namespace trainplan
