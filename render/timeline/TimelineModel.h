// What the timeline shows: the plan's own schedule, or GPipe, 1F1B, interleaved 1F1B and
// ZB-H1 of the same plan stacked for comparison. Each lane is one simulated step (the core's
// ScheduleSimulator, reused so a slider tick does not reallocate) with its index and its
// activations in flight, or the reason the plan cannot run that schedule.
#pragma once

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "timeline/InFlightSeries.h"
#include "timeline/TimelineTrack.h"
#include "analysis/Analysis.h"
#include "estimate/Estimate.h"
#include "schedule/Schedule.h"

struct TimelineLane {
    trainplan::ScheduleKind kind = trainplan::ScheduleKind::OneFOneB;
    int v = 1;        // model chunks per stage that were (or would be) simulated
    QString problem;  // why the plan cannot run this kind; empty when simulated
    TimelineTrack track;
    InFlightSeries inFlight;

    bool simulated() const { return problem.isEmpty(); }
    const trainplan::ScheduleResult& result() const { return track.result(); }
};

class TimelineModel {
public:
    enum class Mode { PlanSchedule, Comparison };

    // Lanes drawn live stop at this many chunk micro-batches (p v m). Each costs about
    // 250 bytes (4 to 5 events of 32 bytes, 2 to 3 indexed ops of 24, in-flight steps), so
    // 2^20 is a quarter GB per lane. The core simulates 4x more (trainplan-cli schedule); a
    // picture of that many blocks is past reading anyway.
    static constexpr long long kMaxLiveChunkMicrobatches = 1LL << 20;

    TimelineModel();
    ~TimelineModel();

    // Re-simulates every lane of the mode. est must be estimate(plan).
    void setPlan(const trainplan::Plan& plan, const trainplan::Estimate& est);
    // The plan's own lane is the analysis's simulated step (the figures every other view
    // quotes); comparison lanes simulate the other kinds with the same costs.
    void setAnalysis(const trainplan::Analysis& analysis);
    void setMode(Mode mode);  // re-simulates from the last plan
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
    void simulateLanes();
    void simulateLane(TimelineLane& lane, trainplan::ScheduleKind kind);
    void finishLane(TimelineLane& lane);

    Mode mode_ = Mode::PlanSchedule;
    bool hasPlan_ = false;
    std::uint64_t revision_ = 0;
    trainplan::Plan plan_;
    trainplan::Estimate est_;
    const trainplan::Analysis* analysis_ = nullptr;  // during setAnalysis() only
    trainplan::Plan interleavedPlan_;      // the plan with v >= 2 for the comparison
    trainplan::Estimate interleavedEst_;
    trainplan::ScheduleSimulator simulator_;
    // unique_ptr: a lane's storage stays put (and is reused) when the lane count changes.
    std::vector<std::unique_ptr<TimelineLane>> lanes_;
};
