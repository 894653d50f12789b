#include "core/estimate/ShardingBuffers.h"

#include <algorithm>

#include "core/estimate/ActivationModel.h"

namespace trainplan {

double largestSubmoduleParametersPerGpu(const Plan& plan)
{
    const ModelSpec& m = plan.model;
    const double h = m.hiddenSize, t = plan.layout.tp;
    const double attention = double(m.attentionHeads) * m.headDim;
    double largest = std::max({double(m.vocabSize) * h, h * (attention + 2.0 * m.kvHeads * m.headDim), attention * h});
    for (int k = 0; k < m.kindCount(); ++k) {
        const LayerKind kind = m.kind(k);
        // An MoE layer's dense FFN is its shared experts together; each routed expert is a
        // submodule of its own, split over ETP rather than TP.
        const double f = kind.moe && m.moe ? double(m.moe->sharedExperts) * m.moe->sharedWidth() : kind.ffnHiddenSize;
        largest = std::max({largest, h * f * (kind.ffnKind == FfnKind::SwiGlu ? 2.0 : 1.0), f * h});
        if (kind.moe && m.moe) {
            const double fe = double(m.moe->expertFfnHiddenSize) * (kind.ffnKind == FfnKind::SwiGlu ? 2.0 : 1.0);
            largest = std::max(largest, h * fe * t / plan.layout.etp);
        }
    }
    return largest / t;
}

ShardingBuffers shardingBuffers(const Plan& plan, double blockParametersPerGpu)
{
    ShardingBuffers b;
    if (plan.layout.zeroStage < 3)
        return b;
    b.gathering = frameworkSwitch(plan.framework, &FrameworkSpec::zero3Gathering).value_or(Zero3Gathering::Block);
    if (b.gathering == Zero3Gathering::Block) {
        b.unitParametersPerGpu = blockParametersPerGpu;
        b.liveParameters = 2.0 * blockParametersPerGpu;
        b.gradientParameters = blockParametersPerGpu;
    } else {
        const double submodule = std::min(largestSubmoduleParametersPerGpu(plan), blockParametersPerGpu);
        b.unitParametersPerGpu = submodule;
        b.liveParameters = std::min(blockParametersPerGpu, std::max(submodule, kDeepSpeedMaxLiveParameters)) + kDeepSpeedPrefetchBucket;
        b.gradientParameters = submodule + kDeepSpeedReduceBucket;
    }
    b.weightBytes = b.liveParameters * stateBytesPerParameter(plan.training.precision).weights;
    b.gradientBytes = b.gradientParameters * gradientBytesPerParameter(plan);
    return b;
}

}  // namespace trainplan
