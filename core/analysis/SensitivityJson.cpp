// The tornado chart's data as JSON (CLI, report).
#include <nlohmann/json.hpp>

#include "core/analysis/Sensitivity.h"

namespace trainplan {

nlohmann::json sensitivityToJson(const SensitivityResult& r)
{
    using nlohmann::json;
    json bars = json::array();
    for (const auto& b : r.bars) {
        bars.push_back({{"input", b.input}, {"field", b.field},
            {"kind",
                b.kind == SensitivityKind::Discrete      ? "discrete"
                    : b.kind == SensitivityKind::Unknown ? "unknown"
                                                         : "continuous"},
            {"change", b.change}, {"base_value", b.baseValue}, {"low_value", b.lowValue}, {"high_value", b.highValue},
            {"low_text", b.lowText}, {"base_text", b.baseText}, {"high_text", b.highText}, {"step_seconds_low", b.stepSecondsLow},
            {"step_seconds_high", b.stepSecondsHigh}, {"days_low", b.daysLow}, {"days_high", b.daysHigh}, {"swing_days", b.swingDays},
            {"swing_step_seconds", b.swingStepSeconds}});
    }
    return json{{"sensitivity",
                 {{"basis", r.basis == SensitivityBasis::Predicted ? "predicted" : "assumed"},
                  {"basis_label", r.basisLabel},
                  {"title", r.title},
                  {"base_step_seconds", r.baseStepSeconds},
                  {"base_days", r.baseDays},
                  {"bars", std::move(bars)}}}};
}

}  // namespace trainplan
