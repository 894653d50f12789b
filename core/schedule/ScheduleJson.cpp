#include "core/schedule/ScheduleJson.h"

#include <nlohmann/json.hpp>

namespace trainplan {

using nlohmann::json;

const char* scheduleEventKindName(ScheduleEventKind kind)
{
    switch (kind) {
    case ScheduleEventKind::Forward: return "F";
    case ScheduleEventKind::Backward: return "B";
    case ScheduleEventKind::WeightGrad: return "W";
    case ScheduleEventKind::Send: return "send";
    case ScheduleEventKind::DpSync: return "dp_sync";
    }
    return "F";
}

json scheduleToJson(const ScheduleResult& r, bool withEvents)
{
    json stages = json::array();
    for (size_t i = 0; i < r.stages.size(); ++i) {
        const auto& st = r.stages[i];
        stages.push_back({{"stage", i},
                          {"busy_seconds", st.busySeconds},
                          {"idle_seconds", st.idleSeconds},
                          {"peak_in_flight_microbatches", st.peakInFlightMicrobatches},
                          {"dp_sync_hidden_seconds", st.dpSyncHiddenSeconds}});
    }
    json events = json::array();
    events.get_ref<json::array_t&>().reserve(withEvents ? r.events.size() : 0);
    for (size_t i = 0; withEvents && i < r.events.size(); ++i) {
        const ScheduleEvent& e = r.events[i];
        json event = {{"stage", e.stage},
                      {"chunk", e.chunk},
                      {"microbatch", e.microbatch},
                      {"kind", scheduleEventKindName(e.kind)},
                      {"start_seconds", e.startSeconds},
                      {"end_seconds", e.endSeconds}};
        if (e.kind == ScheduleEventKind::Send)
            event["to_stage"] = e.peerStage;
        events.push_back(std::move(event));
    }
    json schedule = {
        {"kind", scheduleKindName(r.kind)},
        {"pipeline_stages", r.p},
        {"micro_batches", r.m},
        {"virtual_stages", r.v},
        {"step_seconds", r.stepSeconds},
        {"compute_seconds", r.computeSeconds},
        {"bubble_fraction", r.bubbleFraction},
        {"closed_form_bubble_fraction", r.closedFormBubbleFraction},
        {"dp_sync_hidden_seconds", r.dpSyncHiddenSeconds},
        {"dp_sync_exposed_seconds", r.dpSyncExposedSeconds},
        {"stages", std::move(stages)},
        {"events", std::move(events)},
    };
    return json{{"format", "trainplan.schedule"}, {"version", 1}, {"schedule", std::move(schedule)}};
}

}  // namespace trainplan
