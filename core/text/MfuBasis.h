// Which peak an MFU figure is counted against, worded once for every view that shows one.
#pragma once

#include <string>

#include "core/plan/Plan.h"

namespace trainplan {

// MFU divides the model FLOPs by the accelerator's dense BF16 peak whatever format the GEMMs run
// in (docs/plan-format.md, "MFU above 100 %"), so with FP8 or FP4 GEMMs it can pass 100 %. Views
// that show an MFU for such a plan say so with this note; with BF16 GEMMs it is empty.
inline constexpr const char* kMfuBasisNote = "vs BF16 peak";
// A column of predicted MFUs, as its header's tooltip.
inline constexpr const char* kPredictedMfuColumnTip =
    "Predicted model FLOPs utilisation, against the accelerator's dense BF16 peak whatever format the GEMMs run in";

inline std::string mfuBasisNote(const Plan& plan)
{
    return plan.training.matmulPrecision == MatmulPrecision::Bf16 ? std::string() : std::string(kMfuBasisNote);
}

}  // namespace trainplan
