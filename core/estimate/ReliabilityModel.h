// Checkpoint size and cadence, failures over the run, and the padded wall time.
#pragma once

#include "core/base/Units.h"
#include "core/estimate/Estimate.h"

namespace trainplan {

// Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", Sec. 3.3.4): 419 unexpected
// interruptions during a 54-day snapshot of pre-training on 16,384 H100 GPUs, 8 per node.
inline constexpr double kLlama3Interruptions = 419.0;
inline constexpr double kLlama3SnapshotDays = 54.0;
inline constexpr double kLlama3Gpus = 16384.0;
inline constexpr double kLlama3GpusPerNode = 8.0;
// The node MTBF that reproduces that rate (a comparison in the derivation, not a default):
// 54 d x 24 h x 2,048 nodes / 419 = 6,334 h per node, i.e. one interruption every 3.1 h at
// 16,384 GPUs and every 25 h at 2,048.
inline constexpr double kDefaultMtbfHoursPerNode =
    kLlama3SnapshotDays * units::hoursPerDay * (kLlama3Gpus / kLlama3GpusPerNode) / kLlama3Interruptions;

// Fills est.reliability; needs parameters and time already estimated.
void estimateReliability(const Plan& plan, Estimate& est);

}  // namespace trainplan
