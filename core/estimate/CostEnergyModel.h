// What a run costs in money, energy and carbon, from its GPU-hours and wall time (either time
// basis: the analysis computes it from the estimate at the assumed MFU and from the one at the
// predicted MFU). The GPUs draw their power for the whole wall time, failures' allowance included
// where named: energy = GPUs x GPU power x (1 + server overhead) x PUE x time. GPU power is the
// board power (TDP) unless the plan gives another draw, so the energy is an upper bound for a
// run whose GPUs sit below their rated power.
#pragma once

#include <optional>

#include "core/estimate/Estimate.h"
#include "core/plan/Plan.h"

namespace trainplan {

struct CostEnergyEstimate {
    std::optional<double> pricePerGpuHourUsd;
    std::optional<double> usd;                 // GPU-hours x price
    std::optional<double> usdWithFailures;     // with the failure and checkpoint allowance's hours
    double gpuHoursWithFailures = 0;
    double gpuPowerWatts = 0;                  // per GPU: the plan's, else the preset's board power; 0 when neither
    bool gpuPowerFromPreset = false;
    double facilityWattsPerGpu = 0;            // GPU x (1 + server overhead) x PUE
    std::optional<double> energyJoules;        // compute time
    std::optional<double> energyJoulesWithFailures;
    std::optional<double> carbonKg;            // energy x grid intensity
    std::optional<double> carbonKgWithFailures;
};

CostEnergyEstimate estimateCostAndEnergy(const Plan& plan, const Estimate& estimate);

}  // namespace trainplan
