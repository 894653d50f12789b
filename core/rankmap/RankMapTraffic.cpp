// The rank map's traffic and summary: what each group moves per step, taken from the
// estimate's communication figures (CommunicationModel.cpp owns the formulas; nothing
// here re-derives a message size).
#include <algorithm>

#include "core/estimate/CommunicationModel.h"
#include "core/rankmap/RankMap.h"

namespace trainplan {

GroupTraffic RankMap::stageTraffic(ParallelDim dim, int stage, const Estimate& est) const
{
    const auto& c = est.communication;
    const double mb = double(est.pipeline.microbatches);
    const bool stageKnown = stage >= 0 && stage < int(est.stages.size());
    const double layers = stageKnown ? est.stages[size_t(stage)].layers : 0.0;
    // Bytes each GPU sends in a ring collective = its time at 1 byte/s (Patarasuk and
    // Yuan 2009; the same helpers CommunicationModel times the collectives with).
    const auto ringAllReduceBytes = [](double bytes, int n) { return ringAllReduceSeconds(bytes, n, 1.0); };
    const auto ringGatherBytes = [](double bytes, int n) { return ringGatherSeconds(bytes, n, 1.0); };

    GroupTraffic t;
    switch (dim) {
    case ParallelDim::Tp:
        // tpCollectivesPerLayer all-reduce equivalents of tpMessageBytes per layer per
        // micro-batch (Shoeybi et al. 2019, Sec. 3; Korthikanti et al. 2022, Sec. 4.2.2).
        t.payloadBytesPerStep = c.tpMessageBytes * c.tpCollectivesPerLayer * layers * mb;
        t.sentBytesPerGpuPerStep = ringAllReduceBytes(t.payloadBytesPerStep, size(ParallelDim::Tp));
        break;
    case ParallelDim::Cp:
        // Ring attention: cpBytesPerLayer already counts each rank's K/V hops forward and
        // backward per micro-batch, point to point (Liu et al. 2023).
        t.payloadBytesPerStep = c.cpBytesPerLayer * layers * mb;
        t.sentBytesPerGpuPerStep = t.payloadBytesPerStep;
        break;
    case ParallelDim::Dp: {
        // Gradients are reduced once per step over DP x CP (Megatron's "dp-cp" group);
        // the estimate gives the fullest stage's bytes, other stages scale with their
        // parameters per GPU. ZeRO-3 reduce-scatters gradients and all-gathers weights,
        // (n - 1)/n each; below ZeRO-3 the reduction costs an all-reduce's 2(n - 1)/n
        // (ZeRO paper, Sec. 7).
        const bool fullestKnown = est.fullestStage >= 0 && est.fullestStage < int(est.stages.size());
        const double fullest = fullestKnown ? est.stages[size_t(est.fullestStage)].parametersPerGpu : 0.0;
        const double share = stageKnown && fullest > 0 ? est.stages[size_t(stage)].parametersPerGpu / fullest : 0.0;
        const int n = size(ParallelDim::Dp) * size(ParallelDim::Cp);  // = c.dpGroupSize
        const double gradients = c.dpBytesPerGpu * share;
        if (zero3_) {
            t.payloadBytesPerStep = gradients + c.zero3AllGatherBytesPerStep * share;
            t.sentBytesPerGpuPerStep = ringGatherBytes(t.payloadBytesPerStep, n);
        } else {
            t.payloadBytesPerStep = gradients;
            t.sentBytesPerGpuPerStep = ringAllReduceBytes(gradients, n);
        }
        break;
    }
    case ParallelDim::Pp:
        // Per stage boundary and per TP rank: one activation forward and one gradient back
        // per micro-batch, once per model chunk when interleaved (worked example A; the chunk
        // factor matches CommunicationModel's ppSecondsPerStep). Same for every stage.
        t.payloadBytesPerStep = size(ParallelDim::Pp) > 1 ? 2.0 * mb * ppChunks_ * c.ppBytesPerMicrobatch : 0.0;
        t.sentBytesPerGpuPerStep = t.payloadBytesPerStep;
        break;
    }
    return t;
}

RankMapSummary RankMap::summarize(const Estimate& est) const
{
    RankMapSummary s;
    s.worldSize = world_;
    s.gpusPerNode = gpusPerNode_;
    s.nvlinkDomain = domain_;
    s.nodes = nodes();
    s.replicas = size(ParallelDim::Dp);
    s.ranksPerReplica = world_ / s.replicas;
    for (int replica = 0; replica < s.replicas; ++replica)
        s.nodesPerReplica = std::max(s.nodesPerReplica, nodesSpannedBy(replicaRanks(replica * stride(ParallelDim::Dp))));
    s.gradientGroupsCrossNodes = anyGradientGroupCrossesNodes();

    for (ParallelDim d : kParallelDims) {
        DimensionSummary& ds = s.dims[at(d)];
        ds.dim = d;
        ds.groupSize = size(d);
        ds.groups = groupCount(d);
        ds.stride = stride(d);
        ds.groupsCrossingNodes = groupsCrossingNodes(d);
        ds.groupsInsideNode = ds.groups - ds.groupsCrossingNodes;
        // The busiest group: the stage whose groups move the most.
        for (int stage = 0; stage < size(ParallelDim::Pp); ++stage) {
            const GroupTraffic t = stageTraffic(d, stage, est);
            if (t.payloadBytesPerStep > ds.traffic.payloadBytesPerStep)
                ds.traffic = t;
        }
    }
    return s;
}

}  // namespace trainplan
