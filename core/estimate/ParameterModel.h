// Parameter counts of a dense decoder-only transformer from its dimensions.
#pragma once

#include "core/estimate/Estimate.h"

namespace trainplan {

ParameterCounts countParameters(const ModelSpec& model);
// Same, reusing out's storage (the layout search counts once per layout).
void countParametersInto(const ModelSpec& model, ParameterCounts& out);

// One layer of a kind (LayerKind.h): the model's attention and norms, the kind's feed-forward.
LayerParameters layerParameters(const ModelSpec& model, const LayerKind& kind);

// Parameters held by one pipeline stage (all of its TP ranks together): the layers
// [firstLayer, firstLayer + layers) by their kinds, and the ends it holds.
double stageParameters(const ModelSpec& model, const ParameterCounts& counts, int firstLayer, int layers, bool hasEmbedding,
                       bool hasLmHead);

}  // namespace trainplan
