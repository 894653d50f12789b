#include "core/analysis/Analysis.h"

#include <algorithm>
#include <mutex>

#include "core/analysis/LayoutRationale.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/analysis/ScheduleComparison.h"
#include "core/analysis/Sensitivity.h"
#include "core/analysis/Thresholds.h"
#include "core/estimate/ActivationModel.h"

namespace trainplan {

struct Analysis::Later {
    std::mutex sensitivityLock, comparisonLock, rationaleLock, searchRowLock;
    std::optional<SensitivityResult> sensitivity[2];  // by SensitivityBasis
    std::optional<ScheduleComparison> comparison;
    std::optional<LayoutRationale> rationale;
    std::optional<std::optional<SearchRow>> searchRow;  // outer: computed yet
};

std::shared_ptr<Analysis::Later> Analysis::makeLater()
{
    return std::make_shared<Later>();
}

const SensitivityResult& Analysis::sensitivity(SensitivityBasis basis) const
{
    Later& later = *later_;
    const std::lock_guard hold(later.sensitivityLock);
    auto& result = later.sensitivity[basis == SensitivityBasis::Assumed ? 1 : 0];
    if (!result) {
        SensitivityOptions options;
        options.basis = basis;
        result = trainplan::sensitivity(plan, options);
    }
    return *result;
}

const ScheduleComparison& Analysis::scheduleComparison() const
{
    Later& later = *later_;
    const std::lock_guard hold(later.comparisonLock);
    if (!later.comparison)
        later.comparison = compareSchedules(*this);
    return *later.comparison;
}

const LayoutRationale& Analysis::layoutRationale() const
{
    Later& later = *later_;
    const std::lock_guard hold(later.rationaleLock);
    if (!later.rationale)
        later.rationale = trainplan::layoutRationale(*this);
    return *later.rationale;
}

const std::optional<SearchRow>& Analysis::searchRow() const
{
    Later& later = *later_;
    const std::lock_guard hold(later.searchRowLock);
    if (!later.searchRow)
        later.searchRow = searchRowOf(plan, estimate);
    return *later.searchRow;
}

const char* timeBasisLabel(TimeBasis basis)
{
    return basis == TimeBasis::Predicted ? "predicted" : "assumed MFU";
}

const char* timeBasisKey(TimeBasis basis)
{
    return basis == TimeBasis::Predicted ? "predicted" : "assumed_mfu";
}

void Analyser::estimateAndPredict(const Plan& plan, const StepTimeOptions& options, Estimate& est, PredictedStep& predicted)
{
    estimateInto(plan, est);
    stepTime_.predict(plan, est, options, predicted);
}

void Analyser::analyse(const Plan& plan, const StepTimeOptions& options, Analysis& out)
{
    // What was computed later belongs to the previous analysis: kept by the copies that share it,
    // dropped here (in place when nothing else holds it, so a slider tick does not allocate).
    if (out.later_.use_count() == 1) {
        for (auto& s : out.later_->sensitivity)
            s.reset();
        out.later_->comparison.reset();
        out.later_->rationale.reset();
        out.later_->searchRow.reset();
    } else {
        out.later_ = Analysis::makeLater();
    }
    // An unknown recompute is the lightest that fits (PlanUnknowns.h): settled only when the plan
    // as given does not fit. Everything below reads the plan as settled.
    out.plan = plan;
    estimateInto(out.plan, out.estimate);
    if ((plan.layout.unknownFields & kUnknownRecompute) && !out.estimate.fits) {
        out.plan = withAssumedRecompute(plan);
        estimateInto(out.plan, out.estimate);
    }
    const Plan& settled = out.plan;
    stepTime_.predict(settled, out.estimate, options, out.predicted, 0, ScheduleDetail::Events);  // the timeline draws this run

    const ScheduleKind kind = scheduleKindOf(settled.layout.schedule);
    const int v = kind == ScheduleKind::Interleaved ? settled.layout.virtualStages : 1;
    out.scheduleProblem = pipelineProblem(kind, settled.layout.pp, out.estimate.pipeline.microbatches, v);
    if (out.predicted.simulated) {
        // The prediction already simulated the step with its costs: keep that run, not a second one.
        stepTime_.swapLastSchedule(out.schedule);
    } else if (!out.scheduleProblem) {
        // One stage (nothing to overlap) or a caller that asked for the closed form: simulate the
        // same costs so the timeline and the schedule verb still have events.
        simulator_.simulate(predictedScheduleCosts(settled, out.estimate, options, kind), kind, out.schedule);
    } else {
        out.schedule = ScheduleResult{};
    }
    // The range: what the plan leaves unknown (framework switches, layout fields), each alone at
    // its slower and its faster value (the rest as expected), then the model's own error;
    // setPredictedRange() combines them.
    const FrameworkChoices choices = frameworkChoicesFor(settled);
    const unsigned layoutUnknowns = actingLayoutUnknowns(settled);
    const bool imbalanceUnknown = loadImbalanceUnknown(settled.model);
    const bool efficienciesUnknown = efficienciesBorrowed(settled.cluster);
    effects_.clear();
    if (choices.unknownSwitches > 0 || layoutUnknowns != 0 || imbalanceUnknown || efficienciesUnknown) {
        for (const UnknownInput& unknown : unknownInputs(settled)) {
            UnknownEffect& effect = effects_.emplace_back();
            effect.field = unknown.field;
            effect.label = unknown.label;
            effect.slowerValue = unknown.slowValue;
            effect.fasterValue = unknown.fastValue;
            double factors[2] = {1.0, 1.0};  // slow side, fast side
            for (int fast = 0; fast < 2; ++fast) {
                if ((fast ? unknown.fastValue : unknown.slowValue) == unknown.expectedValue)
                    continue;  // this side is what the prediction already assumes
                StepTimeOptions variant = options;
                variantPlan_ = settled;
                variantPlan_.layout.unknownFields = 0;  // as set here, not settled again
                unknown.apply(fast == 1, variantPlan_, variant.framework);
                variantPlan_.layout.unknownFields = settled.layout.unknownFields;
                if (!(variantPlan_.cluster.efficiency == settled.cluster.efficiency))
                    variant.efficiency = efficiencyFor(variantPlan_.cluster);
                if (!(variantPlan_.layout == settled.layout) || !(variantPlan_.model == settled.model)) {
                    estimateInto(variantPlan_, variantEstimate_);
                    stepTime_.predict(variantPlan_, variantEstimate_, variant, variantStep_);
                } else {
                    stepTime_.predict(settled, out.estimate, variant, variantStep_);
                }
                factors[fast] = out.predicted.stepSeconds > 0 ? variantStep_.stepSeconds / out.predicted.stepSeconds : 1.0;
            }
            // A value that is usually the faster can be the slower for this plan (fused gradient
            // accumulation adds into main_grad even at one micro-batch): name them as they act.
            if (factors[0] < factors[1]) {
                std::swap(factors[0], factors[1]);
                std::swap(effect.slowerValue, effect.fasterValue);
            }
            effect.slowerFactor = std::max(factors[0], 1.0);
            effect.fasterFactor = std::min(factors[1], 1.0);
        }
    }
    setPredictedRange(settled, out.estimate, effects_, choices.unknownSwitches, layoutUnknowns, imbalanceUnknown, out.predicted);
    out.predicted.range.unknownEfficiencies = efficienciesUnknown;
    out.memoryRange = memoryRange(settled, out.estimate, memoryVariant_);
    estimateInto(withPredictedMfu(settled, out.predicted), out.atPredictedMfu);
    out.cost = estimateCostAndEnergy(settled, out.estimate);
    out.costAtPredicted = estimateCostAndEnergy(settled, out.atPredictedMfu);
    // The expert all-to-all and imbalance over a quarter of the step: the MoE layout's own red flag
    // (it needs the prediction, so it is raised here rather than in the estimate's checks).
    const PredictedComponents& parts = out.predicted.components;
    const double expertShare = out.predicted.stepSeconds > 0 ? (parts.epCommunication + parts.expertImbalance) / out.predicted.stepSeconds : 0;
    if (expertShare > kAllToAllDominatesShare) {
        const Warning dominates{WarningCode::AllToAllDominates, Severity::Warning, "layout.ep", expertShare};
        out.estimate.warnings.push_back(dominates);
        out.atPredictedMfu.warnings.push_back(dominates);
    }
    // A range straddling what is usable is a red flag of its own, so no view shows the range over
    // the capacity line beside "0 warnings" (the estimate alone knows only its point figure).
    if (out.memoryRange.fit == MemoryFit::MayNotFit) {
        const Warning mayNotFit{WarningCode::MemoryMayNotFit, Severity::Warning, "layout", out.memoryRange.lowBytes,
            out.memoryRange.highBytes, out.memoryRange.usableBytes, out.estimate.fullestStage};
        out.estimate.warnings.push_back(mayNotFit);
        out.atPredictedMfu.warnings.push_back(mayNotFit);
    }
}

void Analyser::analyse(const Plan& plan, Analysis& out)
{
    analyse(plan, stepTimeOptionsFor(plan), out);
}

Analysis analyse(const Plan& plan, const StepTimeOptions& options)
{
    Analyser analyser;
    Analysis out;
    analyser.analyse(plan, options, out);
    return out;
}

Analysis analyse(const Plan& plan)
{
    return analyse(plan, stepTimeOptionsFor(plan));
}

}  // namespace trainplan
