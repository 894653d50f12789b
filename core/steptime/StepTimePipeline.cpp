// The pipeline's compute time in closed form, for callers that cannot afford a simulation per
// layout (the layout search). tst_steptime compares it with simulateSchedule().
#include <algorithm>

#include "core/schedule/DualPipe.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

double pipelineComputeSecondsClosedForm(const ScheduleCosts& costs, ScheduleKind kind)
{
    const int p = costs.p;
    const int v = std::max(1, costs.v);
    const double m = double(costs.m);
    // Whole-stage forward + backward (all chunks) for one micro-batch, and ZB-H1's W share.
    double sum = 0.0, worst = 0.0, deferred = 0.0;
    for (int i = 0; i < p; ++i) {
        double work = 0.0;
        for (int c = 0; c < v; ++c) {
            const StageCosts& s = costs.stages[size_t(c) * p + i];
            work += s.forwardSeconds + s.backwardSeconds;
            deferred += s.weightGradSeconds;
        }
        sum += work;
        worst = std::max(worst, work);
    }
    const double mean = p > 0 ? sum / p : 0.0;
    const double sends = p > 1 ? 2.0 * (p - 1) * costs.sendSeconds : 0.0;
    switch (kind) {
    case ScheduleKind::GPipe:
    case ScheduleKind::OneFOneB:
        // Fill and drain pass every stage once; the slowest stage paces the other m - 1.
        return sum + (m - 1.0) * worst + sends;
    case ScheduleKind::Interleaved:
        // Fill and drain shrink to one chunk per stage: (p - 1)/v of a stage's work.
        return m * worst + (p - 1) * mean / v + sends;
    case ScheduleKind::DualPipe:
        return dualPipeComputeSecondsClosedForm(costs);
    case ScheduleKind::ZeroBubbleH1:
        // Bubble (p - 1)(F + B_input - W) per stage (Qi et al. 2023, Sec. 3.1).
        return m * worst + (p - 1) * (mean - 2.0 * deferred / std::max(1, p)) + sends;
    }
    return sum + (m - 1.0) * worst + sends;
}

}  // namespace trainplan
