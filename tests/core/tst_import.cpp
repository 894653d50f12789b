// Importing other tools' descriptions of a run (core/interop): each Hugging Face family's config
// (fixtures written in the real files' format) gives the parameter count its authors publish and,
// where TrainPlan has the model as a preset, exactly the preset's shape; every key of a source is
// mapped or listed with a reason; Megatron-LM launch scripts and argument lists give the model,
// layout, batch, budget, precision and framework switches they set; bad values name their key.
#include <QtTest>

#include <set>

#include "TestSupport.h"
#include "core/base/BoundedFile.h"
#include "core/base/PlanError.h"
#include "core/estimate/ParameterModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/interop/HuggingFaceImport.h"
#include "core/interop/ImportFile.h"
#include "core/interop/MegatronBridgeConfig.h"
#include "core/interop/MegatronExport.h"
#include "core/interop/MegatronImport.h"
#include "core/interop/ShellWords.h"
#include "core/interop/TomlTables.h"
#include "core/interop/TorchtitanConfig.h"
#include "core/interop/YamlTree.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

using trainplan::ImportReport;
using trainplan::Plan;

Q_DECLARE_METATYPE(std::string)

namespace {

std::string fixture(const std::string& name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/import/" + name;
}

ImportReport importFixture(const std::string& name)
{
    return trainplan::importPath(fixture(name), trainplan::defaultPlan());
}

bool listed(const ImportReport& r, const std::string& key, bool mapped)
{
    const auto& keys = mapped ? r.mapped : r.unmapped;
    return std::any_of(keys.begin(), keys.end(), [&](const trainplan::ImportedKey& k) { return k.key == key; });
}

std::string noteOf(const ImportReport& r, const std::string& key)
{
    for (const auto* keys : {&r.mapped, &r.unmapped})
        for (const auto& k : *keys)
            if (k.key == key)
                return k.note;
    return {};
}

// The problem PlanError reports for an import, as "path: message".
QString importProblem(const std::function<void()>& run)
{
    try {
        run();
    } catch (const trainplan::PlanError& e) {
        return QString::fromStdString(e.problems().front().path + ": " + e.problems().front().message);
    }
    return {};
}

}  // namespace

class TestImport : public QObject {
    Q_OBJECT

private slots:
    void familiesGiveTheirPublishedSizes_data();
    void familiesGiveTheirPublishedSizes();
    void everyKeyIsMappedOrListed_data();
    void everyKeyIsMappedOrListed();
    void familyDetailsMapKeyByKey();
    void megatronLaunchScript();
    void megatronArgumentListForAnMoeModel();
    void importedPlansRoundTrip();
    void badValuesNameTheirKey();
    void shellWordsAreReadAsTheShellWould();
    void megatronExportRoundTrips_data();
    void megatronExportRoundTrips();
    void torchtitanConfigReadsKeyByKey();
    void tomlErrorsNameTheLine();
    void torchtitanExportRoundTrips_data();
    void torchtitanExportRoundTrips();
    void yamlTreeReadsTheSubset();
    void megatronBridgeConfigReadsKeyByKey();
    void yamlErrorsNameTheLine();
    void megatronBridgeExportRoundTrips_data();
    void megatronBridgeExportRoundTrips();
};

// Published totals (and active counts for MoE): the model cards and papers each preset cites, or
// the count of the released weights. Where TrainPlan has the model as a preset, the imported
// shape must be the preset's exactly (so the plan is named and priced as that model).
void TestImport::familiesGiveTheirPublishedSizes_data()
{
    QTest::addColumn<std::string>("file");
    QTest::addColumn<double>("total");
    QTest::addColumn<double>("active");
    QTest::addColumn<double>("tolerance");
    QTest::addColumn<QString>("preset");
    // Llama 3.1 8B: 8.03e9 (model card); Mistral 7B: 7,241,732,096 weights; Mixtral 8x7B: 46.7B
    // total, 12.9B active (paper Table 1); Qwen2-7B: 7.62e9 weights, whose query/key/value biases
    // (under 0.01 %) TrainPlan does not count; Qwen3-30B-A3B: 30.5B / 3.3B (report Table 2);
    // DeepSeek-V3: 671B / 37B without its MTP module (report Sec. 4.2); GPT-OSS-120B: 116.8B
    // (card Table 1); Gemma 7B: 8,537,680,896 weights; Gemma 2 9B: 9,241,705,984; GPT-NeoX-20B:
    // 20,554,567,680 (Black et al. 2022, Table 1); Llama 4 Scout: 109B / 17B (Meta, text model).
    QTest::newRow("Llama 3.1 8B (folder)") << std::string("llama-3.1-8b") << 8.03e9 << 8.03e9 << 0.002 << "Llama 3.1 8B";
    QTest::newRow("Mistral 7B") << std::string("mistral-7b.json") << 7.2417e9 << 7.2417e9 << 0.001 << "";
    QTest::newRow("Mixtral 8x7B") << std::string("mixtral-8x7b.json") << 46.7e9 << 12.9e9 << 0.005 << "Mixtral 8x7B";
    QTest::newRow("Qwen2 7B") << std::string("qwen2-7b.json") << 7.6156e9 << 7.6156e9 << 0.001 << "";
    QTest::newRow("Qwen3-30B-A3B") << std::string("qwen3-30b-a3b.json") << 30.5e9 << 3.3e9 << 0.02 << "Qwen3-30B-A3B";
    QTest::newRow("DeepSeek-V3") << std::string("deepseek-v3.json") << 671e9 << 37e9 << 0.01 << "DeepSeek-V3";
    QTest::newRow("GPT-OSS-120B") << std::string("gpt-oss-120b.json") << 116.8e9 << 0.0 << 0.005 << "GPT-OSS-120B";
    QTest::newRow("Gemma 7B") << std::string("gemma-7b.json") << 8.5377e9 << 8.5377e9 << 0.001 << "";
    QTest::newRow("Gemma 2 9B") << std::string("gemma-2-9b.json") << 9.2417e9 << 9.2417e9 << 0.001 << "";
    QTest::newRow("GPT-NeoX-20B") << std::string("gpt-neox-20b.json") << 20.5546e9 << 20.5546e9 << 0.001 << "";
    QTest::newRow("Llama 4 Scout (text_config)") << std::string("llama-4-scout.json") << 109e9 << 17e9 << 0.015 << "Llama 4 Scout";
}

void TestImport::familiesGiveTheirPublishedSizes()
{
    QFETCH(std::string, file);
    QFETCH(double, total);
    QFETCH(double, active);
    QFETCH(double, tolerance);
    QFETCH(QString, preset);
    const ImportReport r = importFixture(file);
    QCOMPARE(QString::fromStdString(r.format), QStringLiteral("huggingface"));
    const auto counts = trainplan::countParameters(r.plan.model);
    const double withoutMtp = counts.total - counts.mtp, activeWithoutMtp = counts.active - counts.mtpActive;
    QVERIFY2(std::abs(withoutMtp / total - 1) <= tolerance,
        qPrintable(QString("total %1, published %2").arg(withoutMtp, 0, 'g', 6).arg(total, 0, 'g', 6)));
    if (active > 0)
        QVERIFY2(std::abs(activeWithoutMtp / active - 1) <= std::max(tolerance, 0.02),
            qPrintable(QString("active %1, published %2").arg(activeWithoutMtp, 0, 'g', 6).arg(active, 0, 'g', 6)));
    if (!preset.isEmpty()) {
        const auto* p = trainplan::findModelPreset(preset.toStdString());
        QVERIFY(p);
        QVERIFY2(trainplan::sameModelShape(r.plan.model, p->model),
            qPrintable(QString::fromStdString(trainplan::planToText(r.plan))));
    }
}

void TestImport::everyKeyIsMappedOrListed_data()
{
    QTest::addColumn<std::string>("file");
    for (const char* f : {"llama-3.1-8b/config.json", "mistral-7b.json", "mixtral-8x7b.json", "qwen2-7b.json", "qwen3-30b-a3b.json",
             "deepseek-v3.json", "gpt-oss-120b.json", "gemma-7b.json", "gemma-2-9b.json", "gpt-neox-20b.json", "llama-4-scout.json"})
        QTest::newRow(f) << std::string(f);
}

// Every key of the config, nested ones under text_config with their prefix, is in the mapped or
// the unmapped list, each with a reason when unmapped; nothing is listed that the file lacks.
void TestImport::everyKeyIsMappedOrListed()
{
    QFETCH(std::string, file);
    const auto config = nlohmann::json::parse(trainplan::readRegularFile(fixture(file)));
    const ImportReport r = importFixture(file);
    std::set<std::string> expected;
    for (auto it = config.begin(); it != config.end(); ++it) {
        if (it.key() == "text_config") {
            for (auto inner = it->begin(); inner != it->end(); ++inner)
                expected.insert("text_config." + inner.key());
        } else {
            expected.insert(it.key());
        }
    }
    std::set<std::string> seen;
    for (const auto* keys : {&r.mapped, &r.unmapped})
        for (const auto& k : *keys) {
            QVERIFY2(expected.count(k.key), qPrintable(QString::fromStdString("listed but not in the file: " + k.key)));
            seen.insert(k.key);
        }
    for (const auto& k : r.unmapped)
        QVERIFY2(!k.note.empty(), qPrintable(QString::fromStdString(k.key)));
    for (const auto& key : expected)
        QVERIFY2(seen.count(key), qPrintable(QString::fromStdString("dropped silently: " + key)));
}

void TestImport::familyDetailsMapKeyByKey()
{
    const ImportReport ds = importFixture("deepseek-v3.json");
    const auto& moe = *ds.plan.model.moe;
    QCOMPARE(moe.denseLayers, 3);
    QVERIFY(moe.routerBias);
    QCOMPARE(moe.maxNodesPerToken, 4);
    QCOMPARE(ds.plan.model.mtpLayers, 1);
    QCOMPARE(ds.plan.model.mla->qLoraRank, 1536);
    QVERIFY(listed(ds, "first_k_dense_replace", true));
    QVERIFY(noteOf(ds, "quantization_config").find("training.matmul_precision") != std::string::npos);

    const ImportReport qwen = importFixture("qwen3-30b-a3b.json");
    QVERIFY(listed(qwen, "intermediate_size", false));  // the dense width, which no layer has
    QVERIFY(!qwen.plan.model.hasDenseKind());

    const ImportReport oss = importFixture("gpt-oss-120b.json");
    QVERIFY(listed(oss, "experts_per_token", true));  // the second spelling of top-k, agreeing
    QVERIFY(oss.plan.model.bias);
    QVERIFY(noteOf(oss, "sliding_window").find("full causal attention") != std::string::npos);

    const ImportReport gemma = importFixture("gemma-7b.json");
    QVERIFY(gemma.plan.model.tiedEmbeddings);  // absent key: Gemma ties by default
    QCOMPARE(gemma.plan.model.headDim, 256);
    QCOMPARE(gemma.plan.model.ffnKind, trainplan::FfnKind::SwiGlu);  // GeGLU: gated, three matrices

    const ImportReport neox = importFixture("gpt-neox-20b.json");
    QCOMPARE(neox.plan.model.norm, trainplan::NormKind::LayerNorm);
    QCOMPARE(neox.plan.model.ffnKind, trainplan::FfnKind::Gelu);
    QVERIFY(neox.plan.model.bias);
    QCOMPARE(neox.plan.model.kvHeads, 64);  // no num_key_value_heads: multi-head

    const ImportReport llama = importFixture("llama-3.1-8b");
    QCOMPARE(QString::fromStdString(llama.plan.model.name), QStringLiteral("llama-3.1-8b"));  // the folder's name
    QCOMPARE(llama.plan.model.sequenceLength, trainplan::defaultPlan().model.sequenceLength);
    QVERIFY(noteOf(llama, "max_position_embeddings").find("not a training length") != std::string::npos);
    // The base plan's cluster and layout stay.
    QCOMPARE(llama.plan.cluster, trainplan::defaultPlan().cluster);
    QCOMPARE(llama.plan.layout.tp, trainplan::defaultPlan().layout.tp);

    const ImportReport scout = importFixture("llama-4-scout.json");
    QCOMPARE(scout.plan.model.moe->sharedExperts, 1);
    QVERIFY(noteOf(scout, "vision_config").find("encoder") != std::string::npos);
}

// A launch script in the style of Megatron-LM's examples: variables, bash arrays, torchrun.
void TestImport::megatronLaunchScript()
{
    const ImportReport r = importFixture("megatron-llama3-70b.sh");
    QCOMPARE(QString::fromStdString(r.format), QStringLiteral("megatron"));
    const Plan& p = r.plan;
    QCOMPARE(p.model.layers, 80);
    QCOMPARE(p.model.hiddenSize, 8192);
    QCOMPARE(p.model.ffnHiddenSize, 28672);
    QCOMPARE(p.model.kvHeads, 8);
    QCOMPARE(p.model.sequenceLength, 8192);
    QCOMPARE(p.model.norm, trainplan::NormKind::RmsNorm);
    QCOMPARE(p.model.ffnKind, trainplan::FfnKind::SwiGlu);
    QVERIFY(!p.model.bias && !p.model.tiedEmbeddings);
    QCOMPARE(p.model.positionEmbedding, trainplan::PositionEmbedding::Rope);
    QCOMPARE(QString::fromStdString(p.model.name), QStringLiteral("megatron-llama3-70b"));
    // torchrun's 64 nodes of 8 (NUM_NODES from its ${...:-64} default), and the layout.
    QCOMPARE(p.cluster.gpus, 512);
    QCOMPARE(p.cluster.gpusPerNode, 8);
    QCOMPARE(p.layout.tp, 8);
    QCOMPARE(p.layout.pp, 4);
    QCOMPARE(p.layout.dp, 16);
    QCOMPARE(p.layout.virtualStages, 4);  // 80 layers / (4 stages x 5 per chunk)
    QCOMPARE(p.layout.schedule, trainplan::Schedule::Interleaved);
    QVERIFY(p.layout.sequenceParallel);
    QCOMPARE(p.layout.zeroStage, 1);
    QCOMPARE(p.layout.recompute, trainplan::Recompute::Selective);
    QCOMPARE(p.training.microBatchSize, 1);
    QCOMPARE(p.training.globalBatchSequences, int64_t(1024));
    QCOMPARE(p.training.tokens, 183105469.0 * 8192);
    QCOMPARE(p.training.precision, trainplan::PrecisionScheme::Bf16WithFp32MasterAdam);
    QCOMPARE(p.framework.profile, std::string("megatron-core-2024"));
    QCOMPARE(p.framework.overlapGradReduce, std::optional<bool>(true));
    QCOMPARE(p.framework.overlapParamGather, std::optional<bool>(true));
    QCOMPARE(p.framework.flashAttention, std::optional(trainplan::FlashAttentionVersion::V2));
    QCOMPARE(p.framework.dropout, std::optional<bool>(false));
    // Optimizer and data settings are listed as not changing the plan's figures.
    QVERIFY(noteOf(r, "--lr").find("does not change") != std::string::npos);
    QVERIFY(noteOf(r, "--data-path").find("does not change") != std::string::npos);
    QVERIFY(!listed(r, "--num-layers", false));
}

// A JSON argument list for a DeepSeek-V3-shaped model: MLA, the MoE pattern, MTP, uneven stages,
// FP8 with block scales, DeepEP, and one flag TrainPlan does not know.
void TestImport::megatronArgumentListForAnMoeModel()
{
    const ImportReport r = importFixture("megatron-deepseek-v3-args.json");
    const Plan& p = r.plan;
    const auto* preset = trainplan::findModelPreset("DeepSeek-V3");
    QVERIFY(preset);
    QVERIFY2(trainplan::sameModelShape(p.model, preset->model), qPrintable(QString::fromStdString(trainplan::planToText(p))));
    QCOMPARE(p.layout.pp, 16);
    QCOMPARE(p.layout.ep, 64);
    const std::vector<int> stages = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1};
    QCOMPARE(p.layout.stageLayers, stages);
    QCOMPARE(p.layout.recompute, trainplan::Recompute::Full);
    QCOMPARE(p.layout.recomputeLayers, 2);
    QCOMPARE(p.training.matmulPrecision, trainplan::MatmulPrecision::Fp8Blockwise);
    QCOMPARE(p.training.tokens, 240000.0 * 15360 * 4096);
    QCOMPARE(p.framework.moeDispatcher, std::optional(trainplan::MoeDispatcher::DeepEp));
    QCOMPARE(p.framework.moeGroupedGemm, std::optional<bool>(true));
    QVERIFY(noteOf(r, "--some-new-flag").find("not a flag TrainPlan reads") != std::string::npos);
    QVERIFY(!r.assumptions.empty());
}

// The plan an import prints reads back as the same plan (`import FILE | estimate -`).
void TestImport::importedPlansRoundTrip()
{
    for (const char* f : {"deepseek-v3.json", "gpt-neox-20b.json", "megatron-llama3-70b.sh", "megatron-deepseek-v3-args.json"}) {
        const ImportReport r = importFixture(f);
        QCOMPARE(trainplan::planFromText(trainplan::planToText(r.plan)), r.plan);
    }
}

void TestImport::badValuesNameTheirKey()
{
    const Plan base = trainplan::defaultPlan();
    const auto hf = [&](const std::string& text) { return importProblem([&] { trainplan::importText(text, "config.json", base); }); };
    QVERIFY(hf(R"({"model_type": "llama", "num_hidden_layers": "eighty", "hidden_size": 8, "num_attention_heads": 1, "vocab_size": 8})")
                .startsWith("num_hidden_layers: must be a whole number"));
    QVERIFY(hf(R"({"model_type": "llama", "num_hidden_layers": 2.5, "hidden_size": 8, "num_attention_heads": 1, "vocab_size": 8})")
                .startsWith("num_hidden_layers:"));
    QVERIFY(hf(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 1, "vocab_size": 8})").startsWith("hidden_size: is missing"));
    const QString negative = hf(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": -64, "num_attention_heads": 1, "vocab_size": 8, "head_dim": 8, "intermediate_size": 8})");
    QVERIFY2(negative.startsWith("hidden_size (model.hidden_size):"), qPrintable(negative));
    QVERIFY(hf(R"({"model_type": "gpt_oss", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 1, "vocab_size": 8, "num_local_experts": 4, "num_experts_per_tok": 2, "experts_per_token": 3, "intermediate_size": 8})")
                .startsWith("experts_per_token: disagrees"));
    QVERIFY(hf(R"({"format": "trainplan.plan"})").contains("already a TrainPlan plan"));
    QVERIFY(hf(R"({"model_type": "llama", "num_hidden_layers": 2,)").contains("line"));  // a syntax error, with where
    QVERIFY(hf("just some words").contains("neither a Hugging Face config.json, a Megatron-LM"));
    QVERIFY(hf("[1, 2]").contains("argument list must hold strings"));
    QVERIFY(hf("--num-layers 2 --\xff\xfe 3").contains("not UTF-8"));  // found by fuzz_import

    const auto mg = [&](const std::string& text) { return importProblem([&] { trainplan::importText(text, "run.sh", base); }); };
    QVERIFY(mg("--num-layers abc --hidden-size 4096 --num-attention-heads 32").startsWith("--num-layers: must be a number"));
    QVERIFY(mg("--num-layers 32 --hidden-size 4096").startsWith("--num-attention-heads: is missing"));
    QVERIFY(mg("--num-layers $((L*2)) --hidden-size 4096 --num-attention-heads 32").contains("shell expression"));
    QVERIFY(mg("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --num-experts 8 --moe-layer-freq ([1,0]*3)")
                .startsWith("--moe-layer-freq: must be a number or a pattern of 32"));
    QVERIFY(mg("--num-layers 4 --hidden-size 4096 --num-attention-heads 32 --num-experts 8 --moe-layer-freq [1,0,0,1]")
                .startsWith("--moe-layer-freq: this pattern"));
    const QString tp = mg("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --tensor-model-parallel-size 0");
    QVERIFY2(tp.startsWith("--tensor-model-parallel-size (layout.tp):"), qPrintable(tp));
    // An unset variable is listed, not guessed.
    const ImportReport unset = trainplan::importText("--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --save $OUT", "run.sh", base);
    QVERIFY(listed(unset, "$OUT", false));
}

void TestImport::shellWordsAreReadAsTheShellWould()
{
    const auto w = trainplan::splitShellWords(
        "#!/bin/bash\n"
        "A=1   # a comment\n"
        "export B=\"two words\"\n"
        "ARGS=( --x $A\n  --y ${C:-3} )  # array\n"
        "cmd --q 'it''s' \"$B\" \\\n   --z=${A}0 '$A' ${ARGS[@]} $UNSET; next\n");
    // One simplification: an expanded variable always splits into words, quoted or not ("$B").
    const std::vector<std::string> expected = {"--x", "1", "--y", "3", "cmd", "--q", "its", "two", "words", "--z=10", "$A", "$UNSET", "next"};
    QCOMPARE(w.words, expected);
    QCOMPARE(w.unresolved, std::vector<std::string>{"$UNSET"});
}

void TestImport::megatronExportRoundTrips_data()
{
    QTest::addColumn<std::string>("example");
    QTest::addColumn<QStringList>("overrides");
    QTest::newRow("worked example A") << std::string("70b-2048-h100.json") << QStringList{};
    QTest::newRow("A interleaved, selective") << std::string("70b-2048-h100.json")
                                              << QStringList{"layout.schedule=interleaved", "layout.virtual_stages=5", "layout.recompute=selective"};
    QTest::newRow("A FSDP, full recompute of 4") << std::string("70b-2048-h100.json")
                                                 << QStringList{"layout.zero_stage=3", "layout.recompute=full", "layout.recompute_layers=4"};
    QTest::newRow("A uneven first and last stages") << std::string("70b-2048-h100.json") << QStringList{"layout.stage_layers=[19,21,21,19]"};
    QTest::newRow("DeepSeek-V3 on H800") << std::string("deepseek-v3-2048-h800.json") << QStringList{};
    QTest::newRow("Mixtral 8x22B") << std::string("mixtral-8x22b-256-h100.json") << QStringList{};
    QTest::newRow("B200 MXFP8") << std::string("70b-256-b200-mxfp8.json") << QStringList{};
    QTest::newRow("GB200 NVL72 DeepSeek-V3") << std::string("deepseek-v3-512-gb200-nvl72.json") << QStringList{};
}

// export --megatron-args, then import: the same model shape, layout, batch, budget (to within one
// sequence: the export counts samples), precision, cluster size and every switch the plan turns on.
void TestImport::megatronExportRoundTrips()
{
    QFETCH(std::string, example);
    QFETCH(QStringList, overrides);
    const Plan plan = testsupport::planWith(example, testsupport::toStd(overrides));
    const std::string script = trainplan::megatronArguments(plan);
    const ImportReport r = trainplan::importText(script, "launch.sh", trainplan::defaultPlan());
    const Plan& back = r.plan;
    QVERIFY2(trainplan::sameModelShape(back.model, plan.model), script.c_str());
    QCOMPARE(back.model.sequenceLength, plan.model.sequenceLength);
    const auto split = [](const Plan& p) {
        std::vector<int> out;
        const trainplan::StageLayerSplit stages(p);
        for (int i = 0; i < p.layout.pp; ++i)
            out.push_back(stages.layersOf(i));
        return out;
    };
    if (script.find("--pipeline-model-parallel-layout") == std::string::npos)
        QCOMPARE(split(back), split(plan));
    const auto& a = plan.layout;
    const auto& b = back.layout;
    QCOMPARE(std::tie(b.tp, b.pp, b.dp, b.cp, b.ep, b.etp, b.virtualStages, b.schedule, b.sequenceParallel, b.recompute),
             std::tie(a.tp, a.pp, a.dp, a.cp, a.ep, a.etp, a.virtualStages, a.schedule, a.sequenceParallel, a.recompute));
    // ZeRO-2 has no Megatron-LM argument: the export says so and the distributed optimizer comes back.
    if (a.zeroStage == 2)
        QVERIFY(b.zeroStage == 1 && script.find("zero_stage 2") != std::string::npos);
    else
        QCOMPARE(b.zeroStage, a.zeroStage);
    QCOMPARE(b.recomputeLayers, a.recomputeLayers);
    QCOMPARE(back.training.microBatchSize, plan.training.microBatchSize);
    QCOMPARE(back.training.globalBatchSequences, plan.training.globalBatchSequences);
    QVERIFY(back.training.tokens >= plan.training.tokens && back.training.tokens < plan.training.tokens + plan.model.sequenceLength);
    QCOMPARE(back.training.matmulPrecision, plan.training.matmulPrecision);
    if (plan.training.precision == trainplan::PrecisionScheme::Bf16WithFp32MasterAdam)
        QCOMPARE(back.training.precision, plan.training.precision);
    else
        QVERIFY(script.find("training.precision") != std::string::npos);  // said, not silently changed
    QCOMPARE(back.cluster.gpus, plan.cluster.gpus);
    QCOMPARE(back.cluster.gpusPerNode, plan.cluster.gpusPerNode);
    const auto before = trainplan::resolvedFramework(plan.framework), after = trainplan::resolvedFramework(back.framework);
    for (const auto& flag : trainplan::kFrameworkFlags)
        if ((before.*flag.field).value_or(false) && flag.path != "framework.fused_kernels" && flag.path != "framework.fp32_gradients")
            QVERIFY2((after.*flag.field).value_or(false), std::string(flag.path).c_str());
    if (plan.model.moe)
        QCOMPARE(after.moeDispatcher, before.moeDispatcher);
    // Every argument written is one the importer reads or lists.
    for (const auto& k : r.unmapped)
        QVERIFY2(k.key == "--max-position-embeddings", k.key.c_str());
}

// A torchtitan config in its own format: the layout, batch, budget, recomputation, precision and
// switches it sets, every other key listed with its reason, and the model kept from the base plan.
void TestImport::torchtitanConfigReadsKeyByKey()
{
    const std::string path = std::string(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/import/torchtitan-llama3-70b.toml";
    Plan base = trainplan::defaultPlan();
    base.cluster.gpus = 64;
    base.layout.dp = 2;
    const ImportReport r = trainplan::importPath(path, base);
    QCOMPARE(QString::fromStdString(r.format), QString("torchtitan"));
    const Plan& p = r.plan;
    QCOMPARE(p.layout.tp, 8);
    QCOMPARE(p.layout.pp, 1);
    QCOMPARE(p.layout.dp, 8);  // -1: the GPUs TP leaves
    QCOMPARE(p.layout.zeroStage, 3);
    QVERIFY(p.layout.sequenceParallel);
    QCOMPARE(p.layout.recompute, trainplan::Recompute::Full);
    QCOMPARE(p.model.sequenceLength, 8192);
    QCOMPARE(p.training.microBatchSize, 8);
    QCOMPARE(p.training.globalBatchSequences, int64_t(64));  // 8 per DP rank x 8
    QCOMPARE(p.training.tokens, 1000.0 * 64 * 8192);
    QCOMPARE(p.training.matmulPrecision, trainplan::MatmulPrecision::Fp8);
    QVERIFY(trainplan::sameModelShape(p.model, base.model));
    QCOMPARE(p.framework.profile, std::string("pytorch-fsdp2"));
    QCOMPARE(p.framework.fusedKernels.value_or(false), true);
    QCOMPARE(p.framework.tpCommOverlap.value_or(true), false);
    // Every key of the file is mapped or listed.
    const nlohmann::json doc = trainplan::parseTomlTables(trainplan::readRegularFile(path));
    std::set<std::string> keys, reported;
    for (const auto& [table, entries] : doc.items())
        for (const auto& [key, value] : entries.items())
            keys.insert(table + "." + key);
    for (const auto& k : r.mapped)
        reported.insert(k.key);
    for (const auto& k : r.unmapped) {
        QVERIFY2(!k.note.empty(), k.key.c_str());
        reported.insert(k.key);
    }
    for (const auto& k : keys)
        QVERIFY2(reported.count(k), k.c_str());
    const auto note = [&](const std::string& key) {
        for (const auto& k : r.unmapped)
            if (k.key == key)
                return k.note;
        return std::string();
    };
    QCOMPARE(QString::fromStdString(note("optimizer.lr")), QString(trainplan::kNoEffectNote));
    QVERIFY(note("model.flavor").find("base plan's model") != std::string::npos);
    QCOMPARE(QString::fromStdString(note("experimental.custom_import")), QString(trainplan::kNoEffectNote));
}

void TestImport::tomlErrorsNameTheLine()
{
    const auto problem = [](const std::string& text) -> std::string {
        try {
            trainplan::importText(text, "train.toml", trainplan::defaultPlan());
        } catch (const trainplan::PlanError& e) {
            return e.problems().front().path + ": " + e.problems().front().message;
        }
        return "(accepted)";
    };
    QVERIFY(QString::fromStdString(problem("[training]\nseq_len = \"long\"\n")).startsWith("training.seq_len (model.sequence_length): must be a whole number"));
    QVERIFY(QString::fromStdString(problem("[training]\nseq_len = 4096\nseq_len = 8192\n")).startsWith("line 3: key seq_len is given twice"));
    QVERIFY(QString::fromStdString(problem("[parallelism]\ntensor_parallel_degree = 8 8\n")).startsWith("line 2: unexpected text"));
    QVERIFY(QString::fromStdString(problem("[training]\nname = \"open\n")).startsWith("line 2: a string is not closed"));
    QVERIFY(QString::fromStdString(problem("[parallelism]\ntensor_parallel_degree = 0\n")).startsWith("parallelism.tensor_parallel_degree (layout.tp)"));
    QVERIFY(QString::fromStdString(problem("[training]\nx = " + std::string(40, '[') + "\n")).startsWith("line 2: arrays nest too deeply"));
    QCOMPARE(QString::fromStdString(problem("[training]\nseq_len = 99999999999999999999\n")).left(7), QString("line 2:"));
}

void TestImport::torchtitanExportRoundTrips_data()
{
    QTest::addColumn<std::string>("example");
    QTest::addColumn<QStringList>("overrides");
    QTest::newRow("worked example A (ZeRO-1: said)") << std::string("70b-2048-h100.json") << QStringList{};
    QTest::newRow("A FSDP without a pipeline") << std::string("70b-2048-h100.json")
                                               << QStringList{"layout.zero_stage=3", "layout.pp=1", "layout.dp=256", "layout.recompute=full"};
    QTest::newRow("A interleaved, ZeRO-2") << std::string("70b-2048-h100.json")
                                           << QStringList{"layout.schedule=interleaved", "layout.virtual_stages=5", "layout.zero_stage=2"};
    QTest::newRow("A DDP, GPipe") << std::string("70b-2048-h100.json") << QStringList{"layout.zero_stage=0", "layout.schedule=gpipe"};
    QTest::newRow("DeepSeek-V3 on H800") << std::string("deepseek-v3-2048-h800.json") << QStringList{};
    QTest::newRow("B200 MXFP8") << std::string("70b-256-b200-mxfp8.json") << QStringList{};
}

// export --torchtitan-config, then import onto the same model and cluster: the same layout, batch,
// budget (to within one step: the export counts steps), recomputation and precision; what
// torchtitan cannot say is a comment in the file.
void TestImport::torchtitanExportRoundTrips()
{
    QFETCH(std::string, example);
    QFETCH(QStringList, overrides);
    const Plan plan = testsupport::planWith(example, testsupport::toStd(overrides));
    const std::string toml = trainplan::torchtitanConfig(plan);
    const ImportReport r = trainplan::importText(toml, "train.toml", plan);
    const Plan& back = r.plan;
    const auto& a = plan.layout;
    const auto& b = back.layout;
    QCOMPARE(std::tie(b.tp, b.pp, b.dp, b.cp, b.recompute), std::tie(a.tp, a.pp, a.dp, a.cp, a.recompute));
    if (plan.model.moe)
        QCOMPARE(std::tie(b.ep, b.etp), std::tie(a.ep, a.etp));
    if (a.pp > 1) {
        QCOMPARE(b.virtualStages, a.virtualStages);
        if (a.schedule == trainplan::Schedule::ZeroBubble)
            QVERIFY(toml.find("ZB-H1") != std::string::npos);
        else
            QCOMPARE(b.schedule, a.schedule);
    }
    if (a.zeroStage == 1)
        QVERIFY(b.zeroStage == 2 && toml.find("ZeRO-1") != std::string::npos);
    else
        QCOMPARE(b.zeroStage, a.zeroStage);
    if (a.tp > 1 && !a.sequenceParallel)
        QVERIFY(toml.find("no sequence parallelism") != std::string::npos);
    QCOMPARE(back.training.microBatchSize, plan.training.microBatchSize);
    QCOMPARE(back.training.globalBatchSequences, plan.training.globalBatchSequences);
    QCOMPARE(back.model.sequenceLength, plan.model.sequenceLength);
    const double perStep = double(plan.training.globalBatchSequences) * plan.model.sequenceLength;
    QVERIFY(back.training.tokens >= plan.training.tokens && back.training.tokens < plan.training.tokens + perStep);
    if (plan.training.matmulPrecision != trainplan::MatmulPrecision::Fp8Blockwise
        && plan.training.matmulPrecision != trainplan::MatmulPrecision::Nvfp4)
        QCOMPARE(back.training.matmulPrecision, plan.training.matmulPrecision);
    else
        QVERIFY(toml.find("torchtitan") != std::string::npos && toml.find("# ") != std::string::npos);
    // Every key written is one the importer reads.
    for (const auto& k : r.unmapped)
        QVERIFY2(false, (k.key + ": " + k.note).c_str());
}

// The YAML subset Megatron-Bridge's override files use, value by value.
void TestImport::yamlTreeReadsTheSubset()
{
    const nlohmann::json doc = trainplan::parseYamlTree("---\n"
                                                        "# a comment\n"
                                                        "model:\n"
                                                        "  a: 1e-4   # a float, as OmegaConf reads it\n"
                                                        "  b: False\n"
                                                        "  c: ~\n"
                                                        "  d:\n"
                                                        "  e: 'it''s'\n"
                                                        "  f: \"x\\ty # not a comment\"\n"
                                                        "  g: [0, 1, [2, 3], {k: v}, ]\n"
                                                        "  \"quoted key\": -.5\n"
                                                        "train:\n"
                                                        "  list:\n"
                                                        "  - 1\n"
                                                        "  - name: x\n"
                                                        "    value: -2.5\n"
                                                        "  nested:\n"
                                                        "      deeper: 0x10\n"
                                                        "  path: /a/b#c\n"
                                                        "  word: it's\n"
                                                        "  big: 9007199254740993\n");
    const auto& m = doc["model"];
    QVERIFY(m["a"].is_number_float());
    QCOMPARE(m["a"].get<double>(), 1e-4);
    QCOMPARE(m["b"], nlohmann::json(false));
    QVERIFY(m["c"].is_null() && m["d"].is_null());
    QCOMPARE(m["e"].get<std::string>(), std::string("it's"));
    QCOMPARE(m["f"].get<std::string>(), std::string("x\ty # not a comment"));
    QCOMPARE(m["g"], nlohmann::json::parse(R"([0, 1, [2, 3], {"k": "v"}])"));
    QCOMPARE(m["quoted key"].get<double>(), -0.5);
    const auto& t = doc["train"];
    QCOMPARE(t["list"], nlohmann::json::parse(R"([1, {"name": "x", "value": -2.5}])"));
    QCOMPARE(t["nested"]["deeper"].get<long long>(), 16LL);
    QCOMPARE(t["path"].get<std::string>(), std::string("/a/b#c"));
    QCOMPARE(t["word"].get<std::string>(), std::string("it's"));
    QCOMPARE(t["big"].get<long long>(), 9007199254740993LL);
    QVERIFY(trainplan::parseYamlTree("").is_null());
    QVERIFY(trainplan::parseYamlTree("# only a comment\n\n").is_null());
}

// A Megatron-Bridge override in its own format: the shape, layout, batch, budget, recomputation,
// precision and switches it sets, every other key listed with its reason.
void TestImport::megatronBridgeConfigReadsKeyByKey()
{
    const std::string path = fixture("megatron-bridge-llama3-70b.yaml");
    Plan base = trainplan::defaultPlan();
    base.cluster.gpus = 64;
    const ImportReport r = trainplan::importPath(path, base);
    QCOMPARE(QString::fromStdString(r.format), QString("megatron-bridge"));
    const Plan& p = r.plan;
    QCOMPARE(p.layout.tp, 4);
    QCOMPARE(p.layout.pp, 4);
    QCOMPARE(p.layout.cp, 2);
    QCOMPARE(p.layout.etp, 1);  // null: the TP size, for experts the model does not have
    QCOMPARE(p.layout.dp, 2);   // the GPUs TP x PP x CP leave
    QCOMPARE(p.layout.virtualStages, 5);
    QCOMPARE(p.layout.schedule, trainplan::Schedule::Interleaved);
    QVERIFY(p.layout.sequenceParallel);
    QCOMPARE(p.layout.zeroStage, 1);
    QCOMPARE(p.layout.recompute, trainplan::Recompute::Selective);
    QCOMPARE(p.layout.rankOrder, trainplan::RankOrder::TpCpDpPp);
    QCOMPARE(p.model.sequenceLength, 8192);
    QVERIFY(trainplan::sameModelShape(p.model, base.model));
    QCOMPARE(p.training.microBatchSize, 1);
    QCOMPARE(p.training.globalBatchSequences, int64_t(512));
    QCOMPARE(p.training.tokens, 1168251.0 * 512 * 8192);
    QCOMPARE(p.training.matmulPrecision, trainplan::MatmulPrecision::Fp8);
    QCOMPARE(p.training.precision, trainplan::PrecisionScheme::Bf16WithFp32MasterAdam);
    QCOMPARE(p.framework.profile, std::string("megatron-core-2024"));
    QCOMPARE(p.framework.overlapGradReduce.value_or(false), true);
    QCOMPARE(p.framework.overlapParamGather.value_or(false), true);
    QCOMPARE(p.framework.fp32Gradients.value_or(false), true);
    QCOMPARE(p.framework.tpCommOverlap.value_or(true), false);
    QCOMPARE(p.framework.cudaGraphs.value_or(true), false);
    QVERIFY(p.framework.gradientAccumulation == trainplan::GradientAccumulation::Autograd);
    QVERIFY(p.framework.flashAttention == trainplan::FlashAttentionVersion::V2);
    // Every key of the file is mapped or listed, each listed one with its reason.
    const nlohmann::json doc = trainplan::parseYamlTree(trainplan::readRegularFile(path));
    std::set<std::string> keys, reported;
    for (const auto& [section, entries] : doc.items()) {
        if (!entries.is_object()) {
            keys.insert(section);
            continue;
        }
        for (const auto& [key, value] : entries.items())
            keys.insert(section + "." + key);
    }
    for (const auto& k : r.mapped)
        reported.insert(k.key);
    for (const auto& k : r.unmapped) {
        QVERIFY2(!k.note.empty(), k.key.c_str());
        reported.insert(k.key);
    }
    for (const auto& k : keys)
        QVERIFY2(reported.count(k), k.c_str());
    QCOMPARE(QString::fromStdString(noteOf(r, "optimizer.lr")), QString(trainplan::kNoEffectNote));
    QCOMPARE(QString::fromStdString(noteOf(r, "checkpoint.save")), QString(trainplan::kNoEffectNote));
    QCOMPARE(QString::fromStdString(noteOf(r, "model.some_future_knob")), QString("not a key TrainPlan knows"));
    QVERIFY(noteOf(r, "ddp.data_parallel_sharding_strategy").find("use_megatron_fsdp") != std::string::npos);
    QVERIFY(noteOf(r, "model.recompute_modules").find("recompute") != std::string::npos);
    QVERIFY(listed(r, "mixed_precision", true));

    // Another shape onto the same base: a model of its own, named by the file.
    const ImportReport moe = trainplan::importText("model:\n  num_layers: 24\n  num_moe_experts: 64\n  moe_router_topk: 6\n"
                                                   "  moe_ffn_hidden_size: 1408\n  moe_layer_freq: [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
                                                   "  pipeline_model_parallel_size: 1\n",
        "my-moe.yaml", trainplan::defaultPlan());
    QVERIFY(moe.plan.model.moe.has_value());
    QCOMPARE(moe.plan.model.moe->experts, 64);
    QCOMPARE(moe.plan.model.moe->denseLayers, 1);
    QCOMPARE(moe.plan.model.name, std::string("my-moe"));
    // An alternating pattern (Llama 4 Maverick's) is every second layer.
    std::string alternate = "model:\n  num_layers: 8\n  num_moe_experts: 8\n  pipeline_model_parallel_size: 1\n  moe_layer_freq: [0, 1, 0, 1, 0, 1, 0, 1]\n";
    const ImportReport alt = trainplan::importText(alternate, "alt.yaml", trainplan::defaultPlan());
    QCOMPARE(alt.plan.model.moe->layerStep, 2);
    QCOMPARE(alt.plan.model.moe->denseLayers, 0);
    // An integer k: Megatron-Core's layers 0, k, 2k, ... are MoE, the plan's every k-th layer is
    // one place later, and the note says so (with the counts when they differ: 3 against 4 here).
    const ImportReport everyThird = trainplan::importText(
        "model:\n  num_layers: 10\n  num_moe_experts: 8\n  pipeline_model_parallel_size: 1\n  moe_layer_freq: 3\n", "third.yaml",
        trainplan::defaultPlan());
    QCOMPARE(everyThird.plan.model.moe->layerStep, 3);
    QCOMPARE(everyThird.plan.model.moe->denseLayers, 0);
    const std::string note = noteOf(everyThird, "model.moe_layer_freq");
    QVERIFY2(note.find("layers 1, 4, 7") != std::string::npos && note.find("3 MoE layers against Megatron's 4") != std::string::npos,
             note.c_str());
    const ImportReport args = trainplan::importText(
        "--num-layers 12 --hidden-size 1024 --num-attention-heads 8 --num-experts 8 --moe-layer-freq 2", "run.sh", trainplan::defaultPlan());
    QCOMPARE(args.plan.model.moe->layerStep, 2);
    const std::string argsNote = noteOf(args, "--moe-layer-freq");
    QVERIFY2(argsNote.find("one place later") != std::string::npos && argsNote.find("against") == std::string::npos, argsNote.c_str());
}

void TestImport::yamlErrorsNameTheLine()
{
    const auto problem = [](const std::string& text) -> QString {
        return importProblem([&] { trainplan::importText(text, "override.yaml", trainplan::defaultPlan()); });
    };
    QVERIFY(problem("model:\n  tensor_model_parallel_size: eight\n").startsWith("model.tensor_model_parallel_size (layout.tp): must be a whole number"));
    QVERIFY(problem("model:\n  tensor_model_parallel_size: 0\n").startsWith("model.tensor_model_parallel_size (layout.tp)"));
    QVERIFY(problem("model:\n  num_layers: 2\n  num_layers: 3\n").startsWith("line 3: key num_layers is given twice"));
    QVERIFY(problem("model:\n    num_layers: 2\n  hidden_size: 3\n").startsWith("line 3: the indentation does not line up"));
    QVERIFY(problem("train:\n  x: \"open\n").startsWith("line 2: a quoted string is not closed"));
    QVERIFY(problem("model:\n  x: |\n    text\n").startsWith("line 2: block scalars"));
    QVERIFY(problem("model:\n  x: &anchor 1\n").startsWith("line 2: anchors, aliases and tags"));
    QVERIFY(problem("model:\n\tnum_layers: 2\n").startsWith("line 2: a tab indents"));
    QVERIFY(problem("model:\n  x: [1, 2\n").startsWith("line 2: a flow sequence is not closed"));
    QVERIFY(problem("model:\n  x: a: b\n").startsWith("line 2: a value holds"));
    QVERIFY(problem("model:\n  num_layers: 2\n  hidden_size\n").startsWith("line 3: expected \"key: value\""));
    QVERIFY(problem("model:\n  x: " + std::string(40, '[') + "\n").startsWith("line 2: the document nests too deeply"));
    QVERIFY(problem("train:\n  train_iters: 99999999999999999999\n").startsWith("line 2: the integer"));
    QVERIFY(problem("model:\n  moe_layer_freq: [0, 1]\n  num_moe_experts: 8\n").startsWith("model.moe_layer_freq"));
    // Deep block nesting, and a long document, are refused or read without exhausting anything.
    std::string deep = "model:\n";
    for (int i = 1; i < 200; ++i)
        deep += std::string(size_t(2 * i), ' ') + "k:\n";
    QVERIFY(problem(deep).contains("nests too deeply"));
    std::string wide = "logger:\n";
    for (int i = 0; i < 20000; ++i)
        wide += "  key" + std::to_string(i) + ": " + std::to_string(i) + "\n";
    QVERIFY(problem(wide).isEmpty());
}

void TestImport::megatronBridgeExportRoundTrips_data()
{
    torchtitanExportRoundTrips_data();
}

// export --megatron-bridge-config, then import onto the default plan with the plan's cluster: the
// same model shape, stage split, layout, batch, budget (to within one step: the export counts
// iterations), recomputation, precision and switches; what the format cannot say is a comment.
void TestImport::megatronBridgeExportRoundTrips()
{
    QFETCH(std::string, example);
    QFETCH(QStringList, overrides);
    const Plan plan = testsupport::planWith(example, testsupport::toStd(overrides));
    const std::string yaml = trainplan::megatronBridgeConfig(plan);
    QVERIFY(trainplan::looksLikeMegatronBridgeConfig(yaml));
    Plan base = trainplan::defaultPlan();
    base.cluster = plan.cluster;
    const ImportReport r = trainplan::importText(yaml, "standard input", base);
    const Plan& back = r.plan;
    QVERIFY2(trainplan::sameModelShape(back.model, plan.model), yaml.c_str());
    QCOMPARE(back.model.sequenceLength, plan.model.sequenceLength);
    const auto split = [](const Plan& p) {
        std::vector<int> out;
        const trainplan::StageLayerSplit stages(p);
        for (int i = 0; i < p.layout.pp; ++i)
            out.push_back(stages.layersOf(i));
        return out;
    };
    if (yaml.find("pipeline_model_parallel_layout") == std::string::npos)
        QCOMPARE(split(back), split(plan));
    const auto& a = plan.layout;
    const auto& b = back.layout;
    QCOMPARE(std::tie(b.tp, b.pp, b.dp, b.cp, b.ep, b.etp, b.sequenceParallel, b.recompute, b.recomputeLayers, b.zeroStage),
             std::tie(a.tp, a.pp, a.dp, a.cp, a.ep, a.etp, a.sequenceParallel, a.recompute, a.recomputeLayers, a.zeroStage));
    if (a.pp > 1) {
        if (a.schedule == trainplan::Schedule::Interleaved || a.schedule == trainplan::Schedule::OneFOneB)
            QCOMPARE(std::tie(b.schedule, b.virtualStages), std::tie(a.schedule, a.virtualStages));
        else
            QVERIFY(b.schedule == trainplan::Schedule::OneFOneB && yaml.find("# layout.schedule") != std::string::npos);
    }
    if (a.rankOrder != trainplan::RankOrder::TpDpCpPp)
        QCOMPARE(b.rankOrder, a.rankOrder);
    QCOMPARE(back.training.microBatchSize, plan.training.microBatchSize);
    QCOMPARE(back.training.globalBatchSequences, plan.training.globalBatchSequences);
    const double perStep = double(plan.training.globalBatchSequences) * plan.model.sequenceLength;
    QVERIFY(back.training.tokens >= plan.training.tokens && back.training.tokens < plan.training.tokens + perStep);
    QCOMPARE(back.training.matmulPrecision, plan.training.matmulPrecision);
    if (plan.training.precision != trainplan::PrecisionScheme::Bf16AdamNoMaster)
        QCOMPARE(back.training.precision, plan.training.precision);
    else
        QVERIFY(yaml.find("training.precision") != std::string::npos);
    // Every switch the file writes comes back as it was.
    const auto before = trainplan::resolvedFramework(plan.framework), after = trainplan::resolvedFramework(back.framework);
    for (const auto& flag : trainplan::kFrameworkFlags) {
        if (flag.path == "framework.fused_kernels" || flag.path == "framework.dropout")
            continue;
        if (!plan.model.moe && (flag.path == "framework.moe_grouped_gemm" || flag.path == "framework.moe_comm_overlap"))
            continue;
        if (before.*flag.field)
            QVERIFY2(after.*flag.field == before.*flag.field, std::string(flag.path).c_str());
    }
    if (before.dropout == false)
        QCOMPARE(after.dropout, before.dropout);
    if (before.flashAttention)
        QVERIFY(after.flashAttention == before.flashAttention);
    if (before.gradientAccumulation && *before.gradientAccumulation != trainplan::GradientAccumulation::Fp32Copy)
        QVERIFY(after.gradientAccumulation == before.gradientAccumulation);
    if (plan.model.moe)
        QVERIFY(after.moeDispatcher == before.moeDispatcher);
    // Every key written is one the importer reads.
    for (const auto& k : r.unmapped)
        QVERIFY2(false, (k.key + ": " + k.note).c_str());
}

QTEST_APPLESS_MAIN(TestImport)
#include "tst_import.moc"
