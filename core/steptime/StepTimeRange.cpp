// The honest range around a predicted step (StepTimeModel.h, PredictedRange).
#include <algorithm>
#include <bit>
#include <cmath>

#include "core/base/Units.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

namespace {

// The model's error out of sample (StepErrorBand), from the reality check's leave-one-family-out
// folds over resources/reference (a copy of the team's reference set): each of the 56 gated
// throughput and duration rows predicted with the calibration fitted without its family, its
// residual r = ln(measured step / predicted step) (a throughput's predicted / measured). Split
// conformal over those residuals (Lei et al. 2018; CV+ by groups, Barber et al. 2021; analysis/
// RealityCheck.h, conformalBand()) at 90 %: the 2nd smallest and the 55th of 56, i.e.
// narayanan21-t1-7.5B (measured step 0.883 x predicted) and megatron-h100-weak-7.1B (1.181 x).
// tst_realitycheck recomputes both from the folds and fails when they no longer match: a change
// that moves the residuals updates these figures from its output.
//
// Why 90 %: rows of one family share a stack and a cluster, so the residuals are not exchangeable
// and the guarantee that survives is CV+'s worst case, about 1 - 2 alpha (Barber et al. 2021,
// Sec. 4, K-fold CV+): 80 % at 90 %, issue 22's bar. Judged as a user meets it, each family
// against a band built from the other families alone, 80 % reaches only 71 % of the runs (whole
// families, BigScience's Megatron-DeepSpeed rows at 1.12-1.18 x, fall outside) and 90 % reaches
// 95 % at a median high / low of 1.34 (tst_realitycheck prints both).
// Why rows weigh alike: weighing each row 1 / (rows of its family) gives the same band over all
// five families (x0.883 to x1.181), but with one family held out a 5-row family's rows weigh
// 2.8 rows each and the band's ends jump to single rows (x0.81 to x1.24), widening the held-out
// ranges to a median 1.52 for no coverage gained; the family correlation is answered by judging
// the band leave-one-family-out instead.
constexpr StepErrorBand kStepErrorBand{0.90, -0.1245, 0.1665};

// A plan calibrated on one measured run of its cluster (calibration/Calibration.h) keeps the error
// of the layouts it was not measured on: the reference rows, each family's rows calibrated on each
// other row of the family and accelerator in turn (calibration/CalibrationValidation.h), split
// conformal at the same 90 % with each predicted row weighing one. tst_calibration recomputes it.
constexpr StepErrorBand kCalibratedStepErrorBand{0.90, -0.1667, 0.1521};

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

const StepErrorBand& stepErrorBand()
{
    return kStepErrorBand;
}

const StepErrorBand& calibratedStepErrorBand()
{
    return kCalibratedStepErrorBand;
}

bool usesCalibratedStepBand(const Plan& plan)
{
    return plan.cluster.calibrated("cluster.efficiency.matmul_fraction");
}

int PredictedRange::unknownInputs() const
{
    return unknownSwitches + std::popcount(unknownLayoutFields) + int(unknownLoadImbalance) + int(unknownEfficiencies);
}

double combinedLogExtent(double unknowns, double modelError)
{
    return std::hypot(unknowns, modelError);
}

void setPredictedRange(const Plan& plan, const Estimate& est, const std::vector<UnknownEffect>& effects, int unknownSwitches,
    unsigned unknownLayoutFields, bool unknownLoadImbalance, PredictedStep& p)
{
    PredictedRange& r = p.range;
    // The band always holds the prediction itself (a quantile on the wrong side of zero would
    // leave the point figure outside its own range).
    const StepErrorBand& band = usesCalibratedStepBand(plan) ? kCalibratedStepErrorBand : kStepErrorBand;
    const double logLow = std::min(band.logLow, 0.0), logHigh = std::max(band.logHigh, 0.0);
    r.modelErrorSlower = std::exp(logHigh) - 1.0;
    r.modelErrorFaster = 1.0 - std::exp(logLow);
    r.coverage = band.coverage;
    r.unknownSwitches = unknownSwitches;
    r.unknownLayoutFields = unknownLayoutFields;
    r.unknownLoadImbalance = unknownLoadImbalance;
    // Each unknown as an independent spread on the log scale: an input on its own can move the
    // step by its full effect, so one dominant unknown keeps its whole swing; several act as
    // independent choices of one stack, not as ten certainties that all go the same way. A
    // stack known to be old on every count is a profile (framework.profile), which settles them.
    double slower = 0.0, faster = 0.0;
    for (const UnknownEffect& e : effects) {
        const double up = std::log(std::max(e.slowerFactor, 1.0)), down = std::log(std::min(e.fasterFactor, 1.0));
        slower += up * up;
        faster += down * down;
    }
    r.unknownEffects.assign(effects.begin(), effects.end());  // keeps its capacity between slider ticks
    r.unknownsLogSlower = std::sqrt(slower);
    r.unknownsLogFaster = std::sqrt(faster);
    r.low = figuresAt(plan, est, p.stepSeconds * std::exp(combinedLogExtent(r.unknownsLogSlower, logHigh)));
    r.high = figuresAt(plan, est, p.stepSeconds * std::exp(-combinedLogExtent(r.unknownsLogFaster, logLow)));
}

}  // namespace trainplan
