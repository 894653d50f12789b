// The framework profiles: what each software stack runs by default. A switch a stack leaves
// to the user (or that its sources do not settle) stays unset, so the prediction's range covers it.
#include <cctype>
#include <vector>

#include "core/plan/FrameworkSpec.h"

namespace trainplan {

namespace {

struct NamedProfile {
    std::string_view name;
    FrameworkSpec spec;
};

const std::vector<NamedProfile>& profiles()
{
    static const std::vector<NamedProfile> table = [] {
        std::vector<NamedProfile> t;
        // Megatron-Core (r0.8-r0.9, 2024) with TransformerEngine as NVIDIA's benchmark scripts run
        // it: --tp-comm-overlap (TE userbuffers), --overlap-grad-reduce, --overlap-param-gather
        // with the distributed optimizer, TE fused kernels and fused Adam, TE's cuDNN fused
        // attention (FlashAttention-3-class on Hopper: FA3 paper Fig. 5 puts cuDNN beside FA3),
        // no dropout in the GPT/Llama recipes; CUDA graphs are opt-in (--cuda-graph-impl).
        FrameworkSpec mc;
        mc.tpCommOverlap = true;
        mc.overlapGradReduce = true;
        mc.overlapParamGather = true;
        mc.fusedKernels = true;
        mc.flashAttention = FlashAttentionVersion::V3;
        mc.optimizer = OptimizerImplementation::Fused;
        mc.cudaGraphs = false;
        mc.dropout = false;
        // BF16 turns on FP32 gradient accumulation and reduction (arguments.py:
        // accumulate_allreduce_grads_in_fp32 for bf16; docs/distrib_optimizer.md, 18 bytes/param).
        mc.fp32Gradients = true;
        // Weight gradients accumulate inside the wgrad GEMMs into main_grad
        // (--gradient-accumulation-fusion, on by default: arguments.py).
        mc.gradientAccumulation = GradientAccumulation::Fused;
        mc.selectiveRecompute = SelectiveRecompute::CoreAttention;
        // MoE as the Megatron-Core recipes of 2024 run it (NeMo's Mixtral and DeepSeek recipes:
        // moe_token_dispatcher_type "alltoall", moe_grouped_gemm true); the all-to-all overlapped
        // with another micro-batch's compute came later (Megatron-Core 0.14, 2025).
        mc.moeDispatcher = MoeDispatcher::AllToAll;
        mc.moeGroupedGemm = true;
        mc.moeCommOverlap = false;
        t.push_back({"megatron-core-2024", mc});
        // Megatron-LM as the 2021-2022 papers ran it (Narayanan et al. 2021; Korthikanti et al.
        // 2022): gradient all-reduce after the backward (no overlap), no ZeRO gathers, fused
        // softmax / bias-GeLU / LayerNorm kernels, apex FusedAdam, no FlashAttention (it
        // postdates them), GPT-3 dropout 0.1.
        FrameworkSpec lm;
        lm.tpCommOverlap = false;
        lm.overlapGradReduce = false;
        lm.overlapParamGather = false;
        lm.fusedKernels = true;
        lm.flashAttention = FlashAttentionVersion::None;
        lm.optimizer = OptimizerImplementation::Fused;
        lm.cudaGraphs = false;
        lm.dropout = true;
        // FP16 with loss scaling: 16-bit gradients reduced as they are (the papers' 16 bytes/param).
        lm.fp32Gradients = false;
        // Contiguous gradient buffers the backward writes into (LocalDDP's main_grad).
        lm.gradientAccumulation = GradientAccumulation::Fused;
        // Selective recompute as the paper that introduced it (Korthikanti et al. 2022, Sec. 5).
        lm.selectiveRecompute = SelectiveRecompute::CoreAttention;
        t.push_back({"megatron-lm-2021", lm});
        // Megatron-DeepSpeed (BigScience, 2022): Megatron's fused kernels under DeepSpeed's
        // pipeline engine and ZeRO-1; DeepSpeed's overlap_comm defaults to false, no
        // FlashAttention, apex FusedAdam. Dropout is a recipe choice: left unknown.
        FrameworkSpec ds;
        ds.tpCommOverlap = false;
        ds.overlapGradReduce = false;
        ds.overlapParamGather = false;
        ds.fusedKernels = true;
        ds.flashAttention = FlashAttentionVersion::None;
        ds.optimizer = OptimizerImplementation::Fused;
        ds.cudaGraphs = false;
        // DeepSpeed's BF16 optimizer keeps FP32 gradient accumulators (bf16_optimizer.py).
        ds.fp32Gradients = true;
        // The pipeline engine calls the BF16 optimizer's update_hp_grads() after every
        // micro-batch's backward (runtime/pipe/engine.py, _exec_backward_pass).
        ds.gradientAccumulation = GradientAccumulation::Fp32Copy;
        ds.selectiveRecompute = SelectiveRecompute::CoreAttention;
        // ZeRO-3 under DeepSpeed gathers submodule by submodule (FrameworkSpec.h, Zero3Gathering).
        ds.zero3Gathering = Zero3Gathering::Submodule;
        // DeepSpeed-MoE (Rajbhandari et al. 2022, Sec. 5): NCCL all-to-all, each local expert its
        // own GEMMs, no overlap of the all-to-all.
        ds.moeDispatcher = MoeDispatcher::AllToAll;
        ds.moeGroupedGemm = false;
        ds.moeCommOverlap = false;
        t.push_back({"megatron-deepspeed-2022", ds});
        // PyTorch FSDP2 (torchtitan): per-block reduce-scatter and prefetched all-gathers
        // (reshard_after_forward, BACKWARD_PRE prefetch: torchtitan docs/fsdp.md), SDPA's
        // FlashAttention-2 backend, AdamW foreach, eager element-wise kernels (torch.compile is
        // off in its default train configs), no TP userbuffers overlap.
        FrameworkSpec fsdp;
        fsdp.fusedKernels = false;
        fsdp.tpCommOverlap = false;
        fsdp.overlapGradReduce = true;
        fsdp.overlapParamGather = true;
        fsdp.flashAttention = FlashAttentionVersion::V2;
        fsdp.optimizer = OptimizerImplementation::Foreach;
        fsdp.cudaGraphs = false;
        fsdp.dropout = false;
        // Sharded FP32 parameters and reduce_dtype float32 (torchtitan mixed_precision_reduce).
        fsdp.fp32Gradients = true;
        // Gathers copied out of the all-gather buffer, gradients copied and cast into the
        // reduce-scatter buffer (FSDP2 _fsdp_collectives.py: foreach_all_gather_copy_out,
        // foreach_reduce).
        fsdp.gradientAccumulation = GradientAccumulation::Autograd;
        // torchtitan's selective activation checkpointing is op-level (its Llama configs:
        // activation_checkpoint.mode "selective", selective_ac_option "op").
        fsdp.selectiveRecompute = SelectiveRecompute::EveryOtherMatmul;
        // FSDP2 gathers one wrapped transformer block at a time (torchtitan fully_shard per block).
        fsdp.zero3Gathering = Zero3Gathering::Block;
        t.push_back({"pytorch-fsdp2", fsdp});
        return t;
    }();
    return table;
}

template <typename T>
void fill(std::optional<T>& target, const std::optional<T>& source)
{
    if (!target)
        target = source;
}

}  // namespace

std::string canonicalFrameworkProfile(const std::string& name)
{
    std::string key;
    for (char c : name)
        if (std::isalnum(static_cast<unsigned char>(c)))
            key += char(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<std::string_view, std::string_view> kAliases[] = {
        {"nemo", "megatron-core-2024"},          {"megatroncore", "megatron-core-2024"},   {"megatronbridge", "megatron-core-2024"},
        {"megatroncore2024", "megatron-core-2024"}, {"torchtitan", "pytorch-fsdp2"},       {"fsdp2", "pytorch-fsdp2"},
        {"fsdp", "pytorch-fsdp2"},               {"pytorchfsdp", "pytorch-fsdp2"},         {"pytorchfsdp2", "pytorch-fsdp2"},
        {"megatrondeepspeed", "megatron-deepspeed-2022"}, {"deepspeed", "megatron-deepspeed-2022"},
        {"megatrondeepspeed2022", "megatron-deepspeed-2022"}, {"megatronlm2021", "megatron-lm-2021"}};
    for (const auto& [alias, canonical] : kAliases)
        if (key == alias)
            return std::string(canonical);
    return name;
}

const FrameworkSpec* findFrameworkProfile(std::string_view name)
{
    for (const auto& p : profiles())
        if (p.name == name)
            return &p.spec;
    return nullptr;
}

const std::array<std::string_view, 4>& frameworkProfileNames()
{
    static const std::array<std::string_view, 4> names{
        "megatron-core-2024", "megatron-lm-2021", "megatron-deepspeed-2022", "pytorch-fsdp2"};
    return names;
}

FrameworkSpec resolvedFramework(const FrameworkSpec& plan)
{
    FrameworkSpec out = plan;
    if (const FrameworkSpec* profile = findFrameworkProfile(plan.profile)) {
        for (const FrameworkFlag& flag : kFrameworkFlags)
            fill(out.*flag.field, profile->*flag.field);
        fill(out.flashAttention, profile->flashAttention);
        fill(out.optimizer, profile->optimizer);
        fill(out.gradientAccumulation, profile->gradientAccumulation);
        fill(out.selectiveRecompute, profile->selectiveRecompute);
        fill(out.zero3Gathering, profile->zero3Gathering);
        fill(out.moeDispatcher, profile->moeDispatcher);
    }
    return out;
}

}  // namespace trainplan
