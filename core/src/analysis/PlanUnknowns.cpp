#include "analysis/PlanUnknowns.h"

#include <algorithm>

#include "estimate/Estimate.h"
#include "estimate/PipelineModel.h"
#include "plan/EnumNames.h"
#include "plan/FrameworkNames.h"
#include "text/Format.h"

namespace trainplan {

namespace {

// A yes/no framework switch: where the plan sets it, where the model reads it, and which value is
// the faster (StepTimeParameters.cpp, frameworkChoicesFor(), sets the same ones).
struct FrameworkFlag {
    const char* label;
    const char* field;
    std::optional<bool> FrameworkSpec::*spec;
    bool FrameworkOptions::*option;
    bool fastValue;
};

constexpr FrameworkFlag kFlags[] = {
    {"Gradient reduce overlap", "framework.overlap_grad_reduce", &FrameworkSpec::overlapGradReduce, &FrameworkOptions::overlapGradientReduce, true},
    {"Parameter gather overlap", "framework.overlap_param_gather", &FrameworkSpec::overlapParamGather, &FrameworkOptions::overlapParamGather, true},
    {"TP communication overlap", "framework.tp_comm_overlap", &FrameworkSpec::tpCommOverlap, &FrameworkOptions::tpCommOverlap, true},
    {"Fused kernels", "framework.fused_kernels", &FrameworkSpec::fusedKernels, &FrameworkOptions::fusedKernels, true},
    {"CUDA graphs", "framework.cuda_graphs", &FrameworkSpec::cudaGraphs, &FrameworkOptions::cudaGraphs, true},
    {"Dropout", "framework.dropout", &FrameworkSpec::dropout, &FrameworkOptions::dropout, false},
    {"FP32 gradients", "framework.fp32_gradients", &FrameworkSpec::fp32Gradients, &FrameworkOptions::fp32Gradients, false},
};

std::string onOff(bool v)
{
    return v ? "on" : "off";
}

bool fitsWith(const Plan& plan, Recompute recompute, int recomputeLayers = 0)
{
    Plan variant = plan;
    variant.layout.recompute = recompute;
    variant.layout.recomputeLayers = recomputeLayers;
    return estimate(variant).fits;
}

}  // namespace

std::string unknownInputsPhrase(int frameworkSwitches, unsigned layoutFields)
{
    std::vector<std::string> parts;
    if (frameworkSwitches > 0)
        parts.push_back(countOf(frameworkSwitches, "framework switch", "framework switches"));
    const std::pair<unsigned, const char*> names[] = {{kUnknownRecompute, "recompute"},
                                                      {kUnknownSequenceParallel, "sequence parallelism"},
                                                      {kUnknownFlashAttention, "FlashAttention"},
                                                      {kUnknownSchedule, "the pipeline schedule"}};
    for (const auto& [bit, name] : names)
        if (layoutFields & bit)
            parts.emplace_back(name);
    if (parts.empty())
        return "no unknown inputs";
    std::string out = parts[0];
    for (size_t i = 1; i < parts.size(); ++i)
        out += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return out;
}

unsigned actingLayoutUnknowns(const Plan& plan)
{
    unsigned bits = plan.layout.unknownFields;
    if (plan.layout.tp <= 1)
        bits &= ~unsigned(kUnknownSequenceParallel);
    // Without a valid interleaving both ends are 1F1B; without a FlashAttention kernel in the
    // framework the layout's choice cannot act.
    if ((bits & kUnknownSchedule) && fewestInterleavingChunks(plan) == 0)
        bits &= ~unsigned(kUnknownSchedule);
    if ((bits & kUnknownFlashAttention) && frameworkSwitch(plan.framework, &FrameworkSpec::flashAttention) == FlashAttentionVersion::None)
        bits &= ~unsigned(kUnknownFlashAttention);
    return bits;
}

Plan withAssumedRecompute(const Plan& plan)
{
    const auto& l = plan.layout;
    if (!(l.unknownFields & kUnknownRecompute) || (l.recompute == Recompute::Full && l.recomputeLayers == 0) ||
        fitsWith(plan, l.recompute, l.recomputeLayers))
        return plan;
    Plan out = plan;
    if (l.recompute == Recompute::None && fitsWith(plan, Recompute::Selective)) {
        out.layout.recompute = Recompute::Selective;
        return out;
    }
    // Full recompute of the fewest layers per stage that fits (Megatron's block method: memory
    // falls with every layer recomputed), else of all of them.
    out.layout.recompute = Recompute::Full;
    int most = 0;
    const StageLayerSplit split(plan);
    for (int i = 0; i < l.pp; ++i)
        most = std::max(most, split.layersOf(i));
    int lo = 1, hi = most;  // the answer lies in [lo, hi]; hi (every layer) is the fallback
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (fitsWith(plan, Recompute::Full, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    out.layout.recomputeLayers = lo >= most ? 0 : lo;
    return out;
}

bool setLayoutUnknowns(Plan& plan, bool fast)
{
    const unsigned bits = actingLayoutUnknowns(plan);
    auto& l = plan.layout;
    const LayoutSpec before = l;
    if (bits & kUnknownRecompute) {
        const Plan assumed = fast ? withAssumedRecompute(plan) : Plan{};
        l.recompute = fast ? assumed.layout.recompute : Recompute::Full;
        l.recomputeLayers = fast ? assumed.layout.recomputeLayers : 0;
    }
    if (bits & kUnknownSequenceParallel)
        l.sequenceParallel = fast;
    if (bits & kUnknownFlashAttention)
        l.flashAttention = fast;
    if (bits & kUnknownSchedule) {
        const int v = fast ? fewestInterleavingChunks(plan) : 0;
        l.schedule = v > 0 ? Schedule::Interleaved : Schedule::OneFOneB;
        l.virtualStages = v > 0 ? v : 1;
    }
    return !(l == before);
}

std::vector<UnknownInput> unknownInputs(const Plan& plan)
{
    std::vector<UnknownInput> out;
    const FrameworkSpec spec = resolvedFramework(plan.framework);
    const FrameworkOptions expected = frameworkOptionsFor(plan);
    for (const FrameworkFlag& f : kFlags) {
        if (spec.*(f.spec))
            continue;
        const bool fastValue = f.fastValue;
        bool FrameworkOptions::*option = f.option;
        out.push_back({f.label, f.field, onOff(!fastValue), onOff(expected.*option), onOff(fastValue),
                       [=](bool fast, Plan&, FrameworkOptions& o) { o.*option = fast ? fastValue : !fastValue; }});
    }
    if (!spec.flashAttention)
        out.push_back({"FlashAttention version", "framework.flash_attention", "2", std::string(nameOf(kFlashAttentionVersionNames, expected.flashAttention)), "3",
                       [](bool fast, Plan&, FrameworkOptions& o) { o.flashAttention = fast ? FlashAttentionVersion::V3 : FlashAttentionVersion::V2; }});
    if (!spec.optimizer)
        out.push_back({"Optimizer implementation", "framework.optimizer", "foreach", std::string(nameOf(kOptimizerImplementationNames, expected.optimizer)),
                       "fused", [](bool fast, Plan&, FrameworkOptions& o) {
                           o.optimizer = fast ? OptimizerImplementation::Fused : OptimizerImplementation::Foreach;
                       }});
    if (!spec.gradientAccumulation)
        out.push_back({"Gradient accumulation", "framework.gradient_accumulation", "fp32-copy",
                       std::string(nameOf(kGradientAccumulationNames, expected.gradientAccumulation)), "fused",
                       [](bool fast, Plan&, FrameworkOptions& o) {
                           o.gradientAccumulation = fast ? GradientAccumulation::Fused : GradientAccumulation::Fp32Copy;
                       }});

    const unsigned bits = actingLayoutUnknowns(plan);
    const auto layoutInput = [&](unsigned bit, const char* label, const char* field, std::string slow, std::string expectedValue,
                                 std::string fastValue) {
        out.push_back({label, field, std::move(slow), std::move(expectedValue), std::move(fastValue), [bit](bool fast, Plan& p, FrameworkOptions&) {
                           Plan only = p;
                           only.layout.unknownFields = bit;
                           setLayoutUnknowns(only, fast);
                           only.layout.unknownFields = p.layout.unknownFields;
                           p = std::move(only);
                       }});
    };
    if (bits & kUnknownRecompute) {
        const LayoutSpec assumed = withAssumedRecompute(plan).layout;
        std::string name(nameOf(kRecomputeNames, assumed.recompute));
        if (assumed.recompute == Recompute::Full && assumed.recomputeLayers > 0)
            name += ", " + std::to_string(assumed.recomputeLayers) + " layers a stage";
        layoutInput(kUnknownRecompute, "Recompute", "layout.recompute", "full", name, name);
    }
    if (bits & kUnknownSequenceParallel)
        layoutInput(kUnknownSequenceParallel, "Sequence parallelism", "layout.sequence_parallel", "off", onOff(plan.layout.sequenceParallel), "on");
    if (bits & kUnknownFlashAttention)
        layoutInput(kUnknownFlashAttention, "FlashAttention", "layout.flash_attention", "off", onOff(plan.layout.flashAttention), "on");
    if (bits & kUnknownSchedule) {
        const int v = fewestInterleavingChunks(plan);
        layoutInput(kUnknownSchedule, "Pipeline schedule", "layout.schedule", "1F1B", "1F1B",
                    v > 0 ? "interleaved, " + std::to_string(v) + " chunks" : "1F1B");
    }
    return out;
}

}  // namespace trainplan
