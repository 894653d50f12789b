// schedule --json: the contract of docs/plan-format.md ("schedule --json": keys that must exist).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/schedule/Schedule.h"

namespace trainplan {

// {"format": "trainplan.schedule", "version": 1, "schedule": {kind, step_seconds,
//  bubble_fraction, closed_form_bubble_fraction, stages[], events[], ...}}, SI units.
// Event kinds are F, B, W, send, dp_sync; send events also carry to_stage, and dp_sync
// events have chunk and microbatch -1.
// withEvents false leaves the events out (a large pipeline has millions; building them is
// most of the cost).
nlohmann::json scheduleToJson(const ScheduleResult& result, bool withEvents = true);

const char* scheduleEventKindName(ScheduleEventKind kind);  // "F", "B", "W", "send", "dp_sync"

}  // namespace trainplan
