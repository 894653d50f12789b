#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "plan/EnumNames.h"
#include "plan/FrameworkNames.h"
#include "plan/PlanIO.h"
#include "plan/Units.h"

namespace trainplan {

using nlohmann::json;

namespace {

template <typename E, size_t N>
std::string name(const NameTable<E, N>& table, E value)
{
    return std::string(nameOf(table, value));
}


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
        out["flash_attention"] = name(kFlashAttentionVersionNames, *f.flashAttention);
    if (f.optimizer)
        out["optimizer"] = name(kOptimizerImplementationNames, *f.optimizer);
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

    json model = {
        {"name", m.name}, {"layers", m.layers}, {"hidden_size", m.hiddenSize}, {"ffn_hidden_size", m.ffnHiddenSize},
        {"ffn_kind", name(kFfnKindNames, m.ffnKind)}, {"attention_heads", m.attentionHeads}, {"kv_heads", m.kvHeads},
        {"head_dim", m.headDim}, {"vocab_size", m.vocabSize}, {"tied_embeddings", m.tiedEmbeddings},
        {"sequence_length", m.sequenceLength}, {"norm", name(kNormNames, m.norm)}, {"bias", m.bias},
        {"position_embedding", name(kPositionNames, m.positionEmbedding)},
    };
    json cluster = {
        {"accelerator", c.accelerator}, {"gpus", c.gpus}, {"gpus_per_node", c.gpusPerNode},
        {"memory_gb", c.memoryBytesPerGpu / units::GB}, {"peak_bf16_tflops", c.peakFlopsPerGpu / units::TFLOPS},
        {"intra_node_bandwidth_gb_per_s", c.intraNodeBytesPerSecond / units::GB},
        {"inter_node_bandwidth_gb_per_s", c.interNodeBytesPerSecond / units::GB},
    };
    if (c.mtbfSeconds)
        cluster[c.mtbfBasis == MtbfBasis::PerNode ? "mtbf_hours_per_node" : "mtbf_hours_per_gpu"] = *c.mtbfSeconds / units::secondsPerHour;
    json training = {
        {"tokens", t.tokens}, {"global_batch_sequences", t.globalBatchSequences}, {"micro_batch_size", t.microBatchSize},
        {"mfu", t.mfu}, {"precision", name(kPrecisionNames, t.precision)}, {"buffer_gb", t.bufferBytes / units::GB},
        {"fragmentation_fraction", t.fragmentationFraction}, {"memory_margin_fraction", t.memoryMarginFraction},
        {"reserve",
         {{"cuda_context_gb", t.reserve.cudaContextBytes / units::GB}, {"workspace_mib", t.reserve.workspaceBytes / units::MiB},
          {"nccl_channels", t.reserve.ncclChannels}, {"nccl_buffer_mib_per_connection", t.reserve.ncclBytesPerConnection / units::MiB}}},
    };
    json layout = {
        {"tp", l.tp}, {"pp", l.pp}, {"cp", l.cp}, {"virtual_stages", l.virtualStages},
        {"schedule", name(kScheduleNames, l.schedule)}, {"zero_stage", l.zeroStage}, {"sequence_parallel", l.sequenceParallel},
        {"recompute", name(kRecomputeNames, l.recompute)}, {"flash_attention", l.flashAttention},
        {"rank_order", name(kRankOrderNames, l.rankOrder)},
    };
    layout["dp"] = l.dpAuto ? json("auto") : json(l.dp);
    if (!l.stageLayers.empty())
        layout["stage_layers"] = l.stageLayers;
    json reliability = {{"restart_seconds", r.restartSeconds}, {"other_overhead_fraction", r.otherOverheadFraction}};
    if (r.checkpointWriteBytesPerSecondPerGpu)
        reliability["checkpoint_write_gb_per_s_per_gpu"] = *r.checkpointWriteBytesPerSecondPerGpu / units::GB;
    else
        reliability["checkpoint_write_seconds"] = r.checkpointWriteSeconds.value_or(60.0);

    json doc{
        {"format", kPlanFormat}, {"version", kPlanVersion}, {"name", plan.name}, {"model", model},
        {"cluster", cluster},    {"training", training},   {"layout", layout},  {"reliability", reliability},
    };
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
    const std::string tmp = path + ".tmp-trainplan";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw PlanError({{"", "cannot write " + tmp}});
        out << planToText(plan);
        out.flush();
        if (!out)
            throw PlanError({{"", "writing " + tmp + " failed"}});
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw PlanError({{"", "cannot replace " + path}});
    }
}

}  // namespace trainplan
