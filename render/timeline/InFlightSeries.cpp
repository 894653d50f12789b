#include "render/timeline/InFlightSeries.h"

#include <algorithm>

#include "render/timeline/TimelineTrack.h"

using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;

void InFlightSeries::build(const TimelineTrack& track)
{
    const auto& r = track.result();
    const int p = track.stageCount();
    const float perChunk = 1.0f / float(std::max(1, r.v));  // one chunk is 1/v of the stage's layers
    // Under ZB-H1 the W frees a micro-batch's activations, otherwise the (whole) backward;
    // DualPipe mixes both: a backward frees unless a W of its micro-batch follows it.
    const bool dualPipe = r.kind == ScheduleKind::DualPipe;
    const ScheduleEventKind freeing = r.kind == ScheduleKind::ZeroBubbleH1 ? ScheduleEventKind::WeightGrad : ScheduleEventKind::Backward;
    std::vector<char> hasWeightGrad;
    offsets_.assign(size_t(p) + 1, 0);
    peaks_.assign(size_t(p), 0.0);
    steps_.clear();
    size_t ops = 0;  // each op adds at most one step
    for (int stage = 0; stage < p; ++stage)
        ops += track.ops(stage).size();
    steps_.reserve(ops);
    for (int stage = 0; stage < p; ++stage) {
        const size_t first = steps_.size();
        // Steps at the same instant (a backward ending as the next forward starts) keep only
        // the value after both: a dip of no duration frees no memory and would draw a spike.
        const auto push = [&](double seconds, float value) {
            if (steps_.size() > first && steps_.back().seconds == seconds)
                steps_.back().value = value;
            else
                steps_.push_back({seconds, value});
        };
        // Walking the stage's ops in execution order gives the steps in time order: an F
        // starts no earlier than the previous op ends. An op that frees and the next F at
        // the same instant free first, as the core counts.
        int chunksHeld = 0, peakChunks = 0;
        if (dualPipe) {
            hasWeightGrad.assign(size_t(std::max<long long>(0, r.m)), 0);
            for (const TimelineTrack::Op& op : track.ops(stage))
                if (op.kind == ScheduleEventKind::WeightGrad)
                    hasWeightGrad[size_t(track.event(op.event).microbatch)] = 1;
        }
        for (const TimelineTrack::Op& op : track.ops(stage)) {
            const bool frees = dualPipe ? (op.kind == ScheduleEventKind::WeightGrad
                                           || (op.kind == ScheduleEventKind::Backward
                                               && !hasWeightGrad[size_t(track.event(op.event).microbatch)]))
                                        : op.kind == freeing;
            if (op.kind == ScheduleEventKind::Forward) {
                peakChunks = std::max(peakChunks, ++chunksHeld);
                push(op.startSeconds, float(chunksHeld) * perChunk);
            } else if (frees) {
                --chunksHeld;
                push(op.endSeconds, float(chunksHeld) * perChunk);
            }
        }
        peaks_[size_t(stage)] = double(peakChunks) / std::max(1, r.v);
        offsets_[size_t(stage) + 1] = steps_.size();
    }
}

double InFlightSeries::peak() const
{
    return peaks_.empty() ? 0.0 : *std::max_element(peaks_.begin(), peaks_.end());
}

double InFlightSeries::valueAt(int stage, double seconds) const
{
    const auto s = steps(stage);
    const auto it = std::partition_point(s.begin(), s.end(), [&](const Step& x) { return x.seconds <= seconds; });
    return it == s.begin() ? 0.0 : double((it - 1)->value);
}

void InFlightSeries::columns(int stage, double t0, double t1, int count, std::vector<Column>& out) const
{
    out.resize(size_t(std::max(0, count)));
    if (count <= 0)
        return;
    const auto s = steps(stage);
    auto it = std::partition_point(s.begin(), s.end(), [&](const Step& x) { return x.seconds <= t0; });
    float value = it == s.begin() ? 0.0f : (it - 1)->value;
    const double width = (t1 - t0) / count;
    for (int c = 0; c < count; ++c) {
        const double end = t0 + (c + 1) * width;
        Column col{value, value, value, value};
        for (; it != s.end() && it->seconds < end; ++it) {
            value = it->value;
            col.low = std::min(col.low, value);
            col.high = std::max(col.high, value);
        }
        col.last = value;
        out[size_t(c)] = col;
    }
}
