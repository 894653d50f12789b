#include "core/estimate/CommunicationModel.h"

#include <algorithm>
#include <numeric>
#include <bit>

#include "core/base/Units.h"
#include "core/presets/AcceleratorEfficiency.h"
#include "core/topology/Topology.h"

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
    const auto crosses = groupsCrossNodes(l, cl.scaleUpDomain(), est.gpusUsed);
    const auto crossesIn = [&](ParallelDim d) { return crosses[parallelDimIndex(d)]; };
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
    c.tpCrossesNodes = crossesIn(ParallelDim::Tp);
    c.tpSecondsPerCollective = ringAllReduceSeconds(c.tpMessageBytes, l.tp, linkFor(c.tpCrossesNodes));
    c.tpSecondsPerStep = c.tpSecondsPerCollective * c.tpCollectivesPerLayer * maxLayers * mb;

    // PP: one activation tensor forward and one gradient back per micro-batch per stage
    // boundary; with sequence parallelism each TP rank sends its 1/t slice (worked example A).
    c.ppBytesPerMicrobatch = l.pp > 1 ? b * s * h * actBytes / (l.sequenceParallel ? l.tp : 1) : 0.0;
    c.ppCrossesNodes = crossesIn(ParallelDim::Pp);
    c.ppSecondsPerSend = c.ppBytesPerMicrobatch / linkFor(c.ppCrossesNodes);
    const double chunkBoundaries = l.schedule == Schedule::Interleaved ? l.virtualStages : 1;
    c.ppSecondsPerStep = l.pp > 1 ? 2.0 * mb * chunkBoundaries * c.ppSecondsPerSend : 0.0;

    // DP: each GPU reduces its gradients once per step over DP x CP ranks (Megatron's
    // distributed optimizer uses the DP-CP group). ZeRO-1/2 reduce-scatter gradients and
    // all-gather parameters: the same 2(n - 1)/n volume as an all-reduce (ZeRO paper,
    // Sec. 7). ZeRO-3 adds parameter all-gathers in every forward and backward.
    const auto state = stateBytesPerParameter(plan.training.precision);
    c.dpGroupSize = l.dp * l.cp;
    // DualPipe: a GPU holds two stages, and reduces both (DualPipe.h).
    const bool dualPipe = l.schedule == Schedule::DualPipe && l.pp >= 2 && est.stages.size() == size_t(l.pp);
    const double heldParameters =
        fullest.parametersPerGpu + (dualPipe ? est.stages[size_t(l.pp - 1 - fullest.index)].parametersPerGpu : 0.0);
    c.dpBytesPerGpu = heldParameters * state.gradients;
    c.dpBytesPerGpuMean = est.parametersPerGpuMean * (dualPipe ? 2.0 : 1.0) * state.gradients;
    c.dpCrossesNodes = crossesIn(ParallelDim::Dp) || crossesIn(ParallelDim::Cp);
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
        c.cpCrossesNodes = crossesIn(ParallelDim::Cp);
        c.cpSecondsPerStep = c.cpBytesPerLayer / linkFor(c.cpCrossesNodes) * maxLayers * mb;
    } else {
        c.cpBytesPerLayer = 0.0;
        c.cpCrossesNodes = false;
        c.cpSecondsPerStep = 0.0;
    }
}

}  // namespace trainplan

namespace trainplan {

namespace {

// NCCL 2.2x tuning.cc (ncclTopoTuneModel) latencies in microseconds. Per protocol:
// LL (4 flag bytes per 4 data bytes: half the bandwidth), LL128 (120 of 128 bytes; the model's
// 0.92 factor), Simple.
enum Protocol { kLL = 0, kLL128 = 1, kSimple = 2 };
constexpr double kProtocolSlowdown[3] = {1.0 / 0.5, 1.0 / 0.92, 1.0};
constexpr double kRingBaseUs[3] = {6.6, 14.0, 8.4};
constexpr double kTreeBaseUs[3] = {6.8, 14.0, 8.4};
// The Simple steps are the presets' default ring-step latencies (AcceleratorEfficiency.h), which a
// plan's cluster.efficiency scales every protocol's steps by.
constexpr double kNvlinkRingStepUs[3] = {0.6, 1.9, kNcclSimpleNvlinkStepSeconds / units::micro};
constexpr double kNvlinkTreeStepUs[3] = {0.6, 1.25, 4.0};
constexpr double kNetworkStepUs[3] = {2.7, 4.0, kNcclSimpleNetworkStepSeconds / units::micro};
// Tree all-reduce reaches 0.92 of the ring's bandwidth, PAT 0.75 (tuning.cc factors).
constexpr double kTreeBandwidth = 0.92;
constexpr double kPatBandwidth = 0.75;
// NVLS all-reduce: the GPU sends its buffer into the NVSwitch once and reads the reduced result
// once; 8 x H100 reach about 275 GB/s of algorithm bandwidth on large messages, 0.61 of NVLink's
// 450 GB/s per direction (nccl-tests#212; busbw about 480 GB/s), and about a ring's at 2-4 GPUs
// (nccl#1455), which taking the faster of the two reproduces. Its per-step latency is 25 us on
// NVLink (tuning.cc, NVLS).
constexpr double kNvlsAlgorithmFraction = 0.61;
constexpr double kNvlsLatencyUs = 25.0;
// CollNet with IB SHARP: each node's share leaves through its NICs once and comes back reduced;
// about 30 us of latency (tuning.cc, CollNet).
constexpr double kCollNetLatencyUs = 30.0;

double log2Ceil(int n)
{
    return n <= 1 ? 0.0 : double(std::bit_width(unsigned(n - 1)));
}

}  // namespace

GroupPlacement groupPlacement(long long stride, int size, int gpusPerNode, long long worldSize)
{
    GroupPlacement g;
    g.ranks = std::max(1, size);
    const long long span = stride * (g.ranks - 1) + 1;
    const long long block = stride * g.ranks;
    if (g.ranks == 1 || (worldSize > 0 && worldSize <= gpusPerNode) || (span <= gpusPerNode && gpusPerNode % block == 0)) {
        g.perNode = g.ranks;
        g.nodes = 1;
    } else if (span <= gpusPerNode && block <= gpusPerNode) {
        // Node boundaries fall at multiples of gcd(block, node) inside a block, so the worst
        // split leaves that many ranks (of which every stride-th is a member) on one side.
        g.straddles = true;
        g.nodes = 2;
        g.perNode = int(std::clamp<long long>(std::gcd(block, (long long)gpusPerNode) / stride, 1, g.ranks - 1));
    } else if (stride >= gpusPerNode) {
        g.perNode = 1;
        g.nodes = g.ranks;
    } else {
        // Consecutive members fill a node, then the group continues on the next.
        g.perNode = std::max<int>(1, std::min<long long>(g.ranks, gpusPerNode / stride));
        g.nodes = (g.ranks + g.perNode - 1) / g.perNode;
    }
    return g;
}

double collectiveSeconds(Collective kind, double bytes, const GroupPlacement& g, const Fabric& f)
{
    const int n = g.ranks;
    if (n <= 1 || bytes <= 0)
        return 0.0;
    const bool crosses = g.nodes > 1;
    const double nvlink = f.nvlinkBytesPerSecond * f.nvlinkBusEfficiency;
    // Per-rank bus bandwidth: every member in a node drives its own NIC, so the group's rings
    // together leave the node through perNode NICs (1 NIC with one GPU per node).
    const double network = f.nicBytesPerSecond * f.networkBusEfficiency * g.perNode;
    const double bus = crosses ? std::min(nvlink, network) : nvlink;
    const double us = units::micro;

    if (kind == Collective::SendRecv) {
        const double link = crosses ? f.nicBytesPerSecond * f.networkBusEfficiency : nvlink;
        const double step = crosses ? kNetworkStepUs[kSimple] * f.networkStepScale : kNvlinkRingStepUs[kSimple] * f.nvlinkStepScale;
        return (kRingBaseUs[kSimple] + step) * us + bytes / link;
    }
    if (kind == Collective::AllToAll) {
        // Each rank keeps 1/n and sends (n - 1)/n: to its node's other members over NVLink, to
        // the rest over its own NIC (all-to-all cannot spread over other GPUs' NICs:
        // nccl-tests#267); both at once.
        const double local = bytes * double(g.perNode - 1) / n;
        const double remote = bytes * double(n - g.perNode) / n;
        const double seconds = std::max(local / nvlink, remote / (f.nicBytesPerSecond * f.networkBusEfficiency));
        const double step = crosses ? kNetworkStepUs[kSimple] * f.networkStepScale : kNvlinkRingStepUs[kSimple] * f.nvlinkStepScale;
        return (kRingBaseUs[kSimple] + (n - 1) * step) * us + seconds;
    }

    const bool allReduce = kind == Collective::AllReduce;
    const double busBytes = bytes * (allReduce ? 2.0 : 1.0) * (n - 1) / n;
    // Ring: 2(n - 1) steps for all-reduce, n - 1 for the gathers, of which 2(nodes - 1) (or
    // nodes - 1) cross the network.
    const double steps = allReduce ? 2.0 * (n - 1) : double(n - 1);
    const double interSteps = crosses ? (allReduce ? 2.0 : 1.0) * (g.nodes - 1) : 0.0;
    const double transfer = busBytes / bus;  // seconds at the full bus bandwidth
    const bool tree = allReduce && crosses, pat = !allReduce && crosses && g.perNode == 1;
    const double treeHops = tree ? log2Ceil(g.nodes) : 0.0, patHops = pat ? log2Ceil(n) : 0.0;
    double best = -1.0;
    for (int p = 0; p < 3; ++p) {
        const double ringLatency = kRingBaseUs[p] + (steps - interSteps) * kNvlinkRingStepUs[p] * f.nvlinkStepScale + interSteps * kNetworkStepUs[p] * f.networkStepScale;
        const double ring = ringLatency * us + transfer * kProtocolSlowdown[p];
        best = best < 0 ? ring : std::min(best, ring);
        if (tree) {
            // Tree: up and down the node's chain, then log2(nodes) network hops each way.
            const double treeLatency = kTreeBaseUs[p] + 2.0 * ((g.perNode - 1) * kNvlinkTreeStepUs[p] * f.nvlinkStepScale + treeHops * kNetworkStepUs[p] * f.networkStepScale);
            best = std::min(best, treeLatency * us + transfer * kProtocolSlowdown[p] / kTreeBandwidth);
        }
        if (pat) {
            // PAT (NCCL 2.23+): log2(n) steps, only with one GPU per node (ncclPatEnable).
            const double patLatency = kRingBaseUs[p] + patHops * kNetworkStepUs[p] * f.networkStepScale;
            best = std::min(best, patLatency * us + transfer * kProtocolSlowdown[p] / kPatBandwidth);
        }
    }
    if (allReduce && f.nvls && g.perNode > 1) {
        // Inside the node the NVSwitch reduces: the buffer crosses each GPU's NVLink once each way.
        const double inNode = bytes / (f.nvlinkBytesPerSecond * kNvlsAlgorithmFraction);
        if (!crosses)
            best = std::min(best, (kRingBaseUs[kSimple] + kNvlsLatencyUs) * us + inNode);
    }
    if (allReduce && crosses && f.ibSharp) {
        // CollNet: reduce inside the node (NVLS where it is there, else a ring's reduce-scatter and
        // all-gather on NVLink), each member's 1/perNode share to the switches and back through its
        // own NIC; the two stages pipeline, so the slower sets the time.
        const double shareOut = bytes / g.perNode / (f.nicBytesPerSecond * f.networkBusEfficiency);
        const double inNode = g.perNode <= 1 ? 0.0
                              : f.nvls ? bytes / (f.nvlinkBytesPerSecond * kNvlsAlgorithmFraction)
                                       : 2.0 * double(g.perNode - 1) / g.perNode * bytes / nvlink;
        best = std::min(best, (kRingBaseUs[kSimple] + kCollNetLatencyUs) * us + std::max(shareOut, inNode));
    }
    return best;
}

}  // namespace trainplan
