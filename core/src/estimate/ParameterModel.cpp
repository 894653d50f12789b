#include "estimate/ParameterModel.h"

namespace trainplan {

// Attention with grouped-query heads: Q and O are h x (a d), K and V are h x (kv d)
// (worked example B, "Count the parameters": 2D^2 + 2DKH when a d = D).
// Feed-forward: gated (SwiGLU) has three h x f matrices, GeLU two (worked example B: 3DF).
// Norms: RMSNorm has a scale of h, LayerNorm a scale and a bias.
ParameterCounts countParameters(const ModelSpec& m)
{
    const double h = m.hiddenSize;
    const double f = m.ffnHiddenSize;
    const double qDim = double(m.attentionHeads) * m.headDim;
    const double kvDim = double(m.kvHeads) * m.headDim;
    const double normSize = m.norm == NormKind::LayerNorm ? 2 * h : h;

    ParameterCounts c;
    c.attentionPerLayer = h * qDim + 2 * h * kvDim + qDim * h;
    if (m.bias)
        c.attentionPerLayer += qDim + 2 * kvDim + h;
    const bool gated = m.ffnKind == FfnKind::SwiGlu;
    c.ffnPerLayer = (gated ? 3 : 2) * h * f;
    if (m.bias)
        c.ffnPerLayer += (gated ? 2 * f : f) + h;
    c.normsPerLayer = 2 * normSize;
    c.perLayer = c.attentionPerLayer + c.ffnPerLayer + c.normsPerLayer;

    c.wordEmbedding = double(m.vocabSize) * h;
    c.embedding = c.wordEmbedding;
    if (m.positionEmbedding == PositionEmbedding::Learned)
        c.embedding += double(m.sequenceLength) * h;
    c.lmHead = m.tiedEmbeddings ? 0.0 : double(m.vocabSize) * h;
    c.finalNorm = normSize;
    c.total = m.layers * c.perLayer + c.embedding + c.lmHead + c.finalNorm;
    return c;
}

// Megatron-LM places the embedding on the first stage and the final norm and output
// layer on the last (Narayanan et al. 2021, Sec. 2.2). With tied embeddings and p > 1 the
// last stage keeps its own copy of the word embedding for the output layer, which is
// synchronised with the first stage's copy; it is counted on both stages here.
double stageParameters(const ParameterCounts& c, int layers, bool hasEmbedding, bool hasLmHead)
{
    double p = layers * c.perLayer;
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
