// The plan as Megatron-LM launch settings (docs/import-export.md, "Exporting launch settings"):
// a bash script fragment of argument arrays for the model, the layout, the batch, precision and
// the framework switches, and the torchrun line that joins them. importMegatronArguments reads
// it back to the same plan wherever Megatron-LM has the setting; what it has not (ZeRO-2, a
// schedule it does not run, uneven stages past the first and last) is a comment saying so.
#pragma once

#include <string>

#include "core/plan/Plan.h"

namespace trainplan {

std::string megatronArguments(const Plan& plan);

}  // namespace trainplan
