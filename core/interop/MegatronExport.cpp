#include "core/interop/MegatronExport.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/estimate/PipelineModel.h"
#include "core/plan/EnumNames.h"

namespace trainplan {

namespace {

// --moe-layer-freq for a dense prefix then every step-th layer: "([0]*3+[1]*58)", "([0,1]*24)".
std::string layerPattern(const ModelSpec& m)
{
    const MoeSpec& moe = *m.moe;
    const int step = moe.step();
    const int dense = std::min(moe.denseLayers, m.layers);
    std::string out = "(";
    const auto add = [&](const std::string& term) { out += (out.size() > 1 ? "+" : "") + term; };
    if (dense > 0)
        add("[0]*" + std::to_string(dense));
    const int rest = m.layers - dense;
    if (step == 1) {
        if (rest > 0)
            add("[1]*" + std::to_string(rest));
    } else {
        std::string unit = "[";
        for (int i = 0; i < step; ++i)
            unit += (i ? "," : "") + std::string(i + 1 == step ? "1" : "0");
        unit += "]";
        if (rest / step > 0)
            add(unit + "*" + std::to_string(rest / step));
        if (rest % step > 0)
            add("[0]*" + std::to_string(rest % step));
    }
    return out + ")";
}

class Lines {
public:
    void comment(const std::string& text) { out_ << "# " << text << "\n"; }
    void begin(const std::string& name) { out_ << name << "=(\n"; }
    void arg(const std::string& flag, const std::string& value = {})
    {
        out_ << "    " << flag;
        if (!value.empty())
            out_ << " " << value;
        out_ << "\n";
    }
    void arg(const std::string& flag, long long value) { arg(flag, std::to_string(value)); }
    void end() { out_ << ")\n\n"; }
    void raw(const std::string& text) { out_ << text; }
    std::string str() const { return out_.str(); }

private:
    std::ostringstream out_;
};

}  // namespace

std::string MegatronStageSplit::list() const
{
    std::string out;
    for (int n : layers)
        out += (out.empty() ? "" : ",") + std::to_string(n);
    return out;
}

MegatronStageSplit megatronStageSplit(const Plan& plan)
{
    MegatronStageSplit split;
    const StageLayerSplit stages(plan);
    for (int i = 0; i < plan.layout.pp; ++i)
        split.layers.push_back(stages.layersOf(i));
    const auto& n = split.layers;
    split.even = std::all_of(n.begin(), n.end(), [&](int k) { return k == n.front(); });
    bool middleEven = true;
    for (size_t i = 2; i + 1 < n.size(); ++i)
        middleEven = middleEven && n[i] == n[1];
    split.firstAndLastOnly = !split.even && middleEven && n.size() > 2;
    return split;
}

std::string megatronArguments(const Plan& plan)
{
    const ModelSpec& m = plan.model;
    const LayoutSpec& l = plan.layout;
    const TrainingSpec& t = plan.training;
    const FrameworkSpec f = resolvedFramework(plan.framework);
    Lines s;
    s.raw("#!/bin/bash\n");
    s.comment("Megatron-LM launch settings for \"" + plan.name + "\", written by TrainPlan.");
    s.comment("The model, layout, batch, precision and switches of the plan; data, tokenizer, optimizer");
    s.comment("and checkpoint arguments are yours to add. `trainplan-cli import` reads this file back.");
    s.raw("\n");

    s.begin("MODEL_ARGS");
    s.arg("--num-layers", m.layers);
    s.arg("--hidden-size", m.hiddenSize);
    s.arg("--ffn-hidden-size", m.ffnHiddenSize);
    s.arg("--num-attention-heads", m.attentionHeads);
    if (m.kvHeads != m.attentionHeads) {
        s.arg("--group-query-attention");
        s.arg("--num-query-groups", m.kvHeads);
    }
    s.arg("--kv-channels", m.headDim);
    s.arg("--seq-length", m.sequenceLength);
    s.arg("--max-position-embeddings", m.sequenceLength);
    s.arg("--position-embedding-type", m.positionEmbedding == PositionEmbedding::Rope ? "rope" : "learned_absolute");
    s.arg("--normalization", m.norm == NormKind::RmsNorm ? "RMSNorm" : "LayerNorm");
    if (m.ffnKind == FfnKind::SwiGlu)
        s.arg("--swiglu");
    if (!m.bias)
        s.arg("--disable-bias-linear");
    if (!m.tiedEmbeddings)
        s.arg("--untie-embeddings-and-output-weights");
    s.arg("--vocab-size", m.vocabSize);  // a real run's tokenizer sets it; here for the sizes
    if (m.mla) {
        s.arg("--multi-latent-attention");
        if (m.mla->qLoraRank > 0)
            s.arg("--q-lora-rank", m.mla->qLoraRank);
        s.arg("--kv-lora-rank", m.mla->kvLoraRank);
        s.arg("--qk-head-dim", m.mla->qkNopeHeadDim);
        s.arg("--qk-pos-emb-head-dim", m.mla->qkRopeHeadDim);
        s.arg("--v-head-dim", m.mla->vHeadDim);
    }
    if (m.mtpLayers > 0)
        s.arg("--mtp-num-layers", m.mtpLayers);
    s.end();
    if (!m.layerKinds.empty())
        s.comment("model.layer_kinds: runs of other widths have no Megatron-LM argument; the layers above are model.*'s");

    if (m.moe) {
        const MoeSpec& e = *m.moe;
        s.begin("MOE_ARGS");
        s.arg("--num-experts", e.experts);
        s.arg("--moe-router-topk", e.topK);
        s.arg("--moe-ffn-hidden-size", e.expertFfnHiddenSize);
        if (e.sharedExperts > 0)
            s.arg("--moe-shared-expert-intermediate-size", (long long)e.sharedExperts * e.sharedWidth());
        if (e.denseLayers > 0 || e.step() > 1)
            s.arg("--moe-layer-freq", "\"" + layerPattern(m) + "\"");
        if (e.routerBias)
            s.arg("--moe-router-enable-expert-bias");
        if (e.maxNodesPerToken > 0) {
            // Group-limited routing, one group per node of an EP group.
            const int groups = std::max(e.maxNodesPerToken + 1, l.ep / std::max(1, plan.cluster.gpusPerNode));
            s.arg("--moe-router-num-groups", groups);
            s.arg("--moe-router-group-topk", e.maxNodesPerToken);
        }
        if (e.capacityFactor)
            s.arg("--moe-expert-capacity-factor", std::to_string(*e.capacityFactor));
        if (f.moeGroupedGemm.value_or(false))
            s.arg("--moe-grouped-gemm");
        if (f.moeDispatcher) {
            s.arg("--moe-token-dispatcher-type", *f.moeDispatcher == MoeDispatcher::AllGather ? "allgather"
                                                 : *f.moeDispatcher == MoeDispatcher::DeepEp  ? "flex"
                                                                                              : "alltoall");
            if (*f.moeDispatcher == MoeDispatcher::DeepEp)
                s.arg("--moe-enable-deepep");
        }
        if (f.moeCommOverlap.value_or(false))
            s.arg("--overlap-moe-expert-parallel-comm");
        s.end();
    }

    s.begin("PARALLEL_ARGS");
    s.arg("--tensor-model-parallel-size", l.tp);
    s.arg("--pipeline-model-parallel-size", l.pp);
    s.arg("--context-parallel-size", l.cp);
    s.arg("--expert-model-parallel-size", l.ep);
    s.arg("--expert-tensor-parallel-size", l.etp);
    if (l.schedule == Schedule::Interleaved && l.virtualStages > 1)
        s.arg("--virtual-pipeline-model-parallel-size", l.virtualStages);
    const MegatronStageSplit split = megatronStageSplit(plan);
    if (split.firstAndLastOnly) {
        s.arg("--decoder-first-pipeline-num-layers", split.layers.front());
        s.arg("--decoder-last-pipeline-num-layers", split.layers.back());
    }
    if (l.sequenceParallel)
        s.arg("--sequence-parallel");
    if (l.zeroStage == 3)
        s.arg("--use-torch-fsdp2");
    else if (l.zeroStage >= 1)
        s.arg("--use-distributed-optimizer");
    s.end();
    if (!split.even && !split.firstAndLastOnly)
        s.comment("stages of [" + split.list() + "] layers: this split needs Megatron-Core's --pipeline-model-parallel-layout; not written");
    if (l.zeroStage == 2)
        s.comment("layout.zero_stage 2: Megatron-LM's distributed optimizer shards the optimizer state (ZeRO-1), not the gradients");
    if (l.schedule == Schedule::GPipe || l.schedule == Schedule::ZeroBubble || l.schedule == Schedule::DualPipe)
        s.comment("layout.schedule " + std::string(nameOf(kScheduleNames, l.schedule)) + ": Megatron-LM runs 1F1B (interleaved with virtual stages)");
    if (l.rankOrder != RankOrder::TpCpDpPp)
        s.comment("layout.rank_order " + std::string(nameOf(kRankOrderNames, l.rankOrder)) + ": Megatron-LM orders ranks tp-cp-ep-dp-pp");

    s.begin("TRAINING_ARGS");
    s.arg("--micro-batch-size", t.microBatchSize);
    s.arg("--global-batch-size", t.globalBatchSequences);
    s.arg("--train-samples", (long long)std::ceil(t.tokens / std::max(1, m.sequenceLength)));
    if (t.precision == PrecisionScheme::Bf16WithFp32MasterAdam || t.precision == PrecisionScheme::Bf16AdamNoMaster)
        s.arg("--bf16");
    switch (t.matmulPrecision) {
    case MatmulPrecision::Bf16: break;
    case MatmulPrecision::Fp8:
        s.arg("--fp8-format", "hybrid");
        s.arg("--fp8-recipe", "delayed");
        break;
    case MatmulPrecision::Fp8Blockwise:
        s.arg("--fp8-format", "e4m3");
        s.arg("--fp8-recipe", "blockwise");
        break;
    case MatmulPrecision::Mxfp8:
        s.arg("--fp8-format", "e4m3");
        s.arg("--fp8-recipe", "mxfp8");
        break;
    case MatmulPrecision::Nvfp4:
        s.arg("--fp4-format", "e2m1");
        s.arg("--fp4-recipe", "nvfp4");
        break;
    }
    if (l.recompute == Recompute::Selective) {
        s.arg("--recompute-granularity", "selective");
    } else if (l.recompute == Recompute::Full) {
        s.arg("--recompute-granularity", "full");
        if (l.recomputeLayers > 0) {
            s.arg("--recompute-method", "block");
            s.arg("--recompute-num-layers", l.recomputeLayers);
        } else {
            s.arg("--recompute-method", "uniform");
            s.arg("--recompute-num-layers", 1);
        }
    }
    if (f.overlapGradReduce.value_or(false))
        s.arg("--overlap-grad-reduce");
    if (f.overlapParamGather.value_or(false))
        s.arg("--overlap-param-gather");
    if (f.tpCommOverlap.value_or(false))
        s.arg("--tp-comm-overlap");
    if (f.cudaGraphs.value_or(false))
        s.arg("--enable-cuda-graph");
    if (f.gradientAccumulation == GradientAccumulation::Autograd)
        s.arg("--no-gradient-accumulation-fusion");
    if (f.flashAttention == FlashAttentionVersion::V2 || f.flashAttention == FlashAttentionVersion::V3)
        s.arg("--use-flash-attn");
    if (f.dropout == false) {
        s.arg("--attention-dropout", "0.0");
        s.arg("--hidden-dropout", "0.0");
    }
    s.end();
    if (t.precision == PrecisionScheme::Bf16AdamNoMaster)
        s.comment("training.precision bf16-adam-no-master: Megatron-LM keeps FP32 master weights under --bf16");
    if (t.precision == PrecisionScheme::Fp32Adam)
        s.comment("training.precision fp32-adam: no --bf16 or --fp16, so Megatron-LM trains in FP32");

    const int perNode = std::max(1, plan.cluster.gpusPerNode);
    const int nodes = (plan.cluster.gpus + perNode - 1) / perNode;
    s.raw("torchrun --nnodes " + std::to_string(nodes) + " --nproc-per-node " + std::to_string(perNode) + " pretrain_gpt.py \\\n");
    s.raw("    ${MODEL_ARGS[@]} \\\n");
    if (m.moe)
        s.raw("    ${MOE_ARGS[@]} \\\n");
    s.raw("    ${PARALLEL_ARGS[@]} \\\n    ${TRAINING_ARGS[@]}\n");
    return s.str();
}

}  // namespace trainplan
