// Mixture-of-experts, MLA and MTP arithmetic (issue 24) against the published figures of
// DeepSeek-V3, Mixtral 8x7B and Qwen3-30B-A3B, and against the dense parameter model and FLOP
// count for a dense shape.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/estimate/Estimate.h"
#include "core/estimate/MoeArithmetic.h"
#include "core/estimate/ParameterModel.h"
#include "core/planfile/WorkedExamples.h"

using namespace trainplan;

namespace {

// DeepSeek-V3 (technical report, Sec. 4.2 and Table 1; config.json of deepseek-ai/DeepSeek-V3):
// 61 layers, h 7,168, the first 3 dense (FFN 18,432), 256 routed experts of width 2,048 with 8
// active and 1 shared, 128 heads with MLA (q rank 1,536, kv rank 512, nope 128, rope 64, v 128),
// vocabulary 129,280, untied, pre-trained at 4K.
TransformerShape deepSeekV3(int mtpLayers)
{
    TransformerShape s;
    s.layers = 61;
    s.hiddenSize = 7168;
    s.ffnHiddenSize = 18432;
    s.attentionHeads = 128;
    s.mla = MlaSpec{1536, 512, 128, 64, 128};
    MoeSpec moe;
    moe.experts = 256;
    moe.topK = 8;
    moe.expertFfnHiddenSize = 2048;
    moe.sharedExperts = 1;
    moe.denseLayers = 3;
    moe.routerBias = true;
    s.moe = moe;
    s.mtpLayers = mtpLayers;
    s.vocabSize = 129280;
    s.sequenceLength = 4096;
    return s;
}

// Grouped-query MoE models: Mixtral 8x7B (Jiang et al. 2024, Table 1; config.json of
// mistralai/Mixtral-8x7B-v0.1) and Qwen3-30B-A3B (Qwen3 technical report, Table 2; config.json).
TransformerShape gqaMoe(int layers, int h, int heads, int kvHeads, int experts, int topK, int expertFfn, int vocab)
{
    TransformerShape s;
    s.layers = layers;
    s.hiddenSize = h;
    s.attentionHeads = heads;
    s.kvHeads = kvHeads;
    s.headDim = 128;
    MoeSpec moe;
    moe.experts = experts;
    moe.topK = topK;
    moe.expertFfnHiddenSize = expertFfn;
    s.moe = moe;
    s.vocabSize = vocab;
    s.sequenceLength = 4096;
    return s;
}

void near(double actual, double expected, double relative, const QByteArray& what)
{
    QVERIFY2(std::abs(actual / expected - 1) <= relative,
        qPrintable(QString("%1: %2, expected %3 within %4 %").arg(what).arg(actual, 0, 'g', 10).arg(expected, 0, 'g', 10).arg(relative * 100)));
}

}  // namespace

// A reference MoE case's model block (resources/reference/calibration_runs.json, "moe_cases")
// as a shape: MLA when it gives one, else grouped-query heads of 128.
TransformerShape shapeOf(const nlohmann::json& m)
{
    TransformerShape s;
    s.layers = m.at("layers");
    s.hiddenSize = m.at("hidden");
    s.ffnHiddenSize = m.at("ffn_hidden");
    s.ffnKind = m.at("ffn_kind") == "swiglu" ? FfnKind::SwiGlu : FfnKind::Gelu;
    s.attentionHeads = m.at("heads");
    s.kvHeads = m.at("kv_heads");
    s.headDim = 128;
    if (m.contains("mla"))
        s.mla = MlaSpec{m["mla"].at("q_lora_rank"), m["mla"].at("kv_lora_rank"), m["mla"].at("qk_nope_head_dim"),
            m["mla"].at("qk_rope_head_dim"), m["mla"].at("v_head_dim")};
    MoeSpec moe;
    moe.experts = m.at("experts");
    moe.topK = m.at("top_k");
    moe.expertFfnHiddenSize = m.at("expert_ffn_hidden");
    moe.sharedExperts = m.value("shared_experts", 0);
    moe.denseLayers = m.value("dense_layers", 0);
    s.moe = moe;
    s.mtpLayers = m.value("mtp_layers", 0);
    s.vocabSize = m.at("vocab");
    s.tiedEmbeddings = m.at("tied_embeddings");
    s.sequenceLength = m.at("seq_len");
    return s;
}

class TestMoeArithmetic : public QObject {
    Q_OBJECT

private slots:
    // Every MoE reference run: its published total and active parameters, and, where it
    // publishes both model TFLOP/s and tokens per second per GPU (NeMo AutoModel's DeepSeek-V3
    // rows), the FLOPs a token they imply, which this count must give: the published
    // throughput follows Megatron's convention.
    void referenceMoeRuns()
    {
        std::ifstream in(TRAINPLAN_SOURCE_DIR "/resources/reference/calibration_runs.json");
        const nlohmann::json reference = nlohmann::json::parse(in);
        QVERIFY(reference.at("moe_cases").size() >= 3);
        int withThroughput = 0;
        for (const auto& run : reference.at("moe_cases")) {
            const QByteArray id = QByteArray::fromStdString(run.at("id"));
            const TransformerShape s = shapeOf(run.at("model"));
            TransformerShape withoutMtp = s;
            withoutMtp.mtpLayers = 0;  // the published totals leave the MTP module out
            const ModelParameterTotals t = modelParameters(withoutMtp);
            near(t.total, double(run["model"].at("params_total_B")) * 1e9, 0.005, id + " total");
            near(t.active, double(run["model"].at("params_active_B")) * 1e9, 0.02, id + " active");
            const auto& measured = run.at("measured");
            if (measured.at("model_tflops_per_gpu").is_number() && measured.at("tokens_per_s_per_gpu").is_number()) {
                const double implied = double(measured["model_tflops_per_gpu"]) * 1e12 / double(measured["tokens_per_s_per_gpu"]);
                near(megatronFlopsPerToken(s), implied, 0.01, id + " FLOPs a token");
                ++withThroughput;
            }
        }
        QVERIFY(withThroughput >= 2);
    }

    // One MLA layer of DeepSeek-V3 holds 187,107,328 parameters (issue 24's check): the sum of its
    // projections and latent norms in the published checkpoint.
    void mlaLayerOfDeepSeekV3()
    {
        QCOMPARE(attentionParameters(deepSeekV3(0)), 187'107'328.0);
        // Without the query latent, the queries come straight from h.
        TransformerShape s = deepSeekV3(0);
        s.mla->qLoraRank = 0;
        QCOMPARE(attentionParameters(s), 7168.0 * 128 * 192 + 7168.0 * 576 + 512 + 512.0 * 128 * 256 + 128.0 * 128 * 7168);
    }

    // 671 B total and 37 B activated (technical report, Sec. 1), the MTP module aside.
    void deepSeekV3TotalAndActive()
    {
        const ModelParameterTotals t = modelParameters(deepSeekV3(0));
        near(t.total, 671.0e9, 0.001, "total");
        near(t.active, 37.55e9, 0.002, "active");
        QVERIFY(t.active < t.total / 15);
        // One MTP depth adds a MoE block, a 2h x h projection and three norms: about 11.6 B (the
        // published 14 B counts its own copies of the embedding and the output head, which
        // training shares with the main model).
        const ModelParameterTotals withMtp = modelParameters(deepSeekV3(1));
        near(withMtp.total - t.total, 11.61e9, 0.001, "MTP module");
        QCOMPARE(withMtp.mtpModule, withMtp.total - t.total);
        QVERIFY(withMtp.active > t.active);
    }

    // Megatron-LM's count for DeepSeek-V3 at s = 4,096: about 2.498e11 FLOPs a token, and
    // 2.600e11 with one MTP layer (issue 24's check).
    void deepSeekV3FlopsPerToken()
    {
        near(megatronFlopsPerToken(deepSeekV3(0)), 2.498e11, 0.0005, "without MTP");
        near(megatronFlopsPerToken(deepSeekV3(1)), 2.600e11, 0.0005, "with one MTP layer");
        // Well above 6 N_active: attention over 4K tokens and the MLA projections are in it.
        const double sixNActive = 6 * modelParameters(deepSeekV3(0)).active;
        QVERIFY(megatronFlopsPerToken(deepSeekV3(0)) > sixNActive);
    }

    // Mixtral 8x7B: 46.7 B parameters, 12.9 B used per token (Mistral AI, "Mixtral of experts",
    // 2023); Qwen3-30B-A3B: 30.5 B total, 3.3 B activated (Qwen3 model card).
    void groupedQueryMoeModels()
    {
        const ModelParameterTotals mixtral = modelParameters(gqaMoe(32, 4096, 32, 8, 8, 2, 14336, 32000));
        near(mixtral.total, 46.70e9, 0.002, "Mixtral total");
        near(mixtral.active, 12.88e9, 0.003, "Mixtral active");
        const ModelParameterTotals qwen = modelParameters(gqaMoe(48, 2048, 32, 4, 128, 8, 768, 151936));
        near(qwen.total, 30.5e9, 0.005, "Qwen3-30B-A3B total");
        near(qwen.active, 3.3e9, 0.02, "Qwen3-30B-A3B active");
        // Shared experts default to the routed width, and count in every token's active set.
        TransformerShape shared = gqaMoe(32, 4096, 32, 8, 8, 2, 14336, 32000);
        shared.moe->sharedExperts = 2;
        const MoeFfnParameters p = moeFfnParameters(shared);
        QCOMPARE(p.shared, 2 * 3.0 * 4096 * 14336);
        QCOMPARE(p.active - p.router, 4 * p.routedExpert);
    }

    // Without experts, MLA or MTP the counts are the dense model's: the parameters exactly as
    // ParameterModel counts them, and Megatron's FLOPs with the full attention matrix equal the
    // estimate's 6ND less the lookups plus attention, up to the norms' few parameters.
    void denseShapeAgreesWithTheEstimate()
    {
        const Plan plan = defaultPlan();
        const ModelSpec& m = plan.model;
        const TransformerShape s = transformerShapeOf(m);
        QCOMPARE(modelParameters(s).total, countParameters(m).total);
        QCOMPARE(modelParameters(s).active, modelParameters(s).total);
        const Estimate e = estimate(plan);
        const double tokens = plan.training.tokens;
        near(megatronFlopsPerToken(s, 1.0), e.flops.total / tokens, 1e-4, "dense FLOPs a token");
        // Megatron's causal half takes away half the score and value FLOPs.
        near(megatronFlopsPerToken(s, 1.0) - megatronFlopsPerToken(s, 0.5), 0.5 * e.flops.attention / tokens, 1e-9, "causal half");
    }
};

QTEST_APPLESS_MAIN(TestMoeArithmetic)
#include "tst_moearithmetic.moc"
