// What an accelerator sustains in training, as opposed to its datasheet peaks: the handful of
// per-accelerator figures the step-time model (StepTimeModel.h) needs. Values and their sources
// live in resources/presets/accelerators.json ("step_time" object of each entry).
#pragma once

namespace trainplan {

struct AcceleratorEfficiency {
    // Matrix multiplies: achieved FLOP/s = peak x matmulEfficiency x x / (x + matmulHalfDimension),
    // with x the GEMM's smallest dimension (StepTimeCosts.cpp). matmulEfficiency is the asymptote
    // for large, well-shaped GEMMs in a training job (at or below the MAMF microbenchmark).
    double matmulEfficiency = 0;
    double matmulHalfDimension = 0;
    // FlashAttention kernels: achieved fraction of peak on the FLOPs they actually execute.
    double flashAttentionEfficiency = 0;
    // Memory-bound kernels (norms, element-wise ops, optimizer): HBM bytes/s x achievable fraction.
    double hbmBytesPerSecond = 0;
    double hbmEfficiency = 0;
    // Collectives: NCCL bus bandwidth achieved / the link's nominal per-direction bandwidth.
    double intraNodeCollectiveEfficiency = 0;
    double interNodeCollectiveEfficiency = 0;

    bool valid() const
    {
        return matmulEfficiency > 0 && matmulHalfDimension >= 0 && flashAttentionEfficiency > 0 && hbmBytesPerSecond > 0
            && hbmEfficiency > 0 && intraNodeCollectiveEfficiency > 0 && interNodeCollectiveEfficiency > 0;
    }
    bool operator==(const AcceleratorEfficiency&) const = default;
};

}  // namespace trainplan
