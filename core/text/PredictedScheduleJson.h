// schedule --json: the analysis's simulated step (op times from the step-time model) in the
// keys of ScheduleJson.h, with the step, bubble and exposed DP of the prediction so they agree
// with estimate --json's "predicted" object.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/analysis/Analysis.h"

namespace trainplan {

// schedule.step_seconds is predicted.step_seconds: the simulated pipeline
// (schedule.pipeline_seconds, with the exposed gradient tail) plus what runs after it
// (schedule.after_pipeline_seconds: parameter all-gather and optimizer). schedule.basis is
// "predicted". Throws PlanError, naming the field, when the plan's pipeline cannot be simulated.
nlohmann::json predictedScheduleToJson(const Analysis& analysis, bool withEvents);

}  // namespace trainplan
