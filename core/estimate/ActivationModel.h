// Activation memory per transformer layer (Korthikanti et al. 2022, Table 2).
#pragma once

#include "core/estimate/Estimate.h"

namespace trainplan {

// Bytes per GPU that one layer stores for one micro-batch, for the plan's TP, SP,
// recompute, flash-attention and CP choices.
ActivationEstimate activationPerLayer(const Plan& plan);

// Whether layout.recompute = "selective" is torchtitan's op-level checkpointing (every other
// matmul's output kept) rather than Megatron's attention-core recompute (FrameworkSpec.h).
bool selectiveKeepsEveryOtherMatmul(const Plan& plan);

// torchtitan's op-level selective checkpointing of one layer of the kind, per token: the bytes it
// keeps (16-bit elements), the forward matmul FLOPs it recomputes in the backward and the layer's
// forward matmul FLOPs, all of the whole layer (divide by t for one GPU's share of the FLOPs).
struct EveryOtherMatmul {
    double keptBytesPerToken = 0;
    double recomputedFlopsPerToken = 0;
    double matmulFlopsPerToken = 0;
};
EveryOtherMatmul everyOtherMatmul(const Plan& plan, const LayerKind& kind);

// Bytes one layer materialises while it is being recomputed (full recompute only):
// the same layer with nothing recomputed, which exists once per GPU at a time.
double recomputeWorkingSet(const Plan& plan);

// Bytes per GPU one layer of `kind` stores for one micro-batch beyond activationPerLayer()'s
// figure, which is Korthikanti et al.'s dense layer (a 4h feed-forward, standard attention):
// an MoE layer stores its routed tokens' expert activations (top-k copies of each token, times
// the busiest rank's load) and its shared experts' instead of the dense MLP's; multi-head latent
// attention stores its latents and wider heads instead of Q, K and V. 0 for a dense layer, and
// under full recompute (only the layer's input is kept). `load` is the busiest expert-parallel
// rank's tokens over the mean (model.moe.load_imbalance, or the capacity factor when padded).
double kindActivationBytesDelta(const Plan& plan, const LayerKind& kind, double load);
// The busiest expert-parallel rank's routed tokens over the balanced mean that memory and time
// plan for: the capacity factor when tokens are padded to capacity, else model.moe.load_imbalance,
// else kExpectedLoadImbalance.
double expertLoad(const ModelSpec& model);
// Whether the model has MoE layers whose load imbalance the plan leaves unknown (no
// model.moe.load_imbalance, tokens not padded to a capacity): the analysis then expects
// kExpectedLoadImbalance and the ranges of the step and of memory take kBestLoadImbalance and
// kWorstLoadImbalance (MixtureOfExperts.h).
bool loadImbalanceUnknown(const ModelSpec& model);

// Whether the attention kernel is FlashAttention: framework.flash_attention (or its profile) is
// not "none"; an unknown one is expected to be (kUnknownFlashAttentionExpected).
bool usesFlashAttention(const Plan& plan);

// Bytes per gradient as the framework keeps them: FP32 accumulators when the framework says so
// (framework.fp32_gradients; Megatron docs/distrib_optimizer.md: bf16 params with fp32 grads are
// 18 bytes per parameter, 6 + 12/d distributed), else the precision scheme's.
double gradientBytesPerParameter(const Plan& plan);

// FP32 logits and the final norm's input kept for the loss on the last stage:
// 4 s b h / t (1 + v / h) (Korthikanti et al. 2022, Sec. 4.3, output-layer term).
double logitsBytes(const Plan& plan);

}  // namespace trainplan
