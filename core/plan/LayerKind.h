// The layers of a model as kinds: runs of consecutive transformer layers that share a shape.
//
// A plan's model.* fields describe one kind, repeated model.layers times (the shorthand every
// dense plan uses). model.layer_kinds lists runs instead, first layer first, each naming how many
// layers it holds and the feed-forward it has; what a run leaves out it takes from model.*.
// Attention is the model's (model.attention_heads, kv_heads, head_dim, or model.mla) in every
// kind. A kind's feed-forward is dense, or the model's mixture of experts (model.moe). A model
// with model.moe and no model.layer_kinds has its kinds implied: model.moe.dense_layers dense
// layers first, then the MoE layers. Everything that costs a layer (parameters, FLOPs, step
// time, the stage split) asks the kind, never model.* directly.
#pragma once

#include <string>

namespace trainplan {

enum class FfnKind { SwiGlu, Gelu };

// The most runs model.layer_kinds may list (PlanFields): enough for a dense prefix, a body and
// a tail several times over; the estimate keeps per-stage, per-kind sums on the stack.
inline constexpr int kMaxLayerKinds = 16;

struct LayerKind {
    std::string name;      // label only ("dense", "wide FFN"); "" takes a generated name
    int layers = 1;        // consecutive layers of this kind
    int ffnHiddenSize = 0; // feed-forward width f
    FfnKind ffnKind = FfnKind::SwiGlu;
    bool moe = false;      // the feed-forward is model.moe's experts (ffnHiddenSize then unused)

    bool operator==(const LayerKind&) const = default;
};

// A feed-forward of width f has three h x f matrices when gated (SwiGLU: gate, up and down;
// Shazeer 2020, Eq. 6) and two otherwise (worked example B counts 3DF). The one place the count is.
constexpr double ffnMatrixCount(FfnKind kind)
{
    return kind == FfnKind::SwiGlu ? 3.0 : 2.0;
}

}  // namespace trainplan
