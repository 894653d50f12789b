// The shapes a mixture-of-experts model adds to a dense transformer (issue 24): routed and
// shared experts in the feed-forward, multi-head latent attention (MLA), and multi-token
// prediction (MTP). Field for field what a plan's model.moe.*, model.mla.* and
// model.mtp_layers carry (../shared/docs/interfaces.md, "Keys and verbs on the roadmap").
#pragma once

#include <optional>

namespace trainplan {

// DeepSeekMoE-style feed-forward (Dai et al. 2024; DeepSeek-V3 technical report, Sec. 2.1.2):
// each token goes to top_k of `experts` routed experts and to every shared expert.
struct MoeSpec {
    int experts = 0;                    // routed experts E
    int topK = 1;                       // routed experts each token is sent to
    int expertFfnHiddenSize = 0;        // one routed expert's FFN width
    int sharedExperts = 0;              // always-active experts
    int sharedExpertFfnHiddenSize = 0;  // one shared expert's FFN width (0: the routed width)
    int denseLayers = 0;                // the first k layers keep a dense FFN of the model's width
    // After those, every layerStep-th layer is MoE and the others dense (1: all of them). Llama 4
    // Maverick alternates (Hugging Face config interleave_moe_layer_step = 2: layers 1, 3, 5, ...
    // counted from 0; Megatron-LM's pattern form --moe-layer-freq ([0,1]*24) says the same).
    int layerStep = 1;
    bool routerBias = false;            // a per-expert bias in the gate (DeepSeek-V3's e_score_correction_bias)
    int maxNodesPerToken = 0;           // node-limited routing: a token's experts on at most this many nodes (0: no limit)
    std::optional<double> capacityFactor;  // absent: dropless
    std::optional<double> loadImbalance;   // max/mean tokens per expert-parallel rank; absent: unknown

    int sharedWidth() const { return sharedExpertFfnHiddenSize > 0 ? sharedExpertFfnHiddenSize : expertFfnHiddenSize; }
    int step() const { return layerStep > 1 ? layerStep : 1; }
    // MoE layers among layers [0, end) of the model (end at most its layer count): the
    // layerStep-th, 2 layerStep-th, ... after the dense prefix.
    int moeLayersBefore(int end) const { return end > denseLayers ? (end - denseLayers) / step() : 0; }
    bool isMoeLayer(int layer) const { return layer >= denseLayers && (layer - denseLayers + 1) % step() == 0; }
    bool operator==(const MoeSpec&) const = default;
};

// The busiest expert-parallel rank's routed tokens over the mean when the plan does not say
// (model.moe.load_imbalance absent), and the ends the predicted range takes for it. Switch
// Transformer trains with a capacity factor of 1.0 to 1.25 and drops under 1 % of tokens at 1.25
// (Fedus et al. 2021, Sec. 2.2 and Table 1): an expert's load rarely passes 1.25x the mean. An
// expert-parallel rank holds E / EP experts, whose loads average out, and auxiliary-loss-free
// balancing keeps them close (DeepSeek-V3 technical report, Sec. 2.1.2, Fig. 9). Expected 1.1,
// balanced at best, 1.3 at worst: an estimate, named as such wherever it shows.
inline constexpr double kExpectedLoadImbalance = 1.1;
inline constexpr double kBestLoadImbalance = 1.0;
inline constexpr double kWorstLoadImbalance = 1.3;

// Multi-head latent attention (DeepSeek-V2 technical report, Sec. 2.1.2; V3 Sec. 2.1.1): queries
// and keys/values through low-rank latents, each head's query and key split into a part without
// and a part with rotary position.
struct MlaSpec {
    int qLoraRank = 0;       // 0: queries projected directly from the hidden state
    int kvLoraRank = 0;
    int qkNopeHeadDim = 0;   // per head, without rotary position
    int qkRopeHeadDim = 0;   // per head, with rotary position (the key's part shared by all heads)
    int vHeadDim = 0;
    bool operator==(const MlaSpec&) const = default;
};

}  // namespace trainplan
