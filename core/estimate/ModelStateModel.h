// Model state per GPU after ZeRO sharding (Rajbhandari et al. 2020, Sec. 5 and Figure 1):
// stage 1 shards the optimizer state, stage 2 also the gradients, stage 3 also the
// weights, each over the data-parallel ranks (DP x CP in Megatron's distributed optimizer).
#pragma once

#include "core/plan/Plan.h"

namespace trainplan {

struct ShardedState {
    double weights = 0, gradients = 0, optimizer = 0;     // bytes per GPU
    double weightShards = 1, gradientShards = 1, optimizerShards = 1;  // divisors applied
    double total() const { return weights + gradients + optimizer; }
};

ShardedState shardModelState(double parametersPerGpu, const StateBytesPerParameter& state, int zeroStage, double shards);

// Bytes per parameter as this plan keeps them: the precision scheme's, with FP32 gradient
// accumulators where the framework keeps them (gradientBytesPerParameter) and one byte more of
// weights for the FP8 copy FP8 matmuls keep for the step (TransformerEngine's FP8 weight cache;
// only where the accelerator runs FP8).
//
// PyTorch FSDP2 (ZeRO-3 with autograd accumulation) keeps each sharded parameter in FP32 and
// steps it in place: the shard is the master copy, so weights are 4 bytes and the optimizer 8 (the
// Adam moments), 16 in all instead of 18 (torch/distributed/fsdp/_fully_shard/_fsdp_api.py,
// MixedPrecisionPolicy: "FSDP keeps the high-precision sharded parameters"; _fsdp_param.py,
// FSDPParam._init_sharded_param).
StateBytesPerParameter modelStateBytesPerParameter(const Plan& plan);

// Whether the framework keeps FP32 parameter shards as the master copy (FSDP2, above).
bool shardsAreTheMaster(const Plan& plan);

// Whether a step's gradients exist only from its backward on: FSDP2 frees them at the start of
// every step (torchtitan train.py calls optimizers.zero_grad() before the forward; PyTorch's
// zero_grad sets them to None) and, with one micro-batch per step, creates each block's sharded
// gradient when that block's backward reduce-scatters it (_fsdp_collectives.py foreach_reduce),
// while the block's saved activations are freed. The peak is then the larger of the two ends of
// the backward: all activations and no gradients, or all gradients and no activations.
bool gradientsOnlyInBackward(const Plan& plan, int64_t microbatches);

}  // namespace trainplan
