#include "core/analysis/PlanUnknowns.h"

#include <algorithm>

#include "core/base/Format.h"
#include "core/estimate/Estimate.h"
#include "core/estimate/ActivationModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/plan/EnumNames.h"

namespace trainplan {

namespace {

// The ends of a borrowed efficiency (unknownInputs): 20 % lower, 10 % higher than the preset's.
constexpr double kBorrowedEfficiencySlower = 0.8;
constexpr double kBorrowedEfficiencyFaster = 1.1;

bool fitsWith(const Plan& plan, Recompute recompute, int recomputeLayers = 0)
{
    Plan variant = plan;
    variant.layout.recompute = recompute;
    variant.layout.recomputeLayers = recomputeLayers;
    return estimate(variant).fits;
}

}  // namespace

std::string unknownInputsPhrase(int frameworkSwitches, unsigned layoutFields, bool loadImbalance, bool efficiencies)
{
    std::vector<std::string> parts;
    if (frameworkSwitches > 0)
        parts.push_back(countOf(frameworkSwitches, "framework switch", "framework switches"));
    if (loadImbalance)
        parts.emplace_back("the expert load imbalance");
    if (efficiencies)
        parts.emplace_back("the accelerator's efficiencies");
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (layoutFields & u.bit)
            parts.emplace_back(u.phrase);
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

Plan withExpectedLayoutUnknowns(const Plan& plan)
{
    Plan out = plan;
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if ((plan.layout.unknownFields & u.bit) && u.expectation == LayoutExpectation::LightestThatFits)
            out = withAssumedRecompute(out);
    return out;
}

bool setLayoutUnknowns(Plan& plan, bool fast)
{
    const unsigned bits = actingLayoutUnknowns(plan);
    if (bits == 0)
        return false;
    const LayoutUnknownEnds ends = layoutUnknownEnds(plan);
    const LayoutSpec before = plan.layout;
    // Each end starts from what the analysis expects: the faster end keeps it where it is the
    // faster value (recompute as assumed), the slower end sets its own.
    if (fast)
        plan = withExpectedLayoutUnknowns(plan);
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (bits & u.bit)
            u.setEnd(plan.layout, fast, ends);
    return !(plan.layout == before);
}

std::vector<UnknownInput> unknownInputs(const Plan& plan)
{
    std::vector<UnknownInput> out;
    // The framework switches neither the plan nor its profile sets (steptime's one table).
    const FrameworkSpec spec = resolvedFramework(plan.framework);
    const FrameworkOptions expected = frameworkOptionsFor(plan);
    for (const FrameworkSwitch& sw : frameworkSwitches()) {
        if (sw.known(spec) || !sw.appliesTo(plan))
            continue;
        FrameworkOptions slow = expected, fast = expected;
        sw.setEnd(slow, false);
        sw.setEnd(fast, true);
        const auto setEnd = sw.setEnd;
        out.push_back({sw.label, sw.field, sw.valueName(slow), sw.valueName(expected), sw.valueName(fast),
                       [setEnd](bool toFast, Plan&, FrameworkOptions& o) { setEnd(o, toFast); }});
    }
    if (loadImbalanceUnknown(plan.model))
        out.push_back({"Expert load imbalance", "model.moe.load_imbalance", formatNumber(kWorstLoadImbalance),
                       formatNumber(kExpectedLoadImbalance), formatNumber(kBestLoadImbalance),
                       [](bool toFast, Plan& p, FrameworkOptions&) { p.model.moe->loadImbalance = toFast ? kBestLoadImbalance : kWorstLoadImbalance; }});
    // A part that is no preset runs at the nearest preset's efficiencies where the plan gives none
    // (efficiencyFor). Measured large-GEMM shares of peak differ by a third between parts of one
    // class (H100 80 %, MI300X 51 %: maximum achievable matmul FLOPs, docs/physics-notes), and a
    // new part's software is usually the less mature: the range takes the borrowed fractions 20 %
    // lower and 10 % higher (at most 1), each figure the plan gives itself kept.
    if (efficienciesBorrowed(plan.cluster)) {
        const char* source = nullptr;
        const AcceleratorEfficiency borrowed = efficiencyFor(plan.cluster, &source);
        out.push_back({std::string("Accelerator efficiencies (") + (source ? source : "a preset") + "'s assumed)", "cluster.efficiency",
                       "-20 %", "as the preset", "+10 %", [borrowed](bool toFast, Plan& p, FrameworkOptions&) {
                           const double factor = toFast ? kBorrowedEfficiencyFaster : kBorrowedEfficiencySlower;
                           EfficiencySpec& e = p.cluster.efficiency;
                           const auto scale = [factor](std::optional<double>& given, double figure) {
                               if (!given)
                                   given = std::min(1.0, figure * factor);
                           };
                           scale(e.matmul, borrowed.matmulEfficiency);
                           scale(e.flashAttention, borrowed.flashAttentionEfficiency);
                           scale(e.flashAttention3, borrowed.flash3AttentionEfficiency);
                           scale(e.hbm, borrowed.hbmEfficiency);
                           scale(e.scaleUpCollective, borrowed.intraNodeCollectiveEfficiency);
                           scale(e.networkCollective, borrowed.interNodeCollectiveEfficiency);
                       }});
    }

    const unsigned bits = actingLayoutUnknowns(plan);
    if (bits == 0)
        return out;
    const LayoutUnknownEnds ends = layoutUnknownEnds(plan);
    const LayoutSpec expectedLayout = withExpectedLayoutUnknowns(plan).layout;
    for (const LayoutUnknownField& u : layoutUnknownFields()) {
        if (!(bits & u.bit))
            continue;
        LayoutSpec slow = expectedLayout, fast = expectedLayout;
        u.setEnd(slow, false, ends);
        u.setEnd(fast, true, ends);
        const unsigned bit = u.bit;
        out.push_back({std::string(u.label), std::string(u.path), u.valueName(slow), u.valueName(expectedLayout), u.valueName(fast),
            [bit](bool toFast, Plan& p, FrameworkOptions&) {
                Plan only = p;
                only.layout.unknownFields = bit;
                setLayoutUnknowns(only, toFast);
                only.layout.unknownFields = p.layout.unknownFields;
                p = std::move(only);
            }});
    }
    return out;
}

}  // namespace trainplan
