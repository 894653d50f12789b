#include "core/plan/Plan.h"

#include <algorithm>
#include <tuple>

#include "core/plan/LayoutUnknownFields.h"

namespace trainplan {

bool sameModelShape(const ModelSpec& a, const ModelSpec& b)
{
    const auto shape = [](const ModelSpec& m) {
        return std::tie(m.layers, m.hiddenSize, m.ffnHiddenSize, m.ffnKind, m.attentionHeads, m.kvHeads, m.headDim, m.vocabSize,
                        m.tiedEmbeddings, m.norm, m.bias, m.positionEmbedding, m.layerKinds, m.moe, m.mla, m.mtpLayers);
    };
    return shape(a) == shape(b);
}

int ModelSpec::kindOfLayer(int layer) const
{
    if (kindsInterleave())
        return moe->isMoeLayer(layer) ? 1 : 0;
    int end = 0;
    const int kinds = kindCount();
    for (int k = 0; k < kinds; ++k) {
        end += layersOfKind(k);
        if (layer < end)
            return k;
    }
    return kinds - 1;
}

bool ModelSpec::hasMoeLayers() const
{
    if (!moe)
        return false;
    // Without building the kinds (kind() makes a name): the search asks this per layout.
    if (layerKinds.empty())
        return hasDenseKind() || layers > 0;  // kind 1 is MoE with layers, or the one kind is
    for (const LayerKind& k : layerKinds)
        if (k.moe && k.layers > 0)
            return true;
    return false;
}

std::string ModelSpec::kindLabel(int k) const
{
    if (kindCount() == 1 && !moe)
        return "every layer";
    if (layerKinds.empty() && kindCount() == 1)
        return "every layer (MoE)";
    if (kindsInterleave()) {
        const int step = moe->step(), dense = moe->denseLayers;
        const std::string nth = step == 2 ? "every 2nd layer" : step == 3 ? "every 3rd layer" : "every " + std::to_string(step) + "th layer";
        if (k == 1)
            return "MoE, " + nth;
        return dense > 0 ? "dense, layers 1-" + std::to_string(dense) + " and between" : "dense, between MoE";
    }
    int first = 0;
    for (int i = 0; i < k; ++i)
        first += layersOfKind(i);
    const int last = first + layersOfKind(k);
    const std::string name = kind(k).name;
    if (!name.empty() && !layerKinds.empty())
        return name;
    const std::string range =
        last == first + 1 ? "layer " + std::to_string(last) : "layers " + std::to_string(first + 1) + "-" + std::to_string(last);
    return name.empty() ? range : name + " " + range;
}

std::vector<const char*> layoutUnknownPaths(unsigned bits)
{
    std::vector<const char*> out;
    for (const LayoutUnknownField& u : layoutUnknownFields())
        if (bits & u.bit)
            out.push_back(u.path.data());
    return out;
}

std::vector<int> expertParallelSizes(const ModelSpec& model, const LayoutSpec& stage, int etp)
{
    std::vector<int> out;
    if (!model.moe)
        return out;
    for (int ep = 1; ep <= model.moe->experts; ++ep)
        if (epDividesExperts(ep, model) && expertRanksDivideStage(stage, ep, etp))
            out.push_back(ep);
    return out;
}

std::vector<int> expertTensorParallelSizes(const ModelSpec& model, const LayoutSpec& stage, int ep, int widestEtp)
{
    std::vector<int> out;
    if (!model.moe)
        return out;
    for (int etp = 1; etp <= std::max(1, widestEtp); etp *= 2)
        if (model.moe->expertFfnHiddenSize % etp == 0 && expertRanksDivideStage(stage, ep, etp))
            out.push_back(etp);
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
