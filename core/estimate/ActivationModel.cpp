#include "core/estimate/ActivationModel.h"

#include <algorithm>
#include <vector>

namespace trainplan {

namespace {

// Dropout masks (one byte per element after attention and after the MLP) are part of Korthikanti
// et al.'s 34; a framework that runs without dropout stores neither: 2 of the 34 bytes. Unknown
// dropout keeps them (memory errs towards not fitting).
double dropoutMaskBytes(const Plan& plan)
{
    return frameworkSwitch(plan.framework, &FrameworkSpec::dropout).value_or(true) ? 0.0 : 2.0;
}

double localSequence(const Plan& plan)
{
    return double(plan.model.sequenceLength) / plan.layout.cp;
}

// Korthikanti et al. 2022, Table 2, as bytes for 16-bit activations:
//   no recompute, TP only:   s b h (10 + 24/t + 5 a s / (h t))
//   TP + sequence parallel:  s b h (34/t + 5 a s / (h t))
//   selective recompute, or flash attention, drops the 5 a s / (h t) score term
//   (FlashAttention never stores the s x s scores; Dao et al. 2022, Sec. 3.1).
// With t = 1 both rows reduce to the paper's no-parallelism s b h (34 + 5 a s / h).
// Scaled by bytes-per-element / 2 for FP32 activations. Context parallelism splits s.
ActivationEstimate storedActivations(const Plan& plan, bool ignoreRecompute)
{
    const auto& m = plan.model;
    const auto& l = plan.layout;
    const double t = l.tp;
    const double s = localSequence(plan);
    const double b = plan.training.microBatchSize;
    const double h = m.hiddenSize;
    const double a = m.attentionHeads;
    const double scale = activationBytesPerElement(plan.training.precision) / 2.0;

    ActivationEstimate e;
    e.sbh = s * b * h;
    // Without dropout the two mask bytes go: from the t-sharded part with SP, from the unsharded
    // 10 (the masks sit on the residual path, Korthikanti Sec. 4.2.2) without it.
    const double masks = dropoutMaskBytes(plan);
    e.linearCoefficient = l.sequenceParallel ? (34.0 - masks) / t : 10.0 - masks + 24.0 / t;
    const bool storesScores = !usesFlashAttention(plan) && (ignoreRecompute || l.recompute == Recompute::None);
    // Scores are a_local x s_local x s (each CP rank's queries against the whole sequence).
    e.attentionScoreTerm = storesScores ? 5.0 * a * s * l.cp / (h * t) : 0.0;
    e.perLayerPerMicrobatch = e.sbh * (e.linearCoefficient + e.attentionScoreTerm) * scale;
    return e;
}

}  // namespace

// torchtitan's op-level selective checkpointing (parallelize_llama.py, _apply_ac_to_transformer_block
// with selective_ac_option "op"): the policy keeps the outputs of the ops in its _save_list (mm,
// the SDPA kernels, reduce_scatter) except every second mm of a block, counted in forward order,
// and recomputes everything else; the block's input is the checkpoint's own. The block's matmuls
// in forward order are wq, wk, wv, wo, then w1, w3, w2 (SwiGLU: w2(silu(w1 x) * w3 x)) or w1, w2:
// the 1st, 3rd, 5th and 7th are kept. Column-parallel outputs are split over t; a row-parallel
// matmul's output under TP is the full-size partial sum before its reduce-scatter (torchtitan's
// TP plan: RowwiseParallel, output Shard(1)), and the reduce-scatter's output is kept as well.
EveryOtherMatmul everyOtherMatmul(const Plan& plan, const LayerKind& kind)
{
    const auto& m = plan.model;
    const double t = plan.layout.tp;
    const bool tp = plan.layout.tp > 1;
    const double h = m.hiddenSize;
    const double q = double(m.attentionHeads) * m.headDim;  // a·d
    const double kv = double(m.kvHeads) * m.headDim;        // k·d
    const double f = kind.ffnHiddenSize;
    struct Matmul {
        double flops;        // forward FLOPs per token, the whole layer
        double outElements;  // output elements per token on one GPU
    };
    const double rowOut = h;  // a row-parallel output (or, under TP, its partial sum) is full size
    std::vector<Matmul> order{{2 * h * q, q / t}, {2 * h * kv, kv / t}, {2 * h * kv, kv / t}, {2 * q * h, rowOut}};
    if (kind.ffnKind == FfnKind::SwiGlu)
        order.insert(order.end(), {{2 * h * f, f / t}, {2 * h * f, f / t}, {2 * f * h, rowOut}});
    else
        order.insert(order.end(), {{2 * h * f, f / t}, {2 * f * h, rowOut}});
    EveryOtherMatmul r;
    double keptElements = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        r.matmulFlopsPerToken += order[i].flops;
        if (i % 2 == 0)
            keptElements += order[i].outElements;
        else
            r.recomputedFlopsPerToken += order[i].flops;
    }
    // The block input (sequence-sharded under SP) and the attention kernel's output; with TP and
    // SP the two reduce-scatters' outputs (after wo and after w2).
    const bool sp = tp && plan.layout.sequenceParallel;
    keptElements += (sp ? h / t : h) + q / t + (sp ? 2 * h / t : 0.0);
    // FlashAttention's log-sum-exp, FP32 per head and token (Dao et al. 2022, Alg. 2 output L).
    r.keptBytesPerToken = 2.0 * keptElements + 4.0 * m.attentionHeads / t;
    return r;
}

bool selectiveKeepsEveryOtherMatmul(const Plan& plan)
{
    return plan.layout.recompute == Recompute::Selective
        && frameworkSwitch(plan.framework, &FrameworkSpec::selectiveRecompute).value_or(SelectiveRecompute::CoreAttention)
        == SelectiveRecompute::EveryOtherMatmul;
}

ActivationEstimate activationPerLayer(const Plan& plan)
{
    if (selectiveKeepsEveryOtherMatmul(plan)) {
        // The layer-weighted mean over the model's kinds (they differ in their FFN width).
        ActivationEstimate e = storedActivations(plan, false);
        double kept = 0;
        for (int k = 0; k < plan.model.kindCount(); ++k)
            kept += everyOtherMatmul(plan, plan.model.kind(k)).keptBytesPerToken * plan.model.layersOfKind(k);
        kept /= plan.model.layers;
        e.linearCoefficient = kept / plan.model.hiddenSize;  // bytes per s·b·h, as Table 2's 34
        e.attentionScoreTerm = 0.0;
        e.perLayerPerMicrobatch = e.sbh * e.linearCoefficient * activationBytesPerElement(plan.training.precision) / 2.0;
        return e;
    }
    if (plan.layout.recompute != Recompute::Full)
        return storedActivations(plan, false);
    // Full recompute keeps only each layer's input: 2 s b h bytes (Korthikanti Table 2,
    // last row), divided by t when sequence parallelism shards it.
    ActivationEstimate e = storedActivations(plan, false);
    e.linearCoefficient = plan.layout.sequenceParallel ? 2.0 / plan.layout.tp : 2.0;
    e.attentionScoreTerm = 0.0;
    e.perLayerPerMicrobatch = e.sbh * e.linearCoefficient * activationBytesPerElement(plan.training.precision) / 2.0;
    return e;
}

double expertLoad(const ModelSpec& model)
{
    if (!model.moe)
        return 1.0;
    if (model.moe->capacityFactor)
        return *model.moe->capacityFactor;
    return model.moe->loadImbalance.value_or(kExpectedLoadImbalance);
}

bool loadImbalanceUnknown(const ModelSpec& model)
{
    return model.moe && !model.moe->loadImbalance && !model.moe->capacityFactor && model.hasMoeLayers();
}

double kindActivationBytesDelta(const Plan& plan, const LayerKind& kind, double load)
{
    const auto& m = plan.model;
    const auto& l = plan.layout;
    if (l.recompute == Recompute::Full || !(m.mla || (kind.moe && m.moe)))
        return 0.0;
    const double t = l.tp;
    const bool sp = l.sequenceParallel || l.tp == 1;
    const double h = m.hiddenSize;
    const double tokens = localSequence(plan) * plan.training.microBatchSize;
    const double scale = activationBytesPerElement(plan.training.precision) / 2.0;
    const double mask = dropoutMaskBytes(plan) > 0 ? 0.0 : 1.0;  // one mask byte per element, when dropout runs
    double delta = 0.0;  // bytes per token, 16-bit activations
    if (kind.moe && m.moe) {
        // Korthikanti et al. 2022, Sec. 4.1: the dense MLP stores its input (2 bytes per element),
        // the 4h first-linear output and the GeLU output (8 + 8) and a dropout mask (1): 19 h,
        // the input and mask unsharded without sequence parallelism.
        const double denseMlp = sp ? (19.0 - (1.0 - mask)) * h / t : (3.0 - (1.0 - mask)) * h + 16.0 * h / t;
        // The MoE block (Megatron-Core MoELayer, TE grouped linear): its input (as the dense MLP's),
        // the router's FP32 scores over E experts, each routed copy's permuted input (2h), first
        // linear output (gate and up: 2 x 2 f_e / ETP for SwiGLU) and activation output
        // (2 f_e / ETP), on top-k copies of each token times the busiest rank's load; the shared
        // experts as a dense MLP of their width (TP-split).
        const MoeSpec& e = *m.moe;
        const double gated = kind.ffnKind == FfnKind::SwiGlu;
        const double fe = double(e.expertFfnHiddenSize) / l.etp;
        const double perCopy = 2.0 * h + (gated ? 6.0 : 4.0) * fe;
        const double routed = e.topK * load * perCopy / t;  // the rank's own tokens are 1/t of the layer's (SP)
        const double fs = double(e.sharedExperts) * e.sharedWidth() / t;
        const double shared = e.sharedExperts > 0 ? (gated ? 6.0 : 4.0) * fs : 0.0;
        const double router = 4.0 * e.experts / t;
        const double input = sp ? 2.0 * h / t : 2.0 * h;
        delta += input + routed + shared + router + mask * h / (sp ? t : 1.0) - denseMlp;
    }
    if (m.mla) {
        // Standard attention stores 11 h per token (Korthikanti Sec. 4.1: input 2, Q and K 4, V 2,
        // the output projection's input 2, mask 1). MLA (DeepSeek-V2, Eq. 9-14) stores its input,
        // the query and key-value latents (not TP-split: the down-projections are replicated in
        // Megatron-Core's MLA), Q and K over a (d_nope + d_rope), V and the output projection's
        // input over a d_v, and the mask; without selective recompute or FlashAttention the score
        // term is activationPerLayer()'s.
        const MlaSpec& a = *m.mla;
        const double heads = m.attentionHeads;
        const double qk = double(a.qkNopeHeadDim) + a.qkRopeHeadDim;
        const double standard = sp ? 11.0 * h / t : 3.0 * h + 8.0 * h / t;
        const double latents = 2.0 * (double(a.qLoraRank) + a.kvLoraRank + a.qkRopeHeadDim);
        const double mla = (sp ? 2.0 * h / t : 2.0 * h) + latents + 2.0 * heads * (2.0 * qk + 2.0 * a.vHeadDim) / t
            + mask * h / (sp ? t : 1.0);
        delta += mla - (standard - (1.0 - mask) * h / (sp ? t : 1.0));
    }
    return delta * tokens * scale;
}

double recomputeWorkingSet(const Plan& plan)
{
    if (plan.layout.recompute != Recompute::Full)
        return 0.0;
    return storedActivations(plan, true).perLayerPerMicrobatch;
}

bool usesFlashAttention(const Plan& plan)
{
    return frameworkSwitch(plan.framework, &FrameworkSpec::flashAttention).value_or(kUnknownFlashAttentionExpected)
        != FlashAttentionVersion::None;
}

double gradientBytesPerParameter(const Plan& plan)
{
    const double own = stateBytesPerParameter(plan.training.precision).gradients;
    return frameworkSwitch(plan.framework, &FrameworkSpec::fp32Gradients).value_or(false) ? std::max(own, 4.0) : own;
}

double logitsBytes(const Plan& plan)
{
    const double s = localSequence(plan);
    const double b = plan.training.microBatchSize;
    const double h = plan.model.hiddenSize;
    const double v = plan.model.vocabSize;
    return 4.0 * s * b * h / plan.layout.tp * (1.0 + v / h);
}

}  // namespace trainplan
