// Plan files: versioned JSON with units in key names (docs/plan-format.md).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/base/PlanError.h"
#include "core/plan/Plan.h"

namespace trainplan {

inline constexpr const char* kPlanFormat = "trainplan.plan";
// Version 2 (docs/plan-format.md, "Version 2"): FlashAttention is one field,
// framework.flash_attention; the reader still reads version 1 files and migrates their
// layout.flash_attention.
inline constexpr int kPlanVersion = 2;

// A plan document's fields, every one checked (throws PlanError listing each problem by JSON
// path), before the plan's name is settled: a name that follows what the plan plans comes from
// the presets and the parameter count, above this layer, so reading a whole plan is
// planFromJson (planfile/PlanFile.h).
struct ReadPlan {
    Plan plan;                      // name as the file has it; nameUserSet as name_user_set says
    bool nameUserSetGiven = false;  // files from before name_user_set do not say
};
ReadPlan readPlanJson(const nlohmann::json& document);
// The model section alone (a preset's model, presets/Presets.h), checked as in a plan.
ModelSpec modelSpecFromJson(const nlohmann::json& modelObject);
// The bytes of a plan file; a file that is missing, unreadable or larger than any plan
// (16 MiB) is a PlanError naming the path and the system's reason.
std::string readPlanFileText(const std::string& path);

nlohmann::json planToJson(const Plan& plan);
std::string planToText(const Plan& plan);  // pretty, newline-terminated
// Writes through writeFileAtomically (AtomicFile.h): the previous file survives any failure.
// Throws PlanError naming the path and the system's reason.
void savePlanFile(const Plan& plan, const std::string& path);

// Applies "--set PATH=VALUE" to a plan document. VALUE is read as JSON when it parses
// (numbers, true, null, [19,21,21,19], "auto") and as a plain string otherwise; for a text
// field of the table (PlanFields) it is always the string as given.
// Throws PlanError naming PATH for a malformed assignment, bytes that are not UTF-8, a number
// outside double range, nesting deeper than kMaxJsonDepth, or a path through a non-object.
void applyOverride(nlohmann::json& document, const std::string& assignment);

}  // namespace trainplan
