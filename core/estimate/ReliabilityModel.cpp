#include "core/estimate/ReliabilityModel.h"

#include <cmath>

#include "core/base/Units.h"

namespace trainplan {

void estimateReliability(const Plan& plan, Estimate& est)
{
    const auto& rel = plan.reliability;
    const auto& cl = plan.cluster;
    auto& r = est.reliability;
    const auto state = stateBytesPerParameter(plan.training.precision);
    const double n = est.parameters.total;

    r.modelStateBytes = n * state.total();
    // A checkpoint holds weights, the FP32 master copy and the optimizer moments;
    // gradients are recomputed after a restart and are not saved.
    r.checkpointBytes = n * (state.weights + state.optimizer());
    r.checkpointBytesPerGpu = r.checkpointBytes / est.gpusUsed;
    if (rel.checkpointWriteSeconds)
        r.checkpointWriteSeconds = *rel.checkpointWriteSeconds;
    else if (rel.checkpointWriteBytesPerSecondPerGpu)
        r.checkpointWriteSeconds = r.checkpointBytesPerGpu / *rel.checkpointWriteBytesPerSecondPerGpu;
    r.computeSeconds = est.time.totalSeconds * (1.0 + rel.otherOverheadFraction);

    r.failuresModelled = cl.mtbfSeconds.has_value();
    if (!r.failuresModelled) {
        r.clusterMtbfSeconds = 0.0;
        r.checkpointIntervalSeconds = 0.0;
        r.checkpointOverheadSeconds = 0.0;
        r.lostSecondsPerFailure = 0.0;
        r.expectedFailures = 0.0;
        r.failureLostSeconds = 0.0;
        r.paddedSeconds = r.computeSeconds;
        r.paddedDays = r.paddedSeconds / units::secondsPerDay;
        return;
    }
    // Failures are independent across nodes (or GPUs): the cluster's MTBF is the part's
    // divided by how many parts the job uses (Llama 3 paper, Sec. 3.3.4, reports the
    // cluster rate the same way).
    const double parts = cl.mtbfBasis == MtbfBasis::PerNode ? est.nodes : est.gpusUsed;
    r.clusterMtbfSeconds = *cl.mtbfSeconds / parts;
    // Young 1974 / Daly 2006 first-order optimum: tau = sqrt(2 delta M) (worked example A).
    const double delta = r.checkpointWriteSeconds;
    r.checkpointIntervalSeconds = std::sqrt(2.0 * delta * r.clusterMtbfSeconds);
    // Each failure costs the restart and, on average, half an interval of lost work.
    r.lostSecondsPerFailure = rel.restartSeconds + r.checkpointIntervalSeconds / 2.0;
    const double checkpointFactor = r.checkpointIntervalSeconds > 0 ? delta / r.checkpointIntervalSeconds : 0.0;
    r.checkpointOverheadSeconds = r.computeSeconds * checkpointFactor;
    // Failures arrive during the padded run itself, so solve T = W + (T / M) L for T,
    // with W the work including checkpoint stalls and L the loss per failure.
    const double work = r.computeSeconds + r.checkpointOverheadSeconds;
    const double lossRate = r.lostSecondsPerFailure / r.clusterMtbfSeconds;
    if (lossRate >= 1.0) {
        // No progress is possible: the run never finishes. Keep the figures finite (the
        // failure-free work) and let the FailuresOutpaceProgress error say so.
        r.paddedSeconds = work;
        r.expectedFailures = work / r.clusterMtbfSeconds;
        r.failureLostSeconds = r.expectedFailures * r.lostSecondsPerFailure;
        r.paddedDays = r.paddedSeconds / units::secondsPerDay;
        return;
    }
    r.paddedSeconds = work / (1.0 - lossRate);
    r.expectedFailures = r.paddedSeconds / r.clusterMtbfSeconds;
    r.failureLostSeconds = r.expectedFailures * r.lostSecondsPerFailure;
    r.paddedDays = r.paddedSeconds / units::secondsPerDay;
}

}  // namespace trainplan
