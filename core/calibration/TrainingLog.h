// Reading a measured run from a training log (MeasuredRun.h):
//   Megatron-LM (megatron/training/training.py training_log): lines with
//     "elapsed time per iteration (ms): 6520.3" and the memory report
//     "[Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max reserved: 61234.5"
//     (MB there is 2^20 bytes: torch.cuda.max_memory_reserved() / 1024 / 1024);
//   torchtitan (torchtitan/components/metrics.py): lines with
//     "step: 10  loss:  7.81  memory: 62.31GiB(78.65%)  tps: 1,820  tflops: 390.11  mfu: 39.44%"
//     (tps: tokens per second per GPU; memory: max reserved, GiB), colour codes allowed.
// The step is the median over the logged iterations after the first, which carries warm-up
// (compilation, allocator growth, the first data loads); with fewer than three, all of them.
// The peak memory is the largest max reserved any line reports.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/calibration/MeasuredRun.h"

namespace trainplan {

// Throws PlanError (path "log") when the text has no iteration lines of either format.
MeasuredRun measuredRunFromLog(std::string_view text, const std::string& sourceName);

// A run a person typed in (a step time, or tokens/s per GPU) with its source named the same way in
// every view: "entered: step 2.73 s", "entered: 1,050 tokens/s per GPU".
MeasuredRun enteredMeasuredRun(std::optional<double> stepSeconds, std::optional<double> tokensPerSecondPerGpu);

}  // namespace trainplan
