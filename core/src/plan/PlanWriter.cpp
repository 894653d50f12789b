#include <type_traits>

#include <nlohmann/json.hpp>

#include "base/AtomicFile.h"
#include "plan/EnumNames.h"
#include "plan/FrameworkNames.h"
#include "plan/PlanFields.h"
#include "plan/PlanIO.h"

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
        // "training.reserve.cuda_context_gb": one object per level.
        json* at = &doc_;
        const std::string_view section = f.section();
        for (size_t from = 0; !section.empty() && from <= section.size();) {
            const size_t dot = std::min(section.find('.', from), section.size());
            at = &(*at)[std::string(section.substr(from, dot - from))];
            from = dot + 1;
        }
        json& slot = (*at)[std::string(f.key())];
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
    json take() { return std::move(doc_); }

private:
    json doc_ = json::object();
};


// The "framework" object with only what the plan sets (unset switches stay unknown on reading).
json frameworkToJson(const FrameworkSpec& f)
{
    json out = json::object();
    if (!f.profile.empty())
        out["profile"] = f.profile;
    const auto flag = [&](const char* key, const std::optional<bool>& v) {
        if (v)
            out[key] = *v;
    };
    flag("tp_comm_overlap", f.tpCommOverlap);
    flag("overlap_grad_reduce", f.overlapGradReduce);
    flag("overlap_param_gather", f.overlapParamGather);
    flag("fused_kernels", f.fusedKernels);
    flag("cuda_graphs", f.cudaGraphs);
    flag("dropout", f.dropout);
    flag("fp32_gradients", f.fp32Gradients);
    if (f.flashAttention)
        out["flash_attention"] = std::string(nameOf(kFlashAttentionVersionNames, *f.flashAttention));
    if (f.optimizer)
        out["optimizer"] = std::string(nameOf(kOptimizerImplementationNames, *f.optimizer));
    if (f.gradientAccumulation)
        out["gradient_accumulation"] = std::string(nameOf(kGradientAccumulationNames, *f.gradientAccumulation));
    return out;
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

    w.set("cluster.accelerator", c.accelerator);
    w.set("cluster.gpus", c.gpus);
    w.set("cluster.gpus_per_node", c.gpusPerNode);
    w.set("cluster.memory_gb", c.memoryBytesPerGpu);
    w.set("cluster.peak_bf16_tflops", c.peakFlopsPerGpu);
    if (c.peakFp8FlopsPerGpu > 0)
        w.set("cluster.peak_fp8_tflops", c.peakFp8FlopsPerGpu);
    w.set("cluster.intra_node_bandwidth_gb_per_s", c.intraNodeBytesPerSecond);
    w.set("cluster.inter_node_bandwidth_gb_per_s", c.interNodeBytesPerSecond);
    w.choice("cluster.in_network_reduction", kInNetworkReductionNames, c.inNetworkReduction);
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
    // An unknown field is left out again, so it reads back unknown (Plan.h, LayoutUnknown).
    if (!(l.unknownFields & kUnknownSchedule)) {
        w.set("layout.virtual_stages", l.virtualStages);
        w.choice("layout.schedule", kScheduleNames, l.schedule);
    }
    w.set("layout.zero_stage", l.zeroStage);
    if (!(l.unknownFields & kUnknownSequenceParallel))
        w.set("layout.sequence_parallel", l.sequenceParallel);
    if (!(l.unknownFields & kUnknownRecompute))
        w.choice("layout.recompute", kRecomputeNames, l.recompute);
    if (!(l.unknownFields & kUnknownRecompute) || l.recomputeLayers > 0)
        w.set("layout.recompute_layers", l.recomputeLayers);
    if (!(l.unknownFields & kUnknownFlashAttention))
        w.set("layout.flash_attention", l.flashAttention);
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
    json doc = w.take();
    if (!plan.framework.empty())
        doc["framework"] = frameworkToJson(plan.framework);
    return doc;
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
