// Activations in flight over time, per pipeline stage, derived from a simulated step's
// events: a chunk's forward pins its activations at its start (+1/v micro-batch
// equivalents) and the op that frees them ends it (-1/v): the backward, or under ZB-H1
// the W, which still reads the layer inputs. This is the convention of
// StageScheduleStats::peakInFlightMicrobatches (Schedule.h), so each stage's maximum here
// equals the core's peak (tst_timeline checks it).
#pragma once

#include <span>
#include <vector>

#include "core/base/LargeBuffer.h"

class TimelineTrack;

class InFlightSeries {
public:
    struct Step {
        double seconds;  // from here on ...
        float value;     // ... the stage holds this many micro-batch equivalents
    };

    // O(events); reuses its storage.
    void build(const TimelineTrack& track);

    int stageCount() const { return int(peaks_.size()); }
    std::span<const Step> steps(int stage) const
    {
        return {steps_.data() + offsets_[size_t(stage)], steps_.data() + offsets_[size_t(stage) + 1]};
    }
    double peak(int stage) const { return peaks_[size_t(stage)]; }
    double peak() const;  // over all stages
    double valueAt(int stage, double seconds) const;

    // For drawing at one point per pixel column: the value entering, the lowest, the highest
    // and the value leaving each of `columns` equal slices of [t0, t1].
    struct Column {
        float first, low, high, last;
    };
    void columns(int stage, double t0, double t1, int columns, std::vector<Column>& out) const;

private:
    std::vector<size_t> offsets_;  // stageCount() + 1 entries into steps_
    // A deep pipeline's step has hundreds of thousands of steps: reserved once at their bound
    // and huge-page backed (LargeBuffer.h), the first drag onto 64 stages spent about 1 ms of
    // its tick growing this vector (copies, fresh pages).
    std::vector<Step, trainplan::LargeBufferAllocator<Step>> steps_;
    std::vector<double> peaks_;
};
