// One analysis of a plan: everything any view, verb or export shows, computed once and in order.
//
//   estimate        figures at the assumed MFU (training.mfu): parameters, FLOPs, memory, volumes,
//                   time, reliability, warnings
//   predicted       the step-time model's step for this layout (StepTimeModel.h), with its range
//                   (predicted.range: low / high figures from unknown framework switches and layout
//                   fields and the model's out-of-sample error; estimateAndPredict() gives the error
//                   band only). An unknown recompute is settled first: plan is the plan as settled.
//   schedule        the simulated pipeline step with the predicted costs: what the timeline draws;
//                   its step plus the work after the pipeline (optimizer, parameter gather) is
//                   predicted.stepSeconds
//   atPredictedMfu  the estimate with MFU = the predicted MFU: days, GPU-hours and failure-padded
//                   days at the predicted speed
//   memoryRange     the fullest GPU's memory with every unknown at either value, and the model's error
//
// and, on first use (they cost more than a slider tick should pay for a view that may be hidden),
// what is computed from those: sensitivity() of the settled plan on either time basis,
// scheduleComparison() (the plan's pipeline under every schedule kind), layoutRationale() (the
// layout search and the neighbouring layouts) and searchRow() (the plan as the layout search
// would rank it). Each is computed once per analysis and shared by its copies, so the window and
// an export made from it show the very same result.
//
// Writers (JSON, text, report, window) format an Analysis and compute nothing of their own, so
// a figure has one value everywhere. Two bases exist for time (assumed MFU and predicted);
// timeBasisLabel() is the one wording every view uses for them.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/estimate/CostEnergyModel.h"
#include "core/estimate/Estimate.h"
#include "core/estimate/MemoryRange.h"
#include "core/schedule/Schedule.h"
#include "core/schedule/SchedulePreconditions.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

enum class TimeBasis { AssumedMfu, Predicted };
enum class SensitivityBasis;
struct SensitivityResult;
struct ScheduleComparison;
struct LayoutRationale;
struct SearchRow;

// "assumed MFU" / "predicted": how every view names the two bases.
const char* timeBasisLabel(TimeBasis basis);
// "assumed_mfu" / "predicted": the same in JSON.
const char* timeBasisKey(TimeBasis basis);

struct Analysis {
    Plan plan;
    Estimate estimate;
    PredictedStep predicted;
    // Empty (no events, no stages) when the pipeline cannot be simulated; scheduleProblem says
    // why and predicted then uses the closed form.
    ScheduleResult schedule;
    std::optional<ScheduleProblem> scheduleProblem;
    Estimate atPredictedMfu;
    MemoryRange memoryRange;  // around estimate.perGpu.total
    // Money, energy and carbon on each time basis (estimate/CostEnergyModel.h).
    CostEnergyEstimate cost;             // from estimate: the assumed MFU
    CostEnergyEstimate costAtPredicted;  // from atPredictedMfu
    const CostEnergyEstimate& costFor(TimeBasis basis) const { return basis == TimeBasis::Predicted ? costAtPredicted : cost; }

    // The estimate whose time figures follow the basis (memory and volumes are the same in both).
    const Estimate& timeEstimate(TimeBasis basis) const { return basis == TimeBasis::Predicted ? atPredictedMfu : estimate; }
    double stepSeconds(TimeBasis basis) const { return basis == TimeBasis::Predicted ? predicted.stepSeconds : estimate.time.stepSeconds; }
    bool hasSchedule() const { return !scheduleProblem && !schedule.stages.empty(); }
    // Work after the simulated pipeline: the optimizer step and the exposed parameter all-gather.
    double afterPipelineSeconds() const { return predicted.stepSeconds - schedule.stepSeconds; }

    // Computed from this analysis on first use, then kept (Sensitivity.h, ScheduleComparison.h,
    // LayoutRationale.h). A copy shares them, computed or not: an export made from the window's
    // analysis reads the window's results. Change an analysis only through analyse() (which starts
    // afresh); a copy whose fields are edited by hand would read results of the original.
    // Safe to call from several threads on copies of one analysis.
    const SensitivityResult& sensitivity(SensitivityBasis basis) const;  // the settled plan, the plan's own step-time options
    const ScheduleComparison& scheduleComparison() const;
    const LayoutRationale& layoutRationale() const;
    // The plan's layout as a row of the layout search (LayoutSearch.h searchRowOf(): the closed-form
    // pipeline, as the search predicts); empty when its step cannot be predicted.
    const std::optional<SearchRow>& searchRow() const;

private:
    friend class Analyser;
    struct Later;  // the results above, each computed once under its own lock
    static std::shared_ptr<Later> makeLater();
    std::shared_ptr<Later> later_ = makeLater();
};

// The plan's own accelerator efficiencies and framework (stepTimeOptionsFor(plan)).
Analysis analyse(const Plan& plan);
// With step-time options set by the caller (sensitivity varies them, the reality check pins the
// framework).
Analysis analyse(const Plan& plan, const StepTimeOptions& options);

// Reuses its scratch and the output's storage across calls (live views, repeated analyses); one
// instance per thread.
class Analyser {
public:
    Analyser();
    ~Analyser();
    Analyser(Analyser&&) noexcept;
    Analyser& operator=(Analyser&&) noexcept;

    // Lets analyse() share the range's variants (two per unknown input, each a prediction with
    // its own pipeline simulations) out over a second thread when their pipelines are big enough
    // to pay for the hand-over: the live window, where a drag onto 64 stages simulates about
    // twenty of them. The figures are the same either way (each variant is a pure function of its
    // inputs); off by default, as the search and the sensitivity keep both cores busy already.
    void shareRangeWithHelperThread(bool on);
    // How many of the last analyse()'s range variants the helper thread predicted (0 when it was
    // not asked): what shows that the sharing happens at all.
    int variantsOnHelperThread() const;

    void analyse(const Plan& plan, const StepTimeOptions& options, Analysis& out);
    void analyse(const Plan& plan, Analysis& out);
    // The analysis's first two stages alone (estimate at the assumed MFU, then the predicted
    // step), for the layout search's hot loop: the same code path, without the schedule's events
    // or the second estimate.
    void estimateAndPredict(const Plan& plan, const StepTimeOptions& options, Estimate& est, PredictedStep& predicted);

private:
    struct RangeVariants;  // the range's variants: their scratch and the helper (Analysis.cpp)
    void measureUnknownEffects(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options, double stepSeconds);

    StepTimeWorkspace stepTime_;
    ScheduleSimulator simulator_;
    std::unique_ptr<RangeVariants> range_;
    Estimate memoryVariant_;  // the memory range's framework variants
    std::vector<UnknownEffect> effects_;  // each unknown input's effect on the step
};

}  // namespace trainplan
