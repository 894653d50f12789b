// Parameter and FLOP counts of transformers with mixture-of-experts feed-forwards, multi-head
// latent attention and multi-token prediction (issue 24): the arithmetic the estimate will take
// its MoE figures from, each count with its source. Dense models are the special case without
// MoE, MLA or MTP, and agree with ParameterModel (a test holds them together).
#pragma once

#include <optional>

#include "core/plan/LayerKind.h"
#include "core/plan/MixtureOfExperts.h"

namespace trainplan {

// What the counts read: a decoder-only transformer whose layers share their attention, the
// first moe->denseLayers of them (all, without moe) and those between every moe->layerStep-th
// after them with a dense FFN of ffnHiddenSize, the rest with moe's experts; RMSNorm, no biases (the MoE models of the roadmap).
struct TransformerShape {
    int layers = 0;
    int hiddenSize = 0;
    int ffnHiddenSize = 0;  // the dense layers' FFN width
    FfnKind ffnKind = FfnKind::SwiGlu;
    int attentionHeads = 0;
    int kvHeads = 0;        // grouped-query attention; unused with MLA
    int headDim = 0;        // unused with MLA
    std::optional<MlaSpec> mla;
    std::optional<MoeSpec> moe;
    int mtpLayers = 0;
    int vocabSize = 0;
    bool tiedEmbeddings = false;
    int sequenceLength = 0;

    int moeLayers() const { return moe ? moe->moeLayersBefore(layers) : 0; }
    int denseLayers() const { return layers - moeLayers(); }
};

// One layer's attention: Q, K, V, O for grouped-query attention, or MLA's down- and
// up-projections with the latents' norms (the input norm is not attention's).
double attentionParameters(const TransformerShape& shape);

struct MoeFfnParameters {
    double routedExpert = 0;  // one routed expert
    double shared = 0;        // every shared expert together
    double router = 0;        // the gate (E x h, and E biases with routerBias)
    double total = 0;         // all experts, the shared ones and the router
    double active = 0;        // what one token touches: top_k routed experts, the shared ones, the router
};
MoeFfnParameters moeFfnParameters(const TransformerShape& shape);

struct ModelParameterTotals {
    double attentionPerLayer = 0;
    double denseFfnPerLayer = 0;
    MoeFfnParameters moeFfn;
    double mtpModule = 0;  // one MTP depth: its projection, norms and transformer block
    double embedding = 0;
    double lmHead = 0;     // zero when tied
    double total = 0;      // every parameter the run trains, MTP modules included
    double active = 0;     // parameters one token touches (embedding and head included)
};
// Totals as published for DeepSeek-V3 (671 B total, 37 B activated: technical report, Sec. 1
// and Table 1), which do not count the MTP module; `total` and `active` here include MTP when
// shape.mtpLayers > 0 (its embedding and output head are the main model's, Sec. 2.2).
ModelParameterTotals modelParameters(const TransformerShape& shape);

// Training FLOPs per token (forward and backward, 3x the forward) as Megatron-LM counts them in
// num_floating_point_operations (megatron/training/training.py; Narayanan et al. 2021, appendix):
// every GEMM at 2 FLOPs a multiply-add, the attention scores and values over causalFraction of
// the sequence (Megatron's 0.5 for a causal mask), the logits once per MTP depth and once for the
// model, the MTP projections and norms; embedding lookups are free. For DeepSeek-V3 at s = 4,096
// it gives about 2.498e11 without MTP and 2.600e11 with one MTP layer.
double megatronFlopsPerToken(const TransformerShape& shape, double causalFraction = 0.5);
// The same count by term, for the derivation: weights a token's GEMMs read (6 FLOPs each, forward
// and backward) in the feed-forward layers, the attention projections, the MTP frames and the
// logits, and the attention core; perToken() is megatronFlopsPerToken().
struct MegatronFlopsTerms {
    double ffnWeights = 0, attentionWeights = 0, mtpWeights = 0, logitWeights = 0;
    double attentionCore = 0;
    static constexpr double kPerWeight = 6.0;
    double perToken() const { return kPerWeight * (ffnWeights + attentionWeights + mtpWeights + logitWeights) + attentionCore; }
};
MegatronFlopsTerms megatronFlopsTerms(const TransformerShape& shape, double causalFraction = 0.5);
// Of that, the attention core: Q K^T and the weighted values, every layer and MTP depth.
double megatronAttentionCoreFlopsPerToken(const TransformerShape& shape, double causalFraction = 0.5);

}  // namespace trainplan
