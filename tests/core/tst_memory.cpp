// Memory formulas against their papers: Korthikanti et al. 2022 Table 2 and Figure 1,
// and the ZeRO paper's Figure 1 (7.5B parameters on 64 GPUs).
#include <QtTest>

#include <algorithm>

#include "TestSupport.h"
#include "core/base/Units.h"

using namespace testsupport;

namespace {

// A GPT-style plan (Korthikanti et al. 2022, Table 3 shapes) on A100s.
std::vector<std::string> gptShape(int layers, int hidden, int heads, int tp, int pp, int dp, int microBatch, int globalBatch)
{
    const int gpus = tp * pp * dp;
    return {"model.layers=" + std::to_string(layers), "model.hidden_size=" + std::to_string(hidden),
            "model.ffn_hidden_size=" + std::to_string(4 * hidden), "model.ffn_kind=gelu",
            "model.attention_heads=" + std::to_string(heads), "model.kv_heads=" + std::to_string(heads),
            "model.head_dim=" + std::to_string(hidden / heads), "model.vocab_size=51200", "model.sequence_length=2048",
            "model.tied_embeddings=true", "model.norm=layernorm", "model.bias=true", "model.position_embedding=learned",
            "cluster.gpus=" + std::to_string(gpus), "layout.tp=" + std::to_string(tp), "layout.pp=" + std::to_string(pp),
            "layout.dp=" + std::to_string(dp), "training.micro_batch_size=" + std::to_string(microBatch),
            "training.global_batch_sequences=" + std::to_string(globalBatch)};
}

}  // namespace

class TestMemory : public QObject {
    Q_OBJECT

private slots:
    void korthikantiTable2_data();
    void korthikantiTable2();
    void korthikantiFigure1_data();
    void korthikantiFigure1();
    void zeroFigure1_data();
    void zeroFigure1();
    void fullRecomputeKeepsLayerInputs();
    void fsdp2ShardIsTheMaster();
    void fsdp2GradientsOnlyInBackward();
    void torchtitanOpCheckpointing();
    void zero3GathersByBlockOrSubmodule();
    void searchScopesGiveTheFullEstimatesMemory();
};

void TestMemory::korthikantiTable2_data()
{
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<double>("coefficient");  // bytes / (s b h), from Table 2
    // GPT-3 175B shape: s = 2048, h = 12288, a = 96, t = 8: 5as/(ht) = 10.
    const double scoreTerm = 5.0 * 96 * 2048 / (12288.0 * 8);
    QTest::newRow("TP only") << "layout.sequence_parallel=false layout.recompute=none framework.flash_attention=none"
                             << 10 + 24.0 / 8 + scoreTerm;
    QTest::newRow("TP + SP") << "layout.sequence_parallel=true layout.recompute=none framework.flash_attention=none"
                             << 34.0 / 8 + scoreTerm;
    QTest::newRow("TP + selective") << "layout.sequence_parallel=false layout.recompute=selective framework.flash_attention=none"
                                    << 10 + 24.0 / 8;
    QTest::newRow("TP + SP + selective") << "layout.sequence_parallel=true layout.recompute=selective framework.flash_attention=none"
                                         << 34.0 / 8;
    QTest::newRow("TP + SP + flash") << "layout.sequence_parallel=true layout.recompute=none framework.flash_attention=2" << 34.0 / 8;
    QTest::newRow("full recompute") << "layout.sequence_parallel=false layout.recompute=full framework.flash_attention=none" << 2.0;
    QTest::newRow("no parallelism")
        << "layout.tp=1 layout.dp=512 layout.sequence_parallel=false layout.recompute=none framework.flash_attention=none"
        << 34 + 5.0 * 96 * 2048 / 12288.0;
}

void TestMemory::korthikantiTable2()
{
    QFETCH(QString, overrides);
    QFETCH(double, coefficient);
    auto o = gptShape(96, 12288, 96, 8, 8, 8, 1, 512);
    for (const auto& s : toStd(splitOverrides(overrides)))
        o.push_back(s);
    const auto est = trainplan::estimate(planWith("70b-2048-h100.json", o));
    const double sbh = 2048.0 * 1 * 12288;
    QCOMPARE(est.activation.perLayerPerMicrobatch, sbh * coefficient);
}

void TestMemory::korthikantiFigure1_data()
{
    // Activation memory of the first pipeline stage, GiB, as Korthikanti et al. 2022 Fig. 1
    // draws it (values via Calculon's validation.py, in resources/reference/published_runs.json).
    // Table 3 layouts: 22B t8 p1 b4; 175B t8 p8 v3 b1; 530B t8 p35 v3 b1; 1T t8 p64 b1.
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("sequenceAndSelective");
    QTest::addColumn<double>("gib");
    QTest::newRow("22B none") << "22B" << false << 59.25;
    QTest::newRow("22B seq+sel") << "22B" << true << 9.5625;
    QTest::newRow("175B none") << "175B" << false << 66.84375;
    QTest::newRow("175B seq+sel") << "175B" << true << 12.3515625;
    QTest::newRow("530B none") << "530B" << false << 114.0234375;
    QTest::newRow("530B seq+sel") << "530B" << true << 23.076171875;
    QTest::newRow("1T none") << "1T" << false << 131.25;
    QTest::newRow("1T seq+sel") << "1T" << true << 26.5625;
}

void TestMemory::korthikantiFigure1()
{
    QFETCH(QString, model);
    QFETCH(bool, sequenceAndSelective);
    QFETCH(double, gib);
    std::vector<std::string> o;
    if (model == "22B")
        o = gptShape(48, 6144, 64, 8, 1, 1, 4, 4);
    else if (model == "175B")
        o = gptShape(96, 12288, 96, 8, 8, 1, 1, 64);
    else if (model == "530B")
        o = gptShape(105, 20480, 128, 8, 35, 1, 1, 280);
    else
        o = gptShape(128, 25600, 160, 8, 64, 1, 1, 512);
    if (model == "175B" || model == "530B") {
        o.push_back("layout.schedule=interleaved");
        o.push_back("layout.virtual_stages=3");
    }
    o.push_back("framework.flash_attention=none");
    o.push_back(sequenceAndSelective ? "layout.sequence_parallel=true" : "layout.sequence_parallel=false");
    o.push_back(sequenceAndSelective ? "layout.recompute=selective" : "layout.recompute=none");
    const auto est = trainplan::estimate(planWith("70b-2048-h100.json", o));
    const auto& first = est.stages[0];
    // The figure draws the transformer layers' term only (Eq. 5 without the embedding extras).
    const double layersTerm = first.microbatchesInFlight * first.activationsPerMicrobatch;
    const double expected = gib * trainplan::units::GiB;
    QVERIFY2(std::abs(layersTerm - expected) / expected < 0.002,
        qPrintable(QString("%1 GiB vs the paper's %2 GiB").arg(layersTerm / trainplan::units::GiB, 0, 'f', 4).arg(gib)));
}

void TestMemory::zeroFigure1_data()
{
    // Rajbhandari et al. 2020, Figure 1: Psi = 7.5B, N_d = 64, K = 12: 120 / 31.4 / 16.6 / 1.9 GB.
    QTest::addColumn<int>("stage");
    QTest::addColumn<double>("gigabytes");
    QTest::newRow("baseline DP") << 0 << 120.0;
    QTest::newRow("P_os") << 1 << 31.4;
    QTest::newRow("P_os+g") << 2 << 16.6;
    QTest::newRow("P_os+g+p") << 3 << 1.9;
}

void TestMemory::zeroFigure1()
{
    QFETCH(int, stage);
    QFETCH(double, gigabytes);
    // A 7.5B-class GPT (Narayanan Table 1: 36 layers, h 4096) on 64 data-parallel GPUs;
    // model state per GPU scaled to exactly 7.5e9 parameters as the figure assumes.
    auto o = gptShape(36, 4096, 32, 1, 1, 64, 1, 512);
    o.push_back("layout.zero_stage=" + std::to_string(stage));
    o.push_back("layout.sequence_parallel=false");
    o.push_back("training.precision=bf16-fp32-master-adam");
    const auto est = trainplan::estimate(planWith("70b-2048-h100.json", o));
    const double state = est.perGpu.weights + est.perGpu.gradients + est.perGpu.optimizer;
    const double scaled = state / est.parameters.total * 7.5e9 / trainplan::units::GB;
    QVERIFY2(std::abs(scaled - gigabytes) / gigabytes < 0.02, qPrintable(QString("%1 GB vs %2 GB").arg(scaled).arg(gigabytes)));
}

void TestMemory::fullRecomputeKeepsLayerInputs()
{
    // Worked example B with full recompute: 80 layer inputs of 2 s b h bytes, plus one layer's
    // working set while it is recomputed, plus the logits.
    const auto est = trainplan::estimate(planWith("70b-512-gpu.json"));
    const double sbh = 8192.0 * 8192.0;
    QCOMPARE(est.activation.perLayerPerMicrobatch, 2.0 * sbh);
    QCOMPARE(est.stages[0].activationsPerMicrobatch, 80 * 2.0 * sbh);
    QVERIFY(est.stages[0].activationExtras > sbh * (10 + 24.0 / 8));
}

// Llama 3 8B shapes (h 4096, 32 heads of 128, 8 KV heads, SwiGLU 14336, 32 layers) on 8 GPUs,
// ZeRO-3, as torchtitan trains it.
std::vector<std::string> llama8bFsdp(const std::string& profile, int microBatch, int globalBatch)
{
    return {"model.layers=32", "model.hidden_size=4096", "model.ffn_hidden_size=14336", "model.ffn_kind=swiglu",
            "model.attention_heads=32", "model.kv_heads=8", "model.head_dim=128", "model.vocab_size=128256",
            "model.sequence_length=8192", "model.tied_embeddings=false", "cluster.gpus=8", "layout.tp=1", "layout.pp=1",
            "layout.dp=8", "layout.zero_stage=3", "layout.sequence_parallel=false", "layout.recompute=selective",
            "training.micro_batch_size=" + std::to_string(microBatch),
            "training.global_batch_sequences=" + std::to_string(globalBatch), "framework.profile=" + profile};
}

void TestMemory::fsdp2ShardIsTheMaster()
{
    // FSDP2 keeps FP32 shards that the optimizer steps: 4 + 4 + 8 = 16 bytes per parameter over
    // the 8 ranks, where Megatron's distributed optimizer keeps 2 + 4 + 12 = 18.
    const auto fsdp = trainplan::estimate(planWith("70b-2048-h100.json", llama8bFsdp("pytorch-fsdp2", 1, 16)));
    const auto mc = trainplan::estimate(planWith("70b-2048-h100.json", llama8bFsdp("megatron-core-2024", 1, 16)));
    const double n = fsdp.stages[0].parametersPerGpu;
    QCOMPARE(fsdp.stages[0].memory.weights, n * 4 / 8);
    QCOMPARE(fsdp.stages[0].memory.optimizer, n * 8 / 8);
    QCOMPARE(mc.stages[0].memory.weights, n * 2 / 8);
    QCOMPARE(mc.stages[0].memory.optimizer, n * 12 / 8);
}

void TestMemory::fsdp2GradientsOnlyInBackward()
{
    // One micro-batch per step: the gradient shards (4 B/param / 8) are made while the backward
    // frees more activation memory than they take, so none count at the peak; with two
    // micro-batches they persist from the first backward and count in full.
    const auto one = trainplan::estimate(planWith("70b-2048-h100.json", llama8bFsdp("pytorch-fsdp2", 1, 8)));
    const auto two = trainplan::estimate(planWith("70b-2048-h100.json", llama8bFsdp("pytorch-fsdp2", 1, 16)));
    QCOMPARE(one.pipeline.microbatches, int64_t(1));
    QCOMPARE(two.pipeline.microbatches, int64_t(2));
    const double all = one.stages[0].parametersPerGpu * 4 / 8;
    QVERIFY(one.stages[0].memory.activations > all);
    QCOMPARE(one.stages[0].memory.gradients, 0.0);
    QCOMPARE(two.stages[0].memory.gradients, all);
    // A tiny batch whose activations are smaller than the gradients: the end of the backward holds more.
    auto tiny = llama8bFsdp("pytorch-fsdp2", 1, 8);
    tiny.push_back("model.sequence_length=64");
    const auto small = trainplan::estimate(planWith("70b-2048-h100.json", tiny));
    QCOMPARE(small.stages[0].memory.gradients, all - small.stages[0].memory.activations);
}

void TestMemory::torchtitanOpCheckpointing()
{
    // torchtitan's op-level SAC keeps the block input, wq's, wv's, the attention kernel's, w1's and
    // w2's outputs (and the FP32 log-sum-exp): for Llama 3 8B, 2 x (4096 + 4096 + 1024 + 4096 +
    // 14336 + 4096) bytes + 4 x 32 per token, about 15.5 s b h where Megatron's selective keeps 34.
    const trainplan::Plan plan = planWith("70b-2048-h100.json", llama8bFsdp("pytorch-fsdp2", 1, 16));
    const auto fsdp = trainplan::estimate(plan);
    const double perToken = 2.0 * (4096 + 4096 + 1024 + 4096 + 14336 + 4096) + 4.0 * 32;
    QCOMPARE(fsdp.activation.perLayerPerMicrobatch, 8192.0 * perToken);
    QVERIFY(std::abs(fsdp.activation.linearCoefficient - 15.53) < 0.01);
    const auto mc = trainplan::estimate(planWith("70b-2048-h100.json", llama8bFsdp("megatron-core-2024", 1, 16)));
    QCOMPARE(mc.activation.perLayerPerMicrobatch, 8192.0 * 4096 * 32);  // 34 less the dropout masks
    // It recomputes the matmuls it did not keep (wk, wo, w3), and no attention core.
    const double recomputedPerToken = 2.0 * 4096 * 1024 + 2.0 * 4096 * 4096 + 2.0 * 4096 * 14336;
    QCOMPARE(fsdp.flops.recompute, recomputedPerToken * 32 * plan.training.tokens);
    QCOMPARE(mc.flops.recompute, mc.flops.attention / 3.0);
}

void TestMemory::zero3GathersByBlockOrSubmodule()
{
    // Megatron-LM's 530B shape (105 layers, h 20480, 128 heads, GeLU 4h) under ZeRO-3 on 640 GPUs
    // (Narayanan et al. 2021, Table 2), BF16 weights and gradients (2 B each).
    auto args = gptShape(105, 20480, 128, 1, 1, 640, 4, 2560);
    for (const char* o : {"layout.zero_stage=3", "layout.recompute=full", "layout.sequence_parallel=false",
             "framework.fp32_gradients=false", "training.precision=bf16-fp32-master-adam"})
        args.push_back(o);
    auto block = args, submodule = args;
    block.push_back("framework.zero3_gathering=block");
    submodule.push_back("framework.zero3_gathering=submodule");
    const auto b = trainplan::estimate(planWith("70b-2048-h100.json", block));
    const auto d = trainplan::estimate(planWith("70b-2048-h100.json", submodule));
    const double layer = b.parameters.largestLayer();  // 12 h^2 + 13 h with biases and norms
    QVERIFY(std::abs(layer / (12.0 * 20480 * 20480) - 1.0) < 1e-3);
    // FSDP: this block and the next in 16-bit, and this block's 16-bit gradients.
    QCOMPARE(b.stages[0].memory.shardingBuffers, layer * (2 * 2 + 2));
    // DeepSpeed: the largest Linear (the 4h x h FFN matrix, 1.68e9 parameters, above the 1e9 live
    // cap) plus the 5e7 prefetch bucket, and that Linear's gradients plus the 5e8 reduce bucket.
    const double ffn = 4.0 * 20480 * 20480;
    QCOMPARE(d.stages[0].memory.shardingBuffers, (ffn + 5e7) * 2 + (ffn + 5e8) * 2);
    // The buffers are their own term: in the total, not in the activations.
    QCOMPARE(b.stages[0].memory.activations, d.stages[0].memory.activations);
    QCOMPARE(b.stages[0].memory.modelAndActivations - d.stages[0].memory.modelAndActivations,
        b.stages[0].memory.shardingBuffers - d.stages[0].memory.shardingBuffers);
    // Unknown reads as block (the heavier); below stage 3 there are none.
    const auto unknown = trainplan::estimate(planWith("70b-2048-h100.json", args));
    QCOMPARE(unknown.stages[0].memory.shardingBuffers, b.stages[0].memory.shardingBuffers);
    QCOMPARE(trainplan::estimate(planWith("70b-2048-h100.json")).perGpu.shardingBuffers, 0.0);
    // A small model's block under the live cap: DeepSpeed keeps at most the block.
    auto small = gptShape(24, 1024, 16, 1, 1, 8, 4, 32);
    for (const char* o : {"layout.zero_stage=3", "framework.fp32_gradients=false", "framework.zero3_gathering=submodule"})
        small.push_back(o);
    const auto s = trainplan::estimate(planWith("70b-2048-h100.json", small));
    const double smallLayer = s.parameters.largestLayer();
    const double largest = 51200.0 * 1024;  // the embedding table is the largest submodule here
    QCOMPARE(s.stages[0].memory.shardingBuffers, (smallLayer + 5e7) * 2 + (std::min(largest, smallLayer) + 5e8) * 2);
}

void TestMemory::searchScopesGiveTheFullEstimatesMemory()
{
    // The layout search's scopes (EstimateScope) skip the memory of a stage that holds the state
    // and per-micro-batch activations of the stage before it with no more micro-batches in
    // flight. What they report (the fullest stage, its memory, fits, headroom and margin) must be
    // the full estimate's, over deep pipelines, every schedule, partial recompute and MoE; the
    // memory of each stage they do estimate must be the full estimate's too, and a skipped stage
    // must hold no more than the stage before it.
    using namespace trainplan;
    struct Model {
        const char* example;
        std::vector<int> pps;
        std::vector<std::vector<int>> stageLayers;  // also each given split, for its PP
    };
    const Model models[] = {{"70b-2048-h100.json", {1, 2, 4, 8, 16, 32, 64}, {{21, 20, 20, 19}, {9, 10, 10, 10, 10, 10, 10, 11}}},
                            {"mixtral-8x22b-256-h100.json", {1, 2, 4, 8, 16}, {}},
                            {"deepseek-v3-2048-h800.json", {8, 16, 32}, {}}};
    const Schedule schedules[] = {Schedule::OneFOneB, Schedule::GPipe, Schedule::Interleaved, Schedule::ZeroBubble, Schedule::DualPipe};
    const auto sameMemory = [](const Estimate& a, const Estimate& full, const char* scope, const Plan& plan) {
        const QByteArray where = QByteArray(scope) + " pp " + QByteArray::number(plan.layout.pp) + " schedule "
            + QByteArray::number(int(plan.layout.schedule)) + " zero " + QByteArray::number(plan.layout.zeroStage) + " recompute "
            + QByteArray::number(int(plan.layout.recompute)) + "/" + QByteArray::number(plan.layout.recomputeLayers) + " b "
            + QByteArray::number(plan.training.microBatchSize);
        QVERIFY2(a.perGpu.total == full.perGpu.total, where.constData());
        QVERIFY2(a.fullestStage == full.fullestStage, where.constData());
        QVERIFY2(a.fits == full.fits && a.hasMargin == full.hasMargin && a.headroomBytes == full.headroomBytes, where.constData());
        QVERIFY2(a.parametersPerGpuMean == full.parametersPerGpuMean, where.constData());
        QVERIFY2(a.stages.size() == full.stages.size(), where.constData());
        for (size_t i = 0; i < a.stages.size(); ++i) {
            QVERIFY2(full.stages[i].memoryEstimated, where.constData());
            // What a family keeps with its stages (EstimateScope::LayoutSearchSameFamily).
            QVERIFY2(a.stages[i].parametersPerGpu == full.stages[i].parametersPerGpu
                         && a.stages[i].microbatchesInFlight == full.stages[i].microbatchesInFlight,
                     where.constData());
            if (a.stages[i].memoryEstimated)
                QVERIFY2(a.stages[i].memory.total == full.stages[i].memory.total, where.constData());
            else
                QVERIFY2(i > 0 && full.stages[i].memory.total <= full.stages[i - 1].memory.total, where.constData());
        }
    };
    long long compared = 0, skipped = 0;
    for (const Model& model : models) {
        const Plan base = planWith(model.example);
        const long long perPipeline = base.cluster.gpus / ((long long)base.layout.tp * base.layout.cp);
        std::vector<std::vector<int>> splits(model.pps.size());  // empty: the default split
        for (const auto& given : model.stageLayers)
            splits.push_back(given);
        for (size_t k = 0; k < splits.size(); ++k) {
            const int pp = k < model.pps.size() ? model.pps[k] : int(splits[k].size());
            for (Schedule schedule : schedules) {
                for (int micro : {1, 4}) {
                    Plan plan = base;
                    plan.layout.stageLayers = splits[k];
                    plan.layout.pp = pp;
                    plan.layout.dp = int(perPipeline / pp);
                    plan.layout.schedule = pp > 1 ? schedule : Schedule::OneFOneB;
                    plan.layout.virtualStages = plan.layout.schedule == Schedule::Interleaved ? 2 : 1;
                    plan.training.microBatchSize = micro;
                    Estimate family;  // one workspace for the whole family, as the search keeps it
                    bool first = true;
                    for (int zero = 0; zero <= 3; ++zero) {
                        for (int recompute = 0; recompute < 4; ++recompute) {
                            plan.layout.zeroStage = zero;
                            plan.layout.recompute = recompute == 0 ? Recompute::None
                                : recompute == 1                   ? Recompute::Selective
                                                                   : Recompute::Full;
                            plan.layout.recomputeLayers = recompute == 3 ? 1 : 0;
                            const Estimate full = estimate(plan);
                            Estimate search;
                            estimateInto(plan, search, EstimateScope::LayoutSearch);
                            sameMemory(search, full, "LayoutSearch", plan);
                            QVERIFY(search.communication.dpBytesPerGpu == full.communication.dpBytesPerGpu);
                            Estimate sameModel;
                            sameModel.parameters = full.parameters;
                            estimateInto(plan, sameModel, EstimateScope::LayoutSearchSameModel);
                            sameMemory(sameModel, full, "LayoutSearchSameModel", plan);
                            estimateInto(plan, family, first ? EstimateScope::LayoutSearch : EstimateScope::LayoutSearchSameFamily);
                            first = false;
                            sameMemory(family, full, "LayoutSearchSameFamily", plan);
                            QVERIFY(family.communication.dpBytesPerGpu == full.communication.dpBytesPerGpu);
                            Estimate memory;
                            memory.parameters = full.parameters;
                            estimateInto(plan, memory, EstimateScope::MemoryOfSameModel);
                            sameMemory(memory, full, "MemoryOfSameModel", plan);
                            Estimate stages;
                            stages.parameters = full.parameters;
                            stages.stages = full.stages;
                            stages.stageKinds = full.stageKinds;
                            estimateInto(plan, stages, EstimateScope::MemoryOfSameStages);
                            sameMemory(stages, full, "MemoryOfSameStages", plan);
                            if (QTest::currentTestFailed())
                                return;
                            ++compared;
                            skipped += std::count_if(family.stages.begin(), family.stages.end(),
                                                     [](const StageEstimate& st) { return !st.memoryEstimated; });
                        }
                    }
                }
            }
        }
    }
    // The shortcut must be taken, or the comparison above tests nothing.
    qInfo("%lld estimates compared, %lld stages skipped", compared, skipped);
    QVERIFY(compared > 2500);
    QVERIFY(skipped > 5 * compared);
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
