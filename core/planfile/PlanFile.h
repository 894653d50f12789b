// Reading a whole plan: its fields (plan/PlanIO.h), then its name settled (PlanName.h). The name
// follows what the plan plans from the presets and the parameter count, which sit above plan/,
// so reading a plan completely is this area's, and the writer and --set stay in plan/PlanIO.h.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/plan/PlanIO.h"

namespace trainplan {

// Checks every field; throws PlanError listing each problem by JSON path.
Plan planFromJson(const nlohmann::json& document);
// Parses text first; a syntax error is reported with its line and column.
Plan planFromText(const std::string& text);
Plan loadPlanFile(const std::string& path);

}  // namespace trainplan
