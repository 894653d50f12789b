#include "analysis/PlanUnknowns.h"

#include <algorithm>

#include "base/Format.h"
#include "estimate/Estimate.h"
#include "estimate/PipelineModel.h"
#include "plan/EnumNames.h"

namespace trainplan {

namespace {

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
        // Fast: the lightest that fits (as assumed); slow: full recompute of every layer.
        const LayoutSpec chosen = fast ? withAssumedRecompute(plan).layout : LayoutSpec{};
        l.recompute = fast ? chosen.recompute : Recompute::Full;
        l.recomputeLayers = fast ? chosen.recomputeLayers : 0;
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
    // The framework switches neither the plan nor its profile sets (steptime's one table).
    const FrameworkSpec spec = resolvedFramework(plan.framework);
    const FrameworkOptions expected = frameworkOptionsFor(plan);
    for (const FrameworkSwitch& sw : frameworkSwitches()) {
        if (sw.known(spec))
            continue;
        FrameworkOptions slow = expected, fast = expected;
        sw.setEnd(slow, false);
        sw.setEnd(fast, true);
        const auto setEnd = sw.setEnd;
        out.push_back({sw.label, sw.field, sw.valueName(slow), sw.valueName(expected), sw.valueName(fast),
                       [setEnd](bool toFast, Plan&, FrameworkOptions& o) { setEnd(o, toFast); }});
    }

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
