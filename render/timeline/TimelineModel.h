// What the timeline shows: the plan's own schedule, or GPipe, 1F1B, interleaved 1F1B and
// ZB-H1 of the same plan stacked for comparison. Each lane is one simulated step with its index
// and its activations in flight, or the reason the plan cannot run that schedule. Nothing is
// simulated here: the plan's own step is the analysis's (Analysis::schedule, copied into storage
// a slider tick reuses) and the compared ones are the analysis's schedule comparison (shared,
// computed once per analysis in the core).
#pragma once

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/analysis/Analysis.h"
#include "core/analysis/ScheduleComparison.h"
#include "core/schedule/Schedule.h"
#include "render/timeline/InFlightSeries.h"
#include "render/timeline/TimelineTrack.h"

struct TimelineLane {
    trainplan::ScheduleKind kind = trainplan::ScheduleKind::OneFOneB;
    int v = 1;        // model chunks per stage that were (or would be) simulated
    QString problem;  // why the plan cannot run this kind; empty when simulated
    // What the predicted step adds after the simulated one: the optimizer and the exposed
    // parameter gather (the plan's own lane; 0 for compared schedules).
    double afterStepSeconds = 0;
    // An MoE plan's lane: per stage, the share of its forward and of its backward blocks spent
    // in the expert all-to-all (dispatch and combine, exposed, with the imbalance's share of it
    // left out), from the step-time model's layer times; empty for other lanes. The all-to-all
    // runs once per MoE layer inside each block, so the painter shows a share, not a position.
    std::vector<double> forwardAllToAllShare, backwardAllToAllShare;
    TimelineTrack track;
    InFlightSeries inFlight;

    bool simulated() const { return problem.isEmpty(); }
    const trainplan::ScheduleResult& result() const { return track.result(); }
};

class TimelineModel {
public:
    enum class Mode { PlanSchedule, Comparison };

    // Lanes drawn live stop at this many chunk micro-batches (p v m): the core's comparison
    // limit (ScheduleComparison.h), the plan's own lane included.
    static constexpr long long kMaxLiveChunkMicrobatches = trainplan::kMaxComparedChunkMicrobatches;

    TimelineModel();
    ~TimelineModel();

    // The lanes of the mode from the analysis: the plan's own lane is its simulated step (the
    // figures every other view quotes); comparison lanes are its schedule comparison.
    void setAnalysis(const trainplan::Analysis& analysis);
    // Takes effect at the next setAnalysis().
    void setMode(Mode mode) { mode_ = mode; }
    Mode mode() const { return mode_; }
    // Draws given results instead of a plan's (tests, the CLI's output, the report).
    void setResults(std::vector<trainplan::ScheduleResult> results);

    int laneCount() const { return int(lanes_.size()); }
    const TimelineLane& lane(int i) const { return *lanes_[size_t(i)]; }
    // The longest simulated step: the time range fit-to-view shows. 0 without lanes.
    double fullSeconds() const;
    bool hasPlan() const { return hasPlan_; }
    // Changes whenever the lanes do, so painters can keep what they derived from them.
    std::uint64_t revision() const { return revision_; }

    // "1F1B", "Interleaved 1F1B, v = 2", ...: the names the header and lanes use, and the
    // short ones of legends ("Interleaved v=2", "ZB-H1").
    static QString kindTitle(trainplan::ScheduleKind kind, int v);
    static QString kindShortTitle(trainplan::ScheduleKind kind, int v);

private:
    void planLane(TimelineLane& lane, const trainplan::Analysis& analysis);
    void comparedLane(TimelineLane& lane, const trainplan::ComparedSchedule& compared);
    static void allToAllShares(TimelineLane& lane, const trainplan::Analysis& analysis);
    void finishLane(TimelineLane& lane);

    Mode mode_ = Mode::PlanSchedule;
    bool hasPlan_ = false;
    std::uint64_t revision_ = 0;
    // unique_ptr: a lane's storage stays put (and is reused) when the lane count changes.
    std::vector<std::unique_ptr<TimelineLane>> lanes_;
};
