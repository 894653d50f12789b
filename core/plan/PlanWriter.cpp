#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/base/AtomicFile.h"
#include "core/plan/EnumNames.h"
#include "core/plan/FrameworkNames.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

using nlohmann::json;

namespace {

// Sets one field by its table entry: the path says where, toSi converts SI back to file units.
class DocumentWriter {
public:
    template <typename V>
    void set(std::string_view path, const V& value)
    {
        const PlanField& f = planField(path);
        json& slot = (*parent(f, true))[std::string(f.key())];
        if constexpr (std::is_floating_point_v<V>)
            slot = f.toSi == 1.0 ? value : value / f.toSi;
        else
            slot = value;
    }
    template <typename E, size_t N>
    void choice(std::string_view path, const NameTable<E, N>& table, E value)
    {
        set(path, std::string(nameOf(table, value)));
    }
    // Leaves a field out again (an unknown layout field, LayoutUnknownFields.h).
    void erase(std::string_view path)
    {
        const PlanField& f = planField(path);
        if (json* at = parent(f, false))
            at->erase(std::string(f.key()));
    }
    // Whether a written field holds its file default (PlanFields.h).
    bool isDefault(std::string_view path)
    {
        const PlanField& f = planField(path);
        const json* at = parent(f, false);
        const std::string key(f.key());
        return at && at->contains(key) && !f.defaultValue.empty() && at->at(key) == json::parse(f.defaultValue);
    }
    json take() { return std::move(doc_); }

private:
    // The object that holds the field ("training.reserve.cuda_context_gb": one object per level),
    // made on the way when `create`, else nullptr when a level is missing.
    json* parent(const PlanField& f, bool create)
    {
        json* at = &doc_;
        const std::string_view section = f.section();
        for (size_t from = 0; !section.empty() && from <= section.size();) {
            const size_t dot = std::min(section.find('.', from), section.size());
            const std::string key(section.substr(from, dot - from));
            if (!create && !at->contains(key))
                return nullptr;
            at = &(*at)[key];
            from = dot + 1;
        }
        return at;
    }

    json doc_ = json::object();
};


// The "framework" object with only what the plan sets (unset switches stay unknown on reading).
void writeFramework(DocumentWriter& w, const FrameworkSpec& f)
{
    if (!f.profile.empty())
        w.set("framework.profile", f.profile);
    for (const FrameworkFlag& flag : kFrameworkFlags)
        if (const std::optional<bool>& v = f.*flag.field)
            w.set(flag.path, *v);
    if (f.flashAttention)
        w.choice("framework.flash_attention", kFlashAttentionVersionNames, *f.flashAttention);
    if (f.optimizer)
        w.choice("framework.optimizer", kOptimizerImplementationNames, *f.optimizer);
    if (f.gradientAccumulation)
        w.choice("framework.gradient_accumulation", kGradientAccumulationNames, *f.gradientAccumulation);
    if (f.selectiveRecompute)
        w.choice("framework.selective_recompute", kSelectiveRecomputeNames, *f.selectiveRecompute);
    if (f.zero3Gathering)
        w.choice("framework.zero3_gathering", kZero3GatheringNames, *f.zero3Gathering);
    if (f.moeDispatcher)
        w.choice("framework.moe_dispatcher", kMoeDispatcherNames, *f.moeDispatcher);
}

// model.moe, model.mla and model.mtp_layers: written only for a model that has them, so a dense
// plan saves as it did before they existed.
void writeBeyondDense(DocumentWriter& w, const ModelSpec& m)
{
    if (m.moe) {
        const MoeSpec& e = *m.moe;
        w.set("model.moe.experts", e.experts);
        w.set("model.moe.top_k", e.topK);
        w.set("model.moe.expert_ffn_hidden_size", e.expertFfnHiddenSize);
        w.set("model.moe.shared_experts", e.sharedExperts);
        if (e.sharedExpertFfnHiddenSize > 0)
            w.set("model.moe.shared_expert_ffn_hidden_size", e.sharedExpertFfnHiddenSize);
        w.set("model.moe.dense_layers", e.denseLayers);
        if (e.layerStep > 1)
            w.set("model.moe.layer_step", e.layerStep);
        w.set("model.moe.router_bias", e.routerBias);
        if (e.maxNodesPerToken > 0)
            w.set("model.moe.max_nodes_per_token", e.maxNodesPerToken);
        if (e.capacityFactor)
            w.set("model.moe.capacity_factor", *e.capacityFactor);
        if (e.loadImbalance)
            w.set("model.moe.load_imbalance", *e.loadImbalance);
    }
    if (m.mla) {
        w.set("model.mla.q_lora_rank", m.mla->qLoraRank);
        w.set("model.mla.kv_lora_rank", m.mla->kvLoraRank);
        w.set("model.mla.qk_nope_head_dim", m.mla->qkNopeHeadDim);
        w.set("model.mla.qk_rope_head_dim", m.mla->qkRopeHeadDim);
        w.set("model.mla.v_head_dim", m.mla->vHeadDim);
    }
    if (m.mtpLayers > 0)
        w.set("model.mtp_layers", m.mtpLayers);
}

}  // namespace

json planToJson(const Plan& plan)
{
    const auto& m = plan.model;
    const auto& c = plan.cluster;
    const auto& t = plan.training;
    const auto& l = plan.layout;
    const auto& r = plan.reliability;

    DocumentWriter w;
    w.set("format", std::string(kPlanFormat));
    w.set("version", kPlanVersion);
    w.set("name", plan.name);
    w.set("name_user_set", plan.nameUserSet);
    if (!plan.notes.empty())
        w.set("notes", plan.notes);

    w.set("model.name", m.name);
    w.set("model.layers", m.layers);
    w.set("model.hidden_size", m.hiddenSize);
    w.set("model.ffn_hidden_size", m.ffnHiddenSize);
    w.choice("model.ffn_kind", kFfnKindNames, m.ffnKind);
    w.set("model.attention_heads", m.attentionHeads);
    w.set("model.kv_heads", m.kvHeads);
    w.set("model.head_dim", m.headDim);
    w.set("model.vocab_size", m.vocabSize);
    w.set("model.tied_embeddings", m.tiedEmbeddings);
    w.set("model.sequence_length", m.sequenceLength);
    w.choice("model.norm", kNormNames, m.norm);
    w.set("model.bias", m.bias);
    w.choice("model.position_embedding", kPositionNames, m.positionEmbedding);
    if (!m.layerKinds.empty()) {
        // Each run's fields by the table's keys (model.layer_kinds.*), the name only when given.
        json kinds = json::array();
        for (const LayerKind& k : m.layerKinds) {
            json run = json::object();
            if (!k.name.empty())
                run[std::string(planField("model.layer_kinds.name").key())] = k.name;
            run[std::string(planField("model.layer_kinds.layers").key())] = k.layers;
            run[std::string(planField("model.layer_kinds.ffn_hidden_size").key())] = k.ffnHiddenSize;
            run[std::string(planField("model.layer_kinds.ffn_kind").key())] = std::string(nameOf(kFfnKindNames, k.ffnKind));
            if (k.moe)
                run[std::string(planField("model.layer_kinds.moe").key())] = true;
            kinds.push_back(std::move(run));
        }
        w.set("model.layer_kinds", kinds);
    }
    writeBeyondDense(w, m);

    w.set("cluster.accelerator", c.accelerator);
    w.set("cluster.gpus", c.gpus);
    w.set("cluster.gpus_per_node", c.gpusPerNode);
    if (c.nvlinkDomain > 0)
        w.set("cluster.nvlink_domain", c.nvlinkDomain);
    w.set("cluster.memory_gb", c.memoryBytesPerGpu);
    w.set("cluster.peak_bf16_tflops", c.peakFlopsPerGpu);
    if (c.peakFp8FlopsPerGpu > 0)
        w.set("cluster.peak_fp8_tflops", c.peakFp8FlopsPerGpu);
    if (c.peakFp4FlopsPerGpu > 0)
        w.set("cluster.peak_fp4_tflops", c.peakFp4FlopsPerGpu);
    w.set("cluster.intra_node_bandwidth_gb_per_s", c.intraNodeBytesPerSecond);
    w.set("cluster.inter_node_bandwidth_gb_per_s", c.interNodeBytesPerSecond);
    w.choice("cluster.in_network_reduction", kInNetworkReductionNames, c.inNetworkReduction);
    const EfficiencySpec& e = c.efficiency;
    const auto given = [&](const char* path, const auto& value) {
        if (value)
            w.set(path, *value);
    };
    given("cluster.efficiency.matmul_fraction", e.matmul);
    given("cluster.efficiency.sm_count", e.smCount);
    given("cluster.efficiency.gemm_tile_m", e.gemmTileM);
    given("cluster.efficiency.gemm_tile_n", e.gemmTileN);
    given("cluster.efficiency.gemm_k_half", e.gemmKHalf);
    given("cluster.efficiency.flash_attention_fraction", e.flashAttention);
    given("cluster.efficiency.flash_attention_3_fraction", e.flashAttention3);
    given("cluster.efficiency.hbm_bandwidth_gb_per_s", e.hbmBytesPerSecond);
    given("cluster.efficiency.hbm_fraction", e.hbm);
    given("cluster.efficiency.scale_up_collective_fraction", e.scaleUpCollective);
    given("cluster.efficiency.network_collective_fraction", e.networkCollective);
    given("cluster.efficiency.kernel_overhead_us", e.kernelOverheadSeconds);
    given("cluster.efficiency.kernel_launch_us", e.kernelLaunchSeconds);
    given("cluster.efficiency.scale_up_step_latency_us", e.scaleUpStepSeconds);
    given("cluster.efficiency.network_step_latency_us", e.networkStepSeconds);
    if (c.calibration) {
        const CalibrationRecord& r = *c.calibration;
        w.set("cluster.calibration.source", r.source);
        w.set("cluster.calibration.accelerator", r.accelerator);
        w.set("cluster.calibration.framework", r.framework);
        w.set("cluster.calibration.date", r.date);
        w.set("cluster.calibration.measured_layout", r.measuredLayout);
        w.set("cluster.calibration.measured_step_seconds", r.measuredStepSeconds);
        w.set("cluster.calibration.fitted", r.fitted);
    }
    if (c.mtbfSeconds)
        w.set(c.mtbfBasis == MtbfBasis::PerNode ? "cluster.mtbf_hours_per_node" : "cluster.mtbf_hours_per_gpu", *c.mtbfSeconds);

    w.set("training.tokens", t.tokens);
    w.set("training.global_batch_sequences", t.globalBatchSequences);
    w.set("training.micro_batch_size", t.microBatchSize);
    w.set("training.mfu", t.mfu);
    w.choice("training.precision", kPrecisionNames, t.precision);
    w.choice("training.matmul_precision", kMatmulPrecisionNames, t.matmulPrecision);
    w.set("training.buffer_gb", t.bufferBytes);
    w.set("training.fragmentation_fraction", t.fragmentationFraction);
    w.set("training.memory_margin_fraction", t.memoryMarginFraction);
    w.set("training.reserve.cuda_context_gb", t.reserve.cudaContextBytes);
    w.set("training.reserve.workspace_mib", t.reserve.workspaceBytes);
    w.set("training.reserve.nccl_channels", t.reserve.ncclChannels);
    w.set("training.reserve.nccl_buffer_mib_per_connection", t.reserve.ncclBytesPerConnection);

    w.set("layout.tp", l.tp);
    w.set("layout.pp", l.pp);
    w.set("layout.cp", l.cp);
    if (m.moe || l.ep > 1 || l.etp > 1) {
        w.set("layout.ep", l.ep);
        w.set("layout.etp", l.etp);
    }
    w.set("layout.virtual_stages", l.virtualStages);
    w.choice("layout.schedule", kScheduleNames, l.schedule);
    w.set("layout.zero_stage", l.zeroStage);
    w.set("layout.sequence_parallel", l.sequenceParallel);
    w.choice("layout.recompute", kRecomputeNames, l.recompute);
    w.set("layout.recompute_layers", l.recomputeLayers);
    w.choice("layout.rank_order", kRankOrderNames, l.rankOrder);
    if (l.dpAuto)
        w.set("layout.dp", std::string("auto"));
    else
        w.set("layout.dp", l.dp);
    if (!l.stageLayers.empty())
        w.set("layout.stage_layers", l.stageLayers);

    w.set("reliability.restart_seconds", r.restartSeconds);
    w.set("reliability.other_overhead_fraction", r.otherOverheadFraction);
    if (r.checkpointWriteBytesPerSecondPerGpu)
        w.set("reliability.checkpoint_write_gb_per_s_per_gpu", *r.checkpointWriteBytesPerSecondPerGpu);
    else
        w.set("reliability.checkpoint_write_seconds", r.checkpointWriteSeconds.value_or(60.0));
    const CostSpec& money = plan.cost;
    if (money.pricePerGpuHourUsd)
        w.set("cost.price_per_gpu_hour_usd", *money.pricePerGpuHourUsd);
    if (money.gpuPowerWatts)
        w.set("cost.gpu_power_watts", *money.gpuPowerWatts);
    w.set("cost.server_overhead_fraction", money.serverOverheadFraction);
    w.set("cost.pue", money.pue);
    if (money.gridKgCo2ePerKwh)
        w.set("cost.grid_kg_co2e_per_kwh", *money.gridKgCo2ePerKwh);
    writeFramework(w, plan.framework);
    // An unknown layout field is left out again, so it reads back unknown; a companion that can
    // be given alone stays when it holds more than its default (LayoutUnknownFields.h).
    for (const LayoutUnknownField& u : layoutUnknownFields()) {
        if (!(l.unknownFields & u.bit))
            continue;
        w.erase(u.path);
        if (!u.companion.empty() && (!u.companionKnownAlone || w.isDefault(u.companion)))
            w.erase(u.companion);
    }
    return w.take();
}

std::string planToText(const Plan& plan)
{
    return planToJson(plan).dump(2) + "\n";
}

void savePlanFile(const Plan& plan, const std::string& path)
{
    // Callers handle a plan they cannot use and a plan they cannot save alike (PlanError),
    // with the path and the system's reason in the message.
    try {
        writeFileAtomically(path, planToText(plan));
    } catch (const FileWriteError& e) {
        throw PlanError({{"", std::string(e.what())}});
    }
}

}  // namespace trainplan
