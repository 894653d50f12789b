#include "core/interop/HuggingFaceImport.h"

#include <algorithm>
#include <initializer_list>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/interop/ConfigKeys.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

namespace {

using nlohmann::json;

// What a family's architecture fixes without a config key (transformers' modeling_<type>.py):
// a gated feed-forward (SwiGLU, or GeGLU for Gemma: three h x f matrices either way), LayerNorm
// rather than RMSNorm, biases in every linear layer, learned absolute positions, and what
// tie_word_embeddings defaults to when the key is absent (the family's Config class default;
// PretrainedConfig's own default, true, for a family not listed).
struct Family {
    bool known = false;
    bool gated = true;
    bool layerNorm = false;
    bool bias = false;
    bool learnedPositions = false;
    bool tiedByDefault = true;
};

Family familyOf(const std::string& type)
{
    static const std::set<std::string> untiedGated = {"llama", "llama4", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe",
        "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3", "kimi_k2", "gpt_oss", "olmo", "olmo2", "olmoe", "phi3", "granite",
        "granitemoe", "internlm2", "cohere", "yi"};
    static const std::set<std::string> tiedGated = {"gemma", "gemma2", "gemma3", "gemma3_text"};
    Family f;
    if (untiedGated.count(type)) {
        f.known = true;
        f.tiedByDefault = false;
    } else if (tiedGated.count(type)) {
        f.known = true;
    } else if (type == "gpt_neox") {
        f = {true, false, true, true, false, false};
    } else if (type == "gpt2") {
        f = {true, false, true, true, true, true};
    } else if (type == "starcoder2") {
        f = {true, false, true, true, false, true};
    }
    return f;
}

// Keys that change neither the parameters, the FLOPs, the memory nor the time of training.
bool neutralKey(const std::string& key)
{
    static const std::set<std::string> keys = {"architectures", "model_type", "transformers_version", "torch_dtype", "dtype",
        "_name_or_path", "bos_token_id", "eos_token_id", "pad_token_id", "use_cache", "initializer_range", "initializer_factor",
        "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "rope_theta", "rope_scaling", "rope_interleave", "rotary_pct",
        "rotary_emb_base", "partial_rotary_factor", "attention_dropout", "hidden_dropout", "resid_pdrop", "embd_pdrop", "attn_pdrop",
        "classifier_dropout", "router_aux_loss_coef", "aux_loss_alpha", "seq_aux", "output_router_logits", "norm_topk_prob",
        "scoring_func", "routed_scaling_factor", "n_group", "router_jitter_noise", "swiglu_limit", "use_parallel_residual",
        "pretraining_tp", "tokenizer_class", "auto_map", "return_dict", "is_decoder", "attn_logit_softcapping",
        "final_logit_softcapping", "query_pre_attn_scalar", "rope_local_base_freq", "ep_size", "use_qk_norm", "qk_layernorm",
        "attention_chunk_size", "attn_temperature_tuning", "floor_scale", "attn_scale", "router_dtype", "bos_token",
        "eos_token", "use_bfloat16", "cache_implementation", "output_hidden_states", "output_attentions", "tie_encoder_decoder", "max_window_layers"};
    return keys.count(key) > 0;
}

bool windowKey(const std::string& key)
{
    return key == "sliding_window" || key == "use_sliding_window" || key == "layer_types" || key == "sliding_window_pattern"
        || key == "no_rope_layers" || key == "nope_layer_interval";
}

class Mapper {
public:
    Mapper(ImportReport& report) : r_(report) {}
    void mapped(const ConfigKeys& keys, const std::string& key, const std::string& field, const std::string& note = {})
    {
        r_.mapped.push_back({keys.name(key), field, note});
    }
    void unmapped(const std::string& key, const std::string& note) { r_.unmapped.push_back({key, {}, note}); }

private:
    ImportReport& r_;
};

// The first of several spellings present (num_hidden_layers, or GPT-2's n_layer): its name.
std::string firstPresent(const ConfigKeys& keys, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (keys.has(n))
            return n;
    return *names.begin();
}

int required(ConfigKeys& keys, std::initializer_list<const char*> names)
{
    const std::string key = firstPresent(keys, names);
    const auto v = keys.integer(key);
    if (!v)
        throw PlanError({PlanProblem{keys.name(key), "is missing: without it the config does not say the model's shape"}});
    return *v;
}

std::string lastPathPart(std::string path)
{
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool looksLikeHuggingFaceConfig(const json& document)
{
    if (!document.is_object() || document.contains("format"))
        return false;
    if (document.contains("model_type") || document.contains("architectures"))
        return true;
    return document.contains("num_hidden_layers") && document.contains("hidden_size");
}

ImportReport importHuggingFaceConfig(const json& config, const Plan& base, const std::string& sourceName)
{
    if (!config.is_object())
        throw PlanError({PlanProblem{"", "a Hugging Face config.json must be a JSON object"}});
    ImportReport report;
    report.format = "huggingface";
    Mapper map(report);

    ConfigKeys top(config, "");
    // Multimodal configs (Llama 4, Gemma 3) keep the language model under text_config.
    const bool nested = !top.has("hidden_size") && config.contains("text_config") && config.at("text_config").is_object();
    const json& textConfig = nested ? config.at("text_config") : config;
    ConfigKeys keys(textConfig, nested ? "text_config." : "");
    if (nested)
        top.markRead("text_config");

    std::string type = top.text("model_type").value_or("");
    if (nested)
        if (const auto inner = keys.text("model_type"))
            type = *inner;
    const Family family = familyOf(type);
    if (!family.known)
        report.assumptions.push_back("model_type \"" + type + "\" is not a family TrainPlan knows: the feed-forward's gating, the norm and "
                                     "the biases are read from hidden_act and the keys present; check the parameter count");

    // A second spelling of a key already mapped (GPT-OSS gives both experts_per_token and
    // num_experts_per_tok): mapped to the same field when it agrees, an error when it does not.
    const auto aliases = [&](std::initializer_list<const char*> names, const std::string& field) {
        const std::string used = firstPresent(keys, names);
        for (const char* n : names) {
            if (n == used || !keys.has(n))
                continue;
            if (keys.raw(n) && keys.raw(used) && *keys.raw(n) != *keys.raw(used))
                throw PlanError({PlanProblem{keys.name(n), "disagrees with " + keys.name(used) + ", which sets the same figure"}});
            map.mapped(keys, n, field, "same as " + keys.name(used));
        }
    };

    json m = json::object();
    // The name: the repository's, else the folder's, else the architecture's.
    std::string name;
    const json* architectures = config.contains("architectures") ? &config.at("architectures") : nullptr;
    if (const auto path = top.text("_name_or_path"); path && !path->empty())
        name = lastPathPart(*path);
    else if (!sourceName.empty())
        name = sourceName;
    else if (architectures && architectures->is_array() && !architectures->empty() && architectures->front().is_string()) {
        name = architectures->front().get<std::string>();
        top.markRead("architectures");
        report.mapped.push_back({"architectures", "model.name", "no repository or folder name: the architecture's"});
    } else {
        name = type.empty() ? "Imported model" : type;
    }
    m["name"] = name;

    // The shared shape.
    const int layers = required(keys, {"num_hidden_layers", "n_layer"});
    map.mapped(keys, firstPresent(keys, {"num_hidden_layers", "n_layer"}), "model.layers");
    aliases({"num_hidden_layers", "n_layer"}, "model.layers");
    const int hidden = required(keys, {"hidden_size", "n_embd"});
    map.mapped(keys, firstPresent(keys, {"hidden_size", "n_embd"}), "model.hidden_size");
    aliases({"hidden_size", "n_embd"}, "model.hidden_size");
    const int heads = required(keys, {"num_attention_heads", "n_head"});
    map.mapped(keys, firstPresent(keys, {"num_attention_heads", "n_head"}), "model.attention_heads");
    aliases({"num_attention_heads", "n_head"}, "model.attention_heads");
    const int vocab = required(keys, {"vocab_size"});
    map.mapped(keys, "vocab_size", "model.vocab_size");
    m["layers"] = layers;
    m["hidden_size"] = hidden;
    m["attention_heads"] = heads;
    m["vocab_size"] = vocab;

    if (const auto kv = keys.integer("num_key_value_heads")) {
        m["kv_heads"] = *kv;
        map.mapped(keys, "num_key_value_heads", "model.kv_heads");
    } else {
        m["kv_heads"] = heads;
        report.assumptions.push_back("num_key_value_heads absent: multi-head attention, " + std::to_string(heads) + " KV heads");
    }

    // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the latent ranks and head parts.
    const bool mla = keys.has("kv_lora_rank");
    if (mla) {
        json a = json::object();
        const auto read = [&](const char* key, const char* field, bool nullIsZero) {
            if (nullIsZero && (!keys.has(key))) {
                keys.markRead(key);
                a[field] = 0;
                map.mapped(keys, key, std::string("model.mla.") + field, "null: queries projected directly (no latent)");
                return;
            }
            a[field] = required(keys, {key});
            map.mapped(keys, key, std::string("model.mla.") + field);
        };
        read("q_lora_rank", "q_lora_rank", true);
        read("kv_lora_rank", "kv_lora_rank", false);
        read("qk_nope_head_dim", "qk_nope_head_dim", false);
        read("qk_rope_head_dim", "qk_rope_head_dim", false);
        read("v_head_dim", "v_head_dim", false);
        m["mla"] = a;
        m["head_dim"] = a["v_head_dim"];
        if (keys.has("head_dim")) {
            keys.markRead("head_dim");
            map.unmapped(keys.name("head_dim"), "MLA: the head sizes are qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
        }
    } else if (const auto headDim = keys.integer("head_dim")) {
        m["head_dim"] = *headDim;
        map.mapped(keys, "head_dim", "model.head_dim");
    } else {
        if (hidden % heads != 0)
            throw PlanError({PlanProblem{keys.name("hidden_size"), "is not a multiple of num_attention_heads and head_dim is absent: the head size is unknown"}});
        m["head_dim"] = hidden / heads;
    }

    // The feed-forward: its gating, then dense or mixture of experts.
    std::string act = keys.text("hidden_act").value_or("");
    const std::string actKey = keys.has("hidden_activation") ? "hidden_activation" : "hidden_act";
    if (const auto a = keys.text("hidden_activation"))
        act = *a;
    const bool gated = family.known ? family.gated : (act == "silu" || act == "swish" || act.empty());
    m["ffn_kind"] = gated ? "swiglu" : "gelu";
    if (actKey == "hidden_activation" && keys.has("hidden_act"))
        map.mapped(keys, "hidden_act", "model.ffn_kind", "hidden_activation, which Gemma reads first, decides");
    if (!act.empty())
        map.mapped(keys, actKey, "model.ffn_kind",
            gated ? (act.rfind("gelu", 0) == 0 ? "GeGLU: gated like SwiGLU, three h x f matrices (same parameters and FLOPs)" : "gated (SwiGLU)")
                  : "not gated: two h x f matrices");

    const std::string expertsKey = firstPresent(keys, {"num_local_experts", "num_experts", "n_routed_experts"});
    const int experts = keys.integer(expertsKey).value_or(0);
    const auto intermediate = keys.integer("intermediate_size");
    if (experts > 0) {
        json moe = json::object();
        moe["experts"] = experts;
        map.mapped(keys, expertsKey, "model.moe.experts");
        aliases({"num_local_experts", "num_experts", "n_routed_experts"}, "model.moe.experts");
        const std::string topKey = firstPresent(keys, {"num_experts_per_tok", "experts_per_token", "moe_topk"});
        moe["top_k"] = required(keys, {"num_experts_per_tok", "experts_per_token", "moe_topk"});
        map.mapped(keys, topKey, "model.moe.top_k");
        aliases({"num_experts_per_tok", "experts_per_token", "moe_topk"}, "model.moe.top_k");
        // One routed expert's width: moe_intermediate_size, or intermediate_size where the family
        // has no dense layers of another width (Mixtral, GPT-OSS, Llama 4).
        bool intermediateIsExpert = false;
        if (const auto w = keys.integer("moe_intermediate_size")) {
            moe["expert_ffn_hidden_size"] = *w;
            map.mapped(keys, "moe_intermediate_size", "model.moe.expert_ffn_hidden_size");
        } else if (intermediate) {
            moe["expert_ffn_hidden_size"] = *intermediate;
            map.mapped(keys, "intermediate_size", "model.moe.expert_ffn_hidden_size", "one routed expert's width (no moe_intermediate_size)");
            intermediateIsExpert = true;
        } else {
            throw PlanError({PlanProblem{keys.name("moe_intermediate_size"), "is missing, and so is intermediate_size: the experts' width is unknown"}});
        }
        // Shared experts: DeepSeek's count (each of the routed width), Qwen2-MoE's one of its own
        // width, Llama 4's one of the routed width (no key: modeling_llama4.py always builds it).
        if (const auto shared = keys.integer("n_shared_experts")) {
            moe["shared_experts"] = *shared;
            map.mapped(keys, "n_shared_experts", "model.moe.shared_experts");
        } else if (const auto sharedWidth = keys.integer("shared_expert_intermediate_size"); sharedWidth && *sharedWidth > 0) {
            moe["shared_experts"] = 1;
            moe["shared_expert_ffn_hidden_size"] = *sharedWidth;
            map.mapped(keys, "shared_expert_intermediate_size", "model.moe.shared_expert_ffn_hidden_size", "one shared expert of this width");
        } else if (type == "llama4" || type == "llama4_text") {
            moe["shared_experts"] = 1;
            report.assumptions.push_back("Llama 4: one shared expert of the routed width in every MoE layer (the architecture's, no config key)");
        }
        // Which layers are MoE: a dense prefix, then every step-th layer.
        int denseLayers = 0;
        if (const auto k = keys.integer("first_k_dense_replace")) {
            denseLayers = *k;
            map.mapped(keys, "first_k_dense_replace", "model.moe.dense_layers");
        }
        if (const json* only = keys.raw("mlp_only_layers"); only && only->is_array() && !only->empty()) {
            // Dense layers by index: a prefix 0..k-1 is dense_layers = k; anything else is not a shape the plan holds.
            bool prefix = true;
            for (size_t i = 0; i < only->size(); ++i)
                prefix &= (*only)[i].is_number_integer() && (*only)[i].get<long long>() == (long long)i;
            if (!prefix)
                throw PlanError({PlanProblem{keys.name("mlp_only_layers"), "dense layers other than the first k are not a shape TrainPlan models; "
                                                                 "describe the runs with model.layer_kinds"}});
            denseLayers = int(only->size());
            map.mapped(keys, "mlp_only_layers", "model.moe.dense_layers", "the first " + std::to_string(denseLayers) + " layers are dense");
        } else if (only) {
            map.mapped(keys, "mlp_only_layers", "model.moe.dense_layers", "empty: no layer kept dense");
        }
        int step = 1;
        const std::string stepKey = firstPresent(keys, {"moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step"});
        if (const auto s = keys.integer(stepKey)) {
            step = std::max(1, *s);
            map.mapped(keys, stepKey, "model.moe.layer_step");
        }
        if (denseLayers > 0)
            moe["dense_layers"] = denseLayers;
        if (step > 1)
            moe["layer_step"] = step;
        // The dense layers' width, where there are dense layers.
        const bool hasDense = denseLayers > 0 || step > 1;
        if (const auto mlpWidth = keys.integer("intermediate_size_mlp")) {
            if (hasDense) {
                m["ffn_hidden_size"] = *mlpWidth;
                map.mapped(keys, "intermediate_size_mlp", "model.ffn_hidden_size", "the dense layers' width");
            } else {
                map.unmapped(keys.name("intermediate_size_mlp"), "the dense layers' width; every layer is MoE, so no layer has it");
            }
        }
        if (intermediate && !intermediateIsExpert) {
            if (hasDense && !m.contains("ffn_hidden_size")) {
                m["ffn_hidden_size"] = *intermediate;
                map.mapped(keys, "intermediate_size", "model.ffn_hidden_size", "the dense layers' width");
            } else if (!hasDense) {
                map.unmapped(keys.name("intermediate_size"), "the dense feed-forward width; every layer is MoE, so no layer has it");
            }
        }
        if (hasDense && !m.contains("ffn_hidden_size"))
            throw PlanError({PlanProblem{keys.name("intermediate_size"), "is missing: the model has dense layers and their width is unknown"}});
        // DeepSeek-V3's auxiliary-loss-free balancing adds a bias per expert to the gate (noaux_tc).
        if (const auto method = keys.text("topk_method")) {
            if (*method == "noaux_tc") {
                moe["router_bias"] = true;
                map.mapped(keys, "topk_method", "model.moe.router_bias", "noaux_tc: a bias per expert in the gate");
            } else {
                map.unmapped(keys.name("topk_method"), "\"" + *method + "\": how experts are picked, not what they cost");
            }
        }
        // Group-limited routing: a token's experts in at most topk_group of n_group groups, which
        // DeepSeek-V3 deploys one group per node (report Sec. 2.1.2: at most 4 nodes per token).
        if (const auto groups = keys.integer("topk_group"); groups && keys.has("n_group") && keys.integer("n_group").value_or(1) > 1) {
            moe["max_nodes_per_token"] = *groups;
            map.mapped(keys, "topk_group", "model.moe.max_nodes_per_token", "one expert group per node, as DeepSeek-V3 deploys them");
            map.mapped(keys, "n_group", "model.moe.max_nodes_per_token", "the groups topk_group picks among");
        }
        m["moe"] = moe;
    } else {
        const std::string widthKey = firstPresent(keys, {"intermediate_size", "n_inner"});
        if (const auto w = keys.integer(widthKey)) {
            m["ffn_hidden_size"] = *w;
            map.mapped(keys, widthKey, "model.ffn_hidden_size");
        } else {
            m["ffn_hidden_size"] = 4 * hidden;
            report.assumptions.push_back("intermediate_size absent: the feed-forward is 4 x hidden_size = " + std::to_string(4 * hidden));
        }
    }

    // Norms, biases, positions, embeddings.
    const bool layerNorm = family.known ? family.layerNorm : (!keys.has("rms_norm_eps") && (keys.has("layer_norm_eps") || keys.has("layer_norm_epsilon")));
    m["norm"] = layerNorm ? "layernorm" : "rmsnorm";
    bool bias = family.bias;
    for (const char* key : {"attention_bias", "mlp_bias", "use_bias", "bias"})
        if (const auto b = keys.boolean(key)) {
            bias = bias || *b;
            map.mapped(keys, key, "model.bias", *b ? "biases in the linear layers" : "no biases");
        }
    m["bias"] = bias;
    if (type == "qwen2" || type == "qwen2_moe")
        report.assumptions.push_back("Qwen2's query, key and value biases (the architecture's, no config key) are not counted: "
                                     "a few thousand parameters per layer, under 0.01 % of the model");

    const std::string positionsKey = firstPresent(keys, {"max_position_embeddings", "n_positions"});
    const auto positions = keys.integer(positionsKey);
    if (family.learnedPositions) {
        m["position_embedding"] = "learned";
        if (!positions)
            throw PlanError({PlanProblem{keys.name(positionsKey), "is missing: learned positions need the table's length"}});
        m["sequence_length"] = *positions;
        map.mapped(keys, positionsKey, "model.sequence_length", "learned positions: the table's rows, trained at full length");
    } else {
        m["position_embedding"] = "rope";
        m["sequence_length"] = base.model.sequenceLength;
        if (positions)
            map.unmapped(keys.name(positionsKey), "the longest context the model supports (" + formatCount(*positions)
                                                      + "), not a training length: model.sequence_length stays the base plan's "
                                                      + formatCount(base.model.sequenceLength));
    }

    if (const auto tied = keys.boolean("tie_word_embeddings")) {
        m["tied_embeddings"] = *tied;
        map.mapped(keys, "tie_word_embeddings", "model.tied_embeddings");
    } else {
        m["tied_embeddings"] = family.tiedByDefault;
        report.assumptions.push_back(std::string("tie_word_embeddings absent: ") + (family.tiedByDefault ? "tied" : "untied")
                                     + ", the family's default");
    }
    if (const auto mtp = keys.integer("num_nextn_predict_layers")) {
        if (*mtp > 0)
            m["mtp_layers"] = *mtp;
        map.mapped(keys, "num_nextn_predict_layers", "model.mtp_layers");
    }

    // Every other key: listed with why it is not mapped.
    const auto listRest = [&](const ConfigKeys& source) {
        for (const std::string& key : source.unread()) {
            if (nested && &source == &top && textConfig.contains(key))
                map.unmapped(source.name(key), "the language model's own text_config." + key + " is the one read");
            else if (neutralKey(key))
                map.unmapped(source.name(key), kNoEffectNote);
            else if (windowKey(key))
                map.unmapped(source.name(key), "sliding-window attention: TrainPlan counts every layer's attention as full causal "
                                               "attention, an overestimate for the windowed layers");
            else if (key == "quantization_config")
                map.unmapped(source.name(key), "the released weights' quantization; training runs at training.matmul_precision");
            else if (key == "vision_config" || key == "audio_config")
                map.unmapped(source.name(key), "the encoder is not modelled: the plan is the language model");
            else
                map.unmapped(source.name(key), "not a key TrainPlan knows: check that the model's figures match the config");
        }
    };
    if (nested)
        listRest(top);
    listRest(keys);
    // The keys that named the family and the model were read, not mapped to one field.
    std::vector<ImportedKey>& un = report.unmapped;
    for (const char* key : {"model_type", "_name_or_path"})
        un.erase(std::remove_if(un.begin(), un.end(), [&](const ImportedKey& k) { return k.key == key; }), un.end());
    if (!type.empty())
        report.mapped.push_back({nested ? "text_config.model_type" : "model_type", {}, "the family: " + std::string(family.known ? "its gating, norm, biases and defaults" : "not one TrainPlan knows")});
    if (nested && top.has("model_type"))
        report.mapped.push_back({"model_type", {}, "the multimodal model's family; the language model's is text_config.model_type"});
    // Anything read on the way without a field of its own is still listed.
    // (Unnested, top and keys read the same object: walk it once.)
    for (const auto* source : nested ? std::vector<const ConfigKeys*>{&top, &keys} : std::vector<const ConfigKeys*>{&keys})
        for (auto it = source->object().begin(); it != source->object().end(); ++it) {
            const std::string key = source->name(it.key());
            if (nested && source == &top && it.key() == "text_config")
                continue;
            const auto is = [&](const ImportedKey& k) { return k.key == key; };
            if (std::none_of(report.mapped.begin(), report.mapped.end(), is) && std::none_of(report.unmapped.begin(), report.unmapped.end(), is))
                map.unmapped(key, "read, but it sets no figure of its own here");
        }
    if (top.has("_name_or_path"))
        report.mapped.push_back({"_name_or_path", "model.name", {}});

    json doc = planToJson(base);
    doc["model"] = m;
    doc.erase("name");
    doc["name_user_set"] = false;
    if (doc.contains("layout") && doc["layout"].is_object())
        doc["layout"].erase("stage_layers");  // the base's split belongs to its model
    report.assumptions.push_back("cluster, token budget, batch and layout: the base plan's (" + base.name + ")");
    report.plan = readImportedPlan(doc, report.mapped);
    return report;
}

}  // namespace trainplan
