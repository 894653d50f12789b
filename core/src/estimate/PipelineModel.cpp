#include "estimate/PipelineModel.h"

#include <algorithm>

namespace trainplan {

StageLayerSplit::StageLayerSplit(const Plan& plan)
{
    const int p = plan.layout.pp;
    if (!plan.layout.stageLayers.empty() && int(plan.layout.stageLayers.size()) == p) {
        explicit_ = &plan.layout.stageLayers;
        return;
    }
    // An even split; the remainder goes to the middle stages first (1, 2, ...), which carry no
    // embedding or LM head, then to the first stage. Since remainder < p, at most one layer is
    // left for the ends once the p - 2 middle stages have one each.
    p_ = p;
    base_ = plan.model.layers / p;
    remainder_ = plan.model.layers % p;
    firstGetsOne_ = remainder_ > std::max(0, p - 2);
}

int layersOfStage(const Plan& plan, int stage)
{
    return StageLayerSplit(plan).layersOf(stage);
}

void splitLayers(const Plan& plan, std::vector<int>& layers)
{
    layers.resize(size_t(plan.layout.pp));
    for (int i = 0; i < plan.layout.pp; ++i)
        layers[size_t(i)] = layersOfStage(plan, i);
}

double microbatchesInFlight(Schedule schedule, int stage, int p, long long m, int v)
{
    switch (schedule) {
    case Schedule::GPipe:
        return double(m);
    case Schedule::OneFOneB:
        return double(std::min<long long>(p - stage, m));
    case Schedule::ZeroBubble:
        // ZB-H1 defers W, so every stage keeps activations as long as 1F1B's first stage
        // does: min(p, m) (Qi et al. 2023, Sec. 3.1, "the same peak memory as 1F1B").
        return double(std::min<long long>(p, m));
    case Schedule::Interleaved: {
        const long long chunks = 2LL * (p - stage - 1) + (long long)(v - 1) * p + 1;
        return double(std::min<long long>(chunks, m * v)) / v;
    }
    }
    return double(m);
}

int fewestInterleavingChunks(const Plan& plan)
{
    const auto& l = plan.layout;
    const long long perReplica = (long long)l.dp * plan.training.microBatchSize;
    if (l.pp < 2 || perReplica <= 0 || plan.training.globalBatchSequences % perReplica != 0)
        return 0;
    const long long m = plan.training.globalBatchSequences / perReplica;
    if (m % l.pp != 0)
        return 0;
    for (int v = 2; v <= 8; ++v)
        if (plan.model.layers % (l.pp * v) == 0)
            return v;
    return 0;
}

double bubbleFraction(Schedule schedule, int p, long long m, int v)
{
    // ZB-H1 with equal F, B and W: the bubble shrinks to a third, (p - 1)/(3m + p - 1)
    // (Qi et al. 2023, Sec. 3.1); the schedule simulator uses the plan's real F, B, W.
    const double work = schedule == Schedule::Interleaved ? double(v) * m : schedule == Schedule::ZeroBubble ? 3.0 * m : double(m);
    return (p - 1) / (work + p - 1);
}

}  // namespace trainplan
