#include "core/text/LayerKindsText.h"

#include "core/base/Format.h"

namespace trainplan {

std::string layerKindsText(const ModelSpec& model)
{
    if (model.layerKinds.empty())
        return {};
    std::string out;
    for (int k = 0; k < model.kindCount(); ++k) {
        const LayerKind kind = model.kind(k);
        out += (k ? "; " : "") + model.kindLabel(k) + ": " + countOf(kind.layers, "layer") + ", FFN " + formatInteger(kind.ffnHiddenSize)
            + " " + (kind.ffnKind == FfnKind::SwiGlu ? "SwiGLU" : "GeLU");
    }
    return out;
}

}  // namespace trainplan
