// Parameter counts of a decoder-only transformer from its dimensions: dense layers, and with
// model.moe, model.mla and model.mtp_layers the counts of MoeArithmetic.h.
#pragma once

#include "core/estimate/Estimate.h"
#include "core/estimate/MoeArithmetic.h"

namespace trainplan {

ParameterCounts countParameters(const ModelSpec& model);
// Same, reusing out's storage (the layout search counts once per layout).
void countParametersInto(const ModelSpec& model, ParameterCounts& out);

// One layer of a kind (LayerKind.h): the model's attention and norms, the kind's feed-forward.
LayerParameters layerParameters(const ModelSpec& model, const LayerKind& kind);

// The model as MoeArithmetic's counts read it.
TransformerShape transformerShapeOf(const ModelSpec& model);

// Parameters held by one pipeline stage (all of its TP ranks together): its layers by their
// kinds (StageLayerSplit::kindsOf), and the ends it holds.
double stageParameters(const ParameterCounts& counts, const KindCounts& kinds, bool hasEmbedding, bool hasLmHead);
// Of those, the routed experts' (sharded by EP x ETP rather than TP); 0 for a dense model.
double stageRoutedExpertParameters(const ModelSpec& model, const ParameterCounts& counts, const KindCounts& kinds, bool hasLmHead);

}  // namespace trainplan
