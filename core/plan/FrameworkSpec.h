// What the plan says about the training software (the plan's "framework" object): a named
// profile and any individual switches. A switch left unset takes the profile's value; a switch
// neither the plan nor its profile sets is unknown, and the step-time model widens its range
// over both of its values (steptime/FrameworkOptionsFor.h).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace trainplan {

// framework.flash_attention: the attention kernel, the one FlashAttention field of a plan ("none":
// unfused attention, storing the s x s scores).
enum class FlashAttentionVersion { None, V2, V3 };
// What an unknown framework.flash_attention is expected to be: FlashAttention-2, which every
// stack since 2023 ships (PyTorch SDPA, Megatron-Core, DeepSpeed); the range covers 3
// (steptime/StepTimeParameters.cpp, the framework switches).
inline constexpr FlashAttentionVersion kUnknownFlashAttentionExpected = FlashAttentionVersion::V2;
// Adam as run: one multi-tensor kernel over all parameters (apex/TE FusedAdam), PyTorch's
// foreach (a few multi-tensor kernels per op), or one kernel per op per tensor.
enum class OptimizerImplementation { Fused, Foreach, PerTensor };
// How each micro-batch's weight gradients reach the gradients the optimizer reads:
//   Fused     the weight-gradient GEMMs add straight into FP32 main_grad buffers (Megatron's
//             gradient_accumulation_fusion): no pass of its own;
//   Autograd  PyTorch's AccumulateGrad adds each micro-batch's gradient into .grad in its own dtype;
//             with FSDP2 sharding the gathered parameters are copied out of the all-gather buffer
//             and the gradients copied (and cast) into the reduce-scatter buffer each micro-batch;
//   Fp32Copy  DeepSpeed's BF16 optimizer: 16-bit gradients zeroed before each backward, then added
//             into FP32 copies after it (bf16_optimizer.py update_hp_grads, pipe/engine.py).
enum class GradientAccumulation { Fused, Autograd, Fp32Copy };
// What layout.recompute = "selective" keeps and recomputes:
//   CoreAttention     Megatron's selective recompute: everything but the attention core (Q K^T,
//                     softmax, the weighted values) is kept; the core is recomputed (Korthikanti
//                     et al. 2022, Sec. 5; Megatron-Core --recompute-modules core_attn);
//   EveryOtherMatmul  torchtitan's op-level selective checkpointing: each block keeps its input,
//                     the attention kernel's output and every other matmul's output, and recomputes
//                     the rest, the other matmuls included (torchtitan parallelize_llama.py,
//                     _apply_ac_to_transformer_block, the "op" policy's _save_list and mm counter).
// Unknown reads as CoreAttention, the meaning this tool gives "selective" everywhere else.
enum class SelectiveRecompute { CoreAttention, EveryOtherMatmul };

// How ZeRO-3 / FSDP gathers the parameters it shards, which sets the unsharded buffers at the peak:
//   Block      PyTorch FSDP and FSDP2, Megatron-FSDP: one wrapped block (a transformer layer) at a
//              time, the next one prefetched, its gradients unsharded until reduce-scattered
//              (FSDP2 _fsdp_param_group.py: all-gather per group, BACKWARD_PRE prefetch);
//   Submodule  DeepSpeed ZeRO-3: each submodule's own parameters (a Linear) when its hook fires,
//              released once the live count passes stage3_max_live_parameters (1e9), with
//              stage3_prefetch_bucket_size (5e7) fetched ahead and gradients copied into a
//              reduce bucket of reduce_bucket_size (5e8) elements (deepspeed/runtime/zero/
//              config.py defaults; partitioned_param_coordinator.py).
// Unknown reads as Block, the heavier of the two.
enum class Zero3Gathering { Block, Submodule };

// How a mixture-of-experts layer moves tokens to the ranks holding their experts and back
// (Megatron-Core moe_token_dispatcher_type; DeepEP, DeepSeek 2025):
//   AllToAll   NCCL all-to-all of each token to its top-k experts' ranks (dispatch), and back (combine);
//   AllGather  every rank gathers the whole expert-parallel group's tokens and keeps its experts'
//              (Megatron's "allgather" dispatcher, meant for small EP);
//   DeepEp     DeepEP's kernels: a token crosses the network once per destination node, then fans
//              out over NVLink (DeepSeek-V3 technical report, Sec. 3.2.2), sending only to the ranks
//              its experts are on.
enum class MoeDispatcher { AllToAll, AllGather, DeepEp };

struct FrameworkSpec {
    std::string profile;  // empty: none named
    std::optional<bool> tpCommOverlap;        // TE userbuffers AG/RS overlapped with GEMMs
    std::optional<bool> overlapGradReduce;    // bucketed gradient reduction under the backward
    std::optional<bool> overlapParamGather;   // ZeRO/FSDP parameter all-gathers prefetched
    std::optional<bool> fusedKernels;         // fused bias/activation/norm/softmax kernels
    std::optional<FlashAttentionVersion> flashAttention;
    std::optional<OptimizerImplementation> optimizer;
    std::optional<bool> cudaGraphs;           // layers captured as CUDA graphs (no per-kernel CPU launch)
    std::optional<bool> dropout;              // dropout after attention and in the residual path
    std::optional<bool> fp32Gradients;        // gradients accumulated and reduced in FP32 (main_grad)
    std::optional<GradientAccumulation> gradientAccumulation;  // per-micro-batch gradient passes
    std::optional<SelectiveRecompute> selectiveRecompute;      // what "selective" recompute keeps
    std::optional<Zero3Gathering> zero3Gathering;              // ZeRO-3's unit of parameter gathering
    std::optional<MoeDispatcher> moeDispatcher;                // how tokens reach their experts
    std::optional<bool> moeGroupedGemm;       // a rank's experts in one grouped GEMM
    std::optional<bool> moeCommOverlap;       // expert all-to-all hidden under another micro-batch's compute

    bool empty() const;
    bool operator==(const FrameworkSpec&) const = default;
};

// The on/off switches, each with its plan field: the reader, the writer and the profile
// resolution loop over this table, so a new switch is a member and a row (and its field's row
// in PlanFields.cpp).
struct FrameworkFlag {
    std::string_view path;
    std::optional<bool> FrameworkSpec::*field;
};
inline constexpr std::array<FrameworkFlag, 9> kFrameworkFlags{{
    {"framework.tp_comm_overlap", &FrameworkSpec::tpCommOverlap},
    {"framework.overlap_grad_reduce", &FrameworkSpec::overlapGradReduce},
    {"framework.overlap_param_gather", &FrameworkSpec::overlapParamGather},
    {"framework.fused_kernels", &FrameworkSpec::fusedKernels},
    {"framework.cuda_graphs", &FrameworkSpec::cudaGraphs},
    {"framework.dropout", &FrameworkSpec::dropout},
    {"framework.fp32_gradients", &FrameworkSpec::fp32Gradients},
    {"framework.moe_grouped_gemm", &FrameworkSpec::moeGroupedGemm},
    {"framework.moe_comm_overlap", &FrameworkSpec::moeCommOverlap},
}};

inline bool FrameworkSpec::empty() const
{
    for (const FrameworkFlag& flag : kFrameworkFlags)
        if (this->*flag.field)
            return false;
    return profile.empty() && !flashAttention && !optimizer && !gradientAccumulation && !selectiveRecompute
        && !zero3Gathering && !moeDispatcher;
}

// The named profiles, every switch set or deliberately left unknown (FrameworkProfiles.cpp
// cites what each one runs). nullptr for a name that is no profile.
const FrameworkSpec* findFrameworkProfile(std::string_view name);
// The profile's own name for a common other name of its stack, case and punctuation aside:
// "NeMo", "Megatron-Core", "megatron_bridge" -> megatron-core-2024; "torchtitan", "FSDP2",
// "pytorch-fsdp" -> pytorch-fsdp2; "Megatron-DeepSpeed", "deepspeed" -> megatron-deepspeed-2022.
// Any other name is returned as given (the reader then says which names it knows).
std::string canonicalFrameworkProfile(const std::string& name);

// "megatron-core-2024", ...: for messages and the UI.
const std::array<std::string_view, 4>& frameworkProfileNames();

// The plan's switch where given, else its profile's, else unset.
FrameworkSpec resolvedFramework(const FrameworkSpec& plan);

// One switch resolved the same way, without copying the spec (the estimate's hot path).
template <typename T>
std::optional<T> frameworkSwitch(const FrameworkSpec& plan, std::optional<T> FrameworkSpec::*field)
{
    if (plan.*field || plan.profile.empty())
        return plan.*field;
    const FrameworkSpec* profile = findFrameworkProfile(plan.profile);
    return profile ? profile->*field : std::nullopt;
}

}  // namespace trainplan
