// Two or more plans side by side (`trainplan-cli compare`): each headline figure for every plan
// and its difference from the first, on both time bases labelled as everywhere else, and the
// input fields in which each plan differs from the first. Reads each plan's one analysis; the
// figures are the same numbers `estimate --json` gives, looked up by the same keys.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/Analysis.h"

namespace trainplan {

struct ComparedFigure {
    std::string key;    // the estimate --json path: "predicted.step_seconds"
    std::string label;  // "Step time, predicted"
    std::string unit;   // "count", "flops", "bytes", "seconds", "days", "fraction", "usd", "mwh", "tonnes", "number", "text"
    std::vector<nlohmann::json> values;  // one per plan; null where a plan has no such figure
};

struct ChangedField {
    std::string path;                    // "layout.pp"
    std::vector<nlohmann::json> values;  // one per plan; null where a plan leaves it out
};

struct PlanComparison {
    std::vector<std::string> names;  // each plan's name
    std::vector<std::string> sources;  // where each came from (a path), as given
    std::vector<ComparedFigure> figures;
    std::vector<ChangedField> changedFields;  // input fields not equal in every plan
    std::vector<int> errorFlags;  // error-level red flags of each plan
};

PlanComparison comparePlans(const std::vector<const Analysis*>& analyses, const std::vector<std::string>& sources);
nlohmann::json comparisonToJson(const PlanComparison& comparison);
std::string comparisonToText(const PlanComparison& comparison);

// The cells every view of a comparison shows (CLI text, window, PDF): a value in its unit
// ("9.81 days", "$2.9 million", "—" for none), a later plan against the first ("+1.2 days
// (+13.4 %)", a fraction's "+2.1 pts", "same"), and a plan's letter (A, B, …).
std::string comparisonValueText(const nlohmann::json& value, const std::string& unit);
std::string comparisonDifferenceText(const nlohmann::json& first, const nlohmann::json& other, const std::string& unit);
std::string comparisonLetter(size_t index);

}  // namespace trainplan
