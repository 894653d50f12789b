#include "core/analysis/MemoryFitSentence.h"

#include "core/analysis/PlanUnknowns.h"
#include "core/base/Format.h"

namespace trainplan {

std::string memoryFitSentence(const MemoryRange& r)
{
    const std::string usable = formatBytes(r.usableBytes) + " usable (capacity less the margin)";
    switch (r.fit) {
    case MemoryFit::Fits: return "Fits: even the range's high end, " + formatBytes(r.highBytes) + ", is within the " + usable + ".";
    case MemoryFit::DoesNotFit:
        return "Does not fit: even the range's low end, " + formatBytes(r.lowBytes) + ", is above the " + usable + ".";
    case MemoryFit::MayNotFit: break;
    }
    std::string out =
        "May not fit: the range " + formatBytes(r.lowBytes) + " to " + formatBytes(r.highBytes) + " straddles the " + usable + ". ";
    // What widens it: the unknown inputs (each given settles its part), then the model's own band.
    std::string fields;
    if (r.unknownSwitches > 0)
        fields = std::string(
            r.unknownSwitches == 1 ? "framework.dropout or framework.fp32_gradients" : "framework.dropout and framework.fp32_gradients");
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (r.unknownLayoutFields & u.bit)
            fields += (fields.empty() ? "" : ", ") + std::string(u.path);
    if (r.unknownLoadImbalance)
        fields += (fields.empty() ? "" : ", ") + std::string("model.moe.load_imbalance");
    if (!fields.empty())
        out += "Giving the unknown " + unknownInputsPhrase(r.unknownSwitches, r.unknownLayoutFields, r.unknownLoadImbalance) + " (" + fields + ") narrows it; ";
    out += fields.empty() ? "The" : "the";
    out += " memory model's own error (up to " + formatPercent(r.modelErrorAbove, 0)
        + " above at the high end, no fragmentation allowance at the low end) is settled only by a measured peak of one step.";
    return out;
}

}  // namespace trainplan
