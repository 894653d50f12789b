// A model as a list of layer kinds (plan/LayerKind.h): a two-kind model sums correctly in
// parameters, memory per stage, FLOPs, step time, the JSON and the derivation; a model split
// into kinds of one shape gives exactly the one-kind figures; stages are split by cost; the
// reader names every problem of model.layer_kinds.
#include <QtTest>

#include <algorithm>
#include <functional>
#include <limits>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/base/PlanError.h"
#include "core/estimate/ParameterModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/steptime/StepTimeModel.h"
#include "core/text/Derivation.h"

using namespace testsupport;
using trainplan::Plan;

namespace {

// Worked example A's 70B with its first 8 layers at half the FFN width (the "two FFN widths"
// model of issue 21's acceptance test).
const char* kTwoKinds = R"(model.layer_kinds=[{"name":"narrow","layers":8,"ffn_hidden_size":14336},{"layers":72}])";

// The same parameters, counted layer by layer from the plan's fields alone (worked example B's
// "Count the parameters": attention 2h(ad) + 2h(kd), a gated FFN 3hf, two RMSNorms of h).
double layerParametersByHand(const Plan& plan, int layer)
{
    const auto& m = plan.model;
    const trainplan::LayerKind kind = m.kind(m.kindOfLayer(layer));
    const double h = m.hiddenSize, q = double(m.attentionHeads) * m.headDim, kv = double(m.kvHeads) * m.headDim;
    return 2.0 * h * q + 2.0 * h * kv + (kind.ffnKind == trainplan::FfnKind::SwiGlu ? 3.0 : 2.0) * h * kind.ffnHiddenSize + 2.0 * h;
}

bool near(double a, double b, double tolerance = 1e-12)
{
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

class TestLayerKinds : public QObject {
    Q_OBJECT
private slots:
    void twoKindsSumInParameters();
    void twoKindsSumInMemoryPerStage();
    void twoKindsSumInFlops();
    void twoKindsStepTime();
    void twoKindsInJsonAndDerivation();
    void oneShapeInTwoKindsIsTheOneKindModel_data();
    void oneShapeInTwoKindsIsTheOneKindModel();
    void stagesSplitByCost_data();
    void stagesSplitByCost();
    void readerRoundTripsAndNamesProblems_data();
    void readerRoundTripsAndNamesProblems();
};

void TestLayerKinds::twoKindsSumInParameters()
{
    const Plan plan = planWith("70b-2048-h100.json", {kTwoKinds});
    QCOMPARE(plan.model.kindCount(), 2);
    const auto est = trainplan::estimate(plan);
    const auto& p = est.parameters;
    QCOMPARE(int(p.kinds.size()), 2);
    double layers = 0.0;
    for (int i = 0; i < plan.model.layers; ++i)
        layers += layerParametersByHand(plan, i);
    QVERIFY(near(p.layers, layers));
    QVERIFY(near(p.kinds[0].total, layerParametersByHand(plan, 0)));
    QVERIFY(near(p.kinds[1].total, layerParametersByHand(plan, 79)));
    QVERIFY(p.kinds[0].ffn < p.kinds[1].ffn);
    QCOMPARE(p.kinds[0].attention, p.kinds[1].attention);  // attention is the model's in every kind
    QVERIFY(near(p.total, layers + p.embedding + p.lmHead + p.finalNorm));
    // 8 layers lose 3 h (28,672 - 14,336) parameters each against the one-kind model.
    const auto dense = trainplan::estimate(planWith("70b-2048-h100.json"));
    QVERIFY(near(dense.parameters.total - p.total, 8.0 * 3.0 * 8192 * (28672 - 14336)));
}

void TestLayerKinds::twoKindsSumInMemoryPerStage()
{
    const Plan plan = planWith("70b-2048-h100.json", {kTwoKinds, "layout.recompute=none", "layout.zero_stage=0"});
    const auto est = trainplan::estimate(plan);
    int next = 0;
    double all = 0.0;
    for (const auto& st : est.stages) {
        QCOMPARE(st.firstLayer, next);
        double parameters = 0.0;
        for (int i = st.firstLayer; i < st.firstLayer + st.layers; ++i)
            parameters += layerParametersByHand(plan, i);
        if (st.hasEmbedding)
            parameters += est.parameters.embedding;
        if (st.hasLmHead)
            parameters += est.parameters.lmHead + est.parameters.finalNorm;
        QVERIFY2(near(st.parameters, parameters), qPrintable(QString("stage %1").arg(st.index)));
        // ZeRO 0, BF16 with FP32 master Adam: 2 + 2 + 12 bytes per parameter on each TP rank.
        QVERIFY(near(st.memory.weights, 2.0 * parameters / plan.layout.tp));
        QVERIFY(near(st.memory.optimizer, 12.0 * parameters / plan.layout.tp));
        // Activations: every layer stores the same (Korthikanti et al. 2022 Table 2 has no f).
        QVERIFY(near(st.activationsPerMicrobatch, st.layers * est.activation.perLayerPerMicrobatch));
        next += st.layers;
        all += st.parameters;
    }
    QCOMPARE(next, plan.model.layers);
    QVERIFY(near(all, est.parameters.total));
}

void TestLayerKinds::twoKindsSumInFlops()
{
    const double D = 1.4e12;
    for (const char* recompute : {"none", "full"}) {
        const Plan plan =
            planWith("70b-2048-h100.json", {kTwoKinds, std::string("layout.recompute=") + recompute, "layout.recompute_layers=5"});
        const auto est = trainplan::estimate(plan);
        const auto& m = plan.model;
        const double q = double(m.attentionHeads) * m.headDim;
        QVERIFY(near(est.flops.model6nd, 6.0 * est.parameters.total * D));
        QVERIFY(near(est.flops.attentionPerToken, 12.0 * m.layers * q * m.sequenceLength));
        if (std::string(recompute) == "none") {
            QCOMPARE(est.flops.recompute, 0.0);
            continue;
        }
        // Full recompute of the first 5 layers of each stage repeats their forward: 2 P per token
        // and a third of their attention, layer by layer (each stage recomputes 5 of its layers;
        // a stage's kinds share that in proportion).
        double expected = 0.0;
        for (const auto& st : est.stages) {
            const double share = double(std::min(5, st.layers)) / st.layers;
            for (int i = st.firstLayer; i < st.firstLayer + st.layers; ++i)
                expected += share * (2.0 * layerParametersByHand(plan, i) + 4.0 * q * m.sequenceLength) * D;
        }
        QVERIFY2(near(est.flops.recompute, expected, 1e-9), qPrintable(QString("%1 vs %2").arg(est.flops.recompute).arg(expected)));
    }
}

// Each kind's layer costs what its own feed-forward makes it cost, and a model of both kinds
// steps between the two one-kind models.
void TestLayerKinds::twoKindsStepTime()
{
    const auto predict = [](const Plan& plan) { return trainplan::analyse(plan).predicted; };
    const Plan mixed = planWith("70b-2048-h100.json", {kTwoKinds});
    const auto p = predict(mixed);
    QCOMPARE(int(p.layers.size()), 2);
    QVERIFY(p.layers[0].forwardMatmul < p.layers[1].forwardMatmul);
    QCOMPARE(p.layers[0].forwardAttention, p.layers[1].forwardAttention);
    QVERIFY(p.layers[0].forwardMemory < p.layers[1].forwardMemory);  // the activation function's traffic
    const auto wide = predict(planWith("70b-2048-h100.json"));
    const auto narrow = predict(planWith("70b-2048-h100.json", {"model.ffn_hidden_size=14336"}));
    QVERIFY(near(p.layers[1].forward(), wide.layers[0].forward()));
    QVERIFY(near(p.layers[0].forward(), narrow.layers[0].forward()));
    QVERIFY2(narrow.stepSeconds < p.stepSeconds && p.stepSeconds < wide.stepSeconds,
             qPrintable(QString("%1 < %2 < %3").arg(narrow.stepSeconds).arg(p.stepSeconds).arg(wide.stepSeconds)));
    // The reference stage's busy time is its layers, kind by kind, over the micro-batches.
    const auto est = trainplan::estimate(mixed);
    const auto& stage = est.stages[size_t(p.referenceStage)];
    double perMicrobatch = 0.0;
    for (int i = stage.firstLayer; i < stage.firstLayer + stage.layers; ++i) {
        const auto& L = p.layers[size_t(mixed.model.kindOfLayer(i))];
        perMicrobatch += L.forwardMatmul + L.forwardAttention + L.backwardMatmul + L.backwardAttention;
    }
    const auto& c = p.components;
    // Compute only (the ends add their GEMMs when the reference stage holds them).
    if (!stage.hasEmbedding && !stage.hasLmHead)
        QVERIFY(near(c.forwardCompute + c.backwardCompute, perMicrobatch * double(est.pipeline.microbatches), 1e-9));
}

void TestLayerKinds::twoKindsInJsonAndDerivation()
{
    const Plan plan = planWith("70b-2048-h100.json", {kTwoKinds});
    const auto analysis = trainplan::analyse(plan);
    const auto doc = trainplan::estimateToJson(analysis);
    QCOMPARE(int(doc["parameters"]["layer_kinds"].size()), 2);
    QCOMPARE(doc["parameters"]["layer_kinds"][0]["kind"].get<std::string>(), std::string("narrow"));
    QCOMPARE(doc["parameters"]["layer_kinds"][1]["kind"].get<std::string>(), std::string("layers 9-80"));
    QVERIFY(!doc["parameters"].contains("per_layer"));  // no single "per layer" for two kinds
    QCOMPARE(doc["parameters"]["layers"].get<double>(), analysis.estimate.parameters.layers);
    for (const auto& stage : doc["memory"]["stages"]) {
        int layers = 0;
        for (const auto& k : stage["layer_kinds"])
            layers += k["layers"].get<int>();
        QCOMPARE(layers, stage["layers"].get<int>());
    }
    QCOMPARE(int(doc["predicted"]["layer_kinds"].size()), 2);
    QVERIFY(!doc["predicted"].contains("layer"));

    const auto sections = trainplan::derive(analysis);
    const auto* narrow = trainplan::findStep(sections, "parameters.per_layer.1");
    const auto* wide = trainplan::findStep(sections, "parameters.per_layer.2");
    const auto* all = trainplan::findStep(sections, "parameters.layers");
    QVERIFY(narrow && wide && all);
    QCOMPARE(narrow->value, analysis.estimate.parameters.kinds[0].total);
    QCOMPARE(wide->value, analysis.estimate.parameters.kinds[1].total);
    QVERIFY(near(all->value, 8 * narrow->value + 72 * wide->value));
    QVERIFY2(all->substituted.find("8 × ") == 0 && all->substituted.find(" + 72 × ") != std::string::npos, all->substituted.c_str());
    QVERIFY(trainplan::findStep(sections, "predicted.layer_forward.1") && trainplan::findStep(sections, "predicted.layer_forward.2"));
    QVERIFY(!trainplan::findStep(sections, "parameters.per_layer"));
}

void TestLayerKinds::oneShapeInTwoKindsIsTheOneKindModel_data()
{
    QTest::addColumn<QString>("overrides");
    QTest::newRow("seed") << "";
    QTest::newRow("full recompute of 2 layers") << "layout.recompute=full layout.recompute_layers=2";
    QTest::newRow("interleaved v2") << "layout.schedule=interleaved layout.virtual_stages=2";
    QTest::newRow("ZeRO-3, no PP") << "layout.zero_stage=3 layout.pp=1 layout.dp=256";
    QTest::newRow("fp8, ZeRO-1") << "training.matmul_precision=fp8 layout.zero_stage=1";
}

// Kinds are only a description: one shape written as two kinds must give the one-kind model's
// figures exactly (80 layers on 4 stages split evenly either way).
void TestLayerKinds::oneShapeInTwoKindsIsTheOneKindModel()
{
    QFETCH(QString, overrides);
    auto sets = toStd(splitOverrides(overrides));
    const auto one = trainplan::analyse(planWith("70b-2048-h100.json", sets));
    sets.push_back(R"(model.layer_kinds=[{"layers":30},{"layers":50}])");
    const auto two = trainplan::analyse(planWith("70b-2048-h100.json", sets));
    QCOMPARE(two.plan.model.kindCount(), 2);
    QVERIFY(near(two.estimate.parameters.total, one.estimate.parameters.total));
    QVERIFY(near(two.estimate.flops.hardware, one.estimate.flops.hardware));
    QCOMPARE(two.estimate.stages.size(), one.estimate.stages.size());
    for (size_t i = 0; i < one.estimate.stages.size(); ++i) {
        QCOMPARE(two.estimate.stages[i].layers, one.estimate.stages[i].layers);
        QVERIFY(near(two.estimate.stages[i].memory.total, one.estimate.stages[i].memory.total));
    }
    QVERIFY2(near(two.predicted.stepSeconds, one.predicted.stepSeconds, 1e-9),
             qPrintable(QString("%1 vs %2").arg(two.predicted.stepSeconds).arg(one.predicted.stepSeconds)));
    QVERIFY(near(two.predicted.mfu, one.predicted.mfu, 1e-9));
}

void TestLayerKinds::stagesSplitByCost_data()
{
    QTest::addColumn<QString>("kinds");
    QTest::addColumn<int>("pp");
    QTest::newRow("8 narrow + 72 wide on 4") << QString(kTwoKinds) << 4;
    QTest::newRow("2 wide + 10 narrow on 3") << R"(model.layers=12 model.layer_kinds=[{"layers":2},{"layers":10,"ffn_hidden_size":2048}])"
                                             << 3;
    QTest::newRow("3 kinds on 5")
        << R"(model.layers=20)"
           R"( model.layer_kinds=[{"layers":4,"ffn_hidden_size":4096},{"layers":6},)"
           R"({"layers":10,"ffn_hidden_size":57344,"ffn_kind":"gelu"}])"
        << 5;
}

// The cost split is the contiguous split whose costliest stage is cheapest: checked against
// every split of a small model, and no worse than the even split by count.
void TestLayerKinds::stagesSplitByCost()
{
    QFETCH(QString, kinds);
    QFETCH(int, pp);
    Plan plan = planWith("70b-2048-h100.json", toStd(splitOverrides(kinds)));
    const int layers = plan.model.layers;
    plan.layout.pp = pp;
    const std::vector<int> split = trainplan::stageCostSplit(plan, pp)->layers;
    QCOMPARE(int(split.size()), pp);
    int sum = 0;
    for (int n : split) {
        QVERIFY(n >= 1);
        sum += n;
    }
    QCOMPARE(sum, layers);
    std::vector<double> cost;
    const auto& m = plan.model;
    for (int i = 0; i < layers; ++i)
        cost.push_back(
            2.0 * trainplan::layerParameters(m, m.kind(m.kindOfLayer(i))).total + 4.0 * m.attentionHeads * m.headDim * m.sequenceLength);
    const auto worst = [&](const std::vector<int>& s) {
        double most = 0.0;
        int at = 0;
        for (int n : s) {
            double c = 0.0;
            for (int i = 0; i < n; ++i)
                c += cost[size_t(at++)];
            most = std::max(most, c);
        }
        return most;
    };
    // Every contiguous split into pp non-empty stages (small models only).
    double best = std::numeric_limits<double>::infinity();
    if (layers <= 24) {
        std::vector<int> s;
        std::function<void(int, int)> place = [&](int stage, int left) {
            if (stage == pp - 1) {
                s.push_back(left);
                best = std::min(best, worst(s));
                s.pop_back();
                return;
            }
            for (int n = 1; n <= left - (pp - stage - 1); ++n) {
                s.push_back(n);
                place(stage + 1, left - n);
                s.pop_back();
            }
        };
        place(0, layers);
        QVERIFY2(near(worst(split), best, 1e-9), qPrintable(QString("%1 vs best %2").arg(worst(split)).arg(best)));
    }
    std::vector<int> even(size_t(pp), layers / pp);
    for (int i = 0; i < layers % pp; ++i)
        ++even[size_t(i)];
    QVERIFY(worst(split) <= worst(even) * (1 + 1e-12));
    // The estimate's stages are that split.
    const auto est = trainplan::estimate(plan);
    for (int i = 0; i < pp; ++i)
        QCOMPARE(est.stages[size_t(i)].layers, split[size_t(i)]);
}

void TestLayerKinds::readerRoundTripsAndNamesProblems_data()
{
    QTest::addColumn<QString>("set");
    QTest::addColumn<QString>("path");      // "" when the plan is valid
    QTest::addColumn<QString>("message");   // part of the message
    QTest::newRow("valid, round trip") << QString(kTwoKinds) << "" << "";
    QTest::newRow("sum short") << R"(model.layer_kinds=[{"layers":8},{"layers":70}])"
                               << "model.layer_kinds"
                               << "add up to 78 layers but model.layers is 80";
    QTest::newRow("zero layers") << R"(model.layer_kinds=[{"layers":0},{"layers":80}])" << "model.layer_kinds[0].layers" << "at least 1";
    QTest::newRow("missing layers") << R"(model.layer_kinds=[{"ffn_hidden_size":4096},{"layers":80}])"
                                    << "model.layer_kinds[0].layers"
                                    << "missing";
    QTest::newRow("typo in a kind") << R"(model.layer_kinds=[{"layers":80,"ffn_hiden_size":4096}])"
                                    << "model.layer_kinds[0].ffn_hiden_size"
                                    << "did you mean";
    QTest::newRow("not an object") << R"(model.layer_kinds=[80])" << "model.layer_kinds[0]" << "must be an object";
    QTest::newRow("not an array") << R"(model.layer_kinds=3)" << "model.layer_kinds" << "array";
    QTest::newRow("empty") << R"(model.layer_kinds=[])" << "model.layer_kinds" << "array of 1 to 16 objects";
    QTest::newRow("bad ffn kind") << R"(model.layer_kinds=[{"layers":80,"ffn_kind":"relu"}])"
                                  << "model.layer_kinds[0].ffn_kind"
                                  << "one of";
    QTest::newRow("negative width") << R"(model.layer_kinds=[{"layers":80,"ffn_hidden_size":-1}])"
                                    << "model.layer_kinds[0].ffn_hidden_size"
                                    << "at least 1";
}

void TestLayerKinds::readerRoundTripsAndNamesProblems()
{
    QFETCH(QString, set);
    QFETCH(QString, path);
    QFETCH(QString, message);
    try {
        const Plan plan = planWith("70b-2048-h100.json", {set.toStdString()});
        QVERIFY2(path.isEmpty(), qPrintable("accepted: " + set));
        const Plan again = trainplan::planFromJson(trainplan::planToJson(plan));
        QVERIFY(again.model == plan.model);
        QCOMPARE(again.model.kind(0).name, std::string("narrow"));
        QCOMPARE(again.model.kind(1).ffnHiddenSize, 28672);  // taken from model.ffn_hidden_size, then written
    } catch (const trainplan::PlanError& e) {
        QVERIFY2(!path.isEmpty(), e.what());
        bool found = false;
        for (const auto& p : e.problems())
            found = found || (QString::fromStdString(p.path) == path && QString::fromStdString(p.message).contains(message));
        QVERIFY2(found, e.what());
    }
}

QTEST_GUILESS_MAIN(TestLayerKinds)
#include "tst_layerkinds.moc"
