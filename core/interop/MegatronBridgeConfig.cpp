// Key names and meanings from Megatron-Bridge (github.com/NVIDIA-NeMo/Megatron-Bridge):
//   src/megatron/bridge/training/config.py: ConfigContainer's sections (model, train, optimizer,
//     ddp, dist, dataset, mixed_precision, comm_overlap, ...); TrainingConfig takes train_iters or
//     train_samples, not both; ddp.use_distributed_optimizer and optimizer.use_distributed_optimizer
//     (and the two overlap_param_gather) are kept in sync; Megatron-FSDP (ddp/dist.use_megatron_fsdp)
//     shards by ddp.data_parallel_sharding_strategy (no_shard, optim, optim_grads,
//     optim_grads_params: Megatron-Core's DistributedDataParallelConfig);
//   src/megatron/bridge/training/initialize.py: dist.use_tp_pp_dp_mapping orders ranks
//     tp-cp-ep-pp-dp instead of tp-cp-ep-dp-pp;
//   src/megatron/bridge/training/mixed_precision.py: the mixed_precision recipe names (bf16_mixed,
//     bf16_with_fp8_delayed_scaling_mixed, ..._current_scaling_ (tensorwise), ..._subchannel_scaling_
//     (blockwise), bf16_with_mxfp8_mixed, bf16_with_nvfp4_mixed), applied over model.fp8/fp4 at run time;
//   src/megatron/bridge/models/gpt_provider.py and the model bridges (deepseek_v3_bridge.py):
//     the model's keys, moe_layer_freq as a list of 0/1 per layer, the MoE and MLA keys;
//   docs/megatron-lm-to-megatron-bridge.md: the Megatron-LM argument each key stands for;
//   examples/*/conf/*_override_example.yaml, tutorials/recipes/llama/conf/*.yaml: the file's form.
// Megatron-Core's own meanings (recompute, moe_layer_freq as an int: layers 0, k, 2k, ... are MoE;
// expert_tensor_parallel_size null: the TP size) as MegatronImport.cpp reads the same settings.
#include "core/interop/MegatronBridgeConfig.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/estimate/PipelineModel.h"
#include "core/interop/MegatronExport.h"
#include "core/interop/YamlTree.h"
#include "core/plan/EnumNames.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

namespace {

using nlohmann::json;

// ConfigContainer's sections whose keys change none of the figures.
bool neutralSection(const std::string& section)
{
    static const std::set<std::string> sections = {"rng", "logger", "checkpoint", "scheduler", "tokenizer", "profiling", "validation",
        "ft", "straggler", "nvrx_straggler", "inprocess_restart", "rerun_state_machine", "tensor_inspect", "env_vars",
        "optimizer_config_override_provider"};
    return sections.count(section) > 0;
}

// Keys of the other sections that change none of the figures: initialisation, RoPE and norm
// constants, router losses, data, evaluation, learning rate and loss scaling, timeouts.
bool neutralKey(const std::string& section, const std::string& key)
{
    static const std::set<std::string> keys = {"model.init_method_std", "model.rotary_base", "model.rotary_percent",
        "model.rotary_scaling_factor", "model.rope_scaling", "model.rope_scaling_factor", "model.seq_len_interpolation_factor",
        "model.layernorm_epsilon", "model.make_vocab_size_divisible_by", "model.should_pad_vocab", "model.moe_aux_loss_coeff",
        "model.moe_z_loss_coeff", "model.moe_router_load_balancing_type", "model.moe_router_score_function",
        "model.moe_router_topk_scaling_factor", "model.moe_router_dtype", "model.moe_router_bias_update_rate",
        "model.moe_router_pre_softmax", "model.moe_input_jitter_eps", "model.moe_token_drop_policy", "model.moe_hybridep_num_sms",
        "model.moe_router_force_load_balancing", "model.mtp_loss_scaling_factor", "model.apply_query_key_layer_scaling",
        "model.attention_softmax_in_fp32", "model.calculate_per_token_loss", "model.transformer_impl", "model.params_dtype",
        "model.pipeline_dtype", "model.autocast_dtype", "model.bf16", "model.fp16", "model.deallocate_pipeline_outputs",
        "model.use_te_rng_tracker", "model.cuda_graph_warmup_steps", "model.cuda_graph_scope", "model.max_position_embeddings",
        "model.cross_entropy_fusion_impl", "model.cross_entropy_loss_fusion", "model.masked_softmax_fusion", "model.persist_layer_norm",
        "model.apply_rope_fusion", "model.bias_dropout_fusion", "model.bias_activation_fusion", "model.moe_permute_fusion",
        "model.moe_router_fusion", "model.tp_comm_bootstrap_backend", "model.fp8_margin", "model.fp8_amax_history_len",
        "model.fp8_amax_compute_algo", "model.fp8_wgrad", "model.fp8_param", "model.fp4_param", "model.moe_router_padding_for_fp8",
        "train.eval_iters", "train.eval_interval", "train.exit_interval", "train.exit_duration_in_mins", "train.exit_signal_handler",
        "train.manual_gc", "train.manual_gc_interval", "train.manual_gc_eval", "train.skip_train", "train.empty_unused_memory_level",
        "train.check_weight_hash_across_dp_replicas_interval", "train.check_optimizer_step_success", "train.skip_sync_grad_norm_across_mp",
        "train.decrease_batch_size_if_needed", "optimizer.optimizer", "optimizer.lr", "optimizer.min_lr", "optimizer.weight_decay",
        "optimizer.clip_grad", "optimizer.adam_beta1", "optimizer.adam_beta2", "optimizer.adam_eps", "optimizer.sgd_momentum",
        "optimizer.bf16", "optimizer.fp16", "optimizer.params_dtype", "optimizer.loss_scale", "optimizer.initial_loss_scale",
        "optimizer.min_loss_scale", "optimizer.loss_scale_window", "optimizer.hysteresis", "optimizer.log_num_zeros_in_grad",
        "optimizer.barrier_with_L1_time", "optimizer.timers", "ddp.check_for_nan_in_grad", "ddp.check_for_large_grads",
        "ddp.bucket_size", "ddp.average_in_collective", "ddp.align_param_gather", "ddp.pad_buckets_for_high_nccl_busbw",
        "ddp.nccl_ub", "ddp.fsdp_double_buffer", "ddp.keep_fp8_transpose_cache", "dist.distributed_backend",
        "dist.distributed_timeout_minutes", "dist.align_grad_reduce", "dist.use_gloo_process_groups", "dist.external_gpu_device_mapping",
        "dist.enable_megatron_core_experimental", "dist.high_priority_stream_groups", "dist.lazy_init", "dist.use_decentralized_pg",
        "mixed_precision.params_dtype", "mixed_precision.pipeline_dtype", "mixed_precision.autocast_dtype",
        "mixed_precision.autocast_enabled", "mixed_precision.fp8_margin", "mixed_precision.fp8_amax_history_len",
        "mixed_precision.fp8_amax_compute_algo", "mixed_precision.fp8_wgrad", "mixed_precision.fp8_param",
        "mixed_precision.fp8_param_gather", "mixed_precision.fp4_param", "mixed_precision.fp4_param_gather",
        "mixed_precision.loss_scale", "mixed_precision.initial_loss_scale", "mixed_precision.min_loss_scale",
        "mixed_precision.loss_scale_window", "mixed_precision.hysteresis", "mixed_precision.reuse_grad_buf_for_mxfp8_param_ag",
        "mixed_precision.fp8_dot_product_attention", "mixed_precision.fp8_multi_head_attention", "comm_overlap.tp_comm_bootstrap_backend",
        "comm_overlap.bucket_size", "comm_overlap.align_param_gather"};
    if (section == "dataset")
        return key != "seq_length";  // paths, blends, workers, splits: the data, not the run's shape
    if (section == "optimizer" && (key.rfind("lr", 0) == 0 || key.rfind("adam_", 0) == 0 || key.rfind("decoupled_", 0) == 0))
        return true;
    if (section == "model" && (key.rfind("yarn_", 0) == 0 || key.rfind("hf_model", 0) == 0))
        return true;
    return keys.count(section + "." + key) > 0;
}

std::string path(const std::string& section, const std::string& key)
{
    return section.empty() ? key : section + "." + key;
}

// The parsed file, with the keys read so far: what no one read is listed at the end.
class Config {
public:
    explicit Config(json doc)
        : doc_(std::move(doc))
    {
    }
    // The key's value (null included), marked read; nullptr when the file lacks it.
    const json* find(const std::string& section, const std::string& key)
    {
        const json* s = &doc_;
        if (!section.empty()) {
            const auto t = doc_.find(section);
            if (t == doc_.end() || !t->is_object())
                return nullptr;
            s = &*t;
        }
        const auto k = s->find(key);
        if (k == s->end())
            return nullptr;
        used_.insert(path(section, key));
        return &*k;
    }
    bool has(const std::string& section, const std::string& key) const
    {
        const auto t = doc_.find(section);
        return t != doc_.end() && t->is_object() && t->contains(key);
    }
    // Present and not null, of the kind asked; PlanError naming the key (and the plan field) otherwise.
    std::optional<long long> integer(const std::string& section, const std::string& key, const std::string& field = {})
    {
        const json* v = find(section, key);
        if (!v || v->is_null())
            return std::nullopt;
        if (!v->is_number_integer())
            throw PlanError({PlanProblem{name(section, key, field), "must be a whole number, got " + v->dump()}});
        return v->get<long long>();
    }
    std::optional<double> number(const std::string& section, const std::string& key, const std::string& field = {})
    {
        const json* v = find(section, key);
        if (!v || v->is_null())
            return std::nullopt;
        if (!v->is_number() || !std::isfinite(v->get<double>()))
            throw PlanError({PlanProblem{name(section, key, field), "must be a number, got " + v->dump()}});
        return v->get<double>();
    }
    std::optional<bool> boolean(const std::string& section, const std::string& key, const std::string& field = {})
    {
        const json* v = find(section, key);
        if (!v || v->is_null())
            return std::nullopt;
        if (!v->is_boolean())
            throw PlanError({PlanProblem{name(section, key, field), "must be true or false, got " + v->dump()}});
        return v->get<bool>();
    }
    std::optional<std::string> text(const std::string& section, const std::string& key, const std::string& field = {})
    {
        const json* v = find(section, key);
        if (!v || v->is_null())
            return std::nullopt;
        if (!v->is_string())
            throw PlanError({PlanProblem{name(section, key, field), "must be a string, got " + v->dump()}});
        return v->get<std::string>();
    }
    // Every key the file has that no one read: (section, key); a top-level value as ("", key).
    std::vector<std::pair<std::string, std::string>> unread() const
    {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& [section, keys] : doc_.items()) {
            if (!keys.is_object()) {
                if (!used_.count(section))
                    out.emplace_back(std::string(), section);
                continue;
            }
            for (const auto& [key, value] : keys.items())
                if (!used_.count(path(section, key)))
                    out.emplace_back(section, key);
        }
        return out;
    }

private:
    static std::string name(const std::string& section, const std::string& key, const std::string& field)
    {
        return path(section, key) + (field.empty() ? "" : " (" + field + ")");
    }
    json doc_;
    std::set<std::string> used_;
};

// TrainPlan's GEMM precision for a Megatron-Core fp8 recipe or fp4 setting.
std::string matmulOfRecipe(const std::string& recipe)
{
    if (recipe == "blockwise")
        return "fp8-blockwise";
    if (recipe == "mxfp8")
        return "mxfp8";
    return "fp8";  // delayed, tensorwise: per-tensor scales
}

// A mixed_precision recipe name (mixed_precision.py; '-' read as '_' as Megatron-Bridge does):
// the GEMM precision and whether it is a 16-bit recipe at all. Empty: not a recipe name.
struct PrecisionRecipe {
    std::string matmul;
    bool sixteenBit = true;
    bool fp16 = false;
};
std::optional<PrecisionRecipe> recipeOf(std::string name)
{
    std::replace(name.begin(), name.end(), '-', '_');
    if (name.find("mixed") == std::string::npos && name != "bf16" && name != "fp16")
        return std::nullopt;
    PrecisionRecipe r;
    r.fp16 = name.rfind("fp16", 0) == 0 || name.rfind("16_mixed", 0) == 0;
    if (name.find("nvfp4") != std::string::npos)
        r.matmul = "nvfp4";
    else if (name.find("mxfp8") != std::string::npos)
        r.matmul = "mxfp8";
    else if (name.find("subchannel") != std::string::npos || (name.rfind("nanov2", 0) == 0 && name.find("fp8") != std::string::npos))
        r.matmul = "fp8-blockwise";  // nanov2_..._current_scaling sets fp8_recipe blockwise
    else if (name.find("fp8") != std::string::npos)
        r.matmul = "fp8";
    else if (name == "bf16_mixed" || name == "fp16_mixed" || name == "bf16" || name == "fp16" || name == "16_mixed" || name == "bf16_mixed")
        r.matmul = "bf16";
    else
        return std::nullopt;
    return r;
}

// A per-layer 0/1 MoE pattern as a plan holds it: a dense prefix, then every step-th layer.
// nullopt when the pattern is another shape.
std::optional<std::pair<int, int>> prefixAndStep(const std::vector<int>& pattern)
{
    const int layers = int(pattern.size());
    int prefix = 0;
    while (prefix < layers && pattern[size_t(prefix)] == 0)
        ++prefix;
    if (prefix == layers)
        return std::nullopt;
    // The first MoE layer is prefix = dense + step - 1 and the second (if any) prefix + step: so
    // the step is 1, the gap to the second, or (one MoE layer) past the last layer. Three linear
    // checks, whatever the pattern.
    int second = prefix + 1;
    while (second < layers && pattern[size_t(second)] == 0)
        ++second;
    for (int step : {1, second < layers ? second - prefix : std::max(1, layers - prefix)}) {
        if (step > prefix + 1)
            continue;
        MoeSpec probe;
        probe.denseLayers = prefix + 1 - step;
        probe.layerStep = step;
        bool matches = true;
        for (int l = 0; l < layers && matches; ++l)
            matches = probe.isMoeLayer(l) == (pattern[size_t(l)] == 1);
        if (matches)
            return std::make_pair(probe.denseLayers, step);
    }
    return std::nullopt;
}

std::string yamlNumber(double v)
{
    std::ostringstream s;
    s << v;
    std::string out = s.str();
    if (out.find_first_of(".eE") == std::string::npos)
        out += ".0";
    return out;
}

}  // namespace

bool looksLikeMegatronBridgeConfig(const std::string& text)
{
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        for (const char* section : {"model:", "train:", "optimizer:", "ddp:", "dist:", "mixed_precision:", "comm_overlap:"}) {
            const size_t n = std::strlen(section);
            if (line.compare(0, n, section) == 0 && (line.size() == n || line[n] == ' ' || line[n] == '\t' || line[n] == '\r' || line[n] == '#'))
                return true;
        }
    }
    return false;
}

ImportReport importMegatronBridgeConfig(const std::string& text, const Plan& base, const std::string& modelName)
{
    json tree = parseYamlTree(text);
    if (!tree.is_object())
        throw PlanError({PlanProblem{"", "a Megatron-Bridge config is a mapping of ConfigContainer sections (model:, train:, ...); this YAML is not"}});
    for (const char* section : {"model", "train", "optimizer", "ddp", "dist", "dataset", "comm_overlap"})
        if (tree.contains(section) && !tree[section].is_object() && !tree[section].is_null())
            throw PlanError({PlanProblem{section, "must be a mapping of keys, got " + tree[section].dump()}});
    Config c(std::move(tree));
    ImportReport report;
    report.format = "megatron-bridge";
    const auto mapped = [&](const std::string& key, const std::string& field, const std::string& note = {}) {
        report.mapped.push_back({key, field, note});
    };
    const auto unmapped = [&](const std::string& key, const std::string& note) { report.unmapped.push_back({key, {}, note}); };
    json doc = planToJson(base);
    json& model = doc["model"];
    json& layout = doc["layout"];
    json& training = doc["training"];
    json& framework = doc["framework"];
    const json baseModel = model;
    framework = json::object();
    framework["profile"] = "megatron-core-2024";
    report.assumptions.push_back("framework: the Megatron-Core profile (Megatron-Bridge trains with Megatron-Core); the file's switches override it");
    report.assumptions.push_back("what the file does not set is the recipe's, which TrainPlan does not have: the base plan's (" + base.model.name + ")");
    report.assumptions.push_back("the GPU count is not in the file (the launcher sets it): cluster.gpus stays the base plan's and DP follows it");

    // The model's shape.
    const auto modelInt = [&](const char* key, const char* field) -> std::optional<long long> {
        const auto v = c.integer("model", key, std::string("model.") + field);
        if (v) {
            model[field] = *v;
            mapped(std::string("model.") + key, std::string("model.") + field);
        }
        return v;
    };
    modelInt("num_layers", "layers");
    modelInt("hidden_size", "hidden_size");
    modelInt("ffn_hidden_size", "ffn_hidden_size");
    modelInt("num_attention_heads", "attention_heads");
    if (c.has("model", "num_query_groups")) {
        if (!modelInt("num_query_groups", "kv_heads")) {
            model["kv_heads"] = model["attention_heads"];
            mapped("model.num_query_groups", "model.kv_heads", "null: a group per head (multi-head attention)");
        }
    }
    if (c.has("model", "kv_channels")) {
        if (!modelInt("kv_channels", "head_dim")) {
            const long long hidden = model.value("hidden_size", 0LL), heads = model.value("attention_heads", 0LL);
            if (heads <= 0 || hidden % heads != 0)
                throw PlanError({PlanProblem{"model.kv_channels (model.head_dim)", "is null and hidden_size is not a multiple of num_attention_heads"}});
            model["head_dim"] = hidden / heads;
            mapped("model.kv_channels", "model.head_dim", "null: hidden_size / num_attention_heads");
        }
    }
    if (c.has("model", "vocab_size") && !modelInt("vocab_size", "vocab_size"))
        unmapped("model.vocab_size", "null: the tokenizer's vocabulary, which the file does not give; model.vocab_size stays the base plan's");
    if (const auto norm = c.text("model", "normalization")) {
        if (*norm == "RMSNorm" || *norm == "LayerNorm") {
            model["norm"] = *norm == "RMSNorm" ? "rmsnorm" : "layernorm";
            mapped("model.normalization", "model.norm");
        } else {
            unmapped("model.normalization", "\"" + *norm + "\" is neither RMSNorm nor LayerNorm: the base plan's norm stays");
        }
    }
    if (const auto gated = c.boolean("model", "gated_linear_unit")) {
        model["ffn_kind"] = *gated ? "swiglu" : "gelu";
        mapped("model.gated_linear_unit", "model.ffn_kind", *gated ? "gated: three h x f matrices" : "not gated: two h x f matrices");
    }
    if (const json* act = c.find("model", "activation_func"))
        report.mapped.push_back({"model.activation_func", "model.ffn_kind",
            "the activation (" + (act->is_string() ? act->get<std::string>() : act->dump()) + "); gated_linear_unit decides the shape"});
    if (const auto bias = c.boolean("model", "add_bias_linear")) {
        model["bias"] = *bias;
        mapped("model.add_bias_linear", "model.bias");
    }
    if (const auto position = c.text("model", "position_embedding_type")) {
        if (*position == "learned_absolute") {
            model["position_embedding"] = "learned";
            mapped("model.position_embedding_type", "model.position_embedding");
        } else if (*position == "rope" || *position == "yarn" || *position == "none") {
            model["position_embedding"] = "rope";
            mapped("model.position_embedding_type", "model.position_embedding", *position == "rope" ? std::string() : *position + ": counted as rotary (no parameters)");
        } else {
            unmapped("model.position_embedding_type", "\"" + *position + "\": the base plan's position embedding stays");
        }
    }
    if (const auto tied = c.boolean("model", "share_embeddings_and_output_weights")) {
        model["tied_embeddings"] = *tied;
        mapped("model.share_embeddings_and_output_weights", "model.tied_embeddings");
    }
    // Mixture of experts: num_moe_experts null or 0 is a dense model.
    if (c.has("model", "num_moe_experts")) {
        const auto experts = c.integer("model", "num_moe_experts", "model.moe.experts");
        if (!experts || *experts == 0) {
            model.erase("moe");
            mapped("model.num_moe_experts", "model.moe", "no experts: a dense model");
        } else {
            json moe = model.contains("moe") && model["moe"].is_object() ? model["moe"] : json::object();
            moe["experts"] = *experts;
            if (!moe.contains("top_k")) {
                moe["top_k"] = 2;
                if (!c.has("model", "moe_router_topk"))
                    report.assumptions.push_back("no moe_router_topk: top-2 (Megatron-Core's default)");
            }
            if (!moe.contains("expert_ffn_hidden_size")) {
                moe["expert_ffn_hidden_size"] = model.value("ffn_hidden_size", 0LL);
                if (!c.has("model", "moe_ffn_hidden_size"))
                    report.assumptions.push_back("no moe_ffn_hidden_size: each expert is ffn_hidden_size wide (Megatron-Core's default)");
            }
            model["moe"] = moe;
            mapped("model.num_moe_experts", "model.moe.experts");
        }
    }
    if (model.contains("moe") && model["moe"].is_object()) {
        json& moe = model["moe"];
        if (const auto k = c.integer("model", "moe_router_topk", "model.moe.top_k")) {
            moe["top_k"] = *k;
            mapped("model.moe_router_topk", "model.moe.top_k");
        }
        if (const auto w = c.integer("model", "moe_ffn_hidden_size", "model.moe.expert_ffn_hidden_size")) {
            moe["expert_ffn_hidden_size"] = *w;
            mapped("model.moe_ffn_hidden_size", "model.moe.expert_ffn_hidden_size");
        }
        // The shared experts' total width (Megatron-Core builds them as one MLP): k times the
        // routed width is k shared experts of it, another width one shared expert of its own.
        if (c.has("model", "moe_shared_expert_intermediate_size")) {
            const auto shared = c.integer("model", "moe_shared_expert_intermediate_size", "model.moe.shared_experts");
            const long long routed = moe.value("expert_ffn_hidden_size", 0LL);
            moe.erase("shared_expert_ffn_hidden_size");
            if (!shared || *shared <= 0) {
                moe.erase("shared_experts");
                mapped("model.moe_shared_expert_intermediate_size", "model.moe.shared_experts", "no shared experts");
            } else if (routed > 0 && *shared % routed == 0) {
                moe["shared_experts"] = *shared / routed;
                mapped("model.moe_shared_expert_intermediate_size", "model.moe.shared_experts",
                    std::to_string(*shared / routed) + " shared experts of the routed width");
            } else {
                moe["shared_experts"] = 1;
                moe["shared_expert_ffn_hidden_size"] = *shared;
                mapped("model.moe_shared_expert_intermediate_size", "model.moe.shared_expert_ffn_hidden_size", "one shared expert of this width");
            }
        }
        if (const auto bias = c.boolean("model", "moe_router_enable_expert_bias")) {
            moe["router_bias"] = *bias;
            mapped("model.moe_router_enable_expert_bias", "model.moe.router_bias");
        }
        const auto groups = c.integer("model", "moe_router_num_groups");
        const auto groupTopK = c.integer("model", "moe_router_group_topk");
        if (groupTopK && groups.value_or(1) > 1) {
            moe["max_nodes_per_token"] = *groupTopK;
            mapped("model.moe_router_group_topk", "model.moe.max_nodes_per_token", "one expert group per node");
            mapped("model.moe_router_num_groups", "model.moe.max_nodes_per_token");
        } else if (c.has("model", "moe_router_group_topk") || c.has("model", "moe_router_num_groups")) {
            moe.erase("max_nodes_per_token");
            mapped(c.has("model", "moe_router_group_topk") ? "model.moe_router_group_topk" : "model.moe_router_num_groups",
                "model.moe.max_nodes_per_token", "one group or none: routing not limited by node");
        }
        if (c.has("model", "moe_expert_capacity_factor")) {
            if (const auto cf = c.number("model", "moe_expert_capacity_factor", "model.moe.capacity_factor"))
                moe["capacity_factor"] = *cf;
            else
                moe.erase("capacity_factor");
            mapped("model.moe_expert_capacity_factor", "model.moe.capacity_factor", moe.contains("capacity_factor") ? "" : "null: dropless");
        }
        if (const json* freq = c.find("model", "moe_layer_freq")) {
            const long long layers = model.value("layers", 0LL);
            if (freq->is_number_integer() && freq->get<long long>() > 1 && freq->get<long long>() <= layers && layers <= 100000) {
                // Megatron-Core makes layers 0, k, 2k, ... MoE; the nearest plan is every k-th layer.
                const int k = int(freq->get<long long>());
                moe.erase("dense_layers");
                moe["layer_step"] = k;
                mapped("model.moe_layer_freq", "model.moe.layer_step", megatronEveryKthLayerNote(int(layers), k));
            } else {
                if (freq->is_number_integer() && freq->get<long long>() > layers && layers > 0)
                    throw PlanError({PlanProblem{"model.moe_layer_freq (model.moe.layer_step)",
                        "must be at most the " + std::to_string(layers) + " layers, got " + freq->dump()}});
                std::vector<int> pattern;
                if (freq->is_number_integer() && freq->get<long long>() == 1 && layers > 0 && layers <= 100000) {
                    pattern.assign(size_t(layers), 1);
                } else if (freq->is_array() && (long long)freq->size() == layers) {
                    for (const auto& v : *freq) {
                        if (!v.is_number_integer() || (v.get<long long>() != 0 && v.get<long long>() != 1))
                            break;
                        pattern.push_back(int(v.get<long long>()));
                    }
                }
                if ((long long)pattern.size() != layers || layers <= 0)
                    throw PlanError({PlanProblem{"model.moe_layer_freq (model.moe.dense_layers)",
                        "must be a whole number or a list of " + std::to_string(layers) + " 0s and 1s, got " + freq->dump().substr(0, 60)}});
                const auto shape = prefixAndStep(pattern);
                if (!shape)
                    throw PlanError({PlanProblem{"model.moe_layer_freq (model.moe.dense_layers)",
                        "this pattern of MoE layers is not a dense prefix followed by every k-th layer; describe the runs with model.layer_kinds"}});
                moe.erase("dense_layers");
                moe.erase("layer_step");
                if (shape->first > 0)
                    moe["dense_layers"] = shape->first;
                if (shape->second > 1)
                    moe["layer_step"] = shape->second;
                mapped("model.moe_layer_freq", "model.moe.dense_layers",
                    std::to_string(shape->first) + " dense layers first, then every "
                        + (shape->second == 1 ? std::string("layer") : std::to_string(shape->second) + "th layer") + " MoE");
            }
        }
    }
    // Multi-head latent attention (Megatron-Core's defaults: kv 512, qk 128, rope 64, v 128).
    if (const auto mla = c.boolean("model", "multi_latent_attention")) {
        if (!*mla) {
            model.erase("mla");
        } else if (!model.contains("mla")) {
            model["mla"] = {{"q_lora_rank", 0}, {"kv_lora_rank", 512}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64}, {"v_head_dim", 128}};
        }
        mapped("model.multi_latent_attention", "model.mla");
    }
    if (model.contains("mla") && model["mla"].is_object()) {
        json& mla = model["mla"];
        const auto put = [&](const char* key, const char* field) {
            if (!c.has("model", key))
                return;
            const auto v = c.integer("model", key, std::string("model.mla.") + field);
            mla[field] = v.value_or(0);
            mapped(std::string("model.") + key, std::string("model.mla.") + field, v ? "" : "null: 0");
        };
        put("q_lora_rank", "q_lora_rank");
        put("kv_lora_rank", "kv_lora_rank");
        put("qk_head_dim", "qk_nope_head_dim");
        put("qk_pos_emb_head_dim", "qk_rope_head_dim");
        put("v_head_dim", "v_head_dim");
        model["head_dim"] = mla.value("v_head_dim", model.value("head_dim", 0LL));
    }
    if (c.has("model", "mtp_num_layers")) {
        const auto mtp = c.integer("model", "mtp_num_layers", "model.mtp_layers");
        if (mtp && *mtp > 0)
            model["mtp_layers"] = *mtp;
        else
            model.erase("mtp_layers");
        mapped("model.mtp_num_layers", "model.mtp_layers", mtp ? "" : "null: no multi-token prediction");
    }
    // A shape other than the base plan's is a model of its own: named by hf_model_id, else the file.
    {
        json before = baseModel, after = model;
        for (json* m : {&before, &after}) {
            m->erase("name");
            m->erase("sequence_length");
        }
        if (before != after) {
            const auto hf = c.text("model", "hf_model_id");
            model["name"] = hf ? *hf : !modelName.empty() ? modelName : std::string("Megatron-Bridge model");
            if (hf)
                mapped("model.hf_model_id", "model.name");
            doc.erase("name");
            doc["name_user_set"] = false;
            if (model.contains("layer_kinds")) {
                model.erase("layer_kinds");
                report.assumptions.push_back("the file changes the model's shape: the base plan's layer kinds are dropped");
            }
        }
    }
    // The sequence length: the model's and the dataset's must agree (Megatron-Bridge's docs).
    const auto seq = c.integer("model", "seq_length", "model.sequence_length");
    const auto dataSeq = c.integer("dataset", "seq_length", "model.sequence_length");
    if (seq) {
        model["sequence_length"] = *seq;
        mapped("model.seq_length", "model.sequence_length");
    }
    if (dataSeq) {
        if (!seq || *seq == *dataSeq) {
            model["sequence_length"] = *dataSeq;
            mapped("dataset.seq_length", "model.sequence_length");
        } else {
            unmapped("dataset.seq_length", "differs from model.seq_length (" + std::to_string(*seq) + "), which Megatron-Bridge requires it to match: the model's is used");
        }
    }

    // The layout.
    const auto degree = [&](const char* key, const char* field) -> std::optional<long long> {
        const auto v = c.integer("model", key, std::string("layout.") + field);
        if (v) {
            layout[field] = *v;
            mapped(std::string("model.") + key, std::string("layout.") + field);
        }
        return v;
    };
    degree("tensor_model_parallel_size", "tp");
    degree("pipeline_model_parallel_size", "pp");
    degree("context_parallel_size", "cp");
    // The expert sizes act only on expert layers: a dense model keeps 1 and lists a larger one.
    const bool experts = model.contains("moe") && model["moe"].is_object();
    for (const auto& [key, field] : {std::pair<const char*, const char*>{"expert_model_parallel_size", "ep"}, {"expert_tensor_parallel_size", "etp"}}) {
        if (!c.has("model", key))
            continue;
        const json* v = c.find("model", key);
        if (!experts && v->is_number_integer() && v->get<long long>() > 1) {
            layout[field] = 1;
            unmapped(std::string("model.") + key, "acts only on expert layers, and the model has none (num_moe_experts)");
        } else if (!degree(key, field)) {
            // null: Megatron-Core takes the TP size for the experts' TP, 1 for EP.
            layout[field] = std::string(field) == "etp" && experts ? layout.value("tp", 1LL) : 1LL;
            mapped(std::string("model.") + key, std::string("layout.") + field,
                std::string(field) == "etp" ? "null: the tensor-parallel size (Megatron-Core's default)" : "null: 1");
        }
    }
    const long long pp = layout.value("pp", 1LL);
    const long long layers = model.value("layers", 0LL);
    if (c.has("model", "virtual_pipeline_model_parallel_size")) {
        const auto v = c.integer("model", "virtual_pipeline_model_parallel_size", "layout.virtual_stages");
        if (v && *v > 1) {
            layout["virtual_stages"] = *v;
            layout["schedule"] = "interleaved";
            mapped("model.virtual_pipeline_model_parallel_size", "layout.virtual_stages", "interleaved 1F1B");
        } else {
            layout["virtual_stages"] = 1;
            layout["schedule"] = "1f1b";
            mapped("model.virtual_pipeline_model_parallel_size", "layout.schedule", "one chunk per stage: 1F1B, Megatron-Core's schedule");
        }
    }
    // Uneven first and last stages, the others even (Megatron-Core's num_layers_in_first/last_pipeline_stage).
    const bool splitGiven = c.has("model", "num_layers_in_first_pipeline_stage") || c.has("model", "num_layers_in_last_pipeline_stage");
    const auto first = c.integer("model", "num_layers_in_first_pipeline_stage", "layout.stage_layers");
    const auto last = c.integer("model", "num_layers_in_last_pipeline_stage", "layout.stage_layers");
    if ((first || last) && pp >= 2) {
        const long long f = first.value_or(-1), l = last.value_or(-1);
        const long long fixed = (f >= 0) + (l >= 0);
        const long long rest = layers - std::max(f, 0LL) - std::max(l, 0LL);
        const long long middle = pp - fixed;
        if (rest < 0 || (middle > 0 && rest % middle != 0) || (middle == 0 && rest != 0) || pp > 100000)
            throw PlanError({PlanProblem{std::string(first ? "model.num_layers_in_first_pipeline_stage" : "model.num_layers_in_last_pipeline_stage")
                                             + " (layout.stage_layers)",
                "leaves " + std::to_string(rest) + " layers that do not split evenly over the other " + std::to_string(middle) + " stages"}});
        std::vector<long long> split(size_t(pp), middle > 0 ? rest / middle : 0);
        if (f >= 0)
            split.front() = f;
        if (l >= 0)
            split.back() = l;
        layout["stage_layers"] = split;
        if (first)
            mapped("model.num_layers_in_first_pipeline_stage", "layout.stage_layers");
        if (last)
            mapped("model.num_layers_in_last_pipeline_stage", "layout.stage_layers");
    } else if (splitGiven || layout.value("pp", 1LL) != base.layout.pp || layers != base.model.layers) {
        layout.erase("stage_layers");
        for (const char* key : {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"})
            if (c.has("model", key))
                mapped(std::string("model.") + key, "layout.stage_layers", "even stages");
    }
    if (const auto sp = c.boolean("model", "sequence_parallel", "layout.sequence_parallel")) {
        layout["sequence_parallel"] = *sp;
        mapped("model.sequence_parallel", "layout.sequence_parallel");
    }
    // Recomputation (Megatron-Core: granularity full or selective; full by uniform groups or a block of each stage).
    if (c.has("model", "recompute_granularity")) {
        const auto granularity = c.text("model", "recompute_granularity", "layout.recompute");
        if (granularity && *granularity != "full" && *granularity != "selective")
            throw PlanError({PlanProblem{"model.recompute_granularity (layout.recompute)", "must be full, selective or null, got \"" + *granularity + "\""}});
        layout["recompute"] = granularity.value_or("none");
        mapped("model.recompute_granularity", "layout.recompute", granularity ? "" : "null: no recomputation");
        const auto method = c.text("model", "recompute_method");
        const auto count = c.integer("model", "recompute_num_layers", "layout.recompute_layers");
        if (granularity == "full") {
            if (method.value_or("uniform") == "block" && count) {
                layout["recompute_layers"] = *count;
                mapped("model.recompute_method", "layout.recompute_layers", "block: recompute_num_layers of each stage (chunk)");
                mapped("model.recompute_num_layers", "layout.recompute_layers");
            } else {
                layout["recompute_layers"] = 0;
                if (method)
                    mapped("model.recompute_method", "layout.recompute_layers", "uniform: every layer recomputed, in groups of recompute_num_layers");
                if (count)
                    mapped("model.recompute_num_layers", "layout.recompute_layers", "uniform: the group size; every layer is recomputed");
            }
        } else {
            layout.erase("recompute_layers");
            for (const char* key : {"recompute_method", "recompute_num_layers"}) {
                const json* v = c.find("model", key);
                if (v && v->is_null())
                    mapped(std::string("model.") + key, "layout.recompute", "null");
                else if (v)
                    unmapped(std::string("model.") + key, "acts only with recompute_granularity: full");
            }
        }
    }
    for (const char* key : {"recompute_modules", "fine_grained_activation_offloading", "offload_modules", "cpu_offloading"})
        if (c.find("model", key))
            unmapped(std::string("model.") + key, "what is recomputed or offloaded beyond the granularity: sized as the plan's layout.recompute");

    // Data parallelism: the distributed optimizer (ZeRO-1), or Megatron-FSDP's sharding strategy.
    const auto fsdpDdp = c.boolean("ddp", "use_megatron_fsdp");
    const auto fsdpDist = c.boolean("dist", "use_megatron_fsdp");
    const auto torchFsdp = c.boolean("dist", "use_torch_fsdp2");
    const auto distOptDdp = c.boolean("ddp", "use_distributed_optimizer");
    const auto distOptOptimizer = c.boolean("optimizer", "use_distributed_optimizer");
    const auto strategy = c.text("ddp", "data_parallel_sharding_strategy");
    const bool megatronFsdp = fsdpDdp.value_or(false) || fsdpDist.value_or(false);
    const auto fsdpKeys = [&](const std::string& note) {
        if (fsdpDdp)
            mapped("ddp.use_megatron_fsdp", "layout.zero_stage", note);
        if (fsdpDist)
            mapped("dist.use_megatron_fsdp", "layout.zero_stage", note);
    };
    const auto distOptKeys = [&](const std::string& note) {
        if (distOptDdp)
            mapped("ddp.use_distributed_optimizer", "layout.zero_stage", note);
        if (distOptOptimizer)
            mapped("optimizer.use_distributed_optimizer", "layout.zero_stage", note);
    };
    if (megatronFsdp) {
        static const char* kStrategies[] = {"no_shard", "optim", "optim_grads", "optim_grads_params"};
        const std::string s = strategy.value_or("optim_grads_params");
        const auto it = std::find(std::begin(kStrategies), std::end(kStrategies), s);
        if (it == std::end(kStrategies))
            throw PlanError({PlanProblem{"ddp.data_parallel_sharding_strategy (layout.zero_stage)",
                "must be no_shard, optim, optim_grads or optim_grads_params, got \"" + s + "\""}});
        const int stage = int(it - std::begin(kStrategies));
        layout["zero_stage"] = stage;
        if (strategy)
            mapped("ddp.data_parallel_sharding_strategy", "layout.zero_stage", "ZeRO-" + std::to_string(stage));
        else
            report.assumptions.push_back("Megatron-FSDP without data_parallel_sharding_strategy: optim_grads_params (ZeRO-3, the recipes' setting)");
        fsdpKeys("Megatron-FSDP, sharding by data_parallel_sharding_strategy");
        distOptKeys("Megatron-FSDP shards by data_parallel_sharding_strategy");
        if (torchFsdp)
            unmapped("dist.use_torch_fsdp2", "Megatron-FSDP is on: the two are exclusive");
    } else if (torchFsdp.value_or(false)) {
        layout["zero_stage"] = 3;
        mapped("dist.use_torch_fsdp2", "layout.zero_stage", "PyTorch FSDP2: parameters, gradients and optimizer sharded (ZeRO-3)");
        fsdpKeys("off");
        distOptKeys("FSDP2 shards everything");
    } else {
        if (torchFsdp)
            mapped("dist.use_torch_fsdp2", "layout.zero_stage", "off");
        fsdpKeys("off");
        if (distOptDdp || distOptOptimizer) {
            const bool on = distOptDdp.value_or(false) || distOptOptimizer.value_or(false);
            layout["zero_stage"] = on ? 1 : 0;
            distOptKeys(on ? "the distributed optimizer shards optimizer state (ZeRO-1)" : "optimizer state replicated (ZeRO-0)");
        }
        if (strategy)
            unmapped("ddp.data_parallel_sharding_strategy", "acts only with use_megatron_fsdp: true");
    }
    if (const auto mapping = c.boolean("dist", "use_tp_pp_dp_mapping")) {
        layout["rank_order"] = *mapping ? "tp-cp-pp-dp" : "tp-cp-dp-pp";
        mapped("dist.use_tp_pp_dp_mapping", "layout.rank_order", *mapping ? "ranks ordered tp-cp-ep-pp-dp" : "ranks ordered tp-cp-ep-dp-pp");
    }
    // DP follows the GPUs: Megatron-Bridge derives it from the world size.
    layout["dp"] = "auto";

    // The batch and the budget.
    if (const auto mbs = c.integer("train", "micro_batch_size", "training.micro_batch_size")) {
        training["micro_batch_size"] = *mbs;
        mapped("train.micro_batch_size", "training.micro_batch_size");
    }
    if (const auto gbs = c.integer("train", "global_batch_size", "training.global_batch_sequences")) {
        training.erase("global_batch_tokens");
        training["global_batch_sequences"] = *gbs;
        mapped("train.global_batch_size", "training.global_batch_sequences");
    }
    const double seqLength = model.value("sequence_length", double(base.model.sequenceLength));
    const auto iters = c.integer("train", "train_iters", "training.tokens");
    const auto samples = c.integer("train", "train_samples", "training.tokens");
    if (iters) {
        const double gbs = training.value("global_batch_sequences", double(base.training.globalBatchSequences));
        training["tokens"] = double(*iters) * gbs * seqLength;
        mapped("train.train_iters", "training.tokens", "iterations x global_batch_size x seq_length");
        if (samples)
            unmapped("train.train_samples", "train_iters is given too, which Megatron-Bridge refuses: train_iters is used");
    } else if (samples) {
        training["tokens"] = double(*samples) * seqLength;
        mapped("train.train_samples", "training.tokens", "samples x seq_length");
    }

    // Precision: the model's fp8/fp4 settings, then mixed_precision, which Megatron-Bridge applies over them.
    const auto setMatmul = [&](const std::string& matmul) { training["matmul_precision"] = matmul; };
    const auto fp8 = c.text("model", "fp8", "training.matmul_precision");
    const auto fp8Recipe = c.text("model", "fp8_recipe", "training.matmul_precision");
    const auto fp4 = c.text("model", "fp4", "training.matmul_precision");
    c.find("model", "fp4_recipe");
    bool modelPrecision = false;
    if (fp4 || fp8 || c.has("model", "fp8") || c.has("model", "fp4")) {
        setMatmul(fp4 ? "nvfp4" : fp8 ? matmulOfRecipe(fp8Recipe.value_or("tensorwise")) : "bf16");
        modelPrecision = true;
    }
    const std::vector<std::string> modelPrecisionKeys = {"model.fp8", "model.fp8_recipe", "model.fp4", "model.fp4_recipe"};
    const json* mp = c.find("", "mixed_precision");
    bool mixed = false;
    if (mp && mp->is_string()) {
        const auto recipe = recipeOf(mp->get<std::string>());
        if (!recipe) {
            unmapped("mixed_precision", "\"" + mp->get<std::string>() + "\" is no mixed-precision recipe Megatron-Bridge registers: the base plan's precision stays");
        } else {
            mixed = true;
            setMatmul(recipe->matmul);
            training["precision"] = "bf16-fp32-master-adam";
            mapped("mixed_precision", "training.matmul_precision",
                (recipe->fp16 ? "FP16 with loss scaling, sized and timed as BF16; " : "") + std::string("GEMMs ") + recipe->matmul
                    + ", FP32 master weights and Adam moments");
        }
    } else if (mp && mp->is_null()) {
        mixed = true;
        training["precision"] = "fp32-adam";
        setMatmul(modelPrecision ? training["matmul_precision"].get<std::string>() : "bf16");
        mapped("mixed_precision", "training.precision", "null: no mixed-precision recipe, the model trains in FP32");
    } else if (mp && mp->is_object()) {
        const auto b16 = c.boolean("mixed_precision", "bf16");
        const auto f16 = c.boolean("mixed_precision", "fp16");
        const auto f32 = c.boolean("mixed_precision", "fp32");
        const auto mpFp8 = c.text("mixed_precision", "fp8", "training.matmul_precision");
        const auto mpRecipe = c.text("mixed_precision", "fp8_recipe", "training.matmul_precision");
        const auto mpFp4 = c.text("mixed_precision", "fp4", "training.matmul_precision");
        c.find("mixed_precision", "fp4_recipe");
        if (b16.value_or(false) || f16.value_or(false)) {
            training["precision"] = "bf16-fp32-master-adam";
            mapped(b16 ? "mixed_precision.bf16" : "mixed_precision.fp16", "training.precision", "16-bit weights, FP32 master weights and Adam moments");
        } else if (f32.value_or(false)) {
            training["precision"] = "fp32-adam";
            mapped("mixed_precision.fp32", "training.precision");
        }
        for (const char* key : {"bf16", "fp16", "fp32"})
            if (c.has("mixed_precision", key) && std::none_of(report.mapped.begin(), report.mapped.end(), [&](const ImportedKey& k) {
                    return k.key == std::string("mixed_precision.") + key;
                }))
                mapped(std::string("mixed_precision.") + key, "training.precision", "off");
        if (c.has("mixed_precision", "fp8") || c.has("mixed_precision", "fp4")) {
            mixed = true;
            setMatmul(mpFp4 ? "nvfp4" : mpFp8 ? matmulOfRecipe(mpRecipe.value_or("tensorwise")) : "bf16");
            for (const char* key : {"fp8", "fp8_recipe", "fp4", "fp4_recipe"})
                if (c.has("mixed_precision", key))
                    mapped(std::string("mixed_precision.") + key, "training.matmul_precision");
        }
    } else if (mp) {
        throw PlanError({PlanProblem{"mixed_precision (training.matmul_precision)", "must be a recipe name, a mapping or null, got " + mp->dump()}});
    }
    for (const std::string& key : modelPrecisionKeys) {
        const std::string k = key.substr(6);
        if (!c.has("model", k))
            continue;
        if (mixed)
            unmapped(key, "mixed_precision sets it again at run time: the recipe named there is used");
        else
            mapped(key, "training.matmul_precision", k == "fp8_recipe" ? "delayed, tensorwise: per-tensor scales" : std::string());
    }

    // The software switches.
    const auto flag = [&](const std::string& section, const char* key, const char* field) {
        if (const auto v = c.boolean(section, key)) {
            framework[field] = *v;
            mapped(section + "." + key, std::string("framework.") + field);
        }
    };
    flag("ddp", "overlap_grad_reduce", "overlap_grad_reduce");
    flag("comm_overlap", "overlap_grad_reduce", "overlap_grad_reduce");
    {
        // Megatron-Bridge turns both on when either is (config.py).
        const auto a = c.boolean("ddp", "overlap_param_gather"), b = c.boolean("optimizer", "overlap_param_gather");
        const auto d = c.boolean("comm_overlap", "overlap_param_gather");
        if (a || b || d) {
            framework["overlap_param_gather"] = a.value_or(false) || b.value_or(false) || d.value_or(false);
            for (const char* key : {"ddp.overlap_param_gather", "optimizer.overlap_param_gather", "comm_overlap.overlap_param_gather"})
                if (c.has(std::string(key).substr(0, std::string(key).find('.')), std::string(key).substr(std::string(key).find('.') + 1)))
                    mapped(key, "framework.overlap_param_gather");
        }
    }
    flag("ddp", "grad_reduce_in_fp32", "fp32_gradients");
    flag("model", "tp_comm_overlap", "tp_comm_overlap");
    flag("comm_overlap", "tp_comm_overlap", "tp_comm_overlap");
    flag("model", "overlap_moe_expert_parallel_comm", "moe_comm_overlap");
    flag("comm_overlap", "overlap_moe_expert_parallel_comm", "moe_comm_overlap");
    flag("model", "moe_grouped_gemm", "moe_grouped_gemm");
    if (const auto impl = c.text("model", "cuda_graph_impl")) {
        framework["cuda_graphs"] = *impl != "none";
        mapped("model.cuda_graph_impl", "framework.cuda_graphs");
    }
    if (const auto fusion = c.boolean("model", "gradient_accumulation_fusion")) {
        framework["gradient_accumulation"] = *fusion ? "fused" : "autograd";
        mapped("model.gradient_accumulation_fusion", "framework.gradient_accumulation");
    }
    if (const auto backend = c.text("model", "attention_backend")) {
        if (*backend == "flash" || *backend == "fused" || *backend == "unfused" || *backend == "local") {
            framework["flash_attention"] = *backend == "flash" ? "2" : *backend == "fused" ? "3" : "none";
            mapped("model.attention_backend", "framework.flash_attention",
                *backend == "fused" ? "cuDNN fused attention, timed as FlashAttention-3" : std::string());
        } else {
            unmapped("model.attention_backend", "\"" + *backend + "\": Transformer Engine picks the kernel; the profile's stays");
        }
    } else if (c.has("model", "attention_backend")) {
        unmapped("model.attention_backend", "null: Transformer Engine picks the kernel; the profile's stays");
    }
    const auto attentionDropout = c.number("model", "attention_dropout"), hiddenDropout = c.number("model", "hidden_dropout");
    if (attentionDropout && hiddenDropout) {
        framework["dropout"] = *attentionDropout > 0 || *hiddenDropout > 0;
        mapped("model.attention_dropout", "framework.dropout");
        mapped("model.hidden_dropout", "framework.dropout");
    } else if (attentionDropout || hiddenDropout) {
        unmapped(attentionDropout ? "model.attention_dropout" : "model.hidden_dropout", "the other dropout is the recipe's: the profile's dropout stays");
    }
    if (const auto dispatcher = c.text("model", "moe_token_dispatcher_type")) {
        const auto backend = c.text("model", "moe_flex_dispatcher_backend");
        const bool flex = *dispatcher == "flex" && backend;
        framework["moe_dispatcher"] = *dispatcher == "allgather" ? "allgather" : flex ? "deepep" : "alltoall";
        mapped("model.moe_token_dispatcher_type", "framework.moe_dispatcher");
        if (backend)
            mapped("model.moe_flex_dispatcher_backend", "framework.moe_dispatcher",
                *dispatcher != "flex" ? "acts only with the flex dispatcher" : *backend == "deepep" ? "DeepEP" : *backend + ": timed as DeepEP");
    }
    if (c.find("model", "moe_shared_expert_overlap"))
        unmapped("model.moe_shared_expert_overlap", "the shared expert under the dispatch: not modelled apart");
    for (const char* key : {"account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split", "pipeline_model_parallel_layout"})
        if (c.find("model", key))
            unmapped(std::string("model.") + key, "the stage split is TrainPlan's (layout.stage_layers; uneven first and last stages by "
                                                  "num_layers_in_first/last_pipeline_stage)");
    if (c.find("model", "qk_layernorm"))
        unmapped("model.qk_layernorm", "query and key norms: under 0.01 % of the parameters, not counted");

    // Every other key, with why it is not read.
    for (const auto& [section, key] : c.unread()) {
        const std::string name = path(section, key);
        std::string note = "not a key TrainPlan knows";
        if (neutralSection(section.empty() ? key : section) || neutralKey(section, key))
            note = kNoEffectNote;
        else if (section == "peft" || key == "peft")
            note = "fine-tuning adapters (LoRA, DoRA): TrainPlan plans training of every weight";
        else if (section == "model" && key.rfind("moe_", 0) == 0 && !model.contains("moe"))
            note = "the model has no experts (num_moe_experts): not used";
        report.unmapped.push_back({name, {}, note});
    }
    report.plan = readImportedPlan(doc, report.mapped);
    return report;
}

std::string megatronBridgeConfig(const Plan& plan)
{
    const ModelSpec& m = plan.model;
    const LayoutSpec& l = plan.layout;
    const TrainingSpec& t = plan.training;
    const FrameworkSpec f = resolvedFramework(plan.framework);
    const auto boolean = [](bool v) { return v ? "true" : "false"; };
    std::ostringstream s;
    s << "# Megatron-Bridge (NeMo 2) config overrides for \"" << plan.name << "\", written by TrainPlan.\n"
      << "# Merge onto a recipe's ConfigContainer (the example scripts' --config-file): the model, layout,\n"
      << "# batch, budget, precision and switches of the plan; data, tokenizer, optimizer hyperparameters\n"
      << "# and checkpoints stay the recipe's. `trainplan-cli import` reads this file back.\n\n";

    s << "model:\n";
    s << "  num_layers: " << m.layers << "\n";
    s << "  hidden_size: " << m.hiddenSize << "\n";
    s << "  ffn_hidden_size: " << m.ffnHiddenSize << "\n";
    s << "  num_attention_heads: " << m.attentionHeads << "\n";
    s << "  num_query_groups: " << m.kvHeads << "\n";
    s << "  kv_channels: " << m.headDim << "\n";
    s << "  seq_length: " << m.sequenceLength << "\n";
    s << "  vocab_size: " << m.vocabSize << "  # the tokenizer's; TrainPlan sizes the embedding by it\n";
    s << "  normalization: " << (m.norm == NormKind::RmsNorm ? "RMSNorm" : "LayerNorm") << "\n";
    s << "  gated_linear_unit: " << boolean(m.ffnKind == FfnKind::SwiGlu) << "\n";
    s << "  activation_func: " << (m.ffnKind == FfnKind::SwiGlu ? "silu" : "gelu") << "\n";
    s << "  add_bias_linear: " << boolean(m.bias) << "\n";
    s << "  position_embedding_type: " << (m.positionEmbedding == PositionEmbedding::Rope ? "rope" : "learned_absolute") << "\n";
    s << "  share_embeddings_and_output_weights: " << boolean(m.tiedEmbeddings) << "\n";
    if (!m.layerKinds.empty())
        s << "  # model.layer_kinds: runs of other widths have no Megatron-Bridge key; the layers above are model.*'s\n";
    if (m.moe) {
        const MoeSpec& e = *m.moe;
        s << "  num_moe_experts: " << e.experts << "\n";
        s << "  moe_router_topk: " << e.topK << "\n";
        s << "  moe_ffn_hidden_size: " << e.expertFfnHiddenSize << "\n";
        if (e.sharedExperts > 0)
            s << "  moe_shared_expert_intermediate_size: " << (long long)e.sharedExperts * e.sharedWidth() << "\n";
        else
            s << "  moe_shared_expert_intermediate_size: null\n";
        if (e.denseLayers > 0 || e.step() > 1) {
            s << "  moe_layer_freq: [";
            for (int i = 0; i < m.layers; ++i)
                s << (i ? ", " : "") << (e.isMoeLayer(i) ? 1 : 0);
            s << "]\n";
        } else {
            s << "  moe_layer_freq: 1\n";
        }
        s << "  moe_router_enable_expert_bias: " << boolean(e.routerBias) << "\n";
        if (e.maxNodesPerToken > 0) {
            // Group-limited routing, one group per node of an EP group.
            const int groups = std::max(e.maxNodesPerToken + 1, l.ep / std::max(1, plan.cluster.gpusPerNode));
            s << "  moe_router_num_groups: " << groups << "\n";
            s << "  moe_router_group_topk: " << e.maxNodesPerToken << "\n";
        }
        if (e.capacityFactor)
            s << "  moe_expert_capacity_factor: " << yamlNumber(*e.capacityFactor) << "\n";
        else
            s << "  moe_expert_capacity_factor: null  # dropless\n";
    } else {
        s << "  num_moe_experts: null  # a dense model\n";
    }
    if (m.mla) {
        s << "  multi_latent_attention: true\n";
        if (m.mla->qLoraRank > 0)
            s << "  q_lora_rank: " << m.mla->qLoraRank << "\n";
        else
            s << "  q_lora_rank: null\n";
        s << "  kv_lora_rank: " << m.mla->kvLoraRank << "\n";
        s << "  qk_head_dim: " << m.mla->qkNopeHeadDim << "\n";
        s << "  qk_pos_emb_head_dim: " << m.mla->qkRopeHeadDim << "\n";
        s << "  v_head_dim: " << m.mla->vHeadDim << "\n";
    } else {
        s << "  multi_latent_attention: false\n";
    }
    if (m.mtpLayers > 0)
        s << "  mtp_num_layers: " << m.mtpLayers << "\n";
    else
        s << "  mtp_num_layers: null\n";

    // The layout.
    s << "  tensor_model_parallel_size: " << l.tp << "\n";
    s << "  pipeline_model_parallel_size: " << l.pp << "\n";
    if (l.schedule == Schedule::Interleaved && l.virtualStages > 1)
        s << "  virtual_pipeline_model_parallel_size: " << l.virtualStages << "\n";
    else
        s << "  virtual_pipeline_model_parallel_size: null\n";
    if (l.pp > 1 && (l.schedule == Schedule::GPipe || l.schedule == Schedule::ZeroBubble || l.schedule == Schedule::DualPipe))
        s << "  # layout.schedule " << nameOf(kScheduleNames, l.schedule) << ": Megatron-Core runs 1F1B (interleaved with virtual stages)\n";
    s << "  context_parallel_size: " << l.cp << "\n";
    s << "  expert_model_parallel_size: " << l.ep << "\n";
    s << "  expert_tensor_parallel_size: " << l.etp << "\n";
    s << "  sequence_parallel: " << boolean(l.sequenceParallel) << "\n";
    // The stage split TrainPlan assumes, in the words Megatron-Core has: uneven first and last stages.
    const MegatronStageSplit split = megatronStageSplit(plan);
    if (split.firstAndLastOnly) {
        s << "  num_layers_in_first_pipeline_stage: " << split.layers.front() << "\n";
        s << "  num_layers_in_last_pipeline_stage: " << split.layers.back() << "\n";
    } else {
        s << "  num_layers_in_first_pipeline_stage: null\n  num_layers_in_last_pipeline_stage: null\n";
        if (!split.even)
            s << "  # stages of [" << split.list() << "] layers: this split needs Megatron-Core's pipeline_model_parallel_layout; not written\n";
    }
    if (l.recompute == Recompute::Selective) {
        s << "  recompute_granularity: selective\n  recompute_method: null\n  recompute_num_layers: null\n";
    } else if (l.recompute == Recompute::Full) {
        s << "  recompute_granularity: full\n";
        if (l.recomputeLayers > 0)
            s << "  recompute_method: block\n  recompute_num_layers: " << l.recomputeLayers << "\n";
        else
            s << "  recompute_method: uniform\n  recompute_num_layers: 1\n";
    } else {
        s << "  recompute_granularity: null\n  recompute_method: null\n  recompute_num_layers: null\n";
    }
    // The kernel switches the plan sets (Megatron-Core's TransformerConfig fields; a recipe's
    // comm_overlap section, when it has one, sets tp_comm_overlap and the MoE overlap again).
    if (f.tpCommOverlap)
        s << "  tp_comm_overlap: " << boolean(*f.tpCommOverlap) << "\n";
    if (m.moe) {
        if (f.moeGroupedGemm)
            s << "  moe_grouped_gemm: " << boolean(*f.moeGroupedGemm) << "\n";
        if (f.moeDispatcher) {
            switch (*f.moeDispatcher) {
            case MoeDispatcher::AllToAll: s << "  moe_token_dispatcher_type: alltoall\n"; break;
            case MoeDispatcher::AllGather: s << "  moe_token_dispatcher_type: allgather\n"; break;
            case MoeDispatcher::DeepEp: s << "  moe_token_dispatcher_type: flex\n  moe_flex_dispatcher_backend: deepep\n"; break;
            }
        }
        if (f.moeCommOverlap)
            s << "  overlap_moe_expert_parallel_comm: " << boolean(*f.moeCommOverlap) << "\n";
    }
    if (f.cudaGraphs)
        s << "  cuda_graph_impl: " << (*f.cudaGraphs ? "local" : "none") << "\n";
    if (f.gradientAccumulation) {
        switch (*f.gradientAccumulation) {
        case GradientAccumulation::Fused: s << "  gradient_accumulation_fusion: true\n"; break;
        case GradientAccumulation::Autograd: s << "  gradient_accumulation_fusion: false\n"; break;
        case GradientAccumulation::Fp32Copy:
            s << "  # framework.gradient_accumulation fp32-copy: Megatron-Core accumulates into main_grad (fused or not)\n";
            break;
        }
    }
    if (f.flashAttention) {
        switch (*f.flashAttention) {
        case FlashAttentionVersion::None: s << "  attention_backend: unfused\n"; break;
        case FlashAttentionVersion::V2: s << "  attention_backend: flash\n"; break;
        case FlashAttentionVersion::V3: s << "  attention_backend: fused  # cuDNN fused attention\n"; break;
        }
    }
    if (f.dropout == false)
        s << "  attention_dropout: 0.0\n  hidden_dropout: 0.0\n";

    // The batch and the budget.
    const double tokensPerStep = double(t.globalBatchSequences) * m.sequenceLength;
    s << "\ntrain:\n";
    s << "  global_batch_size: " << t.globalBatchSequences << "\n";
    s << "  micro_batch_size: " << t.microBatchSize << "\n";
    s << "  train_iters: " << (long long)std::ceil(t.tokens / std::max(1.0, tokensPerStep)) << "  # " << formatSci(t.tokens) << " tokens\n";
    s << "\ndataset:\n  seq_length: " << m.sequenceLength << "  # must match model.seq_length\n";

    // Precision: a mixed_precision recipe (mixed_precision.py), which sets model.fp8/fp4 at run time.
    s << "\n";
    if (t.precision == PrecisionScheme::Fp32Adam) {
        s << "mixed_precision: null  # training.precision fp32-adam: no mixed-precision recipe, the model trains in FP32\n";
        if (t.matmulPrecision != MatmulPrecision::Bf16)
            s << "# training.matmul_precision " << nameOf(kMatmulPrecisionNames, t.matmulPrecision)
              << ": Megatron-Bridge's low-precision GEMMs come with its BF16 recipes\n";
    } else {
        const char* recipe = "bf16_mixed";
        switch (t.matmulPrecision) {
        case MatmulPrecision::Bf16: break;
        case MatmulPrecision::Fp8: recipe = "bf16_with_fp8_delayed_scaling_mixed"; break;
        case MatmulPrecision::Fp8Blockwise: recipe = "bf16_with_fp8_subchannel_scaling_mixed"; break;
        case MatmulPrecision::Mxfp8: recipe = "bf16_with_mxfp8_mixed"; break;
        case MatmulPrecision::Nvfp4: recipe = "bf16_with_nvfp4_mixed"; break;
        }
        s << "mixed_precision: " << recipe << "\n";
        if (t.precision == PrecisionScheme::Bf16AdamNoMaster)
            s << "# training.precision bf16-adam-no-master: Megatron-Bridge's recipes keep FP32 master weights\n";
    }

    // Data parallelism: the distributed optimizer (ZeRO-1) or Megatron-FSDP (ZeRO-2 and 3), and the overlaps.
    const bool fsdp = l.zeroStage >= 2;
    s << "\noptimizer:\n";
    s << "  use_distributed_optimizer: " << boolean(l.zeroStage >= 1) << "\n";
    if (f.overlapParamGather)
        s << "  overlap_param_gather: " << boolean(*f.overlapParamGather) << "\n";
    s << "\nddp:\n";
    s << "  use_distributed_optimizer: " << boolean(l.zeroStage >= 1) << "\n";
    s << "  use_megatron_fsdp: " << boolean(fsdp) << "\n";
    if (fsdp)
        s << "  data_parallel_sharding_strategy: " << (l.zeroStage == 2 ? "optim_grads" : "optim_grads_params") << "  # ZeRO-" << l.zeroStage
          << "\n";
    if (f.overlapGradReduce)
        s << "  overlap_grad_reduce: " << boolean(*f.overlapGradReduce) << "\n";
    if (f.overlapParamGather)
        s << "  overlap_param_gather: " << boolean(*f.overlapParamGather) << "\n";
    if (f.fp32Gradients)
        s << "  grad_reduce_in_fp32: " << boolean(*f.fp32Gradients) << "\n";
    s << "\ndist:\n";
    s << "  use_megatron_fsdp: " << boolean(fsdp) << "\n";
    s << "  use_tp_pp_dp_mapping: " << boolean(l.rankOrder == RankOrder::TpCpPpDp) << "\n";
    if (l.rankOrder == RankOrder::TpDpCpPp)
        s << "  # layout.rank_order tp-dp-cp-pp: Megatron-Core orders ranks tp-cp-ep-dp-pp (or tp-cp-ep-pp-dp)\n";
    if (fsdp)
        s << "# Megatron-FSDP saves checkpoints as fsdp_dtensor: set checkpoint.ckpt_format to match\n";
    return s.str();
}

}  // namespace trainplan
