// The one table of plan-file fields: JSON path, unit, allowed range, default, a title and a
// short meaning. The reader and the writer look every field up in it (planField), so a field
// without a row cannot be read or written; --set overrides look fields up in it;
// docs/plan-format.md's field table is generated from it (and a test keeps the two equal); the
// window's inputs and the PDF's input rows take their titles, ranges and units from it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trainplan {

// Free text is bounded, so that no name can cost an export minutes and gigabytes (a 15 MB plan
// name did): names and labels to kMaxNameChars, notes to kMaxNotesChars, in characters
// (Unicode code points). Longer text is refused, naming the field and the limit, never cut.
inline constexpr int kMaxNameChars = 200;
inline constexpr int kMaxNotesChars = 10'000;

enum class PlanFieldType {
    Text,           // a string of at most max characters (no bound when max is 0)
    Integer,        // a whole number within [min, max]
    Number,         // a finite number within [min, max] (min exclusive when minExclusive)
    Boolean,        // true or false
    Choice,         // one of choices
    IntegerList,    // an array of whole numbers, each within [min, max]
    IntegerOrAuto,  // a whole number within [min, max], or the string "auto"
    ObjectList,     // an array of at most max objects, each with the fields whose section is this path
};

struct PlanField {
    std::string_view path;   // JSON path, e.g. "layout.tp"
    PlanFieldType type;
    std::string_view unit;   // unit in the file ("GB", "GB/s", "TFLOP/s", "hours", "s", "tokens"); "" when none
    double toSi;             // file value x toSi = the Plan's SI value (bytes, FLOP/s, seconds); 1 when unitless
    double min;              // bounds in file units; physical, so no input can make a figure overflow
    double max;              // Text: the most characters (Unicode code points), 0 for no bound
    bool minExclusive;       // true: value must be > min; false: >= min
    std::span<const std::string_view> choices;  // Choice only, file spellings
    bool required;
    std::string_view defaultValue;  // JSON text of the value an omitted optional field takes; "" if none
    std::string_view defaultNote;   // when the default is derived or "absent", how (e.g. "= model.attention_heads")
    std::string_view alternative;   // path of a field given instead of this one (either/or), "" if none
    std::string_view label;         // what the field means, in a few words (the docs' "meaning" column)
    std::string_view title;         // what the window's input and the PDF's input row call it: "Layers", "Peak BF16"
    std::string_view symbol;        // the derivation's symbol beside the title in the PDF ("L", "h"); "" if none

    // The section: "model" for "model.layers", "" for top-level fields.
    std::string_view section() const;
    // The key within its section: "layers" for "model.layers".
    std::string_view key() const;
};

// Every field, in file order (top level, model, cluster, training, layout, reliability).
const std::vector<PlanField>& planFields();
// The field at a JSON path, or nullptr.
const PlanField* findPlanField(std::string_view path);
// The field at a JSON path; throws std::logic_error for a path not in the table (a
// programming error: code asked for a field the table does not define).
const PlanField& planField(std::string_view path);

// Test only. While one lives, the table has no row for `path`: planFields(), findPlanField() and
// planField() all act as if the row had been deleted, so a test can show that the reader, the
// writer, the window and the PDF each fail loudly without it. One at a time, on one thread; a
// path the table does not have throws std::logic_error.
class PlanFieldHiddenForTest {
public:
    explicit PlanFieldHiddenForTest(std::string_view path);
    ~PlanFieldHiddenForTest();
    PlanFieldHiddenForTest(const PlanFieldHiddenForTest&) = delete;
    PlanFieldHiddenForTest& operator=(const PlanFieldHiddenForTest&) = delete;
};

// "" when text fits the field's bound, else why not ("must be at most 200 characters, got 201").
std::string textLengthProblem(const PlanField& field, const std::string& text);

// "at least 1", "> 0 and <= 1e+06", "one of \"gpipe\", \"1f1b\"": the range in words.
std::string describeRange(const PlanField& field);
// docs/plan-format.md's field table, generated from planFields().
std::string planFieldsMarkdownTable();

}  // namespace trainplan
