#include "estimate/CommunicationModel.h"

#include <algorithm>

#include "estimate/Topology.h"

namespace trainplan {

double ringAllReduceSeconds(double bytes, int n, double bw)
{
    return n <= 1 ? 0.0 : 2.0 * (n - 1) / n * bytes / bw;
}

double ringGatherSeconds(double bytes, int n, double bw)
{
    return n <= 1 ? 0.0 : double(n - 1) / n * bytes / bw;
}

void estimateCommunication(const Plan& plan, Estimate& est)
{
    const auto& l = plan.layout;
    const auto& m = plan.model;
    const auto& cl = plan.cluster;
    auto& c = est.communication;
    const GroupStrides strides = groupStrides(l);
    const double actBytes = activationBytesPerElement(plan.training.precision);
    const double s = double(m.sequenceLength) / l.cp;
    const double b = plan.training.microBatchSize;
    const double h = m.hiddenSize;
    const double mb = double(est.pipeline.microbatches);
    const auto linkFor = [&](bool crosses) { return crosses ? cl.interNodeBytesPerSecond : cl.intraNodeBytesPerSecond; };
    const StageEstimate& fullest = est.stages[est.fullestStage];
    int maxLayers = 0;
    for (const auto& st : est.stages)
        maxLayers = std::max(maxLayers, st.layers);

    // TP (Shoeybi et al. 2019, Sec. 3): two all-reduces of b s h activations in the
    // forward pass of each layer and two in the backward; sequence parallelism turns each
    // into a reduce-scatter plus all-gather of the same total volume (Korthikanti et al.
    // 2022, Sec. 4.2.2). Full recompute repeats the forward's two (worked example A, "Communication").
    c.tpMessageBytes = b * s * h * actBytes;
    c.tpCollectivesPerLayer = l.tp > 1 ? (l.recompute == Recompute::Full ? 6 : 4) : 0;
    c.tpCrossesNodes = groupCrossesNodes(strides.tp, l.tp, cl.gpusPerNode, est.gpusUsed);
    c.tpSecondsPerCollective = ringAllReduceSeconds(c.tpMessageBytes, l.tp, linkFor(c.tpCrossesNodes));
    c.tpSecondsPerStep = c.tpSecondsPerCollective * c.tpCollectivesPerLayer * maxLayers * mb;

    // PP: one activation tensor forward and one gradient back per micro-batch per stage
    // boundary; with sequence parallelism each TP rank sends its 1/t slice (worked example A).
    c.ppBytesPerMicrobatch = l.pp > 1 ? b * s * h * actBytes / (l.sequenceParallel ? l.tp : 1) : 0.0;
    c.ppCrossesNodes = groupCrossesNodes(strides.pp, l.pp, cl.gpusPerNode, est.gpusUsed);
    c.ppSecondsPerSend = c.ppBytesPerMicrobatch / linkFor(c.ppCrossesNodes);
    const double chunkBoundaries = l.schedule == Schedule::Interleaved ? l.virtualStages : 1;
    c.ppSecondsPerStep = l.pp > 1 ? 2.0 * mb * chunkBoundaries * c.ppSecondsPerSend : 0.0;

    // DP: each GPU reduces its gradients once per step over DP x CP ranks (Megatron's
    // distributed optimizer uses the DP-CP group). ZeRO-1/2 reduce-scatter gradients and
    // all-gather parameters: the same 2(n - 1)/n volume as an all-reduce (ZeRO paper,
    // Sec. 7). ZeRO-3 adds parameter all-gathers in every forward and backward.
    const auto state = stateBytesPerParameter(plan.training.precision);
    c.dpGroupSize = l.dp * l.cp;
    c.dpBytesPerGpu = fullest.parametersPerGpu * state.gradients;
    c.dpBytesPerGpuMean = est.parametersPerGpuMean * state.gradients;
    c.dpCrossesNodes = groupCrossesNodes(strides.dp, l.dp, cl.gpusPerNode, est.gpusUsed)
        || groupCrossesNodes(strides.cp, l.cp, cl.gpusPerNode, est.gpusUsed);
    const double dpBandwidth = linkFor(c.dpCrossesNodes);
    c.dpSeconds = l.zeroStage >= 3 ? ringGatherSeconds(c.dpBytesPerGpu, c.dpGroupSize, dpBandwidth)
                                   : ringAllReduceSeconds(c.dpBytesPerGpu, c.dpGroupSize, dpBandwidth);
    c.zero3AllGatherBytesPerStep = l.zeroStage >= 3 ? 2.0 * mb * fullest.parametersPerGpu * state.weights : 0.0;
    c.zero3SecondsPerStep = ringGatherSeconds(c.zero3AllGatherBytesPerStep, c.dpGroupSize, dpBandwidth);
    // The backward pass is about two thirds of the compute (2 of the 6 N D FLOPs go
    // forward); the reduction can hide under it at best.
    c.dpBackwardWindowSeconds = est.time.stepSeconds * (1.0 - est.pipeline.bubbleFraction) * (2.0 / 3.0);
    c.dpHidden = c.dpSeconds <= c.dpBackwardWindowSeconds;

    // CP ring attention (Liu et al. 2023; Megatron-LM context parallelism): each rank
    // passes its K and V block around the ring, (cp - 1) hops forward and twice that
    // backward (K, V and their gradients); heads are split over TP.
    if (l.cp > 1) {
        const double kvHeadsLocal = std::max(1.0, double(m.kvHeads) / l.tp);
        const double kvBlock = 2.0 * b * s * kvHeadsLocal * m.headDim * actBytes;
        c.cpBytesPerLayer = 3.0 * (l.cp - 1) * kvBlock;
        c.cpCrossesNodes = groupCrossesNodes(strides.cp, l.cp, cl.gpusPerNode, est.gpusUsed);
        c.cpSecondsPerStep = c.cpBytesPerLayer / linkFor(c.cpCrossesNodes) * maxLayers * mb;
    } else {
        c.cpBytesPerLayer = 0.0;
        c.cpCrossesNodes = false;
        c.cpSecondsPerStep = 0.0;
    }
}

}  // namespace trainplan
