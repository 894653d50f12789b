#include "search/LayoutAdjuster.h"

#include <algorithm>

namespace trainplan {

namespace {

constexpr LayoutDimension kDims[] = {LayoutDimension::Tp, LayoutDimension::Pp, LayoutDimension::Dp, LayoutDimension::Cp};

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

LayoutDimension dimensionOf(Follower f)
{
    switch (f) {
    case Follower::Tp: return LayoutDimension::Tp;
    case Follower::Pp: return LayoutDimension::Pp;
    case Follower::Cp: return LayoutDimension::Cp;
    default: return LayoutDimension::Dp;
    }
}

}  // namespace

int layoutValue(const LayoutSpec& l, LayoutDimension d)
{
    switch (d) {
    case LayoutDimension::Tp: return l.tp;
    case LayoutDimension::Pp: return l.pp;
    case LayoutDimension::Dp: return l.dp;
    case LayoutDimension::Cp: return l.cp;
    }
    return 1;
}

void setLayoutValue(LayoutSpec& l, LayoutDimension d, int v)
{
    switch (d) {
    case LayoutDimension::Tp: l.tp = v; break;
    case LayoutDimension::Pp: l.pp = v; break;
    case LayoutDimension::Dp: l.dp = v; break;
    case LayoutDimension::Cp: l.cp = v; break;
    }
}

bool follows(Follower f, LayoutDimension d)
{
    return f != Follower::Gpus && dimensionOf(f) == d;
}

std::vector<int> candidateValues(const Plan& plan, LayoutDimension d, Follower follower)
{
    const int layers = plan.model.layers;
    const long long limit = d == LayoutDimension::Pp ? layers : plan.cluster.gpus;
    if (follower == Follower::Gpus || follows(follower, d)) {
        switch (d) {
        case LayoutDimension::Tp: return powersOfTwo(64);
        case LayoutDimension::Cp: return powersOfTwo(64);
        case LayoutDimension::Pp: {
            std::vector<int> out(layers);
            for (int i = 0; i < layers; ++i)
                out[i] = i + 1;
            return out;
        }
        case LayoutDimension::Dp: {
            std::vector<int> out(4096);
            for (int i = 0; i < 4096; ++i)
                out[i] = i + 1;
            return out;
        }
        }
    }
    // The two dimensions that neither move nor follow stay fixed.
    long long fixed = 1;
    for (auto other : kDims)
        if (other != d && !follows(follower, other))
            fixed *= layoutValue(plan.layout, other);
    if (fixed <= 0 || plan.cluster.gpus % fixed != 0)
        return {layoutValue(plan.layout, d)};
    return divisorsOf(plan.cluster.gpus / fixed, limit);
}

Plan withLayoutValue(const Plan& plan, LayoutDimension d, int value, Follower follower)
{
    Plan out = plan;
    setLayoutValue(out.layout, d, value);
    if (!follows(follower, d) || follower == Follower::Gpus) {
        if (follower == Follower::Gpus) {
            out.cluster.gpus = out.layout.tp * out.layout.pp * out.layout.dp * out.layout.cp;
        } else {
            const LayoutDimension f = dimensionOf(follower);
            long long others = 1;
            for (auto other : kDims)
                if (other != f)
                    others *= layoutValue(out.layout, other);
            if (others > 0 && plan.cluster.gpus % others == 0)
                setLayoutValue(out.layout, f, int(plan.cluster.gpus / others));
        }
    }
    // Explicit uneven splits no longer apply when PP changes.
    if (d == LayoutDimension::Pp || follows(follower, LayoutDimension::Pp))
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
