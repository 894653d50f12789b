// Invariants that hold for every layout: parts sum to totals, stages partition the
// model, the derivation quotes the estimate's own numbers, nothing is NaN.
#include <QtTest>

#include <cmath>

#include "TestSupport.h"
#include "core/text/Derivation.h"

using namespace testsupport;

namespace {

struct Layout {
    int tp, pp, dp, cp, v, zero;
    const char* schedule;
    const char* recompute;
    bool sp;
};

const Layout kLayouts[] = {
    {8, 4, 64, 1, 1, 1, "1f1b", "selective", true},   {8, 4, 64, 1, 2, 1, "interleaved", "selective", true},
    {4, 8, 64, 1, 1, 2, "gpipe", "none", false},      {2, 1, 1024, 1, 1, 3, "1f1b", "full", false},
    {8, 2, 64, 2, 1, 1, "1f1b", "selective", true},   {16, 4, 32, 1, 1, 0, "1f1b", "none", true},
    {1, 16, 128, 1, 1, 1, "1f1b", "full", false},     {8, 5, 51, 1, 1, 1, "1f1b", "selective", true},
    {8, 8, 8, 4, 5, 1, "interleaved", "full", true},  {1, 1, 2048, 1, 1, 3, "1f1b", "none", false},
};

std::vector<std::string> overridesFor(const Layout& l)
{
    return {"layout.tp=" + std::to_string(l.tp), "layout.pp=" + std::to_string(l.pp), "layout.dp=" + std::to_string(l.dp),
        "layout.cp=" + std::to_string(l.cp), "layout.virtual_stages=" + std::to_string(l.v), "layout.zero_stage=" + std::to_string(l.zero),
        std::string("layout.schedule=") + l.schedule, std::string("layout.recompute=") + l.recompute,
        std::string("layout.sequence_parallel=") + (l.sp ? "true" : "false"), "training.buffer_gb=2",
        "training.fragmentation_fraction=0.05"};
}

bool allFinite(const nlohmann::json& j)
{
    if (j.is_number())
        return std::isfinite(j.get<double>());
    if (j.is_object() || j.is_array()) {
        for (const auto& v : j)
            if (!allFinite(v))
                return false;
    }
    return true;
}

}  // namespace

class TestInvariants : public QObject {
    Q_OBJECT

private slots:
    void layouts_data();
    void partsSumToTotals();
    void partsSumToTotals_data() { layouts_data(); }
    void derivationQuotesTheEstimate();
    void derivationQuotesTheEstimate_data() { layouts_data(); }
    void contractKeysExist();
    void tpDividesWhatItShould();
    void estimateIsPure();
};

void TestInvariants::layouts_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < int(std::size(kLayouts)); ++i) {
        const auto& l = kLayouts[i];
        QTest::addRow("tp%d pp%d dp%d cp%d v%d zero%d %s %s", l.tp, l.pp, l.dp, l.cp, l.v, l.zero, l.schedule, l.recompute) << i;
    }
}

void TestInvariants::partsSumToTotals()
{
    QFETCH(int, index);
    const auto plan = planWith("70b-2048-h100.json", overridesFor(kLayouts[index]));
    const auto est = trainplan::estimate(plan);

    // Stages partition the layers; stage parameters add up to N (+ a tied copy of the
    // word embedding on the last stage when p > 1, which this untied model has none of).
    int layers = 0;
    double params = 0;
    double fullest = 0;
    for (const auto& st : est.stages) {
        layers += st.layers;
        params += st.parameters;
        const auto& m = st.memory;
        QCOMPARE(m.total, m.weights + m.gradients + m.optimizer + m.activations + m.shardingBuffers + m.buffers);
        QVERIFY(m.weights > 0 && m.gradients > 0 && m.optimizer > 0 && m.activations > 0);
        fullest = std::max(fullest, m.total);
    }
    QCOMPARE(layers, plan.model.layers);
    QVERIFY(std::abs(params - est.parameters.total) / est.parameters.total < 1e-12);
    QCOMPARE(est.perGpu.total, fullest);
    QCOMPARE(est.fits, fullest <= plan.cluster.memoryBytesPerGpu);

    const auto& p = est.parameters;
    double layerSum = 0.0;
    for (int k = 0; k < plan.model.kindCount(); ++k) {
        const auto& kind = p.kinds[size_t(k)];
        QCOMPARE(kind.total, kind.attention + kind.ffn + kind.norms);
        layerSum += plan.model.kind(k).layers * kind.total;
    }
    QCOMPARE(p.layers, layerSum);
    QCOMPARE(p.total, p.layers + p.embedding + p.lmHead + p.finalNorm);
    QCOMPARE(est.flops.total, est.flops.model6nd - est.flops.embeddingLookup + est.flops.attention);
    QVERIFY(est.flops.embeddingLookup >= 0 && est.flops.embeddingLookup < est.flops.model6nd);
    QVERIFY(est.flops.hardware >= est.flops.total);
    // DP x micro-batch x micro-batches = global batch when it divides.
    if (plan.training.globalBatchSequences % (plan.layout.dp * plan.training.microBatchSize) == 0)
        QCOMPARE(
            double(plan.layout.dp) * plan.training.microBatchSize * est.pipeline.microbatches, double(plan.training.globalBatchSequences));
    QVERIFY(est.pipeline.bubbleFraction >= 0 && est.pipeline.bubbleFraction < 1);
    QVERIFY(allFinite(trainplan::estimateToJson(trainplan::analyse(plan))));
}

void TestInvariants::derivationQuotesTheEstimate()
{
    QFETCH(int, index);
    const auto plan = planWith("70b-2048-h100.json", overridesFor(kLayouts[index]));
    const auto est = trainplan::estimate(plan);
    const auto doc = trainplan::estimateToJson(trainplan::analyse(plan));
    int matched = 0;
    for (const auto& section : trainplan::derive(plan, est)) {
        QVERIFY(!section.steps.empty());
        for (const auto& step : section.steps) {
            QVERIFY2(!step.formula.empty() && !step.substituted.empty() && !step.result.empty() && !step.source.empty(), step.id.c_str());
            QVERIFY2(std::isfinite(step.value), step.id.c_str());
            if (hasPath(doc, step.id)
                && doc.at(nlohmann::json::json_pointer("/" + QString::fromStdString(step.id).replace('.', '/').toStdString()))
                       .is_number()) {
                const double v = figure(doc, step.id);
                QVERIFY2(std::abs(v - step.value) <= 1e-12 * std::max(1.0, std::abs(v)), step.id.c_str());
                ++matched;
            }
        }
    }
    // The derivation is tied to the estimate by at least this many shared figures.
    QVERIFY2(matched >= 25, qPrintable(QString::number(matched)));
}

void TestInvariants::contractKeysExist()
{
    // docs/plan-format.md, "estimate --json: keys that must exist".
    const auto doc = estimateJsonFor(planWith("70b-2048-h100.json"));
    const char* keys[] = {"parameters.total", "parameters.embedding", "parameters.per_layer", "flops.model_6nd", "flops.attention",
        "flops.total", "time.steps", "time.tokens_per_step", "time.step_seconds", "time.total_seconds", "time.days", "time.gpu_hours",
        "memory.per_gpu_bytes.weights", "memory.per_gpu_bytes.gradients", "memory.per_gpu_bytes.optimizer",
        "memory.per_gpu_bytes.activations", "memory.per_gpu_bytes.total", "memory.capacity_bytes", "memory.fits", "memory.stages.0.weights",
        "memory.stages.3.total", "pipeline.micro_batches", "pipeline.bubble_fraction", "communication.tp_message_bytes",
        "communication.tp_collectives_per_layer", "communication.pp_bytes_per_microbatch", "communication.dp_bytes_per_gpu",
        "communication.dp_seconds", "reliability.checkpoint_bytes", "reliability.checkpoint_interval_seconds",
        "reliability.expected_failures", "reliability.padded_days"};
    for (const char* k : keys)
        QVERIFY2(hasPath(doc, k), k);
    QVERIFY(doc.at("warnings").is_array());
    QCOMPARE(int(doc.at("memory").at("stages").size()), 4);
    // "estimate --json, once the step-time model exists": the components sum to the step.
    for (const char* k : {"predicted.step_seconds", "predicted.mfu", "predicted.hfu", "predicted.tflops_per_gpu",
                          "predicted.tokens_per_second_per_gpu", "predicted.components.pipeline_bubble"})
        QVERIFY2(hasPath(doc, k), k);
    double sum = 0;
    for (const auto& [name, seconds] : doc.at("predicted").at("components").items())
        sum += seconds.get<double>();
    QVERIFY(std::abs(sum - figure(doc, "predicted.step_seconds")) < 1e-9 * sum);
    const auto warned = estimateJsonFor(planWith("70b-2048-h100.json", {"layout.tp=16", "layout.dp=32"}));
    const auto& w = warned.at("warnings").at(0);
    QVERIFY(w.contains("severity") && w.contains("code") && w.contains("message"));
}

void TestInvariants::tpDividesWhatItShould()
{
    auto codes = [](const trainplan::Estimate& e) {
        QStringList out;
        for (const auto& w : e.warnings)
            out << trainplan::codeName(w.code);
        return out;
    };
    // 64 heads, 8 KV heads: TP 3 divides neither.
    auto e = trainplan::estimate(planWith("70b-2048-h100.json", {"layout.tp=3", "layout.dp=64", "cluster.gpus=768"}));
    QVERIFY(codes(e).contains("TP_DOES_NOT_DIVIDE_HEADS"));
    QVERIFY(codes(e).contains("TP_DOES_NOT_DIVIDE_KV_HEADS"));
    QVERIFY(codes(e).contains("TP_SPANS_NODES"));
    // TP 16 > 8 KV heads: replicated, an info note, not an error.
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"layout.tp=16", "layout.dp=32"}));
    QVERIFY(codes(e).contains("TP_REPLICATES_KV_HEADS"));
    QVERIFY(!codes(e).contains("TP_DOES_NOT_DIVIDE_KV_HEADS"));
    // PP 3 does not divide 80 layers; layout product and batch divisibility.
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"layout.pp=3"}));
    QVERIFY(codes(e).contains("PP_DOES_NOT_DIVIDE_LAYERS"));
    QVERIFY(codes(e).contains("LAYOUT_PRODUCT_MISMATCH"));
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"training.global_batch_sequences=1000"}));
    QVERIFY(codes(e).contains("BATCH_NOT_DIVISIBLE"));
    // A stage over capacity names the stage and the excess.
    e = trainplan::estimate(
        planWith("70b-2048-h100.json", {"layout.tp=1", "layout.pp=1", "layout.dp=2048", "layout.sequence_parallel=false"}));
    QVERIFY(codes(e).contains("STAGE_OVER_CAPACITY"));
    QVERIFY(QString::fromStdString(trainplan::describe(e.warnings[0])).size() > 0);
    // Bubble and DP exposure, and no failure allowance.
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"layout.pp=16", "layout.dp=16", "training.global_batch_sequences=256"}));
    QVERIFY(codes(e).contains("LARGE_BUBBLE"));
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"cluster.inter_node_bandwidth_gb_per_s=0.5"}));
    QVERIFY(codes(e).contains("DP_NOT_HIDDEN"));
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"cluster.mtbf_hours_per_node=null"}));
    QVERIFY(codes(e).contains("NO_FAILURE_ALLOWANCE"));
    e = trainplan::estimate(planWith("70b-2048-h100.json", {"cluster.mtbf_hours_per_node=0.1"}));
    QVERIFY(codes(e).contains("FAILURES_OUTPACE_PROGRESS"));
    QVERIFY(std::isfinite(e.reliability.paddedDays));
}

void TestInvariants::estimateIsPure()
{
    // Same plan in, same numbers out, whatever ran before: no state survives between calls,
    // neither hidden in the core nor in storage reused by estimateInto().
    const auto plan = planWith("70b-2048-h100.json");
    const auto other = planWith("70b-2048-h100.json", {"layout.pp=8", "layout.dp=32", "layout.stage_layers=[9,10,10,11,11,10,10,9]"});
    const auto a = estimateJsonFor(plan).dump();
    trainplan::estimate(other);
    QCOMPARE(QString::fromStdString(estimateJsonFor(plan).dump()), QString::fromStdString(a));
    trainplan::Estimate reused;
    trainplan::estimateInto(other, reused);
    trainplan::estimateInto(plan, reused);
    const auto fresh = trainplan::estimate(plan);
    QCOMPARE(reused.stages.size(), fresh.stages.size());
    for (size_t i = 0; i < fresh.stages.size(); ++i) {
        QCOMPARE(reused.stages[i].layers, fresh.stages[i].layers);
        QCOMPARE(reused.stages[i].memory.total, fresh.stages[i].memory.total);
    }
    QCOMPARE(reused.warnings.size(), fresh.warnings.size());
}

QTEST_GUILESS_MAIN(TestInvariants)
#include "tst_invariants.moc"
