#include "core/estimate/ModelStateModel.h"

#include "core/estimate/ActivationModel.h"
#include "core/presets/Presets.h"

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

namespace {

bool accumulatesWith(const Plan& plan, GradientAccumulation mode)
{
    return frameworkSwitch(plan.framework, &FrameworkSpec::gradientAccumulation) == mode;
}

}  // namespace

bool shardsAreTheMaster(const Plan& plan)
{
    return plan.layout.zeroStage >= 3 && accumulatesWith(plan, GradientAccumulation::Autograd)
        && plan.training.precision == PrecisionScheme::Bf16WithFp32MasterAdam;
}

bool gradientsOnlyInBackward(const Plan& plan, int64_t microbatches)
{
    return microbatches == 1 && plan.layout.pp == 1 && plan.layout.zeroStage >= 3 && accumulatesWith(plan, GradientAccumulation::Autograd);
}

StateBytesPerParameter modelStateBytesPerParameter(const Plan& plan)
{
    StateBytesPerParameter state = stateBytesPerParameter(plan.training.precision);
    state.gradients = gradientBytesPerParameter(plan);
    if (shardsAreTheMaster(plan)) {
        state.weights = state.master;
        state.master = 0.0;
    }
    if (plan.training.matmulPrecision != MatmulPrecision::Bf16 && fp8PeakFlopsPerGpu(plan.cluster) > 0)
        state.weights += 1.0;
    return state;
}

}  // namespace trainplan
