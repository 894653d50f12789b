#include "estimate/ModelStateModel.h"

namespace trainplan {

ShardedState shardModelState(double params, const StateBytesPerParameter& state, int zeroStage, double shards)
{
    ShardedState s;
    s.weightShards = zeroStage >= 3 ? shards : 1.0;
    s.gradientShards = zeroStage >= 2 ? shards : 1.0;
    s.optimizerShards = zeroStage >= 1 ? shards : 1.0;
    s.weights = params * state.weights / s.weightShards;
    s.gradients = params * state.gradients / s.gradientShards;
    s.optimizer = params * state.optimizer() / s.optimizerShards;
    return s;
}

}  // namespace trainplan
