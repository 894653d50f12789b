// The plan's name: generated from what it plans ("70B on 2,048 H100s, 1.4T tokens") until a
// person types one, and generated again once they clear it. The one wording every view, file
// and export uses; Plan::nameUserSet says which of the two a plan's name is.
#pragma once

#include <string>

#include "core/plan/Plan.h"

namespace trainplan {

// "<model size> on <GPU count> <accelerator>s, <tokens> tokens": the size as the preset whose
// shape the model has names it ("70B", "405B"), else from the parameter count ("71B"); the
// accelerator's short name when the cluster's figures are a preset's (or its label names
// one), else "GPUs"; the token budget in T, B or M ("1.4T", "300B").
std::string generatedPlanName(const Plan& plan);

// Sets plan.name to generatedPlanName() unless the name is the person's (nameUserSet).
void refreshPlanName(Plan& plan);

// What a person typed as the name: blank (or only spaces) returns to the generated name,
// anything else is kept as typed from now on.
void setPlanName(Plan& plan, const std::string& typed);

}  // namespace trainplan
