// ZeRO-3 / FSDP's unsharded buffers: the parameters gathered for the computation at hand and the
// gradients made before their reduce-scatter, held per GPU at the peak. They are neither model
// state (which stays sharded) nor activations (the backward does not free them), so the memory
// breakdown shows them as their own term (MemoryBreakdown::shardingBuffers).
#pragma once

#include "core/plan/Plan.h"

namespace trainplan {

// DeepSpeed ZeRO-3's defaults, in parameters (elements): deepspeed/runtime/zero/config.py,
// DeepSpeedZeroConfig (stage3_max_live_parameters, stage3_prefetch_bucket_size,
// reduce_bucket_size).
inline constexpr double kDeepSpeedMaxLiveParameters = 1e9;
inline constexpr double kDeepSpeedPrefetchBucket = 5e7;
inline constexpr double kDeepSpeedReduceBucket = 5e8;

struct ShardingBuffers {
    Zero3Gathering gathering = Zero3Gathering::Block;
    double unitParametersPerGpu = 0;    // one gathered unit: a block, or the largest submodule
    double liveParameters = 0;          // unsharded parameters held at once
    double gradientParameters = 0;      // unsharded gradients held at once (incl. the reduce bucket)
    double weightBytes = 0;             // liveParameters x 16-bit weight bytes
    double gradientBytes = 0;           // gradientParameters x gradient bytes
    double bytes() const { return weightBytes + gradientBytes; }
};

// The largest single weight matrix one GPU computes with (after TP): the embedding table, the
// fused QKV projection, the attention output, or a kind's first or second FFN matrix (the gate
// and up projections fused, as Megatron's linear_fc1 holds them).
double largestSubmoduleParametersPerGpu(const Plan& plan);

// Zero below stage 3. Block (FSDP, FSDP2): the block being computed and the next one prefetched,
// and the block's gradients before their reduce-scatter (2 W + G per block parameter; FSDP2
// _fsdp_param_group.py). Submodule (DeepSpeed): parameters live up to max(largest submodule,
// stage3_max_live_parameters) but never beyond a block, plus the prefetch bucket; gradients of
// the largest submodule plus the reduce bucket (stage3.py's IPG buffer).
ShardingBuffers shardingBuffers(const Plan& plan, double blockParametersPerGpu);

}  // namespace trainplan
