// The table of layout unknowns, beside the framework switches (FrameworkSpec.h): one row for each
// layout field a plan may leave out to say it does not know it (Plan.h, LayoutUnknown). A row says
// how the file marks the field unknown, what the analysis expects for it, what the range covers and
// what it is called. The reader and writer, the field table's notes (docs/plan-format.md), the
// memory range (estimate/MemoryRange.h), the predicted range and sensitivity
// (analysis/PlanUnknowns.h), the text report, the window and the PDF all read it, so a new layout
// unknown is one row here, its bit in Plan.h, and the mechanism by which its values act.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/plan/Plan.h"

namespace trainplan {

// What only the estimate knows about where a plan's range ends; estimate/LayoutUnknowns.h fills it.
struct LayoutUnknownEnds {
    int interleavingChunks = 0;  // fewestInterleavingChunks(): the fast end's chunks, 0 when interleaving cannot run
};

// What the analysis expects for an unknown field.
enum class LayoutExpectation {
    FileDefault,       // the field's default in the plan-field table
    LightestThatFits,  // the lightest setting with which every stage fits (analysis/PlanUnknowns.h, withAssumedRecompute)
};

struct LayoutUnknownField {
    LayoutUnknown bit;
    std::string_view path;       // the field a person sets (a string literal): "layout.recompute"
    std::string_view companion;  // a field set with it ("layout.recompute_layers"), "" if none
    // true: the companion may be given while the field stays unknown (it is then read and written
    // on its own); false: the field is unknown only when the companion is left out too.
    bool companionKnownAlone;
    std::string_view label;   // its name in the range and sensitivity: "Recompute"
    std::string_view phrase;  // its name within a sentence: "recompute", "the pipeline schedule"
    LayoutExpectation expectation;
    std::string_view expectedWords;  // the value the analysis expects, in words (the field table's note): "false", "1F1B"
    std::string_view rangeWords;     // the other value the range covers, in words: "true", "interleaving"
    // Memory: true when the faster value stores less (sequence parallelism splits activations),
    // false when it stores more (interleaving keeps more micro-batches in flight).
    bool lighterWhenFaster;
    // Whether the field can act on this layout (sequence parallelism needs TP above 1).
    bool (*acts)(const LayoutSpec& layout, const LayoutUnknownEnds& ends);
    // Sets the field to its value at the range's faster (fast) or slower end; on entry `layout`
    // holds the value the analysis expects.
    void (*setEnd)(LayoutSpec& layout, bool fast, const LayoutUnknownEnds& ends);
    // The field's value in words: "on", "full, 3 layers a stage", "interleaved, 2 chunks".
    std::string (*valueName)(const LayoutSpec& layout);
    // Whether two layouts differ in the field (or its companion): an edit that changes it makes it known.
    bool (*differs)(const LayoutSpec& a, const LayoutSpec& b);
};

// Every layout unknown, in bit order.
std::span<const LayoutUnknownField> layoutUnknownFields();
// The row whose path or companion is `path`, or nullptr: which unknown a field belongs to.
const LayoutUnknownField* findLayoutUnknownField(std::string_view path);
// The field table's note for a path of a row: "absent: unknown, false expected, true in the range";
// "" for any other path.
std::string layoutUnknownNote(std::string_view path);

}  // namespace trainplan
