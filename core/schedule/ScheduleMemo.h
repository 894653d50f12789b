// The last few pipeline simulations' results, looked up by their exact inputs. One analysis
// predicts the step a dozen times or more (the main prediction, then each unknown framework
// switch at either end of the range), and some of those change nothing the pipeline sees. On
// the default plan at PP = 64 the plan's own step simulates twice and each of the range's 11
// variants once (StepTimeWorkspace::predictStepOnly); 3 of the variants (parameter-gather
// overlap, CUDA graphs, the optimizer's kernels) leave the run as it was and, on the thread that
// predicted the plan's own step, recall it.
#pragma once

#include <array>
#include <cstddef>

#include "core/schedule/Schedule.h"

namespace trainplan {

class ScheduleMemo {
public:
    // The result of simulating exactly these costs (every double equal), without its events;
    // nullptr when none is remembered.
    const ScheduleResult* find(const ScheduleCosts& costs, ScheduleKind kind) const;
    // Keeps a copy of result without its events, replacing the oldest entry.
    void remember(const ScheduleCosts& costs, ScheduleKind kind, const ScheduleResult& result);
    // Copies result's times and per-stage figures into out and clears out's events (keeping
    // their storage): what a ScheduleDetail::TimesOnly simulation leaves.
    static void copyTimes(const ScheduleResult& result, ScheduleResult& out);

private:
    struct Entry {
        bool used = false;
        ScheduleKind kind = ScheduleKind::OneFOneB;
        ScheduleCosts costs;
        ScheduleResult result;  // events always empty
    };
    static constexpr std::size_t kEntries = 8;
    std::array<Entry, kEntries> entries_;
    std::size_t next_ = 0;
};

}  // namespace trainplan
