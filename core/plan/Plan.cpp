#include "core/plan/Plan.h"

#include <algorithm>
#include <tuple>

#include "core/plan/LayoutUnknownFields.h"

namespace trainplan {

bool sameModelShape(const ModelSpec& a, const ModelSpec& b)
{
    const auto shape = [](const ModelSpec& m) {
        return std::tie(m.layers, m.hiddenSize, m.ffnHiddenSize, m.ffnKind, m.attentionHeads, m.kvHeads, m.headDim, m.vocabSize,
                        m.tiedEmbeddings, m.norm, m.bias, m.positionEmbedding, m.layerKinds);
    };
    return shape(a) == shape(b);
}

int ModelSpec::kindOfLayer(int layer) const
{
    int end = 0;
    for (int k = 0; k < int(layerKinds.size()); ++k) {
        end += layerKinds[size_t(k)].layers;
        if (layer < end)
            return k;
    }
    return std::max(0, int(layerKinds.size()) - 1);
}

std::string ModelSpec::kindLabel(int k) const
{
    if (layerKinds.empty())
        return "every layer";
    if (!layerKinds[size_t(k)].name.empty())
        return layerKinds[size_t(k)].name;
    int first = 0;
    for (int i = 0; i < k; ++i)
        first += layerKinds[size_t(i)].layers;
    const int last = first + layerKinds[size_t(k)].layers;
    return last == first + 1 ? "layer " + std::to_string(last) : "layers " + std::to_string(first + 1) + "-" + std::to_string(last);
}

std::vector<const char*> layoutUnknownPaths(unsigned bits)
{
    std::vector<const char*> out;
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (bits & u.bit)
            out.push_back(u.path.data());
    return out;
}

int recomputedLayers(const LayoutSpec& l, int stageLayers)
{
    if (l.recompute != Recompute::Full)
        return 0;
    // Megatron applies --recompute-num-layers to each model chunk: v chunks of an interleaved
    // stage recompute k layers each.
    const int chunks = l.schedule == Schedule::Interleaved ? std::max(1, l.virtualStages) : 1;
    return l.recomputeLayers > 0 ? std::min(l.recomputeLayers * chunks, stageLayers) : stageLayers;
}

// Forgets the unknown mark of every layout field an edit set to another value.
void markEditedLayoutFieldsKnown(const Plan& before, Plan& after)
{
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (u.differs(before.layout, after.layout))
            after.layout.unknownFields &= ~unsigned(u.bit);
}

}  // namespace trainplan
