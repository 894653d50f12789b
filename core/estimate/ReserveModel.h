// The runtime reserve: memory every training process holds on each GPU besides model state
// and activations (CUDA context, GEMM workspaces, NCCL buffers, allocator fragmentation, and
// any extra allowance the plan adds). Each term is a plan field under training.
#pragma once

#include "core/estimate/Estimate.h"

namespace trainplan {

// NCCL's ring connects each rank to one peer on each side, so every channel holds two
// connections' buffers whatever the group size (NCCL maintainers, NVIDIA/nccl#986).
inline constexpr int kNcclConnectionsPerChannel = 2;

// The part of the reserve that does not depend on the stage: context, workspace, NCCL.
struct FixedReserve {
    double cudaContext = 0;
    double workspace = 0;
    int communicators = 0;        // NCCL communicators this rank uses for collectives
    double perCommunicator = 0;   // channels x connections x bytes per connection
    double ncclBuffers = 0;       // communicators x perCommunicator
    double total() const { return cudaContext + workspace + ncclBuffers; }
};

// TP, CP, the DP x CP gradient group and PP, each counted when its group has more than one rank.
int ncclCommunicators(const LayoutSpec& layout);

FixedReserve fixedReserve(const Plan& plan);

// Fills memory's reserve terms from its model state + activations, then its total.
// Inline: it runs for every pipeline stage of every estimate the layout search makes.
inline void applyReserve(const Plan& plan, const FixedReserve& fixed, MemoryBreakdown& m)
{
    m.modelAndActivations = m.weights + m.gradients + m.optimizer + m.activations + m.shardingBuffers;
    m.cudaContext = fixed.cudaContext;
    m.workspace = fixed.workspace;
    m.ncclBuffers = fixed.ncclBuffers;
    m.fragmentation = plan.training.fragmentationFraction * m.modelAndActivations;
    m.extraAllowance = plan.training.bufferBytes;
    m.buffers = m.cudaContext + m.workspace + m.ncclBuffers + m.fragmentation + m.extraAllowance;
    m.total = m.modelAndActivations + m.buffers;
}

}  // namespace trainplan
