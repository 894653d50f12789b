#include "core/analysis/Analysis.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "core/analysis/LayoutRationale.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/analysis/ScheduleComparison.h"
#include "core/analysis/Sensitivity.h"
#include "core/analysis/Thresholds.h"
#include "core/base/HelperThread.h"
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

namespace {

// One side of one unknown input, as the range measures it: the step at that value (its factor,
// over the predicted step, is taken once that step is known).
struct VariantJob {
    size_t unknown = 0;  // index into the unknown inputs and effects_
    bool fast = false;
    double stepSeconds = 0.0;
};

// What one thread needs to predict a variant. The analysing thread predicts with the
// Analyser's own workspace (its memo holds the base prediction's simulations, which a variant
// with the base's costs recalls); the helper has a workspace of its own.
struct VariantScratch {
    PredictedStep step;
    Plan plan;
    Estimate estimate;
};

}  // namespace

struct Analyser::RangeVariants {
    VariantScratch own;
    std::vector<UnknownInput> unknowns;
    std::vector<VariantJob> jobs;
    std::atomic<size_t> next{0};  // the first job no thread has taken
    bool shareWithHelper = false;
    bool helperWorking = false;  // the helper took jobs of this analysis and was not waited for
    std::atomic<int> onHelper{0};  // variants the helper predicted in the last analysis
    // The helper's scratch and thread, made on the first variants worth sharing.
    std::unique_ptr<StepTimeWorkspace> helperStepTime;
    std::unique_ptr<VariantScratch> helperScratch;
    std::unique_ptr<HelperThread> helper;

    // The jobs for these unknowns, one per side that is not the expected value.
    void prepare(const Plan& settled);
    // With the helper on and jobs enough to pay for the hand-over, the helper starts taking them.
    void startHelper(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options);
    // Takes jobs until none is left, predicting each with this thread's workspace and scratch.
    void take(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options, StepTimeWorkspace& stepTime,
              VariantScratch& scratch, bool onHelperThread);
    // Leaves the remaining jobs untaken and waits for the helper's current one (on an exception).
    void abandon() noexcept;
};

Analyser::Analyser()
    : range_(std::make_unique<RangeVariants>())
{
}

Analyser::~Analyser() = default;
Analyser::Analyser(Analyser&&) noexcept = default;
Analyser& Analyser::operator=(Analyser&&) noexcept = default;

void Analyser::shareRangeWithHelperThread(bool on)
{
    range_->shareWithHelper = on;
}

int Analyser::variantsOnHelperThread() const
{
    return range_->onHelper.load();
}

namespace {

// The step with `unknown` at its faster (fast) or slower value.
double variantStepSeconds(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options, const UnknownInput& unknown,
                          bool fast, StepTimeWorkspace& stepTime, VariantScratch& scratch)
{
    StepTimeOptions variant = options;
    Plan& plan = scratch.plan;
    plan = settled;
    plan.layout.unknownFields = 0;  // as set here, not settled again
    unknown.apply(fast, plan, variant.framework);
    plan.layout.unknownFields = settled.layout.unknownFields;
    if (!(plan.cluster.efficiency == settled.cluster.efficiency))
        variant.efficiency = efficiencyFor(plan.cluster);
    if (!(plan.layout == settled.layout) || !(plan.model == settled.model)) {
        estimateInto(plan, scratch.estimate);
        stepTime.predictStepOnly(plan, scratch.estimate, variant, scratch.step);
    } else {
        stepTime.predictStepOnly(settled, estimate, variant, scratch.step);
    }
    return scratch.step.stepSeconds;
}

// Pipeline operations (forward and backward of every micro-batch on every virtual stage) the
// variants simulate together, two simulations each, at which a hand-over to the helper pays:
// waking it costs tens of microseconds, and simulations run at a few nanoseconds per operation.
constexpr double kShareFromOperations = 1 << 13;

}  // namespace

void Analyser::RangeVariants::prepare(const Plan& settled)
{
    unknowns = unknownInputs(settled);
    jobs.clear();
    for (size_t i = 0; i < unknowns.size(); ++i) {
        const UnknownInput& unknown = unknowns[i];
        for (int fast = 0; fast < 2; ++fast)
            if ((fast ? unknown.fastValue : unknown.slowValue) != unknown.expectedValue)  // else the prediction's own value
                jobs.push_back({i, fast == 1});
    }
    next = 0;
    onHelper = 0;
}

void Analyser::RangeVariants::take(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options,
                                   StepTimeWorkspace& stepTime, VariantScratch& scratch, bool onHelperThread)
{
    for (size_t j; (j = next.fetch_add(1, std::memory_order_relaxed)) < jobs.size();) {
        VariantJob& job = jobs[j];
        job.stepSeconds = variantStepSeconds(settled, estimate, options, unknowns[job.unknown], job.fast, stepTime, scratch);
        onHelper += onHelperThread;
    }
}

void Analyser::RangeVariants::startHelper(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options)
{
    const int v = scheduleKindOf(settled.layout.schedule) == ScheduleKind::Interleaved ? settled.layout.virtualStages : 1;
    const double operations = 2.0 * 2.0 * double(estimate.pipeline.microbatches) * settled.layout.pp * v * double(jobs.size());
    if (!shareWithHelper || jobs.size() < 2 || settled.layout.pp <= 1 || operations < kShareFromOperations)
        return;
    if (!helper) {
        helperStepTime = std::make_unique<StepTimeWorkspace>();
        helperScratch = std::make_unique<VariantScratch>();
        helper = std::make_unique<HelperThread>();
    }
    // The plan, estimate and options are the analysis's own, unchanged until the helper is waited for.
    helper->run([this, &settled, &estimate, &options] { take(settled, estimate, options, *helperStepTime, *helperScratch, true); });
    helperWorking = true;
}

void Analyser::RangeVariants::abandon() noexcept
{
    if (!helperWorking)
        return;
    helperWorking = false;
    next = jobs.size();  // the helper stops after its current variant
    try {
        helper->wait();
    } catch (...) {
        // The analysis is failing already with the exception that brought it here.
    }
}

void Analyser::measureUnknownEffects(const Plan& settled, const Estimate& estimate, const StepTimeOptions& options, double stepSeconds)
{
    // Called inside analyse()'s try: an exception here leaves the helper to its abandon().
    RangeVariants& range = *range_;
    range.take(settled, estimate, options, stepTime_, range.own, false);
    if (range.helperWorking) {
        range.helperWorking = false;
        range.helper->wait();
    }

    for (size_t i = 0; i < range.unknowns.size(); ++i) {
        UnknownEffect& effect = effects_.emplace_back();
        effect.field = range.unknowns[i].field;
        effect.label = range.unknowns[i].label;
        effect.slowerValue = range.unknowns[i].slowValue;
        effect.fasterValue = range.unknowns[i].fastValue;
    }
    for (const VariantJob& job : range.jobs) {
        UnknownEffect& effect = effects_[job.unknown];
        (job.fast ? effect.fasterFactor : effect.slowerFactor) = stepSeconds > 0 ? job.stepSeconds / stepSeconds : 1.0;
    }
    for (UnknownEffect& effect : effects_) {
        // Before the clamps, slowerFactor holds the slow side's step and fasterFactor the fast
        // side's (1 for a side that is the expected value). A value that is usually the faster
        // can be the slower for this plan (fused gradient accumulation adds into main_grad even
        // at one micro-batch): name them as they act.
        if (effect.slowerFactor < effect.fasterFactor) {
            std::swap(effect.slowerFactor, effect.fasterFactor);
            std::swap(effect.slowerValue, effect.fasterValue);
        }
        effect.slowerFactor = std::max(effect.slowerFactor, 1.0);
        effect.fasterFactor = std::min(effect.fasterFactor, 1.0);
    }
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
    // The range: what the plan leaves unknown (framework switches, layout fields), each alone at
    // its slower and its faster value (the rest as expected), then the model's own error;
    // setPredictedRange() combines them. Its variants need the settled plan and its estimate
    // only, so a helper thread starts on them while this one predicts the plan's own step.
    const FrameworkChoices choices = frameworkChoicesFor(settled);
    const unsigned layoutUnknowns = actingLayoutUnknowns(settled);
    const bool imbalanceUnknown = loadImbalanceUnknown(settled.model);
    const bool efficienciesUnknown = efficienciesBorrowed(settled.cluster);
    const bool measuresRange = choices.unknownSwitches > 0 || layoutUnknowns != 0 || imbalanceUnknown || efficienciesUnknown;
    effects_.clear();
    if (measuresRange) {
        range_->prepare(settled);
        range_->startHelper(settled, out.estimate, options);
    }
    try {
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
        // This thread's share of the variants comes after the plan's own step, whose
        // simulations its workspace's memo then holds for the variants that repeat them.
        if (measuresRange)
            measureUnknownEffects(settled, out.estimate, options, out.predicted.stepSeconds);
    } catch (...) {
        range_->abandon();
        throw;
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
