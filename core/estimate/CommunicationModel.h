// Communication volumes and large-message ring times for TP, PP, DP, ZeRO-3 and CP (the
// estimate), and the topology-aware collective cost the step-time model prices every
// collective with (collectiveSeconds).
#pragma once

#include "core/estimate/Estimate.h"

namespace trainplan {

// Ring collectives on n ranks moving S bytes at B bytes/s per rank (Patarasuk and
// Yuan 2009; worked example B, "Check communication"):
//   all-reduce 2 (n - 1)/n S / B;  reduce-scatter or all-gather (n - 1)/n S / B.
double ringAllReduceSeconds(double bytes, int ranks, double bytesPerSecond);
double ringGatherSeconds(double bytes, int ranks, double bytesPerSecond);

// Fills est.communication; needs stages, pipeline and time already estimated.
void estimateCommunication(const Plan& plan, Estimate& est);

enum class Collective { AllReduce, ReduceScatter, AllGather, SendRecv, AllToAll };

// How one communicator's members sit on nodes: ranks = perNode x nodes.
struct GroupPlacement {
    int ranks = 1;
    int perNode = 1;  // of the slowest group: its members in its emptiest node
    int nodes = 1;
    // Groups small enough for a node that still straddle a boundary because the node size is no
    // multiple of their block (64-GPU EP groups on 72-GPU NVL72 domains): perNode is then the
    // smaller side of the worst split, which sets the collective's time.
    bool straddles = false;
};

// The placement of the groups of `size` ranks spaced `stride` apart (rank map strides) on
// nodes of gpusPerNode, in a job of worldSize ranks. Ranks fill nodes in order, so a block of
// stride x size ranks that does not divide the node size leaves some groups split across two
// nodes (RankMap::anyGroupCrossesNodes says the same): the slowest group sets the time.
GroupPlacement groupPlacement(long long stride, int size, int gpusPerNode, long long worldSize);

// The links a collective runs on, per GPU and direction, with the fraction of line rate NCCL's
// bus bandwidth reaches on each (nccl-tests doc/PERFORMANCE.md defines bus bandwidth).
struct Fabric {
    double nvlinkBytesPerSecond = 0;   // scale-up (NVLink) per GPU
    double nicBytesPerSecond = 0;      // scale-out per GPU: one rail NIC each
    double nvlinkBusEfficiency = 1;
    double networkBusEfficiency = 1;
    bool nvls = false;     // NVLink SHARP: all-reduce inside the NVSwitch (cluster.in_network_reduction)
    bool ibSharp = false;  // InfiniBand SHARP: all-reduce across nodes in the network switches
    // The accelerator's ring-step latencies over NCCL's (AcceleratorEfficiency): every protocol's
    // per-step latency on that link scales by it.
    double nvlinkStepScale = 1;
    double networkStepScale = 1;
};

// Seconds for one collective over a group placed as given. bytes is the whole buffer S
// (all-reduce: the message; all-gather / reduce-scatter: the gathered buffer, n x each rank's
// shard; send/recv: the message; all-to-all: what each rank holds before the exchange).
// NCCL's alpha-beta model (src/graph/tuning.cc, ncclTopoTuneModel): the fastest of ring and tree
// (all-reduce; PAT for gathers with one GPU per node) over the Simple, LL128 and LL protocols,
// each costing base + steps x per-step latency + bus bytes / bus bandwidth. Bus bandwidth within
// a node is NVLink's; across nodes the group's members in a node drive that many rail NICs at once
// (NCCL runs one ring per NIC: nccl#412, nccl-tests#277), capped by NVLink. With in-network
// reduction (Fabric::nvls, ibSharp) all-reduce may also take NCCL's NVLS or CollNet (SHARP)
// algorithm, where each GPU moves its buffer once each way instead of a ring's 2(n - 1)/n.
double collectiveSeconds(Collective kind, double bytes, const GroupPlacement& group, const Fabric& fabric);

}  // namespace trainplan
