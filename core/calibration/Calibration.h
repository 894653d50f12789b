// Calibration from one measured run: the few efficiency figures the step-time model exposes,
// fitted so the plan's own layout predicts what was measured, and kept in the plan
// (cluster.efficiency, training.fragmentation_fraction, and the record cluster.calibration) so
// every other layout of that cluster is predicted with them.
//
// What one run can settle, and what it fits:
//   step time (or tokens per second per GPU) -> cluster.efficiency.matmul_fraction: the GEMMs are
//     most of a step's time (StepTimeCosts.cpp), and a cluster's GEMM rate (clocks under its power
//     and cooling, the cuBLAS release) is what published kernel measurements vary most in;
//   exposed communication -> the collective fraction of the link that carries it (the network's or
//     the scale-up link's, whichever the layout's exposed collectives move with), fitted first, so
//     the GEMM fit charges only the rest of the step;
//   peak memory -> training.fragmentation_fraction: the allocator's slack is the one memory term no
//     datasheet gives (estimate/ReserveModel.cpp).
// What it refuses, naming why: a figure the measured layout barely depends on (a network fraction
// when the layout hides its collectives), a fit that would leave the field's range (a step faster
// than GEMMs at the dense peak allow), and the overlap switches, which are on or off per collective
// here (framework.*): one step time cannot say which of them is on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/calibration/MeasuredRun.h"
#include "core/plan/Plan.h"

namespace trainplan {

struct CalibrationInputs {
    MeasuredRun run;
    std::string framework;  // the stack and its release, for the record ("Megatron-LM core_r0.12")
    std::string date;       // YYYY-MM-DD, for the record
};

struct FittedFigure {
    std::string field;  // "cluster.efficiency.matmul_fraction"
    std::string title;  // "GEMM efficiency"
    double before = 0, after = 0;
    std::string how;    // "step 6.52 s measured, 5.98 s predicted"
};

struct UnfittedFigure {
    std::string what;  // "network collectives (cluster.efficiency.network_collective_fraction)"
    std::string why;
};

// One figure the measurement and the prediction both give, before and after the fit.
struct CalibratedFigure {
    std::string name;  // "step", "exposed communication", "peak memory"
    double measured = 0, before = 0, after = 0;
    std::string unit;  // "s", "bytes"
};

struct CalibrationResult {
    Plan plan;  // the input plan with the fitted figures and the record
    std::vector<CalibratedFigure> figures;
    std::vector<FittedFigure> fitted;
    std::vector<UnfittedFigure> notFitted;
    double tokensPerSecondPerGpuBefore = 0, tokensPerSecondPerGpuAfter = 0;
    double mfuBefore = 0, mfuAfter = 0;
};

// Throws PlanError naming the measured field when a measurement is not a finite positive number,
// when neither a step time nor a throughput is given, or when the plan's layout cannot be
// predicted. Everything else the fit cannot settle is in notFitted.
CalibrationResult calibrate(const Plan& plan, const CalibrationInputs& inputs);

// The plan's layout as the calibration record keeps it: "TP 8 × PP 4 × DP 64 × CP 1, micro-batch
// 1, global batch 1,024 sequences, recompute none".
std::string measuredLayoutText(const Plan& plan);

nlohmann::json calibrationToJson(const CalibrationResult& result);
std::string calibrationToText(const CalibrationResult& result);

}  // namespace trainplan
