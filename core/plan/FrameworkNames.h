// File spellings of the framework object's enumerated switches (the reader, the writer, the UI).
#pragma once

#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkSpec.h"

namespace trainplan {

inline constexpr NameTable<FlashAttentionVersion, 3> kFlashAttentionVersionNames{
    {{FlashAttentionVersion::None, "none"}, {FlashAttentionVersion::V2, "2"}, {FlashAttentionVersion::V3, "3"}}};
inline constexpr NameTable<OptimizerImplementation, 3> kOptimizerImplementationNames{{{OptimizerImplementation::Fused, "fused"},
    {OptimizerImplementation::Foreach, "foreach"}, {OptimizerImplementation::PerTensor, "per-tensor"}}};

inline constexpr NameTable<GradientAccumulation, 3> kGradientAccumulationNames{
    {{GradientAccumulation::Fused, "fused"}, {GradientAccumulation::Autograd, "autograd"}, {GradientAccumulation::Fp32Copy, "fp32-copy"}}};
inline constexpr NameTable<SelectiveRecompute, 2> kSelectiveRecomputeNames{
    {{SelectiveRecompute::CoreAttention, "core-attention"}, {SelectiveRecompute::EveryOtherMatmul, "every-other-matmul"}}};
inline constexpr NameTable<Zero3Gathering, 2> kZero3GatheringNames{
    {{Zero3Gathering::Block, "block"}, {Zero3Gathering::Submodule, "submodule"}}};
inline constexpr NameTable<MoeDispatcher, 3> kMoeDispatcherNames{
    {{MoeDispatcher::AllToAll, "alltoall"}, {MoeDispatcher::AllGather, "allgather"}, {MoeDispatcher::DeepEp, "deepep"}}};

}  // namespace trainplan
