// Plan files: versioned JSON with units in key names (docs/plan-format.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "plan/Plan.h"
#include "plan/PlanError.h"

namespace trainplan {

inline constexpr const char* kPlanFormat = "trainplan.plan";
inline constexpr int kPlanVersion = 1;

// Checks every field; throws PlanError listing each problem by JSON path.
Plan planFromJson(const nlohmann::json& document);
// Parses text first; a syntax error is reported with its line and column.
Plan planFromText(const std::string& text);
Plan loadPlanFile(const std::string& path);

nlohmann::json planToJson(const Plan& plan);
std::string planToText(const Plan& plan);  // pretty, newline-terminated
// Writes through a temporary file and rename(), so a crash never leaves half a plan.
void savePlanFile(const Plan& plan, const std::string& path);

// Applies "--set PATH=VALUE" to a plan document. VALUE is read as JSON when it parses
// (numbers, true, null, [19,21,21,19], "auto") and as a plain string otherwise.
// Throws PlanError for a malformed assignment or a path through a non-object.
void applyOverride(nlohmann::json& document, const std::string& assignment);

}  // namespace trainplan
