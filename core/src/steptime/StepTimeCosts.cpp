#include "steptime/StepTimeCosts.h"

#include <algorithm>

#include "estimate/CommunicationModel.h"

namespace trainplan {

namespace {

// Element-wise passes per element (16-bit activations, e bytes; Korthikanti et al. 2022,
// Sec. 4.1 lists the same operations when counting activation memory):
//   norm (LayerNorm / RMSNorm):           read x, write y                      2e
//   residual add (fused bias-dropout-add): read x and the residual, write y     3e  (+1 mask byte)
//   activation function: GeLU read, write  2e per FFN element; SwiGLU read gate and up, write 3e
//   RoPE on queries and keys:             read, write                           2e
//   softmax over the scores (fused scale-mask-softmax, no FlashAttention): read, write 2e, and
//   attention dropout: read, write, mask  2e + 1
// Each op's backward reads its saved input and the incoming gradient and writes one gradient:
// three passes against the forward's two, so 1.5x the forward's bytes.
constexpr double kBackwardMemoryFactor = 1.5;
// Cross-entropy over the vocabulary-parallel logits (Megatron's vocab_parallel_cross_entropy):
// the forward converts to FP32 and takes max, exp, sum and the normalised softmax it keeps for
// the backward (about 16 bytes per logit); the backward reads the softmax and writes a 16-bit
// gradient (about 8).
constexpr double kLossForwardBytesPerLogit = 16.0;
constexpr double kLossBackwardBytesPerLogit = 8.0;
// FlashAttention's backward runs five matrix multiplies per tile (it recomputes the scores)
// against the forward's two (Dao 2023, FlashAttention-2, Sec. 3.1.2): 2.5x the forward FLOPs.
constexpr double kFlashBackwardFactor = 2.5;
// Causal masking: FlashAttention skips the tiles above the diagonal, about half the score
// matrix (Dao 2023, Sec. 3.1.1); without it the full matrix is computed and masked.
constexpr double kCausalFraction = 0.5;

struct Gemms {
    double flops = 0;
    double seconds = 0;
};

}  // namespace

double matmulEfficiency(double m, double n, double k, const AcceleratorEfficiency& e)
{
    const double x = std::min({m, n, k});
    return x <= 0 ? 0.0 : e.matmulEfficiency * x / (x + e.matmulHalfDimension);
}

double collectiveEfficiency(bool crossesNodes, const AcceleratorEfficiency& e)
{
    return crossesNodes ? e.interNodeCollectiveEfficiency : e.intraNodeCollectiveEfficiency;
}

MicrobatchCosts microbatchCosts(const Plan& plan, const Estimate& est, const StepTimeOptions& options)
{
    const auto& model = plan.model;
    const auto& l = plan.layout;
    const auto& e = options.efficiency;
    const auto& fw = options.framework;
    const auto& comm = est.communication;
    const double peak = plan.cluster.peakFlopsPerGpu;
    const double t = l.tp;
    const double b = plan.training.microBatchSize;
    const double sq = double(model.sequenceLength) / l.cp;  // this rank's queries
    const double sk = model.sequenceLength;                 // keys each query attends to
    const double tokens = b * sq;
    const double h = model.hiddenSize;
    const double d = model.headDim;
    const double heads = double(model.attentionHeads) / t;
    const double kvHeads = std::max(1.0, double(model.kvHeads) / t);  // replicated when kv < t
    const double ffn = double(model.ffnHiddenSize) / t;
    const bool swiglu = model.ffnKind == FfnKind::SwiGlu;
    const double bytes = activationBytesPerElement(plan.training.precision);
    const double hbm = e.hbmBytesPerSecond * e.hbmEfficiency;

    MicrobatchCosts out;
    LayerTimes& L = out.layer;

    // Projections of one layer on one TP rank (Shoeybi et al. 2019, Sec. 3: QKV and FFN-in
    // column-parallel, attention output and FFN-out row-parallel), forward: 2 m n k FLOPs each.
    Gemms gemms;
    const auto gemm = [&](double m, double n, double k) {
        const double flops = 2.0 * m * n * k;
        gemms.flops += flops;
        gemms.seconds += flops / (peak * matmulEfficiency(m, n, k, e));
    };
    gemm(tokens, (heads + 2.0 * kvHeads) * d, h);   // Q, K, V
    gemm(tokens, h, heads * d);                      // attention output
    gemm(tokens, (swiglu ? 2.0 : 1.0) * ffn, h);     // FFN in (gate and up fused for SwiGLU)
    gemm(tokens, h, ffn);                            // FFN out
    L.forwardMatmul = gemms.seconds;
    // Backward: input-gradient and weight-gradient GEMMs of the same three dimensions, so the
    // same efficiency and twice the FLOPs (Narayanan et al. 2021, Sec. 5.1 FLOP count).
    L.backwardMatmul = 2.0 * gemms.seconds;
    L.weightGradMatmul = gemms.seconds;
    out.matmulEfficiency = gemms.seconds > 0 ? gemms.flops / (gemms.seconds * peak) : 0.0;

    // Attention core: 4 b s_q s_k (a/t) d FLOPs forward (QK^T and AV; the estimate's 12 L h s
    // per token, PaLM App. B). FlashAttention: causal half at the kernel's efficiency; without
    // it, two batched GEMMs whose smallest dimension is the head dimension.
    const double attentionFlops = 4.0 * b * sq * sk * heads * d;
    if (l.flashAttention) {
        L.forwardAttention = kCausalFraction * attentionFlops / (peak * e.flashAttentionEfficiency);
        L.backwardAttention = kFlashBackwardFactor * L.forwardAttention;
    } else {
        L.forwardAttention = attentionFlops / (peak * matmulEfficiency(sq, sk, d, e));
        L.backwardAttention = 2.0 * L.forwardAttention;
    }

    // Memory-bound work (see the table above). Sequence parallelism runs norms and residual
    // adds on 1/t of the sequence (Korthikanti et al. 2022, Sec. 4.2.2).
    const double hiddenElements = tokens * h / (l.sequenceParallel ? t : 1.0);
    const double hiddenBytes = hiddenElements * (2.0 * 2.0 * bytes + 2.0 * 3.0 * bytes + (fw.dropout ? 2.0 : 0.0));
    const double activationBytes = tokens * ffn * (swiglu ? 3.0 : 2.0) * bytes;
    const double ropeBytes = model.positionEmbedding == PositionEmbedding::Rope ? 2.0 * bytes * tokens * (heads + kvHeads) * d : 0.0;
    const double scoreBytes = l.flashAttention ? 0.0 : b * heads * sq * sk * (2.0 * bytes + (fw.dropout ? 2.0 * bytes + 1.0 : 0.0));
    L.forwardMemory = (hiddenBytes + activationBytes + ropeBytes + scoreBytes) / hbm;
    L.backwardMemory = kBackwardMemoryFactor * L.forwardMemory;

    // TP: two collectives forward and two backward (CommunicationModel.cpp), each at the
    // estimate's ring time over the achieved bus bandwidth; exposed unless the framework
    // overlaps them with GEMMs.
    const double tpCollective = comm.tpSecondsPerCollective / collectiveEfficiency(comm.tpCrossesNodes, e);
    const double tpExposed = 1.0 - std::clamp(fw.tpOverlapFraction, 0.0, 1.0);
    L.forwardTp = 2.0 * tpCollective * tpExposed;
    L.backwardTp = 2.0 * tpCollective * tpExposed;

    // CP ring attention: the K/V blocks of a layer (one third forward, two thirds backward:
    // CommunicationModel.cpp) travel while the attention core computes on the block in hand
    // (Liu et al. 2023, Ring Attention, Sec. 3; Megatron-Core context parallelism), so only
    // what the attention core cannot cover is exposed.
    if (l.cp > 1) {
        const double link = comm.cpCrossesNodes ? plan.cluster.interNodeBytesPerSecond : plan.cluster.intraNodeBytesPerSecond;
        const double cpSeconds = comm.cpBytesPerLayer / (link * collectiveEfficiency(comm.cpCrossesNodes, e));
        L.forwardCp = std::max(0.0, cpSeconds / 3.0 - L.forwardAttention);
        L.backwardCp = std::max(0.0, cpSeconds * 2.0 / 3.0 - L.backwardAttention);
    }

    // ZeRO over the DP x CP group (Rajbhandari et al. 2020, Sec. 5 and 7): stage 3 gathers each
    // layer's weights before its forward and again before its backward, and stages 2 and 3
    // reduce-scatter each micro-batch's gradients (the sharded gradients cannot accumulate
    // unreduced). Gathers are prefetched a layer ahead, so only what the layer's own compute
    // cannot cover is exposed.
    if (l.zeroStage >= 2) {
        const auto state = stateBytesPerParameter(plan.training.precision);
        const int ranks = l.dp * l.cp;
        const double link = comm.dpCrossesNodes ? plan.cluster.interNodeBytesPerSecond : plan.cluster.intraNodeBytesPerSecond;
        const double bandwidth = link * collectiveEfficiency(comm.dpCrossesNodes, e);
        const double layerParameters = est.parameters.perLayer / t;
        const double gather = l.zeroStage >= 3 ? ringGatherSeconds(layerParameters * state.weights, ranks, bandwidth) : 0.0;
        const double reduce = ringGatherSeconds(layerParameters * state.gradients, ranks, bandwidth);
        const double forwardWork = L.forwardMatmul + L.forwardAttention + L.forwardMemory;
        const double backwardWork = L.backwardMatmul + L.backwardAttention + L.backwardMemory;
        L.forwardZero = fw.overlapParamGather ? std::max(0.0, gather - forwardWork) : gather;
        // Backward: the overlapped collectives share the layer's backward as cover.
        const double hidden = (fw.overlapParamGather ? gather : 0.0) + (fw.overlapGradientReduce ? reduce : 0.0);
        L.backwardZero = std::max(0.0, hidden - backwardWork) + (gather + reduce - hidden);
    }

    // Recompute (Korthikanti et al. 2022, Sec. 5): selective repeats the attention core's
    // forward (and its softmax traffic); full repeats the whole layer forward, collectives too.
    switch (l.recompute) {
    case Recompute::None: break;
    case Recompute::Selective: L.recompute = L.forwardAttention + scoreBytes / hbm; break;
    case Recompute::Full: L.recompute = L.forward() - L.forwardZero; break;  // ZeRO-3 gathers once for recompute and backward
    }

    // First stage: the embedding lookup reads and writes b s h values; with TP the
    // vocabulary-parallel embedding reduces its output once (Megatron VocabParallelEmbedding).
    out.embedding.forwardMemory = 2.0 * tokens * h * bytes / hbm;
    out.embedding.backwardMemory = kBackwardMemoryFactor * out.embedding.forwardMemory;
    out.embedding.forwardTp = tpCollective * tpExposed;

    // Last stage: the output projection (V/t columns per rank), the loss on the logits, and with
    // sequence parallelism an all-gather of the final hidden states before it (reduce-scatter
    // after it in the backward); without SP only the backward reduces the input gradient.
    const double vocab = double(model.vocabSize) / t;
    const double headFlops = 2.0 * tokens * vocab * h;
    out.lmHead.forwardMatmul = headFlops / (peak * matmulEfficiency(tokens, vocab, h, e));
    out.lmHead.backwardMatmul = 2.0 * out.lmHead.forwardMatmul;
    out.lmHead.weightGradMatmul = out.lmHead.forwardMatmul;
    out.lmHead.forwardMemory = tokens * vocab * kLossForwardBytesPerLogit / hbm;
    out.lmHead.backwardMemory = tokens * vocab * kLossBackwardBytesPerLogit / hbm;
    out.lmHead.forwardTp = l.sequenceParallel ? tpCollective * tpExposed : 0.0;
    out.lmHead.backwardTp = tpCollective * tpExposed;
    return out;
}

}  // namespace trainplan
