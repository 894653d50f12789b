#include "core/estimate/MoeArithmetic.h"

namespace trainplan {

double attentionParameters(const TransformerShape& s)
{
    const double h = s.hiddenSize;
    const double a = s.attentionHeads;
    if (!s.mla) {
        // Q and O are h x (a d), K and V h x (kv d) (as ParameterModel's layerParameters).
        const double qDim = a * s.headDim;
        const double kvDim = double(s.kvHeads) * s.headDim;
        return 2 * h * qDim + 2 * h * kvDim;
    }
    const MlaSpec& m = *s.mla;
    const double qkHead = double(m.qkNopeHeadDim) + m.qkRopeHeadDim;
    // Queries: W^DQ (h x d_c'), its RMSNorm, W^UQ and W^QR together (d_c' x a (d_nope + d_rope));
    // without a q latent, one h x a (d_nope + d_rope) projection (DeepSeek-V2, Eq. 12-13).
    const double q = m.qLoraRank > 0 ? h * m.qLoraRank + m.qLoraRank + double(m.qLoraRank) * a * qkHead : h * a * qkHead;
    // Keys and values: W^DKV and W^KR together (h x (d_c + d_rope)), the latent's RMSNorm, W^UK and
    // W^UV together (d_c x a (d_nope + d_v)) (DeepSeek-V2, Eq. 9-11).
    const double kv = h * (double(m.kvLoraRank) + m.qkRopeHeadDim) + m.kvLoraRank + double(m.kvLoraRank) * a * (double(m.qkNopeHeadDim) + m.vHeadDim);
    // Output: a d_v x h.
    const double o = a * m.vHeadDim * h;
    return q + kv + o;
}

MoeFfnParameters moeFfnParameters(const TransformerShape& s)
{
    MoeFfnParameters p;
    if (!s.moe)
        return p;
    const MoeSpec& e = *s.moe;
    const double h = s.hiddenSize;
    const double matrices = ffnMatrixCount(s.ffnKind);
    p.routedExpert = matrices * h * e.expertFfnHiddenSize;
    p.shared = double(e.sharedExperts) * matrices * h * e.sharedWidth();
    // The gate scores every expert from the hidden state: E x h, plus DeepSeek-V3's per-expert
    // bias used for load balancing without an auxiliary loss (technical report, Sec. 2.1.2).
    p.router = double(e.experts) * h + (e.routerBias ? e.experts : 0);
    p.total = double(e.experts) * p.routedExpert + p.shared + p.router;
    p.active = double(e.topK) * p.routedExpert + p.shared + p.router;
    return p;
}

ModelParameterTotals modelParameters(const TransformerShape& s)
{
    ModelParameterTotals t;
    const double h = s.hiddenSize;
    const double norms = 2 * h;  // RMSNorm before attention and before the FFN
    t.attentionPerLayer = attentionParameters(s);
    t.denseFfnPerLayer = ffnMatrixCount(s.ffnKind) * h * s.ffnHiddenSize;
    t.moeFfn = moeFfnParameters(s);
    t.embedding = double(s.vocabSize) * h;
    t.lmHead = s.tiedEmbeddings ? 0.0 : double(s.vocabSize) * h;
    const double layerCommon = t.attentionPerLayer + norms;
    const double dense = s.denseLayers() * (layerCommon + t.denseFfnPerLayer);
    const double moeTotal = s.moeLayers() * (layerCommon + t.moeFfn.total);
    const double moeActive = s.moeLayers() * (layerCommon + t.moeFfn.active);
    const double ends = t.embedding + t.lmHead + h;  // and the final norm
    // One MTP depth (DeepSeek-V3, Sec. 2.2): RMSNorms of the hidden state and of the next token's
    // embedding, their projection M (h x 2h), a transformer block shaped like the model's last
    // layer, and its own final norm; the embedding and the output head are shared.
    const bool lastIsMoe = s.moeLayers() > 0;
    const double blockTotal = layerCommon + (lastIsMoe ? t.moeFfn.total : t.denseFfnPerLayer);
    const double blockActive = layerCommon + (lastIsMoe ? t.moeFfn.active : t.denseFfnPerLayer);
    const double mtpFrame = 2 * h + 2 * h * h + h;
    t.mtpModule = mtpFrame + blockTotal;
    t.total = dense + moeTotal + ends + s.mtpLayers * t.mtpModule;
    t.active = dense + moeActive + ends + s.mtpLayers * (mtpFrame + blockActive);
    return t;
}

double megatronAttentionCoreFlopsPerToken(const TransformerShape& s, double causalFraction)
{
    const double a = s.attentionHeads;
    const double seq = s.sequenceLength;
    const double layers = double(s.layers) + s.mtpLayers;
    // Q K^T over the query-key head size and the weighted values over the value head size, each
    // over the causal fraction of the sequence; 6 FLOPs a multiply-add with the backward.
    const double qk = s.mla ? double(s.mla->qkNopeHeadDim) + s.mla->qkRopeHeadDim : double(s.headDim);
    const double v = s.mla ? double(s.mla->vHeadDim) : double(s.headDim);
    return 6.0 * layers * seq * a * (qk + v) * causalFraction;
}

MegatronFlopsTerms megatronFlopsTerms(const TransformerShape& s, double causalFraction)
{
    const double h = s.hiddenSize;
    const double a = s.attentionHeads;
    // MTP blocks count as layers of the last layer's kind.
    const bool lastIsMoe = s.moeLayers() > 0;
    const double layers = double(s.layers) + s.mtpLayers;
    const double moeLayers = double(s.moeLayers()) + (lastIsMoe ? s.mtpLayers : 0);
    const double denseLayers = double(s.denseLayers()) + (lastIsMoe ? 0 : s.mtpLayers);
    // Forward and backward (wgrad, dgrad) make 3 GEMMs of each, 2 FLOPs a multiply-add: 6 per
    // weight a GEMM reads once per token (MegatronFlopsTerms::kPerWeight).
    const double matrices = ffnMatrixCount(s.ffnKind);
    double ffn = denseLayers * matrices * h * s.ffnHiddenSize;
    if (s.moe) {
        const MoeSpec& e = *s.moe;
        // Megatron counts the routed experts a token visits and the shared ones, not the router.
        ffn += moeLayers * matrices * h * (double(e.expertFfnHiddenSize) * e.topK + double(e.sharedExperts) * e.sharedWidth());
    }
    double attention = 0;
    if (s.mla) {
        const MlaSpec& m = *s.mla;
        const double qkHead = double(m.qkNopeHeadDim) + m.qkRopeHeadDim;
        // Megatron's MLA count: the projections with one column for each latent's norm, the
        // rotary key's projection, the output, and scores and values over the causal fraction.
        const double q = m.qLoraRank > 0 ? m.qLoraRank * (h + a * qkHead + 1) : h * a * qkHead;
        const double kv = m.kvLoraRank * (h + a * (double(m.qkNopeHeadDim) + m.vHeadDim) + 1) + h * m.qkRopeHeadDim;
        const double o = a * m.vHeadDim * h;
        attention = layers * (q + kv + o);
    } else {
        // Q, K, V, O.
        const double qDim = a * s.headDim;
        const double kvDim = double(s.kvHeads) * s.headDim;
        attention = layers * (2 * h * qDim + 2 * h * kvDim);
    }
    // Each MTP depth's two input norms, its final norm and its 2h -> h projection.
    const double mtp = double(s.mtpLayers) * (3 * h + 2 * h * h);
    // The logits, once for the model and once per MTP depth.
    const double logits = h * double(s.vocabSize) * (s.mtpLayers + 1);
    return {ffn, attention, mtp, logits, megatronAttentionCoreFlopsPerToken(s, causalFraction)};
}

double megatronFlopsPerToken(const TransformerShape& s, double causalFraction)
{
    return megatronFlopsTerms(s, causalFraction).perToken();
}

}  // namespace trainplan
