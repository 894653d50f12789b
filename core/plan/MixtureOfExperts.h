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
    bool routerBias = false;            // a per-expert bias in the gate (DeepSeek-V3's e_score_correction_bias)
    std::optional<double> capacityFactor;  // absent: dropless
    std::optional<double> loadImbalance;   // max/mean tokens per expert-parallel rank; absent: unknown

    int sharedWidth() const { return sharedExpertFfnHiddenSize > 0 ? sharedExpertFfnHiddenSize : expertFfnHiddenSize; }
    bool operator==(const MoeSpec&) const = default;
};

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
