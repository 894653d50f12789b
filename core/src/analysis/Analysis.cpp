#include "analysis/Analysis.h"

namespace trainplan {

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
    out.plan = plan;
    estimateAndPredict(plan, options, out.estimate, out.predicted);

    const ScheduleKind kind = scheduleKindOf(plan.layout.schedule);
    const int v = kind == ScheduleKind::Interleaved ? plan.layout.virtualStages : 1;
    out.scheduleProblem = pipelineProblem(kind, plan.layout.pp, out.estimate.pipeline.microbatches, v);
    if (out.predicted.simulated) {
        // The prediction already simulated the step with its costs: keep that run, not a second one.
        stepTime_.swapLastSchedule(out.schedule);
    } else if (!out.scheduleProblem) {
        // One stage (nothing to overlap) or a caller that asked for the closed form: simulate the
        // same costs so the timeline and the schedule verb still have events.
        simulator_.simulate(predictedScheduleCosts(plan, out.estimate, options, kind), kind, out.schedule);
    } else {
        out.schedule = ScheduleResult{};
    }
    // The range: the framework switches the plan leaves unknown, all at their faster and all at
    // their slower values (each switch acts one way), then the model's own error around both.
    const FrameworkChoices choices = frameworkChoicesFor(plan);
    if (choices.unknownSwitches > 0) {
        StepTimeOptions variant = options;
        variant.framework = choices.fastest;
        stepTime_.predict(plan, out.estimate, variant, variantStep_);
        const double fastest = variantStep_.stepSeconds;
        variant.framework = choices.slowest;
        stepTime_.predict(plan, out.estimate, variant, variantStep_);
        setPredictedRange(plan, out.estimate, fastest, variantStep_.stepSeconds, choices.unknownSwitches, out.predicted);
    }
    out.memoryRange = memoryRange(plan, out.estimate, memoryVariant_);
    estimateInto(withPredictedMfu(plan, out.predicted), out.atPredictedMfu);
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
