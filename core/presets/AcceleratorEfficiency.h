// What an accelerator sustains in training, as opposed to its datasheet peaks: the handful of
// per-accelerator figures the step-time model (StepTimeModel.h) needs. Values and their sources
// live in resources/presets/accelerators.json ("step_time" object of each entry).
#pragma once

namespace trainplan {

// One ring step's latency with NCCL's Simple protocol (NCCL 2.2x tuning.cc, ncclTopoTuneModel):
// 3.4 us on NVLink, 14 us on the network; CommunicationModel.cpp's per-protocol table takes them.
inline constexpr double kNcclSimpleNvlinkStepSeconds = 3.4e-6;
inline constexpr double kNcclSimpleNetworkStepSeconds = 14e-6;

struct AcceleratorEfficiency {
    // Matrix multiplies (StepTimeCosts.cpp, matmulEfficiency()): achieved FLOP/s = peak x
    // matmulEfficiency x tile fill x wave fill x K ramp. matmulEfficiency is the fraction of peak
    // a large GEMM with full tiles and full waves sustains in a training job; the output is cut
    // into gemmTileM x gemmTileN tiles run one per SM in waves of smCount; the main loop
    // reaches half its rate at K = gemmKHalf.
    double matmulEfficiency = 0;
    int smCount = 0;
    int gemmTileM = 0;
    int gemmTileN = 0;
    double gemmKHalf = 0;
    // FlashAttention kernels: achieved fraction of peak on the FLOPs they execute, forward and
    // backward together, causal: FlashAttention-2 (flashAttentionEfficiency) and -3 or cuDNN's
    // fused attention (flash3AttentionEfficiency; equal to FA2's where FA3 does not run).
    double flashAttentionEfficiency = 0;
    double flash3AttentionEfficiency = 0;
    // Memory-bound kernels (norms, element-wise ops, optimizer): HBM bytes/s x achievable fraction.
    double hbmBytesPerSecond = 0;
    double hbmEfficiency = 0;
    // Collectives: NCCL bus bandwidth achieved / the link's nominal per-direction bandwidth.
    double intraNodeCollectiveEfficiency = 0;
    double interNodeCollectiveEfficiency = 0;
    // Fixed cost of every kernel on the GPU (launch to first instruction, tail of the last
    // wave), seconds; and the CPU's cost to launch one, a floor on a layer's time unless the
    // layer runs as a CUDA graph.
    double kernelOverheadSeconds = 0;
    double kernelLaunchSeconds = 0;
    // One ring step's latency with NCCL's Simple protocol on the scale-up link and on the network
    // (NCCL tuning.cc: 3.4 us NVLink, 14 us network); the other protocols' steps scale with them.
    double scaleUpStepSeconds = kNcclSimpleNvlinkStepSeconds;
    double networkStepSeconds = kNcclSimpleNetworkStepSeconds;

    bool valid() const
    {
        return matmulEfficiency > 0 && smCount > 0 && gemmTileM > 0 && gemmTileN > 0 && gemmKHalf >= 0 && flashAttentionEfficiency > 0
            && flash3AttentionEfficiency > 0 && hbmBytesPerSecond > 0 && hbmEfficiency > 0 && intraNodeCollectiveEfficiency > 0
            && interNodeCollectiveEfficiency > 0 && kernelOverheadSeconds >= 0 && kernelLaunchSeconds >= 0 && scaleUpStepSeconds >= 0
            && networkStepSeconds >= 0;
    }
    bool operator==(const AcceleratorEfficiency&) const = default;
};

}  // namespace trainplan
