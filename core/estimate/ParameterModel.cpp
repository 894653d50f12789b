#include "core/estimate/ParameterModel.h"

#include <algorithm>

namespace trainplan {

// Attention with grouped-query heads: Q and O are h x (a d), K and V are h x (kv d)
// (worked example B, "Count the parameters": 2D^2 + 2DKH when a d = D).
// Feed-forward: gated (SwiGLU) has three h x f matrices, GeLU two (worked example B: 3DF).
// Norms: RMSNorm has a scale of h, LayerNorm a scale and a bias.
LayerParameters layerParameters(const ModelSpec& m, const LayerKind& kind)
{
    const double h = m.hiddenSize;
    const double f = kind.ffnHiddenSize;
    const double qDim = double(m.attentionHeads) * m.headDim;
    const double kvDim = double(m.kvHeads) * m.headDim;
    const double normSize = m.norm == NormKind::LayerNorm ? 2 * h : h;

    LayerParameters c;
    c.attention = h * qDim + 2 * h * kvDim + qDim * h;
    if (m.bias)
        c.attention += qDim + 2 * kvDim + h;
    const bool gated = kind.ffnKind == FfnKind::SwiGlu;
    c.ffn = (gated ? 3 : 2) * h * f;
    if (m.bias)
        c.ffn += (gated ? 2 * f : f) + h;
    c.norms = 2 * normSize;
    c.total = c.attention + c.ffn + c.norms;
    return c;
}

void countParametersInto(const ModelSpec& m, ParameterCounts& c)
{
    const double h = m.hiddenSize;
    const double normSize = m.norm == NormKind::LayerNorm ? 2 * h : h;
    const int kinds = m.kindCount();
    c.kinds.resize(size_t(kinds));
    c.layers = 0;
    for (int k = 0; k < kinds; ++k) {
        c.kinds[size_t(k)] = m.layerKinds.empty() ? layerParameters(m, LayerKind{{}, m.layers, m.ffnHiddenSize, m.ffnKind})
                                                  : layerParameters(m, m.layerKinds[size_t(k)]);
        c.layers += m.layersOfKind(k) * c.kinds[size_t(k)].total;
    }
    c.wordEmbedding = double(m.vocabSize) * h;
    c.embedding = c.wordEmbedding;
    if (m.positionEmbedding == PositionEmbedding::Learned)
        c.embedding += double(m.sequenceLength) * h;
    c.lmHead = m.tiedEmbeddings ? 0.0 : double(m.vocabSize) * h;
    c.finalNorm = normSize;
    c.total = c.layers + c.embedding + c.lmHead + c.finalNorm;
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

// Megatron-LM places the embedding on the first stage and the final norm and output
// layer on the last (Narayanan et al. 2021, Sec. 2.2). With tied embeddings and p > 1 the
// last stage keeps its own copy of the word embedding for the output layer, which is
// synchronised with the first stage's copy; it is counted on both stages here.
double stageParameters(const ModelSpec& model, const ParameterCounts& c, int firstLayer, int layers, bool hasEmbedding, bool hasLmHead)
{
    double p = 0.0;
    if (model.layerKinds.empty())
        p = layers * c.kinds[0].total;  // one kind: the layout search's common case, without the walk
    else
        forEachKindIn(model, firstLayer, layers, [&](int k, int count) { p += count * c.kinds[size_t(k)].total; });
    if (hasEmbedding)
        p += c.embedding;
    if (hasLmHead) {
        p += c.finalNorm;
        const bool tiedCopy = c.lmHead == 0.0 && !hasEmbedding;
        p += tiedCopy ? c.wordEmbedding : c.lmHead;
    }
    return p;
}

}  // namespace trainplan
