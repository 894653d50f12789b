// Seconds of the work one GPU does for one micro-batch: a transformer layer, the embedding on
// the first stage, the LM head and loss on the last. The step-time model (StepTimeModel.cpp)
// multiplies these by layers and micro-batches and lays them out on the pipeline.
#pragma once

#include <vector>

#include "core/estimate/CommunicationModel.h"
#include "core/steptime/StepTimeModel.h"

namespace trainplan {

// The work outside the transformer layers, one micro-batch on one GPU, seconds.
struct EndCosts {
    double forwardMatmul = 0, backwardMatmul = 0, weightGradMatmul = 0;
    double forwardMemory = 0, backwardMemory = 0;
    double forwardTp = 0, backwardTp = 0;
    double forwardFixed = 0, backwardFixed = 0;

    double forward() const { return forwardMatmul + forwardMemory + forwardTp + forwardFixed; }
    double backward() const { return backwardMatmul + backwardMemory + backwardTp + backwardFixed; }
};

struct MicrobatchCosts {
    std::vector<LayerTimes> layers;  // one layer of each kind (ModelSpec::kind(k)), in the model's order
    EndCosts embedding;  // first stage: lookup and its TP reduction
    EndCosts lmHead;     // last stage: output projection, cross-entropy, SP gather
    // Last stage, after the LM head: every MTP depth's norms, projection and its own logits and
    // loss (model.mtp_layers); each depth's block is priced as a layer of the model's last kind
    // (mtpKind: the MoE kind of an MoE model), which the step-time model adds beside this.
    EndCosts mtp;
    int mtpKind = 0;
    double matmulEfficiency = 0;  // FLOP-weighted over the projections of every layer
    // Each kind's layer before the ZeRO stage and recompute are applied, and the LM head's GEMMs:
    // what a call told sameBeforeSharding reuses.
    std::vector<LayerTimes> beforeSharding;
    double headForward = 0, headInputGrad = 0, headWeightGrad = 0;
    double mtpProjectionForward = 0, mtpProjectionInputGrad = 0, mtpProjectionWeightGrad = 0;
};

// How the plan's communicators sit on nodes (rank map strides), and the links they use.
struct CommunicationGroups {
    GroupPlacement tp, cp, dp, pp;  // dp: the DP x CP group the gradients reduce over
    GroupPlacement ep, etp;         // the expert grid's all-to-all and expert-TP groups (ExpertGrid.h)
    GroupPlacement edp;             // the expert-data-parallel group the routed experts' gradients reduce over
    Fabric fabric;
};
CommunicationGroups communicationGroups(const Plan& plan, const Estimate& est, const AcceleratorEfficiency& efficiency);

// Achieved fraction of peak for C(m x n) = A(m x k) B(k x n), `batch` independent GEMMs at once:
//   matmulEfficiency x tile fill x wave fill x k / (k + gemmKHalf), best over three tile sizes.
// Tile fill: m n over the area of the whole tiles covering it; wave fill: tiles over whole waves
// of smCount (NVIDIA, "Matrix Multiplication Background User's Guide": tile and wave quantization).
double matmulEfficiency(double m, double n, double k, const AcceleratorEfficiency& efficiency, double batch = 1.0);

// Bytes each gradient takes in the data-parallel reduction: 4 when the framework accumulates and
// reduces FP32 gradients (Megatron's accumulate_allreduce_grads_in_fp32 for bf16, arguments.py;
// torchtitan's reduce_dtype float32; DeepSpeed's BF16 optimizer), else the precision's own.
double reducedGradientBytes(const Plan& plan, const FrameworkOptions& framework);

// HBM bytes per parameter per micro-batch that accumulating the parameter's gradient moves
// outside the GEMMs (FrameworkSpec.h, GradientAccumulation), with e the gradient's own bytes and
// r the reduced gradient's (reducedGradientBytes):
//   Fused     0 for a GEMM's weight (the wgrad GEMM adds into main_grad: Megatron
//             gradient_accumulation_fusion); other parameters (the embedding) take the
//             main_grad hook's add, e + 2r (megatron/core/distributed, param hook);
//   Autograd  AccumulateGrad's in-place add, 3e, on every micro-batch but the first, which hands
//             its gradient over; with ZeRO-3 (FSDP2) instead the gathered weights copied out of
//             the all-gather buffer for forward and backward, 2 x 2w, and the gradients copied and
//             cast into the reduce-scatter buffer, e + r (_fsdp_collectives.py);
//   Fp32Copy  zeroing the 16-bit gradients (e), AccumulateGrad (3e), the FP32 cast (e + 4) and the
//             add into the FP32 copy (12): 5e + 16 (DeepSpeed bf16_optimizer.py update_hp_grads).
// forward is the part that runs before the forward pass (FSDP2's copy-out), backward the rest.
struct GradientAccumulationBytes {
    double forward = 0, backward = 0;
};
GradientAccumulationBytes gradientAccumulationBytes(const Plan& plan, const FrameworkOptions& framework, double microbatches,
                                                    bool gemmWeight);

// Share of the SMs a collective's kernels occupy while it overlaps compute: NCCL runs one thread
// block per channel (src/device, MAXCHANNELS; NCCL_MAX_CTAS), about 16 for large messages on
// NVLink and InfiniBand (estimate), so overlapped compute runs that much slower while it lasts.
double collectiveSmShare(const AcceleratorEfficiency& efficiency);

// Needs est = estimate(plan) (stages, parameters) and its communicationGroups(). The Into form
// reuses out's storage (the layout search predicts once per layout); with sameBeforeSharding the
// caller promises that out was last filled for the same plan, options and groups but for the ZeRO
// stage and recompute, and the layer times those two leave alone are taken from it.
MicrobatchCosts microbatchCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options, const CommunicationGroups& groups);
void microbatchCostsInto(const Plan& plan, const Estimate& est, const StepTimeOptions& options, const CommunicationGroups& groups,
                         MicrobatchCosts& out, bool sameBeforeSharding = false);

}  // namespace trainplan
