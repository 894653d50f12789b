// The honest range around a predicted step (StepTimeModel.h, PredictedRange).
#include <algorithm>
#include <bit>

#include "core/base/Units.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

namespace {

// The model's out-of-sample error on throughput, from leave-one-family-out over the calibration
// runs (resources/reference/*.json; tst_realitycheck recomputes it and fails if these no longer
// cover the measured 90th percentiles). Asymmetric: the model has been more often optimistic.
constexpr double kModelErrorSlower = 0.25;  // the real step up to 25 % longer
constexpr double kModelErrorFaster = 0.12;  // or 12 % shorter

PredictedFigures figuresAt(const Plan& plan, const Estimate& est, double stepSeconds)
{
    PredictedFigures f;
    f.stepSeconds = stepSeconds;
    const double gpus = est.gpusUsed;
    const double peak = plan.cluster.peakFlopsPerGpu;
    const double denominator = stepSeconds * gpus * peak;
    f.mfu = denominator > 0 ? est.flops.perToken * est.time.tokensPerStep / denominator : 0.0;
    f.tflopsPerGpu = f.mfu * peak / units::TFLOPS;
    f.tokensPerSecondPerGpu = stepSeconds > 0 && gpus > 0 ? est.time.tokensPerStep / (stepSeconds * gpus) : 0.0;
    const double total = est.time.stepsExact * stepSeconds;
    f.days = total / units::secondsPerDay;
    f.gpuHours = total / units::secondsPerHour * gpus;
    return f;
}

}  // namespace

double modelErrorSlower()
{
    return kModelErrorSlower;
}

double modelErrorFaster()
{
    return kModelErrorFaster;
}

int PredictedRange::unknownInputs() const
{
    return unknownSwitches + std::popcount(unknownLayoutFields);
}

void setPredictedRange(const Plan& plan, const Estimate& est, double fastest, double slowest, int unknownSwitches,
    unsigned unknownLayoutFields, PredictedStep& p)
{
    PredictedRange& r = p.range;
    r.modelErrorSlower = kModelErrorSlower;
    r.modelErrorFaster = kModelErrorFaster;
    r.unknownSwitches = unknownSwitches;
    r.unknownLayoutFields = unknownLayoutFields;
    const double lo = std::min({fastest, slowest, p.stepSeconds});
    const double hi = std::max({fastest, slowest, p.stepSeconds});
    r.low = figuresAt(plan, est, hi * (1.0 + kModelErrorSlower));
    r.high = figuresAt(plan, est, lo / (1.0 + kModelErrorFaster));
}

}  // namespace trainplan
