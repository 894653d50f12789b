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
    // The low-precision copy of the weights the GEMMs read: FP8, 1 byte a parameter; NVFP4, half a
    // byte plus one E4M3 scale per 16 values, kept in both orientations because its 1 x 16 blocks
    // run along the GEMM's reduction dimension, which the transpose changes (NVIDIA, "Pretraining
    // Large Language Models with NVFP4", arXiv 2509.25149, Sec. 2; TransformerEngine's NVFP4 tensors
    // hold rowwise and columnwise data): 2 x (0.5 + 1/16) = 1.125 bytes.
    if (formatPeakFlopsPerGpu(plan.cluster, plan.training.matmulPrecision) > 0)
        state.weights += plan.training.matmulPrecision == MatmulPrecision::Nvfp4 ? 2.0 * (0.5 + 1.0 / 16.0) : 1.0;
    return state;
}

}  // namespace trainplan
