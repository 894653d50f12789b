#include "core/estimate/CostEnergyModel.h"

#include <algorithm>

#include "core/base/Units.h"
#include "core/presets/Presets.h"

namespace trainplan {

CostEnergyEstimate estimateCostAndEnergy(const Plan& plan, const Estimate& est)
{
    CostEnergyEstimate out;
    const CostSpec& c = plan.cost;
    const double gpus = est.gpusUsed > 0 ? est.gpusUsed : plan.cluster.gpus;
    // The failure allowance's wall time (restarts, lost work, checkpoint stalls) when failures
    // are modelled; else the compute time alone.
    const double seconds = est.time.totalSeconds;
    const double secondsWithFailures = est.reliability.failuresModelled ? est.reliability.paddedSeconds : seconds;
    // Failures that outpace progress: the run never finishes, so nothing "with failures" is finite.
    const bool neverFinishes = std::any_of(est.warnings.begin(), est.warnings.end(),
        [](const Warning& w) { return w.code == WarningCode::FailuresOutpaceProgress; });
    out.gpuHoursWithFailures = gpus * secondsWithFailures / 3600.0;
    out.pricePerGpuHourUsd = c.pricePerGpuHourUsd;
    if (c.pricePerGpuHourUsd) {
        out.usd = est.time.gpuHours * *c.pricePerGpuHourUsd;
        if (!neverFinishes)
            out.usdWithFailures = out.gpuHoursWithFailures * *c.pricePerGpuHourUsd;
    }
    if (c.gpuPowerWatts) {
        out.gpuPowerWatts = *c.gpuPowerWatts;
    } else {
        const AcceleratorPreset* preset = acceleratorPresetOfPart(plan.cluster);
        if (preset && preset->powerWatts > 0) {
            out.gpuPowerWatts = preset->powerWatts;
            out.gpuPowerFromPreset = true;
        }
    }
    if (out.gpuPowerWatts <= 0)
        return out;  // no power known: no energy, no carbon
    out.facilityWattsPerGpu = out.gpuPowerWatts * (1 + c.serverOverheadFraction) * c.pue;
    out.energyJoules = gpus * out.facilityWattsPerGpu * seconds;
    if (!neverFinishes)
        out.energyJoulesWithFailures = gpus * out.facilityWattsPerGpu * secondsWithFailures;
    if (c.gridKgCo2ePerKwh) {
        constexpr double kJoulesPerKwh = 3.6e6;
        out.carbonKg = *out.energyJoules / kJoulesPerKwh * *c.gridKgCo2ePerKwh;
        if (out.energyJoulesWithFailures)
            out.carbonKgWithFailures = *out.energyJoulesWithFailures / kJoulesPerKwh * *c.gridKgCo2ePerKwh;
    }
    return out;
}

}  // namespace trainplan
