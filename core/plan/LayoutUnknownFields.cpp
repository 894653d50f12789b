#include "core/plan/LayoutUnknownFields.h"

#include <array>

#include "core/plan/EnumNames.h"

namespace trainplan {

namespace {

std::string onOff(bool on)
{
    return on ? "on" : "off";
}

std::string recomputeName(const LayoutSpec& l)
{
    std::string name(nameOf(kRecomputeNames, l.recompute));
    if (l.recompute == Recompute::Full && l.recomputeLayers > 0)
        name += ", " + std::to_string(l.recomputeLayers) + " layers a stage";
    return name;
}

bool recomputeDiffers(const LayoutSpec& a, const LayoutSpec& b)
{
    return a.recompute != b.recompute || a.recomputeLayers != b.recomputeLayers;
}

std::string scheduleName(const LayoutSpec& l)
{
    switch (l.schedule) {
    case Schedule::GPipe:
        return "GPipe";
    case Schedule::OneFOneB:
        return "1F1B";
    case Schedule::Interleaved:
        return "interleaved, " + std::to_string(l.virtualStages) + " chunks";
    case Schedule::ZeroBubble:
        return "zero bubble";
    case Schedule::DualPipe:
        return "DualPipe";
    }
    return {};
}

// Unknown settings are expected at the value that needs nothing the plan did not ask for, and the
// range reaches the setting a tuned run would use: recompute the lightest that fits (a run that
// fits only with recompute ran with it) against full recompute of every layer; sequence
// parallelism off against on; 1F1B against interleaving with the fewest chunks per stage
// (2 to 8) the layers and micro-batches allow (Narayanan et al. 2021, Sec. 2.2).
constexpr std::array<LayoutUnknownField, 3> kRows{{
    {.bit = kUnknownRecompute,
        .path = "layout.recompute",
        .companion = "layout.recompute_layers",
        .companionKnownAlone = true,
        .label = "Recompute",
        .phrase = "recompute",
        .expectation = LayoutExpectation::LightestThatFits,
        .expectedWords = "the lightest that fits",
        .rangeWords = "full recompute",
        .lighterWhenFaster = false,
        .acts = [](const LayoutSpec&, const LayoutUnknownEnds&) { return true; },
        .setEnd =
            [](LayoutSpec& l, bool fast, const LayoutUnknownEnds&) {
                if (!fast) {
                    l.recompute = Recompute::Full;
                    l.recomputeLayers = 0;  // every layer
                }
            },
        .valueName = recomputeName,
        .differs = recomputeDiffers},
    {.bit = kUnknownSequenceParallel,
        .path = "layout.sequence_parallel",
        .companion = "",
        .companionKnownAlone = true,
        .label = "Sequence parallelism",
        .phrase = "sequence parallelism",
        .expectation = LayoutExpectation::FileDefault,
        .expectedWords = "false",
        .rangeWords = "true",
        .lighterWhenFaster = true,
        .acts = [](const LayoutSpec& l, const LayoutUnknownEnds&) { return l.tp > 1; },
        .setEnd = [](LayoutSpec& l, bool fast, const LayoutUnknownEnds&) { l.sequenceParallel = fast; },
        .valueName = [](const LayoutSpec& l) { return onOff(l.sequenceParallel); },
        .differs = [](const LayoutSpec& a, const LayoutSpec& b) { return a.sequenceParallel != b.sequenceParallel; }},
    {.bit = kUnknownSchedule,
        .path = "layout.schedule",
        .companion = "layout.virtual_stages",
        .companionKnownAlone = false,
        .label = "Pipeline schedule",
        .phrase = "the pipeline schedule",
        .expectation = LayoutExpectation::FileDefault,
        .expectedWords = "1F1B",
        .rangeWords = "interleaving",
        .lighterWhenFaster = false,
        .acts = [](const LayoutSpec&, const LayoutUnknownEnds& ends) { return ends.interleavingChunks > 0; },
        .setEnd =
            [](LayoutSpec& l, bool fast, const LayoutUnknownEnds& ends) {
                const int v = fast ? ends.interleavingChunks : 0;
                l.schedule = v > 0 ? Schedule::Interleaved : Schedule::OneFOneB;
                l.virtualStages = v > 0 ? v : 1;
            },
        .valueName = scheduleName,
        .differs = [](const LayoutSpec& a, const LayoutSpec& b) { return a.schedule != b.schedule || a.virtualStages != b.virtualStages; }},
}};

}  // namespace

std::span<const LayoutUnknownField> layoutUnknownFields()
{
    return kRows;
}

const LayoutUnknownField* findLayoutUnknownField(std::string_view path)
{
    for (const LayoutUnknownField& u : kRows)
        if (u.path == path || (!u.companion.empty() && u.companion == path))
            return &u;
    return nullptr;
}

std::string layoutUnknownNote(std::string_view path)
{
    const LayoutUnknownField* u = findLayoutUnknownField(path);
    if (!u || (path == u->companion && u->companionKnownAlone))
        return {};
    const std::string_view other = path == u->path ? u->companion : u->path;
    const std::string when = u->companionKnownAlone || other.empty() ? "absent" : "with " + std::string(other) + " absent";
    return when + ": unknown, " + std::string(u->expectedWords) + " expected, " + std::string(u->rangeWords) + " in the range";
}

}  // namespace trainplan
