// calibration_runs.json cases as plans (RealityCheck.h, calibrationCases()). One rule per field for
// every row alike; the data's own "assumed" block already fills what a source leaves out, and a
// field it leaves null takes the plan default named here.
#include <nlohmann/json.hpp>

#include "core/analysis/RealityCheck.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/PlanFields.h"
#include "core/presets/Presets.h"

namespace trainplan {

using nlohmann::json;

namespace {

// The CUDA context on an A100 with every kernel loaded at start-up, as BigScience measured it
// (chronicles-prequel.md: 1573 MiB, A100 40GB).
constexpr double kPreLazyLoadingCudaContextBytes = 1573.0 * 1024 * 1024;

// The data's GPU labels as presets.
const AcceleratorPreset* presetFor(const std::string& gpu)
{
    if (gpu.find("H100") != std::string::npos)
        return findAcceleratorPreset("H100 SXM 80GB");
    if (gpu.find("H800") != std::string::npos)
        return findAcceleratorPreset("H800 SXM 80GB");
    if (gpu.find("A100") != std::string::npos)
        return findAcceleratorPreset(gpu.find("40") != std::string::npos ? "A100 SXM 40GB" : "A100 SXM 80GB");
    return nullptr;
}

template <typename T>
T valueOr(const json& j, const char* key, T fallback)
{
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

// The software each source ran, as the plan's framework section. Only what the source or its
// framework's defaults state is set; the rest stays unknown.
FrameworkSpec frameworkFor(const std::string& family, const std::string& method)
{
    FrameworkSpec f;
    if (family.find("Megatron-Core") != std::string::npos) {
        // The README states --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap on TE.
        f.profile = "megatron-core-2024";
    } else if (family.find("BigScience") != std::string::npos) {
        f.profile = "megatron-deepspeed-2022";
    } else if (method == "MegaScale") {
        // MegaScale (Jiang et al. 2024, Sec. 3): overlaps TP, PP and DP communication with
        // compute and uses FlashAttention-2 and fused kernels, on Megatron-LM's code base
        // (its gradient buffers: accumulation fused into the GEMMs).
        f.tpCommOverlap = true;
        f.overlapGradReduce = true;
        f.overlapParamGather = true;
        f.fusedKernels = true;
        f.flashAttention = FlashAttentionVersion::V2;
        f.gradientAccumulation = GradientAccumulation::Fused;
    } else {
        // The Megatron-LM baseline of MegaScale: "the original Megatron-LM", commit 285068c8 of
        // January 2023 (Jiang et al. 2024, Sec. 6.1). In that commit train_step reduces the
        // gradients after the whole backward and gathers the parameters after the optimizer step,
        // both synchronously (megatron/training.py, optimizer/distrib_optimizer.py); TP
        // collectives are not pipelined with the GEMMs; FlashAttention was not yet in Megatron-LM;
        // BF16 gradients are accumulated and reduced in FP32 (arguments.py). Its other switches
        // are 2021-22 Megatron-LM's, dropout 0.1 included (the argument default).
        f.profile = "megatron-lm-2021";
        f.overlapGradReduce = false;
        f.overlapParamGather = false;
        f.tpCommOverlap = false;
        f.flashAttention = FlashAttentionVersion::None;
        f.fp32Gradients = true;
    }
    return f;
}

// The cluster and the dense shape of one row, as every row (dense or MoE) gives them: the
// preset's accelerator with the row's GPU count, failures not modelled, and the model's
// dimensions. GPT-style (GeLU) models take Megatron's GPT defaults, LayerNorm with biases and
// learned positions; SwiGLU models are Llama-style: RMSNorm, no biases, RoPE.
Plan planOfRow(const json& c, const AcceleratorPreset& preset)
{
    const json& m = c.at("model");
    const json& cl = c.at("cluster");
    Plan plan;
    plan.name = "calibration run";
    applyAccelerator(preset, plan.cluster);
    plan.cluster.gpus = cl.at("gpus").get<int>();
    plan.cluster.gpusPerNode = valueOr<int>(cl, "gpus_per_node", 8);
    plan.cluster.mtbfSeconds.reset();
    auto& model = plan.model;
    model.name = c.at("id").get<std::string>();
    model.layers = m.at("layers").get<int>();
    model.hiddenSize = m.at("hidden").get<int>();
    model.ffnHiddenSize = valueOr<int>(m, "ffn_hidden", 4 * model.hiddenSize);
    model.ffnKind = valueOr<std::string>(m, "ffn_kind", "gelu") == "swiglu" ? FfnKind::SwiGlu : FfnKind::Gelu;
    model.attentionHeads = m.at("heads").get<int>();
    model.kvHeads = valueOr<int>(m, "kv_heads", model.attentionHeads);
    model.headDim = model.hiddenSize / model.attentionHeads;
    model.vocabSize = m.at("vocab").get<int>();
    model.tiedEmbeddings = valueOr<bool>(m, "tied_embeddings", true);
    model.sequenceLength = m.at("seq_len").get<int>();
    const bool gpt = model.ffnKind == FfnKind::Gelu;
    model.norm = gpt ? NormKind::LayerNorm : NormKind::RmsNorm;
    model.bias = gpt;
    model.positionEmbedding = gpt ? PositionEmbedding::Learned : PositionEmbedding::Rope;
    return plan;
}

// One moe_cases row as a plan: the dense fields as calibrationCases() reads them, then the
// experts, MLA and MTP, the expert layout and what the source says of its software. Routing the
// source forces balanced ("force-balanced") is a load imbalance of 1; real routing leaves it
// unknown, so the range covers it.
RealityCase moeCase(const json& c)
{
    const json& m = c.at("model");
    const json& cl = c.at("cluster");
    const json& l = c.at("layout");
    RealityCase rc;
    const AcceleratorPreset* preset = presetFor(cl.at("gpu").get<std::string>());
    if (!preset)
        return rc;
    Plan plan = planOfRow(c, *preset);
    auto& model = plan.model;
    MoeSpec moe;
    moe.experts = m.at("experts").get<int>();
    moe.topK = m.at("top_k").get<int>();
    moe.expertFfnHiddenSize = m.at("expert_ffn_hidden").get<int>();
    moe.sharedExperts = valueOr<int>(m, "shared_experts", 0);
    moe.denseLayers = valueOr<int>(m, "dense_layers", 0);
    moe.layerStep = valueOr<int>(m, "layer_step", 1);
    if (valueOr<std::string>(c, "routing", "real") == "force-balanced")
        moe.loadImbalance = 1.0;
    model.moe = moe;
    if (m.contains("mla") && m.at("mla").is_object()) {
        const json& a = m.at("mla");
        model.mla = MlaSpec{a.at("q_lora_rank").get<int>(), a.at("kv_lora_rank").get<int>(), a.at("qk_nope_head_dim").get<int>(),
                            a.at("qk_rope_head_dim").get<int>(), a.at("v_head_dim").get<int>()};
    }
    model.mtpLayers = valueOr<int>(m, "mtp_layers", 0);

    plan.training.tokens = 300e9;
    plan.training.globalBatchSequences = l.at("global_batch_seqs").get<long long>();
    plan.training.microBatchSize = valueOr<int>(l, "micro_batch", 1);
    plan.training.precision = PrecisionScheme::Bf16WithFp32MasterAdam;
    const std::string precision = valueOr<std::string>(l, "precision", "bf16");
    plan.training.matmulPrecision = precision == "fp8-blockwise" ? MatmulPrecision::Fp8Blockwise
                                  : precision == "fp8" ? MatmulPrecision::Fp8 : MatmulPrecision::Bf16;
    auto& layout = plan.layout;
    for (ParallelDim d : kParallelDims) {
        const std::string key(parallelDimKey(d));
        layout.size(d) = valueOr<int>(l, key.c_str(), 1);
    }
    layout.ep = valueOr<int>(l, "ep", 1);
    layout.etp = valueOr<int>(l, "etp", 1);
    layout.virtualStages = valueOr<int>(l, "virtual_stages", 1);
    layout.schedule = layout.virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
    // A schedule the run states by name (DeepSeek-V3: "dualpipe") is the one it ran.
    if (l.contains("schedule") && l.at("schedule").is_string())
        if (const auto named = valueOf(kScheduleNames, l.at("schedule").get<std::string>()))
            layout.schedule = *named;
    layout.unknownFields = 0;
    if (!l.contains("recompute") || l.at("recompute").is_null())
        layout.unknownFields |= kUnknownRecompute;
    layout.zeroStage = valueOr<int>(l, "zero_stage", 1);
    layout.sequenceParallel = valueOr<bool>(l, "sequence_parallel", layout.tp > 1);
    const std::string recompute = valueOr<std::string>(l, "recompute", "none");
    layout.recompute = recompute == "full" ? Recompute::Full : recompute == "selective" ? Recompute::Selective : Recompute::None;

    // The software: AutoModel runs PyTorch FSDP2 with TransformerEngine's grouped GEMMs and DeepEP
    // (the source's "kernels" note); DeepSeek's HAI-LLM overlaps its all-to-all under DualPipe.
    const std::string family = c.at("family").get<std::string>();
    if (family.find("FSDP2") != std::string::npos) {
        plan.framework.profile = "pytorch-fsdp2";
        // "TE + DeepEP" (the source's kernels): TransformerEngine's fused kernels and grouped GEMMs.
        plan.framework.fusedKernels = true;
        plan.framework.moeGroupedGemm = true;
    }
    if (family.find("DeepSeek-V3") != std::string::npos) {
        // The technical report's own all-to-all (Sec. 3.2.2): each token crosses InfiniBand once
        // per node and is forwarded over NVLink, FP8 dispatch, at most 4 nodes per token (the
        // data's routing note), DeepEP's design.
        plan.framework.moeDispatcher = MoeDispatcher::DeepEp;
        plan.model.moe->maxNodesPerToken = 4;
    }
    if (c.contains("framework")) {
        const json& f = c.at("framework");
        if (f.contains("moe_dispatcher"))
            plan.framework.moeDispatcher = valueOf(kMoeDispatcherNames, f.at("moe_dispatcher").get<std::string>());
        if (f.contains("moe_comm_overlap"))
            plan.framework.moeCommOverlap = f.at("moe_comm_overlap").get<bool>();
    }

    rc.location = valueOr<std::string>(c, "source", "");
    rc.plan = plan;
    rc.accelerator = preset->name;
    rc.framework = plan.framework.profile.empty() ? "unstated" : plan.framework.profile;
    rc.family = family;
    rc.id = c.at("id").get<std::string>();
    // Out of sample: nothing in the model was fitted to these rows, and they stay out of the
    // band the dense rows set (their own error is reported beside it).
    rc.gated = false;
    rc.metric = RealityMetric::TokensPerSecondPerGpu;
    const json& measured = c.at("measured");
    if (measured.contains("tokens_per_s_per_gpu") && measured.at("tokens_per_s_per_gpu").is_number())
        rc.measured = measured.at("tokens_per_s_per_gpu").get<double>();
    else if (c.contains("derived") && c.at("derived").contains("tokens_per_s_per_gpu"))
        rc.measured = c.at("derived").at("tokens_per_s_per_gpu").at("value").get<double>();
    return rc;
}

}  // namespace

std::vector<RealityCase> calibrationMoeCases(const json& runs)
{
    std::vector<RealityCase> out;
    if (!runs.contains("moe_cases"))
        return out;
    for (const auto& c : runs.at("moe_cases")) {
        RealityCase rc = moeCase(c);
        if (rc.measured > 0)
            out.push_back(std::move(rc));
    }
    return out;
}

std::vector<RealityCase> calibrationCases(const json& runs)
{
    std::vector<RealityCase> out;
    for (const auto& c : runs.at("cases")) {
        const json& cl = c.at("cluster");
        const json& l = c.at("layout");
        const json& measured = c.at("measured");
        const std::string family = c.at("family");
        const std::string method = c.contains("measured_other") ? valueOr<std::string>(c.at("measured_other"), "method", "") : "";
        const AcceleratorPreset* preset = presetFor(cl.at("gpu").get<std::string>());
        if (!preset)
            continue;

        Plan plan = planOfRow(c, *preset);

        plan.training.tokens = 300e9;
        plan.training.globalBatchSequences = l.at("global_batch_seqs").get<long long>();
        plan.training.microBatchSize = valueOr<int>(l, "micro_batch", 1);
        plan.training.precision = PrecisionScheme::Bf16WithFp32MasterAdam;
        auto& layout = plan.layout;
        // The sizes under the plan file's keys, required or defaulted as a plan file has them.
        for (ParallelDim d : kParallelDims) {
            const std::string key(parallelDimKey(d));
            const PlanField& field = planField("layout." + key);
            layout.size(d) =
                field.required ? l.at(key).get<int>() : valueOr<int>(l, key.c_str(), std::stoi(std::string(field.defaultValue)));
        }
        layout.virtualStages = valueOr<int>(l, "virtual_stages", 1);
        layout.schedule = layout.virtualStages > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
        // A field the data leaves null is unknown to the plan too (Plan.h, LayoutUnknown): the
        // analysis assumes its default (recompute: the lightest that fits) and the range covers
        // the rest, as for any plan that leaves it out.
        layout.unknownFields = 0;
        const auto unknownIfNull = [&](const char* key, unsigned bit) {
            if (!l.contains(key) || l.at(key).is_null())
                layout.unknownFields |= bit;
        };
        unknownIfNull("virtual_stages", kUnknownSchedule);
        unknownIfNull("sequence_parallel", kUnknownSequenceParallel);
        unknownIfNull("recompute", kUnknownRecompute);
        // Unstated: Megatron's distributed optimizer (ZeRO-1), sequence parallelism with TP; an
        // unstated recompute is unknown (above): the analysis takes the lightest that fits.
        layout.zeroStage = valueOr<int>(l, "zero_stage", 1);
        layout.sequenceParallel = valueOr<bool>(l, "sequence_parallel", layout.tp > 1);
        const std::string recompute = valueOr<std::string>(l, "recompute", "none");
        layout.recompute = recompute == "full" ? Recompute::Full : recompute == "selective" ? Recompute::Selective : Recompute::None;
        plan.framework = frameworkFor(family, method);
        layout.stageLayers.clear();
        // The BigScience sweep read its peaks as the device's used memory (nvidia-smi), where its
        // own notes measure the CUDA context (kernels loaded at start-up, before CUDA 11.7's lazy
        // module loading) at 1,573 MiB on an A100 (bigscience train/tr11-176B-ml/
        // chronicles-prequel.md; docs/research/memory-and-ranges.md, Sec. 1.1): the source's
        // stated environment, in place of the 0.5 GB lazy-loading default.
        if (family.find("BigScience") != std::string::npos)
            plan.training.reserve.cudaContextBytes = kPreLazyLoadingCudaContextBytes;

        const std::string id = c.at("id").get<std::string>() + (c.contains("sub_id") ? " " + c.at("sub_id").get<std::string>() : "");
        const std::string location = valueOr<std::string>(c, "source", "");
        RealityCase base;
        base.location = location;
        base.plan = plan;
        base.accelerator = preset->name;
        base.framework = plan.framework.profile.empty() ? "unstated" : plan.framework.profile;
        base.family = family.find("MegaScale") != std::string::npos ? "MegaScale (Jiang et al. 2024)" : family;
        // MegaScale's own rows run a modified block the plan cannot describe (the data's notes).
        base.gated = method != "MegaScale";

        if (measured.contains("mfu") && measured.at("mfu").is_number()) {
            RealityCase rc = base;
            rc.id = id;
            rc.metric = RealityMetric::Mfu;
            rc.measured = measured.at("mfu").get<double>();
            out.push_back(std::move(rc));
        } else if (measured.contains("hardware_tflops_per_gpu") && measured.at("hardware_tflops_per_gpu").is_number()) {
            RealityCase rc = base;
            rc.id = id;
            rc.metric = RealityMetric::HardwareTflopsPerGpu;
            rc.measured = measured.at("hardware_tflops_per_gpu").get<double>();
            out.push_back(std::move(rc));
        }
        if (measured.contains("peak_memory_gib") && measured.at("peak_memory_gib").is_number()) {
            RealityCase rc = base;
            rc.id = id + " memory";
            rc.metric = RealityMetric::PeakMemoryGib;
            rc.measured = measured.at("peak_memory_gib").get<double>();
            rc.gated = false;
            out.push_back(std::move(rc));
        }
    }
    return out;
}

}  // namespace trainplan
