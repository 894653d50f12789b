#include "core/interop/MegatronImport.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/base/PlanError.h"
#include "core/interop/ShellWords.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

namespace {

using nlohmann::json;

// Flags that take no value (store_true in megatron/training/arguments.py, torchrun's switches).
const std::set<std::string>& switchFlags()
{
    static const std::set<std::string> flags = {"--sequence-parallel", "--use-distributed-optimizer", "--overlap-grad-reduce",
        "--overlap-param-gather", "--tp-comm-overlap", "--swiglu", "--untie-embeddings-and-output-weights", "--disable-bias-linear",
        "--bf16", "--fp16", "--group-query-attention", "--multi-latent-attention", "--moe-grouped-gemm",
        "--moe-router-enable-expert-bias", "--recompute-activations", "--use-flash-attn", "--moe-enable-deepep",
        "--use-rotary-position-embeddings", "--no-gradient-accumulation-fusion", "--use-mcore-models", "--add-qkv-bias",
        "--no-masked-softmax-fusion", "--no-bias-gelu-fusion", "--no-bias-dropout-fusion", "--no-rope-fusion",
        "--no-bias-swiglu-fusion", "--moe-shared-expert-overlap", "--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute",
        "--enable-cuda-graph", "--use-torch-fsdp2", "--use-megatron-fsdp", "--fp8-param-gather", "--use-custom-fsdp",
        "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split", "--no-load-optim", "--no-load-rng",
        "--no-save-optim", "--no-save-rng", "--attention-softmax-in-fp32", "--accumulate-allreduce-grads-in-fp32",
        "--log-throughput", "--log-timers-to-tensorboard", "--log-memory-to-tensorboard", "--log-validation-ppl-to-tensorboard",
        "--use-checkpoint-args", "--no-async-tensor-model-parallel-allreduce", "--use-dist-ckpt", "--async-save",
        "--ckpt-fully-parallel-load", "--ckpt-fully-parallel-save", "--manual-gc", "--qk-layernorm", "--no-position-embedding",
        "--moe-pad-expert-input-to-capacity", "--moe-permute-fusion", "--moe-router-fusion", "--cross-entropy-loss-fusion",
        "--no-create-attention-mask-in-dataloader", "--mock-data", "--standalone", "--moe-use-legacy-grouped-gemm",
        "--tp-comm-overlap-disable-qkv", "--no-persist-layer-norm", "--apply-layernorm-1p", "--mtp-per-layer-logging",
        "--calculate-per-token-loss", "--use-precision-aware-optimizer", "--moe-router-pre-softmax", "--moe-use-upcycling",
        "--overlap-p2p-communication", "--no-overlap-p2p-communication", "--decoder-first-pipeline-num-layers-auto"};
    return flags;
}

// Flags whose settings change neither parameters, FLOPs, memory nor time (optimizer hyper-
// parameters, data, logging, checkpoint paths, the tokenizer's files, torchrun's addresses).
bool neutralFlag(const std::string& flag)
{
    static const std::set<std::string> exact = {"--min-lr", "--weight-decay", "--clip-grad", "--init-method-std", "--split", "--seed",
        "--distributed-backend", "--norm-epsilon", "--rotary-base", "--rotary-percent", "--make-vocab-size-divisible-by",
        "--num-workers", "--dataloader-type", "--timing-log-level", "--transformer-impl", "--use-mcore-models", "--exit-interval",
        "--exit-duration-in-mins", "--node_rank", "--node-rank", "--master_addr", "--master-addr", "--master_port", "--master-port",
        "--rdzv_id", "--rdzv-id", "--rdzv_backend", "--rdzv-backend", "--rdzv_endpoint", "--rdzv-endpoint", "--moe-aux-loss-coeff",
        "--moe-z-loss-coeff", "--moe-router-load-balancing-type", "--moe-router-score-function", "--moe-router-topk-scaling-factor",
        "--moe-router-dtype", "--moe-token-drop-policy", "--moe-router-bias-update-rate", "--moe-input-jitter-eps",
        "--attention-softmax-in-fp32", "--accumulate-allreduce-grads-in-fp32", "--no-load-optim", "--no-load-rng", "--no-save-optim",
        "--no-save-rng", "--use-checkpoint-args", "--use-dist-ckpt", "--async-save", "--ckpt-fully-parallel-load",
        "--ckpt-fully-parallel-save", "--ckpt-format", "--manual-gc", "--manual-gc-interval", "--mock-data", "--standalone",
        "--distributed-timeout-minutes", "--ddp-bucket-size", "--ddp-average-in-collective", "--mtp-loss-scaling-factor",
        "--mtp-per-layer-logging", "--calculate-per-token-loss", "--no-create-attention-mask-in-dataloader", "--override-opt_param-scheduler",
        "--rope-scaling-factor", "--use-rope-scaling", "--rotary-scaling-factor", "--beta-fast", "--beta-slow", "--mscale",
        "--mscale-all-dim", "--attention-backend", "--num-dataset-builder-threads", "--object-storage-cache-path", "--reset-attention-mask",
        "--reset-position-ids", "--eod-mask-loss", "--no-mmap-bin-files", "--apply-query-key-layer-scaling", "--moe-router-pre-softmax",
        "--log-throughput", "--max-position-embeddings", "--fp8-amax-history-len", "--fp8-amax-compute-algo", "--fp8-margin",
        "--fp8-interval", "--first-last-layers-bf16", "--num-layers-at-start-in-bf16", "--num-layers-at-end-in-bf16",
        "--overlap-p2p-communication", "--no-overlap-p2p-communication", "--apply-layernorm-1p", "--no-persist-layer-norm",
        "--initial-loss-scale", "--loss-scale", "--loss-scale-window", "--hysteresis", "--min-loss-scale"};
    if (exact.count(flag))
        return true;
    for (const char* prefix : {"--lr", "--log-", "--wandb-", "--tensorboard", "--eval-", "--save", "--load", "--data-", "--adam-",
             "--tokenizer-", "--vocab-file", "--merge-file", "--train-data", "--valid-data", "--test-data", "--sgd-", "--optimizer",
             "--start-weight-decay", "--end-weight-decay", "--weight-decay-incr", "--profile", "--use-pytorch-profiler", "--finetune",
             "--pretrained-checkpoint", "--per-split-data", "--no-check-for-nan", "--check-for-", "--rerun-", "--dist-ckpt"})
        if (flag.rfind(prefix, 0) == 0)
            return true;
    return false;
}

struct Argument {
    std::string value;  // empty for a switch
    bool hasValue = false;
};

class Arguments {
public:
    std::map<std::string, Argument> args;
    std::vector<std::string> order;

    bool has(const std::string& flag) const { return args.count(flag) > 0; }
    bool flag(const std::string& flag) const { return has(flag); }
    std::optional<std::string> text(const std::string& flag)
    {
        const auto it = args.find(flag);
        if (it == args.end())
            return std::nullopt;
        if (!it->second.hasValue)
            throw PlanError({PlanProblem{flag, "needs a value"}});
        return it->second.value;
    }
    std::optional<double> number(const std::string& flag)
    {
        const auto t = text(flag);
        if (!t)
            return std::nullopt;
        try {
            size_t used = 0;
            const double v = std::stod(*t, &used);
            if (used != t->size() || !std::isfinite(v))
                throw std::invalid_argument("trailing");
            return v;
        } catch (const std::exception&) {
            throw PlanError({PlanProblem{flag, "must be a number, got \"" + *t + "\"" + (t->find('$') != std::string::npos ? " (a shell expression this reader cannot evaluate)" : "")}});
        }
    }
    std::optional<int> integer(const std::string& flag)
    {
        const auto v = number(flag);
        if (!v)
            return std::nullopt;
        if (*v != std::floor(*v) || std::fabs(*v) > 2147483647.0)
            throw PlanError({PlanProblem{flag, "must be a whole number, got " + *text(flag)}});
        return int(*v);
    }
};

// --moe-layer-freq as a pattern: "([0]*3+[1]*58)" or "[0,0,0,1,1]" -> 0/1 per layer.
std::optional<std::vector<int>> layerPattern(const std::string& text)
{
    std::string s;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            s += c;
    while (s.size() >= 2 && s.front() == '(' && s.back() == ')')
        s = s.substr(1, s.size() - 2);
    if (s.empty() || s.front() != '[')
        return std::nullopt;
    std::vector<int> out;
    size_t i = 0;
    while (i < s.size()) {
        if (s[i] != '[')
            return std::nullopt;
        const size_t close = s.find(']', i);
        if (close == std::string::npos)
            return std::nullopt;
        std::vector<int> list;
        for (size_t k = i + 1; k < close;) {
            const size_t comma = std::min(s.find(',', k), close);
            const std::string item = s.substr(k, comma - k);
            if (item != "0" && item != "1")
                return std::nullopt;
            list.push_back(item == "1");
            k = comma + 1;
        }
        i = close + 1;
        long long repeat = 1;
        if (i < s.size() && s[i] == '*') {
            size_t e = i + 1;
            while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e])))
                ++e;
            if (e == i + 1 || e - i > 7)
                return std::nullopt;
            repeat = std::stoll(s.substr(i + 1, e - i - 1));
            i = e;
        }
        for (long long r = 0; r < repeat; ++r) {
            out.insert(out.end(), list.begin(), list.end());
            if (out.size() > 100000)
                return std::nullopt;
        }
        if (i < s.size()) {
            if (s[i] != '+')
                return std::nullopt;
            ++i;
        }
    }
    return out;
}

}  // namespace

bool looksLikeMegatronArguments(const std::string& text)
{
    for (const char* flag : {"--num-layers", "--hidden-size", "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
             "--micro-batch-size", "--global-batch-size", "--num-attention-heads"})
        if (text.find(flag) != std::string::npos)
            return true;
    return false;
}

ImportReport importMegatronArguments(const std::string& text, const Plan& base, const std::string& modelName)
{
    ImportReport report;
    report.format = "megatron";
    const ShellWords shell = splitShellWords(text);

    // The arguments: "--flag value", "--flag=value", switches; the last of a repeated flag wins.
    Arguments a;
    const auto& words = shell.words;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w.size() < 3 || w.rfind("--", 0) != 0)
            continue;
        const auto eq = w.find('=');
        const std::string flag = w.substr(0, eq);
        Argument arg;
        if (eq != std::string::npos) {
            arg.value = w.substr(eq + 1);
            arg.hasValue = true;
        } else if (!switchFlags().count(flag)) {
            // A value follows; a flag TrainPlan does not know may take several (--data-path 0.5 a 0.5 b).
            const bool known = !neutralFlag(flag);
            size_t j = i + 1;
            while (j < words.size() && !(words[j].rfind("--", 0) == 0 && words[j].size() > 2)) {
                arg.value += (arg.hasValue ? " " : "") + words[j];
                arg.hasValue = true;
                ++j;
                if (known)
                    break;
            }
            i = j - 1;
        }
        if (!a.has(flag))
            a.order.push_back(flag);
        a.args[flag] = arg;
    }

    const auto mapped = [&](const std::string& flag, const std::string& field, const std::string& note = {}) {
        report.mapped.push_back({flag, field, note});
    };
    json doc = planToJson(base);
    doc.erase("name");
    doc["name_user_set"] = false;
    json& layout = doc["layout"];
    json& training = doc["training"];
    json& framework = doc["framework"];
    if (!framework.is_object())
        framework = json::object();

    // The model, when the arguments describe one: Megatron-LM's defaults for what they leave out.
    const bool describesModel = a.has("--num-layers") || a.has("--hidden-size");
    int layers = base.model.layers;
    if (describesModel) {
        json m = json::object();
        const auto need = [&](const char* flag, const char* field) {
            const auto v = a.integer(flag);
            if (!v)
                throw PlanError({PlanProblem{flag, "is missing: the arguments describe a model but not its " + std::string(field)}});
            mapped(flag, std::string("model.") + field);
            m[field] = *v;
            return *v;
        };
        layers = need("--num-layers", "layers");
        const int hidden = need("--hidden-size", "hidden_size");
        const int heads = need("--num-attention-heads", "attention_heads");
        m["name"] = modelName.empty() ? std::string("Megatron-LM model") : modelName;
        const bool swiglu = a.flag("--swiglu");
        m["ffn_kind"] = swiglu ? "swiglu" : "gelu";
        if (swiglu)
            mapped("--swiglu", "model.ffn_kind");
        else
            report.assumptions.push_back("no --swiglu: a GELU feed-forward (Megatron-LM's default)");
        if (const auto f = a.integer("--ffn-hidden-size")) {
            m["ffn_hidden_size"] = *f;
            mapped("--ffn-hidden-size", "model.ffn_hidden_size");
        } else {
            // arguments.py: 4h, or with SwiGLU 2/3 of it rounded down to a multiple of 64.
            const int f2 = swiglu ? int(4.0 * hidden * 2 / 3 / 64) * 64 : 4 * hidden;
            m["ffn_hidden_size"] = f2;
            report.assumptions.push_back("no --ffn-hidden-size: " + std::to_string(f2) + " (Megatron-LM's default for this width)");
        }
        const bool gqa = a.flag("--group-query-attention");
        if (const auto groups = a.integer("--num-query-groups"); gqa && groups) {
            m["kv_heads"] = *groups;
            mapped("--num-query-groups", "model.kv_heads");
            mapped("--group-query-attention", "model.kv_heads");
        } else {
            m["kv_heads"] = heads;
            if (a.has("--num-query-groups"))
                report.unmapped.push_back({"--num-query-groups", {}, "without --group-query-attention Megatron-LM ignores it"});
        }
        if (const auto kvc = a.integer("--kv-channels")) {
            m["head_dim"] = *kvc;
            mapped("--kv-channels", "model.head_dim");
        } else {
            if (hidden % heads != 0)
                throw PlanError({PlanProblem{"--hidden-size", "is not a multiple of --num-attention-heads and --kv-channels is absent"}});
            m["head_dim"] = hidden / heads;
        }
        const std::string norm = a.text("--normalization").value_or("LayerNorm");
        m["norm"] = norm == "RMSNorm" ? "rmsnorm" : "layernorm";
        if (a.has("--normalization"))
            mapped("--normalization", "model.norm");
        m["bias"] = !a.flag("--disable-bias-linear");
        if (a.has("--disable-bias-linear"))
            mapped("--disable-bias-linear", "model.bias");
        const std::string position = a.text("--position-embedding-type").value_or(a.flag("--use-rotary-position-embeddings") ? "rope" : "learned_absolute");
        m["position_embedding"] = position == "learned_absolute" ? "learned" : "rope";
        if (a.has("--position-embedding-type"))
            mapped("--position-embedding-type", "model.position_embedding", position == "none" ? "none: counted as rotary (no parameters)" : "");
        if (a.has("--use-rotary-position-embeddings"))
            mapped("--use-rotary-position-embeddings", "model.position_embedding");
        m["tied_embeddings"] = !a.flag("--untie-embeddings-and-output-weights");
        if (a.has("--untie-embeddings-and-output-weights"))
            mapped("--untie-embeddings-and-output-weights", "model.tied_embeddings");
        const std::string vocabFlag = a.has("--padded-vocab-size") ? "--padded-vocab-size" : "--vocab-size";
        if (const auto v = a.integer(vocabFlag)) {
            m["vocab_size"] = *v;
            mapped(vocabFlag, "model.vocab_size");
        } else {
            m["vocab_size"] = base.model.vocabSize;
            report.assumptions.push_back("vocabulary: the tokenizer's, which the arguments only name; model.vocab_size stays the base plan's "
                                         + std::to_string(base.model.vocabSize));
        }
        if (a.flag("--add-qkv-bias"))
            report.unmapped.push_back({"--add-qkv-bias", {}, "query, key and value biases alone: under 0.01 % of the parameters, not counted"});
        // Mixture of experts.
        if (const auto experts = a.integer("--num-experts"); experts && *experts > 0) {
            json moe = json::object();
            moe["experts"] = *experts;
            mapped("--num-experts", "model.moe.experts");
            moe["top_k"] = a.integer("--moe-router-topk").value_or(2);
            if (a.has("--moe-router-topk"))
                mapped("--moe-router-topk", "model.moe.top_k");
            else
                report.assumptions.push_back("no --moe-router-topk: top-2 (Megatron-LM's default)");
            if (const auto w = a.integer("--moe-ffn-hidden-size")) {
                moe["expert_ffn_hidden_size"] = *w;
                mapped("--moe-ffn-hidden-size", "model.moe.expert_ffn_hidden_size");
            } else {
                moe["expert_ffn_hidden_size"] = m["ffn_hidden_size"];
                report.assumptions.push_back("no --moe-ffn-hidden-size: each expert is --ffn-hidden-size wide (Megatron-LM's default)");
            }
            // The shared experts' total width (Megatron-Core builds them as one MLP): a multiple k of
            // the routed width is k shared experts of that width, else one of its own width.
            if (const auto shared = a.integer("--moe-shared-expert-intermediate-size"); shared && *shared > 0) {
                const int routed = moe["expert_ffn_hidden_size"].get<int>();
                if (routed > 0 && *shared % routed == 0) {
                    moe["shared_experts"] = *shared / routed;
                    mapped("--moe-shared-expert-intermediate-size", "model.moe.shared_experts",
                        std::to_string(*shared / routed) + " shared experts of the routed width");
                } else {
                    moe["shared_experts"] = 1;
                    moe["shared_expert_ffn_hidden_size"] = *shared;
                    mapped("--moe-shared-expert-intermediate-size", "model.moe.shared_expert_ffn_hidden_size", "one shared expert of this width");
                }
            }
            if (a.flag("--moe-router-enable-expert-bias")) {
                moe["router_bias"] = true;
                mapped("--moe-router-enable-expert-bias", "model.moe.router_bias");
            }
            if (const auto groups = a.integer("--moe-router-group-topk"); groups && a.integer("--moe-router-num-groups").value_or(1) > 1) {
                moe["max_nodes_per_token"] = *groups;
                mapped("--moe-router-group-topk", "model.moe.max_nodes_per_token", "one expert group per node");
                mapped("--moe-router-num-groups", "model.moe.max_nodes_per_token");
            }
            if (const auto cf = a.number("--moe-expert-capacity-factor")) {
                moe["capacity_factor"] = *cf;
                mapped("--moe-expert-capacity-factor", "model.moe.capacity_factor");
            }
            bool dense = false;
            if (const auto freq = a.text("--moe-layer-freq")) {
                int step = 0;
                try {
                    size_t used = 0;
                    step = std::stoi(*freq, &used);
                    if (used != freq->size())
                        step = 0;
                } catch (const std::exception&) {
                    step = 0;
                }
                if (step >= 1) {
                    if (step > 1) {
                        moe["layer_step"] = step;
                        dense = true;
                    }
                    mapped("--moe-layer-freq", "model.moe.layer_step", step > 1 ? megatronEveryKthLayerNote(layers, step) : "");
                } else {
                    const auto pattern = layerPattern(*freq);
                    if (!pattern || int(pattern->size()) != layers)
                        throw PlanError({PlanProblem{"--moe-layer-freq", "must be a number or a pattern of " + std::to_string(layers)
                                                                  + " 0s and 1s, as ([0]*3+[1]*58), got \"" + *freq + "\""}});
                    // A dense prefix, then MoE every step-th layer: the shapes a plan holds.
                    int prefix = 0;
                    while (prefix < layers && (*pattern)[size_t(prefix)] == 0)
                        ++prefix;
                    int s = 1;
                    while (prefix + s - 1 < layers && (*pattern)[size_t(prefix + s - 1)] == 0)
                        ++s;
                    MoeSpec probe;
                    probe.denseLayers = prefix;
                    probe.layerStep = s;
                    bool matches = prefix < layers;
                    for (int l = 0; l < layers && matches; ++l)
                        matches = probe.isMoeLayer(l) == ((*pattern)[size_t(l)] == 1);
                    if (!matches)
                        throw PlanError({PlanProblem{"--moe-layer-freq", "this pattern of MoE layers is not a dense prefix followed by every k-th "
                                                              "layer; describe the runs with model.layer_kinds"}});
                    if (prefix > 0)
                        moe["dense_layers"] = prefix;
                    if (s > 1)
                        moe["layer_step"] = s;
                    dense = prefix > 0 || s > 1;
                    mapped("--moe-layer-freq", "model.moe.dense_layers", "a pattern: " + std::to_string(prefix) + " dense layers first, then every "
                                                                           + (s == 1 ? std::string("layer") : std::to_string(s) + "th layer") + " MoE");
                }
            }
            if (!dense && !a.has("--ffn-hidden-size"))
                m.erase("ffn_hidden_size");  // every layer is MoE: no dense width to keep
            m["moe"] = moe;
        }
        // Multi-head latent attention (arguments.py defaults: qk 128, rope 64, v 128).
        if (a.flag("--multi-latent-attention")) {
            json mla = json::object();
            mapped("--multi-latent-attention", "model.mla");
            const auto put = [&](const char* flag, const char* field, int fallback) {
                if (const auto v = a.integer(flag)) {
                    mla[field] = *v;
                    mapped(flag, std::string("model.mla.") + field);
                } else {
                    mla[field] = fallback;
                }
            };
            put("--q-lora-rank", "q_lora_rank", 0);
            put("--kv-lora-rank", "kv_lora_rank", 512);
            put("--qk-head-dim", "qk_nope_head_dim", 128);
            put("--qk-pos-emb-head-dim", "qk_rope_head_dim", 64);
            put("--v-head-dim", "v_head_dim", 128);
            m["mla"] = mla;
            m["head_dim"] = mla["v_head_dim"];
        }
        if (const auto mtp = a.integer("--mtp-num-layers")) {
            if (*mtp > 0)
                m["mtp_layers"] = *mtp;
            mapped("--mtp-num-layers", "model.mtp_layers");
        }
        m["sequence_length"] = base.model.sequenceLength;
        doc["model"] = m;
    } else {
        report.assumptions.push_back("the arguments do not describe a model (no --num-layers, --hidden-size): the base plan's model");
    }
    if (const auto seq = a.integer("--seq-length")) {
        doc["model"]["sequence_length"] = *seq;
        mapped("--seq-length", "model.sequence_length");
    }

    // The layout.
    const auto layoutInt = [&](const char* flag, const char* field) {
        if (const auto v = a.integer(flag)) {
            layout[field] = *v;
            mapped(flag, std::string("layout.") + field);
        }
    };
    layoutInt("--tensor-model-parallel-size", "tp");
    layoutInt("--pipeline-model-parallel-size", "pp");
    layoutInt("--context-parallel-size", "cp");
    layoutInt("--expert-model-parallel-size", "ep");
    layoutInt("--expert-tensor-parallel-size", "etp");
    const int pp = layout.value("pp", 1);
    if (const auto v = a.integer("--virtual-pipeline-model-parallel-size"); v && *v > 1) {
        layout["virtual_stages"] = *v;
        layout["schedule"] = "interleaved";
        mapped("--virtual-pipeline-model-parallel-size", "layout.virtual_stages", "interleaved 1F1B");
    } else if (const auto per = a.integer("--num-layers-per-virtual-pipeline-stage")) {
        if (*per <= 0 || pp <= 0 || layers % (pp * *per) != 0)
            throw PlanError({PlanProblem{"--num-layers-per-virtual-pipeline-stage", "must divide the layers of each pipeline stage ("
                                                                          + std::to_string(layers) + " layers over " + std::to_string(pp) + " stages)"}});
        const int v = layers / (pp * *per);
        layout["virtual_stages"] = v;
        layout["schedule"] = v > 1 ? "interleaved" : "1f1b";
        mapped("--num-layers-per-virtual-pipeline-stage", "layout.virtual_stages", std::to_string(v) + " model chunks per stage");
    } else if (a.has("--pipeline-model-parallel-size")) {
        layout["virtual_stages"] = 1;
        layout["schedule"] = "1f1b";
        report.assumptions.push_back("no virtual pipeline: the 1F1B schedule (Megatron-LM's for one chunk per stage)");
    }
    // Uneven first and last stages (Megatron-Core's --decoder-first/last-pipeline-num-layers).
    const auto first = a.integer("--decoder-first-pipeline-num-layers");
    const auto last = a.integer("--decoder-last-pipeline-num-layers");
    if ((first || last) && pp >= 2) {
        const int f = first.value_or(-1), l = last.value_or(-1);
        const int fixed = (f >= 0) + (l >= 0);
        const int rest = layers - std::max(f, 0) - std::max(l, 0);
        const int middle = pp - fixed;
        if (rest < 0 || (middle > 0 && rest % middle != 0) || (middle == 0 && rest != 0))
            throw PlanError({PlanProblem{first ? "--decoder-first-pipeline-num-layers" : "--decoder-last-pipeline-num-layers",
                "leaves " + std::to_string(rest) + " layers that do not split evenly over the other " + std::to_string(middle) + " stages"}});
        std::vector<int> split(size_t(pp), middle > 0 ? rest / middle : 0);
        if (f >= 0)
            split.front() = f;
        if (l >= 0)
            split.back() = l;
        layout["stage_layers"] = split;
        if (first)
            mapped("--decoder-first-pipeline-num-layers", "layout.stage_layers");
        if (last)
            mapped("--decoder-last-pipeline-num-layers", "layout.stage_layers");
    } else {
        layout.erase("stage_layers");
    }
    layout["sequence_parallel"] = a.flag("--sequence-parallel");
    if (a.has("--sequence-parallel"))
        mapped("--sequence-parallel", "layout.sequence_parallel");
    if (a.flag("--use-torch-fsdp2") || a.flag("--use-megatron-fsdp") || a.flag("--use-custom-fsdp")) {
        layout["zero_stage"] = 3;
        for (const char* f : {"--use-torch-fsdp2", "--use-megatron-fsdp", "--use-custom-fsdp"})
            if (a.has(f))
                mapped(f, "layout.zero_stage", "FSDP: parameters, gradients and optimizer sharded (ZeRO-3)");
    } else {
        layout["zero_stage"] = a.flag("--use-distributed-optimizer") ? 1 : 0;
        if (a.has("--use-distributed-optimizer"))
            mapped("--use-distributed-optimizer", "layout.zero_stage", "the distributed optimizer shards optimizer state (ZeRO-1)");
        else
            report.assumptions.push_back("no --use-distributed-optimizer: optimizer state replicated (ZeRO stage 0)");
    }
    // Recomputation.
    const std::string granularity = a.text("--recompute-granularity").value_or(a.flag("--recompute-activations") ? "selective" : "");
    if (!granularity.empty()) {
        if (granularity != "full" && granularity != "selective")
            throw PlanError({PlanProblem{"--recompute-granularity", "must be full or selective, got \"" + granularity + "\""}});
        layout["recompute"] = granularity;
        mapped(a.has("--recompute-granularity") ? "--recompute-granularity" : "--recompute-activations", "layout.recompute");
        const std::string method = a.text("--recompute-method").value_or("uniform");
        const auto count = a.integer("--recompute-num-layers");
        if (granularity == "full" && method == "block" && count) {
            layout["recompute_layers"] = *count;
            mapped("--recompute-num-layers", "layout.recompute_layers", "block: this many layers of each stage (chunk) recomputed");
            mapped("--recompute-method", "layout.recompute_layers");
        } else if (granularity == "full") {
            layout["recompute_layers"] = 0;
            if (a.has("--recompute-method"))
                mapped("--recompute-method", "layout.recompute_layers", "uniform: every layer recomputed, in groups of --recompute-num-layers");
            if (count)
                mapped("--recompute-num-layers", "layout.recompute_layers", "uniform: the group size; every layer is recomputed");
        }
    } else {
        layout["recompute"] = "none";
    }

    // Training: batch, tokens, precision.
    if (const auto mbs = a.integer("--micro-batch-size")) {
        training["micro_batch_size"] = *mbs;
        mapped("--micro-batch-size", "training.micro_batch_size");
    }
    if (const auto gbs = a.integer("--global-batch-size")) {
        training.erase("global_batch_tokens");
        training["global_batch_sequences"] = *gbs;
        mapped("--global-batch-size", "training.global_batch_sequences");
    }
    const double seqLength = doc["model"].value("sequence_length", double(base.model.sequenceLength));
    if (const auto samples = a.number("--train-samples")) {
        training["tokens"] = *samples * seqLength;
        mapped("--train-samples", "training.tokens", "samples x --seq-length");
    } else if (const auto iters = a.number("--train-iters")) {
        const double gbs = training.value("global_batch_sequences", double(base.training.globalBatchSequences));
        training["tokens"] = *iters * gbs * seqLength;
        mapped("--train-iters", "training.tokens", "iterations x --global-batch-size x --seq-length");
    }
    if (a.flag("--fp16")) {
        report.unmapped.push_back({"--fp16", {}, "FP16 with loss scaling: sized and timed as BF16 (same bytes, same tensor-core rate)"});
    }
    if (a.flag("--bf16")) {
        training["precision"] = "bf16-fp32-master-adam";
        mapped("--bf16", "training.precision", "BF16 weights and gradients, FP32 master weights and Adam moments (Megatron-LM's mixed precision)");
    }
    if (const auto recipe = a.text("--fp4-recipe"); recipe || a.has("--fp4-format")) {
        training["matmul_precision"] = "nvfp4";
        mapped(a.has("--fp4-format") ? "--fp4-format" : "--fp4-recipe", "training.matmul_precision");
    } else if (const auto format = a.text("--fp8-format")) {
        const std::string recipe = a.text("--fp8-recipe").value_or("delayed");
        training["matmul_precision"] = recipe == "blockwise" ? "fp8-blockwise" : recipe == "mxfp8" ? "mxfp8" : "fp8";
        mapped("--fp8-format", "training.matmul_precision", *format + ", recipe " + recipe);
        if (a.has("--fp8-recipe"))
            mapped("--fp8-recipe", "training.matmul_precision");
    }

    // The software: Megatron-Core's profile, then what the switches say.
    framework["profile"] = "megatron-core-2024";
    report.assumptions.push_back("framework: the Megatron-Core profile; the switches the arguments set override it");
    const auto flagSwitch = [&](const char* flag, const char* field) {
        if (a.flag(flag)) {
            framework[field] = true;
            mapped(flag, std::string("framework.") + field);
        }
    };
    flagSwitch("--overlap-grad-reduce", "overlap_grad_reduce");
    flagSwitch("--overlap-param-gather", "overlap_param_gather");
    flagSwitch("--tp-comm-overlap", "tp_comm_overlap");
    flagSwitch("--moe-grouped-gemm", "moe_grouped_gemm");
    if (a.flag("--enable-cuda-graph")) {
        framework["cuda_graphs"] = true;
        mapped("--enable-cuda-graph", "framework.cuda_graphs");
    }
    if (a.flag("--no-gradient-accumulation-fusion")) {
        framework["gradient_accumulation"] = "autograd";
        mapped("--no-gradient-accumulation-fusion", "framework.gradient_accumulation");
    }
    if (a.flag("--overlap-moe-expert-parallel-comm") || a.flag("--moe-shared-expert-overlap")) {
        if (a.has("--overlap-moe-expert-parallel-comm")) {
            framework["moe_comm_overlap"] = true;
            mapped("--overlap-moe-expert-parallel-comm", "framework.moe_comm_overlap");
        }
        if (a.has("--moe-shared-expert-overlap"))
            report.unmapped.push_back({"--moe-shared-expert-overlap", {}, "the shared expert under the dispatch: not modelled apart"});
    }
    if (const auto dispatcher = a.text("--moe-token-dispatcher-type")) {
        const bool deepep = a.flag("--moe-enable-deepep") || a.text("--moe-flex-dispatcher-backend").value_or("") == "deepep";
        framework["moe_dispatcher"] = *dispatcher == "allgather" ? "allgather" : (*dispatcher == "flex" && deepep) ? "deepep" : "alltoall";
        mapped("--moe-token-dispatcher-type", "framework.moe_dispatcher");
        if (a.has("--moe-enable-deepep"))
            mapped("--moe-enable-deepep", "framework.moe_dispatcher");
    }
    if (a.flag("--use-flash-attn")) {
        framework["flash_attention"] = "2";
        mapped("--use-flash-attn", "framework.flash_attention");
    }
    const auto attentionDropout = a.number("--attention-dropout"), hiddenDropout = a.number("--hidden-dropout");
    if (attentionDropout && hiddenDropout) {
        framework["dropout"] = *attentionDropout > 0 || *hiddenDropout > 0;
        mapped("--attention-dropout", "framework.dropout");
        mapped("--hidden-dropout", "framework.dropout");
    } else if (attentionDropout || hiddenDropout) {
        report.unmapped.push_back({attentionDropout ? "--attention-dropout" : "--hidden-dropout", {},
            "the other dropout is Megatron-LM's default 0.1: dropout on, as without either"});
    }

    // The cluster from torchrun, when the script launches with it.
    const auto perNode = a.has("--nproc-per-node") ? a.integer("--nproc-per-node") : a.integer("--nproc_per_node");
    if (perNode) {
        doc["cluster"]["gpus_per_node"] = *perNode;
        mapped(a.has("--nproc-per-node") ? "--nproc-per-node" : "--nproc_per_node", "cluster.gpus_per_node");
        if (const auto nodes = a.integer("--nnodes")) {
            doc["cluster"]["gpus"] = (long long)*nodes * *perNode;
            mapped("--nnodes", "cluster.gpus", "nodes x GPUs per node");
        }
    }
    // DP follows the GPUs: the arguments never say it, Megatron-LM derives it from the world size.
    layout["dp"] = "auto";
    if (!a.has("--nnodes"))
        report.assumptions.push_back("the GPU count is not in the arguments (no torchrun --nnodes): cluster.gpus stays the base plan's and DP follows it");

    // Every other argument: listed with why not.
    const auto listed = [&](const std::string& flag) {
        const auto is = [&](const ImportedKey& k) { return k.key == flag; };
        return std::any_of(report.mapped.begin(), report.mapped.end(), is) || std::any_of(report.unmapped.begin(), report.unmapped.end(), is);
    };
    for (const std::string& flag : a.order)
        if (!listed(flag))
            report.unmapped.push_back({flag, {}, neutralFlag(flag) ? kNoEffectNote
                                                                   : "not a flag TrainPlan reads: check that the plan matches the run"});
    for (const std::string& word : shell.unresolved)
        report.unmapped.push_back({word, {}, "a shell substitution this reader cannot do (set the variable in the script, or pass the arguments)"});
    report.plan = readImportedPlan(doc, report.mapped);
    return report;
}

}  // namespace trainplan
