#include "core/search/LayoutAdjuster.h"

#include <algorithm>

namespace trainplan {

namespace {

std::vector<int> divisorsOf(long long n, long long limit)
{
    std::vector<int> out;
    for (long long d = 1; d * d <= n; ++d) {
        if (n % d)
            continue;
        if (d <= limit)
            out.push_back(int(d));
        if (n / d != d && n / d <= limit)
            out.push_back(int(n / d));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> powersOfTwo(int max)
{
    std::vector<int> out;
    for (int v = 1; v <= max; v *= 2)
        out.push_back(v);
    return out;
}

}  // namespace

std::string_view followerKey(Follower f)
{
    return f.gpuCount ? std::string_view("gpus") : parallelDimKey(f.dim);
}

Follower followerFromKey(std::string_view key)
{
    if (key == "gpus")
        return Follower::gpus();
    for (ParallelDim d : kParallelDims)
        if (parallelDimKey(d) == key)
            return Follower::of(d);
    return Follower::of(ParallelDim::Dp);
}

bool follows(Follower f, ParallelDim d)
{
    return !f.gpuCount && f.dim == d;
}

std::vector<int> candidateValues(const Plan& plan, ParallelDim d, Follower follower)
{
    const int layers = plan.model.layers;
    const long long limit = parallelDimInfo(d).freeSizes == FreeSizes::UpToLayers ? layers : plan.cluster.gpus;
    if (follower.gpuCount || follows(follower, d)) {
        const auto range = [](int n) {
            std::vector<int> out(size_t(std::max(0, n)));
            for (int i = 0; i < n; ++i)
                out[size_t(i)] = i + 1;
            return out;
        };
        switch (parallelDimInfo(d).freeSizes) {
        case FreeSizes::PowersOfTwoTo64: return powersOfTwo(64);
        case FreeSizes::UpToLayers: return range(layers);
        case FreeSizes::UpTo4096: return range(4096);
        }
    }
    // The dimensions that neither move nor follow stay fixed.
    long long fixed = 1;
    for (ParallelDim other : kParallelDims)
        if (other != d && !follows(follower, other))
            fixed *= plan.layout.size(other);
    if (fixed <= 0 || plan.cluster.gpus % fixed != 0)
        return {plan.layout.size(d)};
    return divisorsOf(plan.cluster.gpus / fixed, limit);
}

Plan withLayoutValue(const Plan& plan, ParallelDim d, int value, Follower follower)
{
    Plan out = plan;
    out.layout.size(d) = value;
    if (!follows(follower, d) || follower.gpuCount) {
        if (follower.gpuCount) {
            out.cluster.gpus = int(out.layout.gpus());
        } else {
            const ParallelDim f = follower.dim;
            long long others = 1;
            for (ParallelDim other : kParallelDims)
                if (other != f)
                    others *= out.layout.size(other);
            if (others > 0 && plan.cluster.gpus % others == 0)
                out.layout.size(f) = int(plan.cluster.gpus / others);
        }
    }
    // Explicit uneven splits no longer apply when PP changes.
    if (d == ParallelDim::Pp || follows(follower, ParallelDim::Pp))
        if (int(out.layout.stageLayers.size()) != out.layout.pp)
            out.layout.stageLayers.clear();
    out.layout.dpAuto = false;
    return out;
}

std::vector<int> microBatchCandidates(const Plan& plan)
{
    const long long perReplica = std::max<long long>(1, plan.training.globalBatchSequences / plan.layout.dp);
    return divisorsOf(perReplica, 1024);
}

std::vector<long long> globalBatchCandidates(const Plan& plan, int count)
{
    const long long step = (long long)plan.layout.dp * plan.training.microBatchSize;
    std::vector<long long> out;
    for (int k = 1; k <= count; ++k)
        out.push_back(step * k);
    if (std::find(out.begin(), out.end(), plan.training.globalBatchSequences) == out.end()) {
        out.push_back(plan.training.globalBatchSequences);
        std::sort(out.begin(), out.end());
    }
    return out;
}

}  // namespace trainplan
