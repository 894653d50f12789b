// What a person measured on their cluster for one run: the figures a calibration fits to
// (Calibration.h). Each is optional; a step time (or the tokens per second per GPU it implies)
// is the one a fit needs.
#pragma once

#include <optional>
#include <string>

namespace trainplan {

struct MeasuredRun {
    std::optional<double> stepSeconds;            // one training iteration, seconds
    std::optional<double> tokensPerSecondPerGpu;  // the same as throughput: tokens per step / (step x GPUs)
    // Peak memory on the fullest GPU, bytes, either as the device shows it (nvidia-smi: every byte
    // the process holds) or as PyTorch's caching allocator reports it (max reserved: without the
    // CUDA context and NCCL's buffers, which are allocated outside it).
    std::optional<double> peakMemoryBytes;
    bool peakIsAllocatorReserved = false;
    // Communication the step waits for (not hidden under compute), seconds per step, as a profile
    // shows it (e.g. Nsight Systems' NCCL kernels outside compute).
    std::optional<double> exposedCommunicationSeconds;
    std::string source;     // "train.log (Megatron-LM): 12 iterations, median" or "entered"
    int samples = 0;        // iterations the figures are the median of (logs)

    bool hasThroughput() const { return stepSeconds.has_value() || tokensPerSecondPerGpu.has_value(); }
};

}  // namespace trainplan
