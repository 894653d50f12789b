// Which inputs move the run most: each continuous input 10 % down and up, each whole-number
// input to its neighbouring valid values, the others held, and the step time and padded days at
// each end on one basis (for a tornado chart, widest bar first).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/steptime/StepTimeModel.h"

namespace trainplan {

enum class SensitivityBasis {
    Predicted,  // step time from the step-time model; training.mfu plays no part
    Assumed,    // step time from the assumed training.mfu (the estimate's time section)
};

struct SensitivityOptions {
    SensitivityBasis basis = SensitivityBasis::Predicted;
    double fraction = 0.10;                     // relative change of continuous inputs
    std::optional<FrameworkOptions> framework;  // unset: the plan's own framework section
};

// How an input moves: a continuous one by +-fraction, a discrete (whole-number) one to the
// neighbouring values that keep the plan valid.
// An unknown one (analysis/PlanUnknowns.h: a framework switch or layout field the plan does not
// give) to its slower and its faster value.
enum class SensitivityKind { Continuous, Discrete, Unknown };

struct SensitivityBar {
    std::string input;  // what a person reads, e.g. "Inter-node bandwidth"
    std::string field;  // plan JSON path, or "step_time.<name>" for an accelerator efficiency
    SensitivityKind kind = SensitivityKind::Continuous;
    // What the bar varies, for its label: "±10 %" for a continuous input, the values for a
    // discrete one, e.g. "b 1 → 2" (no smaller micro-batch) or "B 960 ← 1,024 → 1,088".
    std::string change;
    double baseValue = 0;
    double lowValue = 0;  // the input at its low end (as applied: batch and sizes round to valid values)
    double highValue = 0;
    // An unknown input's values in words ("off", "on"): low is its slower value, high its faster,
    // base what the analysis expects; the numbers above are then -1, 0 and 1.
    std::string lowText, baseText, highText;
    double stepSecondsLow = 0, stepSecondsHigh = 0;
    double daysLow = 0, daysHigh = 0;  // padded days (compute days when failures are not modelled)
    double swingDays = 0;              // |daysHigh - daysLow|: the sort key
    double swingStepSeconds = 0;       // |stepSecondsHigh - stepSecondsLow|
};

struct SensitivityResult {
    SensitivityBasis basis = SensitivityBasis::Predicted;
    double fraction = 0.10;  // how far continuous inputs moved (SensitivityOptions::fraction), for a chart's legend
    // The basis in words, so a chart titles itself: "predicted step time (step-time model)" or
    // "assumed MFU of 40 %".
    std::string basisLabel;
    // A whole title: the measure, the basis and how inputs move.
    std::string title;
    double baseStepSeconds = 0;
    double baseDays = 0;
    std::vector<SensitivityBar> bars;  // widest swing in days first
};

// Continuous inputs (+-fraction): peak FLOP/s, intra- and inter-node bandwidth, MTBF, checkpoint
// write time, restart time; on the predicted basis also matmul efficiency, FlashAttention
// efficiency and HBM bandwidth; on the assumed basis MFU.
// Discrete inputs (neighbouring valid values): micro-batch (the next smaller and larger size that
// divides the batch per replica), global batch (the valid values, multiples of DP x micro-batch
// (x PP when interleaving), nearest to +-fraction and at least one step away), sequence length
// (multiples of 64 x CP nearest to +-fraction, tokens held). The bar's change names the values.
// An input that cannot move (e.g. micro-batch 1 has no smaller neighbour) keeps its base value
// at that end. Values are finite for any plan estimate() accepts.
// Unknown inputs (predicted basis only): each framework switch and layout field the plan leaves
// unknown, to its slower (low end) and faster (high end) value, one at a time: the inputs that
// make the predicted range.
SensitivityResult sensitivity(const Plan& plan, const SensitivityOptions& options = {});

// {"sensitivity": {basis, basis_label, title, base_step_seconds, base_days, bars: [{input, field,
// kind ("continuous" | "discrete"), change, base_value, low_value, high_value, step_seconds_low,
// step_seconds_high, days_low, days_high, swing_days, swing_step_seconds}]}}
nlohmann::json sensitivityToJson(const SensitivityResult& result);

}  // namespace trainplan
