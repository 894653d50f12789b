#include "core/estimate/ParameterModel.h"

#include <algorithm>

namespace trainplan {

// Attention with grouped-query heads: Q and O are h x (a d), K and V are h x (kv d)
// (worked example B, "Count the parameters": 2D^2 + 2DKH when a d = D).
// Feed-forward: gated (SwiGLU) has three h x f matrices, GeLU two (worked example B: 3DF).
// Norms: RMSNorm has a scale of h, LayerNorm a scale and a bias.
TransformerShape transformerShapeOf(const ModelSpec& m)
{
    TransformerShape s;
    s.layers = m.layers;
    s.hiddenSize = m.hiddenSize;
    s.ffnHiddenSize = m.ffnHiddenSize;
    s.ffnKind = m.ffnKind;
    s.attentionHeads = m.attentionHeads;
    s.kvHeads = m.kvHeads;
    s.headDim = m.headDim;
    s.mla = m.mla;
    s.moe = m.moe;
    s.mtpLayers = m.mtpLayers;
    s.vocabSize = m.vocabSize;
    s.tiedEmbeddings = m.tiedEmbeddings;
    s.sequenceLength = m.sequenceLength;
    return s;
}

// Biases, LayerNorm and learned positions are the dense count's; MLA and the experts follow
// MoeArithmetic.h (the MoE models of the roadmap have neither biases nor LayerNorm).
LayerParameters layerParameters(const ModelSpec& m, const LayerKind& kind)
{
    const double h = m.hiddenSize;
    const double f = kind.ffnHiddenSize;
    const double qDim = double(m.attentionHeads) * m.headDim;
    const double kvDim = double(m.kvHeads) * m.headDim;
    const double normSize = m.norm == NormKind::LayerNorm ? 2 * h : h;

    LayerParameters c;
    const bool beyondDense = m.mla || (kind.moe && m.moe);
    const TransformerShape shape = beyondDense ? transformerShapeOf(m) : TransformerShape{};
    if (m.mla) {
        c.attention = attentionParameters(shape);
    } else {
        c.attention = h * qDim + 2 * h * kvDim + qDim * h;
        if (m.bias)
            c.attention += qDim + 2 * kvDim + h;
    }
    c.norms = 2 * normSize;
    if (kind.moe && m.moe) {
        const MoeFfnParameters e = moeFfnParameters(shape);
        c.ffn = e.total;
        c.routedExperts = e.total - e.shared - e.router;
        c.total = c.attention + c.ffn + c.norms;
        c.active = c.attention + e.active + c.norms;
        return c;
    }
    const bool gated = kind.ffnKind == FfnKind::SwiGlu;
    c.ffn = ffnMatrixCount(kind.ffnKind) * h * f;
    if (m.bias)
        c.ffn += (gated ? 2 * f : f) + h;
    c.total = c.attention + c.ffn + c.norms;
    c.active = c.total;
    return c;
}

void countParametersInto(const ModelSpec& m, ParameterCounts& c)
{
    const double h = m.hiddenSize;
    const double normSize = m.norm == NormKind::LayerNorm ? 2 * h : h;
    const int kinds = m.kindCount();
    c.kinds.resize(size_t(kinds));
    c.layers = 0;
    double activeLayers = 0;
    for (int k = 0; k < kinds; ++k) {
        c.kinds[size_t(k)] = layerParameters(m, m.kind(k));
        c.layers += m.layersOfKind(k) * c.kinds[size_t(k)].total;
        activeLayers += m.layersOfKind(k) * c.kinds[size_t(k)].active;
    }
    c.wordEmbedding = double(m.vocabSize) * h;
    c.embedding = c.wordEmbedding;
    if (m.positionEmbedding == PositionEmbedding::Learned)
        c.embedding += double(m.sequenceLength) * h;
    c.lmHead = m.tiedEmbeddings ? 0.0 : double(m.vocabSize) * h;
    c.finalNorm = normSize;
    // Each MTP depth (DeepSeek-V3 technical report, Sec. 2.2): the norms of the hidden state and
    // of the next token's embedding, their h x 2h projection, a block like the last layer and its
    // own final norm; it shares the embedding and the output layer.
    c.mtp = c.mtpRoutedExperts = c.mtpActive = 0;
    if (m.mtpLayers > 0) {
        const LayerParameters& last = c.kinds.back();
        const double frame = 2 * normSize + 2 * h * h + normSize;
        c.mtp = m.mtpLayers * (frame + last.total);
        c.mtpRoutedExperts = m.mtpLayers * last.routedExperts;
        c.mtpActive = m.mtpLayers * (frame + last.active);
    }
    c.total = c.layers + c.embedding + c.lmHead + c.finalNorm + c.mtp;
    c.active = activeLayers + c.embedding + c.lmHead + c.finalNorm + c.mtpActive;
}

ParameterCounts countParameters(const ModelSpec& m)
{
    ParameterCounts c;
    countParametersInto(m, c);
    return c;
}

double ParameterCounts::largestLayer() const
{
    double most = 0.0;
    for (const LayerParameters& k : kinds)
        most = std::max(most, k.total);
    return most;
}

double ParameterCounts::largestLayerPerGpu(const LayoutSpec& layout) const
{
    double most = 0.0;
    for (const LayerParameters& k : kinds)
        most = std::max(most, (k.total - k.routedExperts) / layout.tp + k.routedExperts / (double(layout.ep) * layout.etp));
    return most;
}

// Megatron-LM places the embedding on the first stage and the final norm and output
// layer on the last (Narayanan et al. 2021, Sec. 2.2). With tied embeddings and p > 1 the
// last stage keeps its own copy of the word embedding for the output layer, which is
// synchronised with the first stage's copy; it is counted on both stages here.
double stageParameters(const ParameterCounts& c, const KindCounts& kinds, bool hasEmbedding, bool hasLmHead)
{
    double p = 0.0;
    for (int k = 0; k < kinds.kinds && size_t(k) < c.kinds.size(); ++k)
        p += kinds.count[k] * c.kinds[size_t(k)].total;
    if (hasEmbedding)
        p += c.embedding;
    if (hasLmHead) {
        p += c.finalNorm + c.mtp;
        const bool tiedCopy = c.lmHead == 0.0 && !hasEmbedding;
        p += tiedCopy ? c.wordEmbedding : c.lmHead;
    }
    return p;
}

double stageRoutedExpertParameters(const ModelSpec& model, const ParameterCounts& c, const KindCounts& kinds, bool hasLmHead)
{
    if (!model.moe)
        return 0.0;
    double p = hasLmHead ? c.mtpRoutedExperts : 0.0;
    for (int k = 0; k < kinds.kinds && size_t(k) < c.kinds.size(); ++k)
        p += kinds.count[k] * c.kinds[size_t(k)].routedExperts;
    return p;
}

}  // namespace trainplan
