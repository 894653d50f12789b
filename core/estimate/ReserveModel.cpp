#include "core/estimate/ReserveModel.h"

namespace trainplan {

// Defaults (Plan.h, ReserveSpec) and where they come from:
// - CUDA context: about 400 MB per process once CUDA >= 11.7 loads kernels lazily, and over
//   1 GB before (PyTorch maintainers, pytorch/pytorch#109888 and #107667); the default 0.5 GB
//   adds about 100 MB for the cuDNN, NCCL and Transformer Engine kernels a training step loads
//   (an assumption).
// - Workspace: the cuBLAS API reference recommends a 32 MiB workspace on Hopper and later
//   (4 MiB before); PyTorch keeps one cuBLAS workspace per handle and stream
//   (ATen CublasHandlePool) and a cuBLASLt workspace of the same size (pytorch/pytorch#120925).
//   The default 128 MiB is 2 streams x (32 + 32) MiB; on A100 it would be 16 MiB, a difference
//   of 0.1 GB that does not change any layout's fit, so one default serves every accelerator.
// - NCCL: each channel of a communicator keeps a buffer per connection and protocol, Simple
//   4 MiB (NCCL_BUFFSIZE), LL128 4.6875 MiB and LL 0.5 MiB (NCCL src/init.cc computeBuffSizes),
//   so 9.1875 MiB per connection; NCCL uses up to 32 channels on an 8-GPU H100 node
//   (NVIDIA/nccl#1685) and memory grows linearly with channels (NVIDIA/nccl#986).
// - Fragmentation: the stock caching allocator loses a share of memory to fragmentation with
//   recompute and sharding; GMLake (Guo et al., ASPLOS 2024, arXiv 2401.08156) recovers 15 %
//   on average (up to 33 %) on eight LLMs. The default 10 % of model state + activations
//   assumes PyTorch's expandable segments, NVIDIA's first remedy, recover part of it.

int ncclCommunicators(const LayoutSpec& l)
{
    int n = 0;
    // One per model-parallel dimension (TP, CP, PP: PP's for stage-to-stage sends) ...
    forEachParallelDim([&](ParallelDim d) { n += splitsReplica(d) && l.size(d) > 1; });
    // ... and the group gradients reduce over: DP x CP (Megatron-LM's dp-cp group).
    n += parallelSizeProduct(l, sharesWeights) > 1;
    return n;
}

FixedReserve fixedReserve(const Plan& plan)
{
    const ReserveSpec& r = plan.training.reserve;
    FixedReserve f;
    f.cudaContext = r.cudaContextBytes;
    f.workspace = r.workspaceBytes;
    f.communicators = ncclCommunicators(plan.layout);
    f.perCommunicator = double(r.ncclChannels) * kNcclConnectionsPerChannel * r.ncclBytesPerConnection;
    f.ncclBuffers = f.communicators * f.perCommunicator;
    return f;
}

}  // namespace trainplan
