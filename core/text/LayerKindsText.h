// A model's layer kinds in words, the one phrasing the window, the PDF and the text report use.
#pragma once

#include <string>

#include "core/plan/Plan.h"

namespace trainplan {

// "narrow: 8 layers, FFN 14,336 SwiGLU; layers 9-80: 72 layers, FFN 28,672 SwiGLU";
// "" for a model of one kind (its model.* fields say it all).
std::string layerKindsText(const ModelSpec& model);

}  // namespace trainplan
