// The plan as Megatron-LM launch settings (docs/import-export.md, "Exporting launch settings"):
// a bash script fragment of argument arrays for the model, the layout, the batch, precision and
// the framework switches, and the torchrun line that joins them. importMegatronArguments reads
// it back to the same plan wherever Megatron-LM has the setting; what it has not (ZeRO-2, a
// schedule it does not run, uneven stages past the first and last) is a comment saying so.
#pragma once

#include <string>
#include <vector>

#include "core/plan/Plan.h"

namespace trainplan {

std::string megatronArguments(const Plan& plan);

// The stage split TrainPlan assumes (given, even, or by cost when layers differ), as Megatron-Core
// can say it: even needs nothing; uneven first and last stages around even middle ones have their
// two settings (firstAndLastOnly); any other split needs a pipeline layout string, which the
// exports do not write and name in a comment instead (list(): "20,21,21,18").
struct MegatronStageSplit {
    std::vector<int> layers;  // per pipeline stage
    bool even = true;
    bool firstAndLastOnly = false;
    std::string list() const;
};
MegatronStageSplit megatronStageSplit(const Plan& plan);

}  // namespace trainplan
