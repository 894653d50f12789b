#include "core/estimate/PipelineModel.h"

#include <algorithm>

#include "core/estimate/ParameterModel.h"

namespace trainplan {

StageLayerSplit::StageLayerSplit(const Plan& plan, const ParameterCounts* counts)
    : model_(&plan.model)
{
    const int p = plan.layout.pp;
    if (!plan.layout.stageLayers.empty() && int(plan.layout.stageLayers.size()) == p) {
        explicit_ = &plan.layout.stageLayers;
        return;
    }
    if (plan.model.kindCount() > 1 && p >= 1 && p <= plan.model.layers) {
        byCost_ = stageCostSplit(plan, p, counts);
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

namespace {

// One kind's run of layers and the forward FLOPs per token of each of its layers.
struct KindCost {
    int layers = 0;
    double cost = 0.0;
    bool operator==(const KindCost&) const = default;
};

std::vector<int> splitByCost(const ModelSpec& m, const std::vector<KindCost>& kinds, int layers, int p)
{
    std::vector<int> out;
    // Cost of every layer in order (kinds may interleave: ModelSpec::kindOfLayer; runs that fall
    // short of model.layers, which the reader refuses, take the last kind's).
    std::vector<double> cost;
    cost.reserve(size_t(layers));
    for (int i = 0; i < layers; ++i)
        cost.push_back(kinds[size_t(m.kindOfLayer(i))].cost);
    // Greedy fill under a bound: each stage takes layers while it stays within the bound and
    // leaves at least one layer for every stage after it.
    const auto fill = [&](double bound, std::vector<int>* split) {
        int stage = 0;
        double sum = 0.0;
        int inStage = 0;
        for (int i = 0; i < layers; ++i) {
            const int stagesAfter = p - stage - 1;
            const bool mustClose = inStage > 0 && (sum + cost[size_t(i)] > bound || layers - i <= stagesAfter);
            if (mustClose) {
                if (split)
                    split->push_back(inStage);
                ++stage;
                sum = 0.0;
                inStage = 0;
            }
            sum += cost[size_t(i)];
            ++inStage;
        }
        if (split)
            split->push_back(inStage);
        return stage + 1;
    };
    double lo = 0.0, hi = 0.0;
    for (double c : cost) {
        lo = std::max(lo, c);
        hi += c;
    }
    // The greedy fill needs at most p stages exactly when the bound is feasible; 100 halvings
    // take the bound to the last bit of a double.
    for (int i = 0; i < 100 && lo < hi; ++i) {
        const double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi)
            break;
        if (fill(mid, nullptr) <= p)
            hi = mid;
        else
            lo = mid;
    }
    out.reserve(size_t(p));
    fill(hi, &out);
    // Fewer stages than p (every stage fitted under the bound early): split the largest stages
    // until there are p, so the layout keeps its PP.
    while (int(out.size()) < p) {
        auto largest = std::max_element(out.begin(), out.end());
        const int half = *largest / 2;
        *largest -= half;
        out.insert(largest + 1, half);
    }
    return out;
}

// The last splits this thread made, by their inputs: a search asks for the same few (one per
// PP size) for every layout it visits, and the split is a pure function of the kinds' costs.
struct CachedSplit {
    std::vector<KindCost> kinds;
    int layers = 0, p = 0;
    int step = 1, dense = 0;  // interleaved kinds (MoeSpec::layerStep, denseLayers); 1, 0 for runs
    std::shared_ptr<const CostSplit> split;
};

}  // namespace

std::shared_ptr<const CostSplit> stageCostSplit(const Plan& plan, int p, const ParameterCounts* counts)
{
    const ModelSpec& m = plan.model;
    const int layers = m.layers;
    if (p < 1 || layers < p)
        return std::make_shared<const CostSplit>();
    // A layer's forward FLOPs per token: 2 x the parameters a token passes through (active; for
    // an MoE layer its top-k routed and shared experts, not all of them) + 4 a d s.
    const double attention = 4.0 * double(m.attentionHeads) * m.headDim * m.sequenceLength;
    thread_local std::vector<KindCost> kinds;
    kinds.resize(size_t(m.kindCount()));
    for (int k = 0; k < m.kindCount(); ++k) {
        const double active =
            counts && counts->kinds.size() == kinds.size() ? counts->kinds[size_t(k)].active : layerParameters(m, m.kind(k)).active;
        kinds[size_t(k)] = {m.layersOfKind(k), 2.0 * active + attention};
    }
    constexpr size_t kCachedSplits = 32;
    thread_local std::vector<CachedSplit> cache;
    thread_local size_t nextSlot = 0;
    thread_local size_t lastHit = 0;  // the search asks for one split many times in a row: try it first
    const int step = m.kindsInterleave() ? m.moe->step() : 1, dense = m.kindsInterleave() ? m.moe->denseLayers : 0;
    const auto matches = [&](const CachedSplit& c) {
        return c.p == p && c.layers == layers && c.step == step && c.dense == dense && c.kinds == kinds;
    };
    if (lastHit < cache.size() && matches(cache[lastHit]))
        return cache[lastHit].split;
    for (size_t i = 0; i < cache.size(); ++i)
        if (matches(cache[i])) {
            lastHit = i;
            return cache[i].split;
        }
    CostSplit made;
    made.layers = splitByCost(m, kinds, layers, p);
    made.kinds.reserve(made.layers.size());
    int first = 0;
    for (int stageLayers : made.layers) {
        made.kinds.push_back(kindCountsIn(m, first, stageLayers));
        first += stageLayers;
    }
    auto split = std::make_shared<const CostSplit>(std::move(made));
    if (cache.size() < kCachedSplits) {
        cache.push_back({kinds, layers, p, step, dense, split});
    } else {
        cache[nextSlot] = {kinds, layers, p, step, dense, split};
        nextSlot = (nextSlot + 1) % kCachedSplits;
    }
    return split;
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
    case Schedule::DualPipe:
        return dualPipeInFlight(stage, p).total();
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

DualPipeInFlight dualPipeInFlight(int rank, int p)
{
    const int h = std::min(rank, p - 1 - rank);
    const double nearStage = double(p - 1 - h), farStage = double(h + 1);
    // Direction 0 is the near one on the first half of the ranks.
    return rank < p / 2 ? DualPipeInFlight{nearStage, farStage} : DualPipeInFlight{farStage, nearStage};
}

double bubbleFraction(Schedule schedule, int p, long long m, int v)
{
    if (schedule == Schedule::DualPipe)
        return p > 2 ? (p - 2.0) / (3.0 * m + p - 2.0) : 0.0;
    // ZB-H1 with equal F, B and W: the bubble shrinks to a third, (p - 1)/(3m + p - 1)
    // (Qi et al. 2023, Sec. 3.1); the schedule simulator uses the plan's real F, B, W.
    const double work = schedule == Schedule::Interleaved ? double(v) * m : schedule == Schedule::ZeroBubble ? 3.0 * m : double(m);
    return (p - 1) / (work + p - 1);
}

}  // namespace trainplan
