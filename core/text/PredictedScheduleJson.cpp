#include "core/text/PredictedScheduleJson.h"

#include <nlohmann/json.hpp>

#include "core/base/PlanError.h"
#include "core/schedule/ScheduleJson.h"

namespace trainplan {

nlohmann::json predictedScheduleToJson(const Analysis& analysis, bool withEvents)
{
    if (analysis.scheduleProblem)
        throw PlanError({{analysis.scheduleProblem->field, analysis.scheduleProblem->message}});
    nlohmann::json out = scheduleToJson(analysis.schedule, withEvents);
    auto& s = out["schedule"];
    if (!withEvents)
        s.erase("events");
    const PredictedStep& p = analysis.predicted;
    s["basis"] = timeBasisKey(TimeBasis::Predicted);
    s["pipeline_seconds"] = analysis.schedule.stepSeconds;
    s["after_pipeline_seconds"] = analysis.afterPipelineSeconds();
    s["optimizer_seconds"] = p.components.optimizer;
    s["step_seconds"] = p.stepSeconds;
    s["bubble_fraction"] = p.bubbleFraction;
    s["dp_exposed_seconds"] = p.components.dpCommunication;
    return out;
}

}  // namespace trainplan
