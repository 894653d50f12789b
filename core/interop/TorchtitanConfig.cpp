#include "core/interop/TorchtitanConfig.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/base/PlanError.h"
#include "core/estimate/PipelineModel.h"
#include "core/interop/TomlTables.h"
#include "core/plan/EnumNames.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

namespace {

using nlohmann::json;

// torch.distributed.pipelining's schedule names (torchtitan passes them through) and TrainPlan's.
struct ScheduleName {
    const char* torchtitan;
    Schedule schedule;
};
constexpr ScheduleName kSchedules[] = {{"1F1B", Schedule::OneFOneB}, {"GPipe", Schedule::GPipe}, {"Interleaved1F1B", Schedule::Interleaved},
    {"InterleavedZeroBubble", Schedule::ZeroBubble}, {"ZBVZeroBubble", Schedule::ZeroBubble}, {"DualPipeV", Schedule::DualPipe}};

// Tables whose keys change none of the figures (logging, data, optimizer hyperparameters, checkpoints).
bool neutralTable(const std::string& table)
{
    static const std::set<std::string> tables = {"job", "profiling", "metrics", "optimizer", "lr_scheduler", "checkpoint", "validation",
        "comm", "fault_tolerance", "experimental", "memory_estimation", "debug"};
    return tables.count(table) > 0;
}
bool neutralKey(const std::string& table, const std::string& key)
{
    static const std::set<std::string> keys = {"training.dataset", "training.dataset_path", "training.max_norm", "training.seed",
        "training.deterministic", "training.enable_cpu_offload", "training.gc_freq", "training.warmup_steps", "model.tokenizer_path",
        "model.hf_assets_path", "model.print_after_conversion", "parallelism.disable_loss_parallel", "parallelism.enable_compiled_autograd",
        "parallelism.context_parallel_rotate_method", "parallelism.context_parallel_load_balance", "parallelism.pipeline_parallel_split_points",
        "float8.enable_fsdp_float8_all_gather", "float8.precompute_float8_dynamic_scale_for_fsdp", "float8.filter_fqns",
        "float8.recipe_name", "float8.emulate", "mx.filter_fqns", "mx.recipe_name", "mx.mxfp8_dim1_cast_kernel_choice",
        "compile.components", "compile.backend", "activation_checkpoint.preserve_rng_state", "activation_checkpoint.early_stop",
        "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns"};
    return keys.count(table + "." + key) > 0;
}

class Config {
public:
    explicit Config(json doc)
        : doc_(std::move(doc))
    {
    }
    const json* find(const std::string& table, const std::string& key)
    {
        const auto t = doc_.find(table);
        if (t == doc_.end() || !t->is_object())
            return nullptr;
        const auto k = t->find(key);
        if (k == t->end())
            return nullptr;
        used_.insert(table + "." + key);
        return &*k;
    }
    std::optional<long long> integer(const std::string& table, const std::string& key, const std::string& field)
    {
        const json* v = find(table, key);
        if (!v)
            return std::nullopt;
        if (!v->is_number_integer())
            throw PlanError({PlanProblem{table + "." + key + (field.empty() ? "" : " (" + field + ")"), "must be a whole number, got " + v->dump()}});
        return v->get<long long>();
    }
    std::optional<std::string> text(const std::string& table, const std::string& key)
    {
        const json* v = find(table, key);
        if (!v)
            return std::nullopt;
        if (!v->is_string())
            throw PlanError({PlanProblem{table + "." + key, "must be a string, got " + v->dump()}});
        return v->get<std::string>();
    }
    std::optional<bool> boolean(const std::string& table, const std::string& key)
    {
        const json* v = find(table, key);
        if (!v)
            return std::nullopt;
        if (!v->is_boolean())
            throw PlanError({PlanProblem{table + "." + key, "must be true or false, got " + v->dump()}});
        return v->get<bool>();
    }
    // Every key the file has that no one read, as "table.key".
    std::vector<std::pair<std::string, std::string>> unread() const
    {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& [table, keys] : doc_.items()) {
            if (!keys.is_object()) {
                if (!used_.count(table))
                    out.emplace_back(std::string(), table);
                continue;
            }
            for (const auto& [key, value] : keys.items())
                if (!used_.count(table + "." + key))
                    out.emplace_back(table, key);
        }
        return out;
    }

private:
    json doc_;
    std::set<std::string> used_;
};

}  // namespace

bool looksLikeTorchtitanConfig(const std::string& text)
{
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos)
            continue;
        const auto last = line.find_last_not_of(" \t\r");
        const std::string trimmed = line.substr(first, last - first + 1);
        if (trimmed.rfind("[parallelism]", 0) == 0 || trimmed.rfind("[training]", 0) == 0)
            return true;
    }
    return false;
}

ImportReport importTorchtitanConfig(const std::string& text, const Plan& base)
{
    Config c(parseTomlTables(text));
    ImportReport report;
    report.format = "torchtitan";
    const auto mapped = [&](const std::string& key, const std::string& field, const std::string& note = {}) {
        report.mapped.push_back({key, field, note});
    };
    json doc = planToJson(base);
    json& layout = doc["layout"];
    json& training = doc["training"];
    json& framework = doc["framework"];
    framework = json::object();
    framework["profile"] = "pytorch-fsdp2";
    report.assumptions.push_back("framework: the PyTorch FSDP2 profile (torchtitan's stack); the file's switches override it");
    report.assumptions.push_back("the model: the base plan's (" + base.model.name
        + "); torchtitan defines it in code by [model] name and flavor, so import its config.json for the shape");
    report.assumptions.push_back("the GPU count is not in the file (torchrun sets it): cluster.gpus stays the base plan's");

    if (const auto seq = c.integer("training", "seq_len", "model.sequence_length")) {
        doc["model"]["sequence_length"] = *seq;
        mapped("training.seq_len", "model.sequence_length");
    }
    const int layers = base.model.layers;
    const auto degree = [&](const char* key, const char* field) -> std::optional<long long> {
        const auto v = c.integer("parallelism", key, std::string("layout.") + field);
        if (v) {
            layout[field] = *v;
            mapped(std::string("parallelism.") + key, std::string("layout.") + field);
        }
        return v;
    };
    const long long tp = degree("tensor_parallel_degree", "tp").value_or(base.layout.tp);
    const long long pp = degree("pipeline_parallel_degree", "pp").value_or(base.layout.pp);
    const long long cp = degree("context_parallel_degree", "cp").value_or(base.layout.cp);
    degree("expert_parallel_degree", "ep");
    degree("expert_tensor_parallel_degree", "etp");
    // torchtitan's tensor parallel plan shards the norms' sequence (SequenceParallel): always on with TP.
    layout["sequence_parallel"] = tp > 1;
    if (tp > 1)
        report.assumptions.push_back("sequence parallelism: on, as torchtitan's tensor-parallel plan always shards the sequence for the norms");

    // Data parallelism: replicas (DDP) times shards (FSDP2); -1 shards over what the others leave.
    const auto replicate = c.integer("parallelism", "data_parallel_replicate_degree", "layout.dp");
    const auto shard = c.integer("parallelism", "data_parallel_shard_degree", "layout.dp");
    const long long modelParallel = tp * pp * cp;
    long long dp = 0;
    const long long r = replicate.value_or(1);
    if (shard && *shard == -1) {
        dp = modelParallel > 0 && r > 0 ? base.cluster.gpus / (modelParallel * r) * r : 0;
        layout["dp"] = "auto";
    } else {
        dp = r * shard.value_or(1);
        layout["dp"] = dp;
    }
    if (replicate)
        mapped("parallelism.data_parallel_replicate_degree", "layout.dp", "replicas (DDP)");
    if (shard)
        mapped("parallelism.data_parallel_shard_degree", "layout.dp", *shard == -1 ? "FSDP over the GPUs the other degrees leave" : "FSDP shards");
    const bool sharded = !shard || *shard != 1;  // torchtitan's default shard degree is -1
    const auto reshard = c.text("parallelism", "fsdp_reshard_after_forward");
    if (sharded) {
        const bool keepsParameters = reshard && *reshard == "never";
        layout["zero_stage"] = keepsParameters ? 2 : 3;
        if (reshard)
            mapped("parallelism.fsdp_reshard_after_forward", "layout.zero_stage",
                keepsParameters ? "parameters stay gathered from forward to backward: ZeRO-2" : "parameters resharded after forward: ZeRO-3");
        if (r > 1)
            report.assumptions.push_back("HSDP (replicas of FSDP groups): sized as ZeRO sharding over all of DP, which holds less per GPU than "
                                         "sharding within a group");
    } else {
        layout["zero_stage"] = 0;
        if (reshard)
            report.unmapped.push_back({"parallelism.fsdp_reshard_after_forward", {}, "acts only with FSDP (data_parallel_shard_degree > 1)"});
    }

    // The pipeline.
    if (const auto name = c.text("parallelism", "pipeline_parallel_schedule")) {
        const auto it = std::find_if(std::begin(kSchedules), std::end(kSchedules), [&](const ScheduleName& s) { return *name == s.torchtitan; });
        if (it == std::end(kSchedules)) {
            report.unmapped.push_back({"parallelism.pipeline_parallel_schedule", {},
                "\"" + *name + "\" is no schedule TrainPlan simulates (1F1B, GPipe, Interleaved1F1B, InterleavedZeroBubble, ZBVZeroBubble, "
                               "DualPipeV): the base plan's stays"});
        } else {
            layout["schedule"] = std::string(nameOf(kScheduleNames, it->schedule));
            mapped("parallelism.pipeline_parallel_schedule", "layout.schedule",
                it->schedule == Schedule::ZeroBubble ? "timed as ZB-H1 (one chunk per stage)" : std::string());
        }
    }
    if (const auto per = c.integer("parallelism", "pipeline_parallel_layers_per_stage", "layout.virtual_stages")) {
        if (*per <= 0 || pp <= 0 || layers % (pp * *per) != 0)
            throw PlanError({PlanProblem{"parallelism.pipeline_parallel_layers_per_stage (layout.virtual_stages)",
                "must divide the layers of each pipeline stage (" + std::to_string(layers) + " layers over " + std::to_string(pp) + " stages)"}});
        layout["virtual_stages"] = layers / (pp * *per);
        mapped("parallelism.pipeline_parallel_layers_per_stage", "layout.virtual_stages");
    } else if (layout.value("schedule", "") != "interleaved") {
        layout["virtual_stages"] = 1;
    }
    layout.erase("stage_layers");

    // The batch: torchtitan's global batch in samples; each DP rank's local batch, which the
    // pipeline splits into micro-batches of pipeline_parallel_microbatch_size.
    const auto local = c.integer("training", "local_batch_size", "training.global_batch_sequences");
    const auto global = c.integer("training", "global_batch_size", "training.global_batch_sequences");
    const auto micro = c.integer("parallelism", "pipeline_parallel_microbatch_size", "training.micro_batch_size");
    long long globalSequences = 0;
    if (global && *global > 0) {
        globalSequences = *global;
        mapped("training.global_batch_size", "training.global_batch_sequences");
    } else if (local) {
        globalSequences = *local * std::max(dp, 1LL);
        report.assumptions.push_back("no global_batch_size: local_batch_size × DP " + std::to_string(dp) + " sequences (torchtitan's default)");
    }
    if (global && *global <= 0)
        report.unmapped.push_back({"training.global_batch_size", {}, "-1: local_batch_size × DP, as torchtitan takes it"});
    if (globalSequences > 0)
        training["global_batch_sequences"] = globalSequences;
    if (pp > 1) {
        training["micro_batch_size"] = micro.value_or(1);
        if (micro)
            mapped("parallelism.pipeline_parallel_microbatch_size", "training.micro_batch_size");
        if (local)
            mapped("training.local_batch_size", "training.global_batch_sequences", "each DP rank's batch, split into pipeline micro-batches");
    } else {
        if (local) {
            training["micro_batch_size"] = *local;
            mapped("training.local_batch_size", "training.micro_batch_size", "one forward per DP rank; the rest of the global batch is gradient accumulation");
        }
        if (micro)
            report.unmapped.push_back({"parallelism.pipeline_parallel_microbatch_size", {}, "acts only with pipeline_parallel_degree > 1"});
    }
    if (const auto steps = c.integer("training", "steps", "training.tokens")) {
        const double seq = doc["model"].value("sequence_length", double(base.model.sequenceLength));
        const double batch = training.value("global_batch_sequences", double(base.training.globalBatchSequences));
        training["tokens"] = double(*steps) * batch * seq;
        mapped("training.steps", "training.tokens", "steps × global batch × sequence length");
    }

    // Recomputation.
    if (const auto mode = c.text("activation_checkpoint", "mode")) {
        if (*mode == "none" || *mode == "selective" || *mode == "full") {
            layout["recompute"] = *mode;
            mapped("activation_checkpoint.mode", "layout.recompute");
        } else {
            report.unmapped.push_back({"activation_checkpoint.mode", {}, "\"" + *mode + "\" (a memory budget): the base plan's recompute stays"});
        }
    }
    if (const json* option = c.find("activation_checkpoint", "selective_ac_option")) {
        if (option->is_string() && option->get<std::string>() == "op")
            report.mapped.push_back({"activation_checkpoint.selective_ac_option", "layout.recompute", "per-op selective: sized as selective"});
        else
            report.unmapped.push_back({"activation_checkpoint.selective_ac_option", {},
                "every n-th layer recomputed whole: not one of TrainPlan's recompute settings (layout.recompute_layers counts per stage)"});
    }

    // Precision: torchtitan's converters swap the linear layers for float8 or MX ones.
    if (const json* converters = c.find("model", "converters")) {
        if (!converters->is_array())
            throw PlanError({PlanProblem{"model.converters (training.matmul_precision)", "must be a list of strings"}});
        bool set = false;
        for (const auto& name : *converters) {
            const std::string n = name.is_string() ? name.get<std::string>() : std::string();
            if (n == "float8" || n == "mx") {
                training["matmul_precision"] = n == "float8" ? "fp8" : "mxfp8";
                set = true;
            }
        }
        if (set)
            mapped("model.converters", "training.matmul_precision", "float8: per-tensor FP8; mx: MXFP8 block scales");
        else
            report.unmapped.push_back({"model.converters", {}, "no float8 or mx converter: the GEMMs stay BF16"});
    }
    for (const char* key : {"name", "flavor"})
        if (c.find("model", key))
            report.unmapped.push_back({std::string("model.") + key, {}, "torchtitan's model, defined in its code: the base plan's model stays"});
    if (const auto compile = c.boolean("compile", "enable")) {
        framework["fused_kernels"] = *compile;
        mapped("compile.enable", "framework.fused_kernels", "torch.compile fuses the element-wise work");
    }
    if (const auto async = c.boolean("parallelism", "enable_async_tensor_parallel")) {
        framework["tp_comm_overlap"] = *async;
        mapped("parallelism.enable_async_tensor_parallel", "framework.tp_comm_overlap", "async TP overlaps its collectives with the GEMMs");
    }

    for (const auto& [table, key] : c.unread()) {
        const std::string name = table.empty() ? key : table + "." + key;
        report.unmapped.push_back({name, {}, neutralTable(table) || neutralKey(table, key) ? kNoEffectNote : "not a key TrainPlan knows"});
    }
    report.plan = readImportedPlan(doc, report.mapped);
    return report;
}

std::string torchtitanConfig(const Plan& plan)
{
    const ModelSpec& m = plan.model;
    const LayoutSpec& l = plan.layout;
    const TrainingSpec& t = plan.training;
    const FrameworkSpec f = resolvedFramework(plan.framework);
    std::ostringstream s;
    s << "# torchtitan settings for \"" << plan.name << "\", written by TrainPlan.\n"
      << "# The layout, batch, recomputation and precision of the plan; the data, optimizer and\n"
      << "# checkpoint tables are yours to add. `trainplan-cli import` reads this file back.\n\n";
    s << "[model]\n"
      << "# torchtitan defines the model in code: set name and flavor to its definition of this shape,\n"
      << "# " << m.layers << " layers, hidden " << m.hiddenSize << ", " << m.attentionHeads << " heads (" << m.kvHeads << " KV), vocabulary "
      << m.vocabSize << (m.moe ? ", " + std::to_string(m.moe->experts) + " experts (top " + std::to_string(m.moe->topK) + ")" : std::string())
      << ".\n";
    switch (t.matmulPrecision) {
    case MatmulPrecision::Bf16: break;
    case MatmulPrecision::Fp8: s << "converters = [\"float8\"]\n"; break;
    case MatmulPrecision::Fp8Blockwise:
        s << "converters = [\"float8\"]\n# FP8 with 1x128 / 128x128 block scales: torchtitan's float8 recipes scale per tensor or per row\n";
        break;
    case MatmulPrecision::Mxfp8: s << "converters = [\"mx\"]\n"; break;
    case MatmulPrecision::Nvfp4: s << "# NVFP4 GEMMs: torchtitan has no NVFP4 converter; the GEMMs run as written here (BF16)\n"; break;
    }

    const long long microbatches = l.dp > 0 && t.microBatchSize > 0 ? t.globalBatchSequences / (l.dp * t.microBatchSize) : 0;
    s << "\n[training]\n";
    if (l.pp > 1)
        s << "local_batch_size = " << t.globalBatchSequences / std::max(l.dp, 1) << "  # each DP rank's batch, " << microbatches
          << " pipeline micro-batches\n";
    else
        s << "local_batch_size = " << t.microBatchSize << "  # one forward per DP rank; " << microbatches << " accumulated per step\n";
    s << "global_batch_size = " << t.globalBatchSequences << "\n";
    s << "seq_len = " << m.sequenceLength << "\n";
    const double tokensPerStep = double(t.globalBatchSequences) * m.sequenceLength;
    s << "steps = " << (long long)std::ceil(t.tokens / tokensPerStep) << "  # " << formatSci(t.tokens) << " tokens\n";

    s << "\n[parallelism]\n";
    if (l.zeroStage == 0) {
        s << "data_parallel_replicate_degree = " << l.dp << "\ndata_parallel_shard_degree = 1\n";
    } else {
        s << "data_parallel_replicate_degree = 1\ndata_parallel_shard_degree = " << l.dp << "\n";
        if (l.zeroStage == 1)
            s << "# ZeRO-1 (optimizer state alone sharded) has no torchtitan equivalent: FSDP2 shards the gradients too.\n"
              << "# Written as ZeRO-2 (parameters kept gathered from forward to backward).\n";
        s << "fsdp_reshard_after_forward = \"" << (l.zeroStage == 3 ? "default" : "never") << "\"\n";
    }
    s << "tensor_parallel_degree = " << l.tp << "\n";
    if (l.tp > 1 && !l.sequenceParallel)
        s << "# the plan has no sequence parallelism; torchtitan's tensor-parallel plan always shards the sequence for the norms\n";
    if (l.tp > 1 && f.tpCommOverlap)
        s << "enable_async_tensor_parallel = " << (*f.tpCommOverlap ? "true" : "false") << "\n";
    s << "context_parallel_degree = " << l.cp << "\n";
    if (m.moe) {
        s << "expert_parallel_degree = " << l.ep << "\n";
        s << "expert_tensor_parallel_degree = " << l.etp << "\n";
    }
    s << "pipeline_parallel_degree = " << l.pp << "\n";
    if (l.pp > 1) {
        const char* schedule = "1F1B";
        for (const auto& name : kSchedules)
            if (name.schedule == l.schedule) {
                schedule = name.torchtitan;
                break;
            }
        if (l.schedule == Schedule::ZeroBubble)
            s << "# TrainPlan times zero-bubble as ZB-H1, one chunk per stage; torchtitan's zero-bubble schedules run two or more\n";
        s << "pipeline_parallel_schedule = \"" << (l.schedule == Schedule::ZeroBubble ? "InterleavedZeroBubble" : schedule) << "\"\n";
        s << "pipeline_parallel_microbatch_size = " << t.microBatchSize << "\n";
        if (l.virtualStages > 1 && m.layers % (l.pp * l.virtualStages) == 0)
            s << "pipeline_parallel_layers_per_stage = " << m.layers / (l.pp * l.virtualStages) << "  # " << l.virtualStages
              << " chunks per rank\n";
        const StageLayerSplit stages(plan);
        std::vector<int> split;
        for (int i = 0; i < l.pp; ++i)
            split.push_back(stages.layersOf(i));
        if (std::adjacent_find(split.begin(), split.end(), std::not_equal_to<>()) != split.end()) {
            s << "# uneven stages (";
            for (size_t i = 0; i < split.size(); ++i)
                s << (i ? ", " : "") << split[i];
            s << " layers): set pipeline_parallel_first_stage_less_layers / last_stage_less_layers to match\n";
        }
    }
    if (l.rankOrder != RankOrder::TpCpDpPp)
        s << "# rank order " << nameOf(kRankOrderNames, l.rankOrder) << ": torchtitan's device mesh is fixed as pp, dp, cp, tp (tp innermost)\n";

    s << "\n[activation_checkpoint]\n";
    s << "mode = \"" << nameOf(kRecomputeNames, l.recompute) << "\"\n";
    if (l.recompute == Recompute::Selective)
        s << "selective_ac_option = \"op\"\n";
    if (l.recompute == Recompute::Full && l.recomputeLayers > 0)
        s << "# the plan recomputes " << l.recomputeLayers << " layers per stage; torchtitan's full mode recomputes every layer\n";
    if (f.fusedKernels) {
        s << "\n[compile]\n";
        s << "enable = " << (*f.fusedKernels ? "true" : "false") << "\n";
    }
    return s.str();
}

}  // namespace trainplan
