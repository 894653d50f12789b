// Seconds of the work one GPU does for one micro-batch: a transformer layer, the embedding on
// the first stage, the LM head and loss on the last. The step-time model (StepTimeModel.cpp)
// multiplies these by layers and micro-batches and lays them out on the pipeline.
#pragma once

#include "steptime/StepTimeModel.h"

namespace trainplan {

// The work outside the transformer layers, one micro-batch on one GPU, seconds.
struct EndCosts {
    double forwardMatmul = 0, backwardMatmul = 0, weightGradMatmul = 0;
    double forwardMemory = 0, backwardMemory = 0;
    double forwardTp = 0, backwardTp = 0;

    double forward() const { return forwardMatmul + forwardMemory + forwardTp; }
    double backward() const { return backwardMatmul + backwardMemory + backwardTp; }
};

struct MicrobatchCosts {
    LayerTimes layer;
    EndCosts embedding;  // first stage: lookup and its TP reduction
    EndCosts lmHead;     // last stage: output projection, cross-entropy, SP gather
    double matmulEfficiency = 0;  // FLOP-weighted over one layer's projections
};

// Achieved fraction of peak for a (m x k) by (k x n) matrix multiply:
//   matmulEfficiency x x / (x + matmulHalfDimension),  x = min(m, n, k).
// GEMM throughput rises with the problem's smallest dimension and saturates: small dimensions
// leave tensor-core tiles partly empty and waves of thread blocks short (NVIDIA, "Matrix
// Multiplication Background User's Guide", tile and wave quantization; Anthony et al. 2024,
// "The Case for Co-Designing Model Architectures with Hardware", Sec. 4, GEMM throughput against
// hidden size). The asymptote is at or below the measured MAMF (Bekman, ml-engineering,
// "Maximum Achievable Matmul FLOPS comparison table").
double matmulEfficiency(double m, double n, double k, const AcceleratorEfficiency& efficiency);

// NCCL bus bandwidth achieved as a fraction of the nominal link (intra- or inter-node).
double collectiveEfficiency(bool crossesNodes, const AcceleratorEfficiency& efficiency);

// Needs est = estimate(plan) (communication volumes, which link each group uses).
MicrobatchCosts microbatchCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options);

}  // namespace trainplan
