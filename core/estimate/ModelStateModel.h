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
StateBytesPerParameter modelStateBytesPerParameter(const Plan& plan);

}  // namespace trainplan
