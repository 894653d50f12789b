// Parameter counts of a dense decoder-only transformer from its dimensions.
#pragma once

#include "estimate/Estimate.h"

namespace trainplan {

ParameterCounts countParameters(const ModelSpec& model);

// Parameters held by one pipeline stage (all of its TP ranks together).
double stageParameters(const ParameterCounts& counts, int layers, bool hasEmbedding, bool hasLmHead);

}  // namespace trainplan
