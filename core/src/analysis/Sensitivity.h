// Which inputs move the run most: each input 10 % down and up, the others held, and the
// predicted step time and padded days at each end (for a tornado chart, widest bar first).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "steptime/StepTimeModel.h"

namespace trainplan {

enum class SensitivityBasis {
    Predicted,  // step time from the step-time model; training.mfu plays no part
    Assumed,    // step time from the assumed training.mfu (the estimate's time section)
};

struct SensitivityOptions {
    SensitivityBasis basis = SensitivityBasis::Predicted;
    double fraction = 0.10;       // relative change of continuous inputs
    std::optional<FrameworkOptions> framework;  // unset: the plan's own framework section
};

struct SensitivityBar {
    std::string input;    // what a person reads, e.g. "Inter-node bandwidth"
    std::string field;    // plan JSON path, or "step_time.<name>" for an accelerator efficiency
    double baseValue = 0;
    double lowValue = 0;  // the input at its low end (as applied: batch and sizes round to valid values)
    double highValue = 0;
    double stepSecondsLow = 0, stepSecondsHigh = 0;
    double daysLow = 0, daysHigh = 0;  // padded days (compute days when failures are not modelled)
    double swingDays = 0;              // |daysHigh - daysLow|: the sort key
    double swingStepSeconds = 0;       // |stepSecondsHigh - stepSecondsLow|
};

struct SensitivityResult {
    SensitivityBasis basis = SensitivityBasis::Predicted;
    double baseStepSeconds = 0;
    double baseDays = 0;
    std::vector<SensitivityBar> bars;  // widest swing in days first
};

// Inputs: peak FLOP/s, intra- and inter-node bandwidth, global batch (to the nearest multiple of
// DP x micro-batch), micro-batch (the neighbouring valid sizes), sequence length (to a multiple of
// 64 x CP, tokens held), MTBF, checkpoint write time, restart time; on the predicted basis also
// matmul efficiency, FlashAttention efficiency and HBM bandwidth; on the assumed basis MFU.
// An input that cannot move (e.g. micro-batch 1 has no smaller neighbour) keeps its base value
// at that end. Values are finite for any plan estimate() accepts.
SensitivityResult sensitivity(const Plan& plan, const SensitivityOptions& options = {});

// {"sensitivity": {basis, base_step_seconds, base_days, bars: [{input, field, base_value,
// low_value, high_value, step_seconds_low, step_seconds_high, days_low, days_high, swing_days,
// swing_step_seconds}]}}
nlohmann::json sensitivityToJson(const SensitivityResult& result);

}  // namespace trainplan
