// The plan-file fields as people and scripts read them: `trainplan-cli fields` (text or JSON),
// the docs' field table and the shell completion of --set paths all come from planFields().
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/plan/PlanFields.h"

namespace trainplan {

// "required", "`1`; = model.attention_heads", "or `training.tokens_billions`": what an omitted
// field takes, in words (Markdown code spans around values).
std::string defaultInWords(const PlanField& field);
// One line per field, the JSON path first (what a shell completion reads), then its unit,
// what it allows, its default and its meaning.
std::string planFieldsText();
// Every field: path, unit, kind, min, max, choices, default, meaning.
nlohmann::json planFieldsJson();

}  // namespace trainplan
