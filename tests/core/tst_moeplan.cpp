// Mixture-of-experts plans end to end (issue 24): the DeepSeek-V3 and Mixtral 8x22B examples
// through the estimate and the step-time model: parameters total and active, Megatron's FLOP
// count, memory by bucket (routed experts over EP x ETP, their state over the expert-data-parallel
// group), the expert all-to-all and the busiest rank's imbalance as step components, and the
// unknown load imbalance in the ranges of time and memory.
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/estimate/Estimate.h"
#include "core/estimate/ModelStateModel.h"
#include "core/estimate/ParameterModel.h"
#include "core/estimate/PipelineModel.h"
#include "core/presets/Presets.h"
#include "core/steptime/StepTimeModel.h"
#include "TestSupport.h"

using namespace trainplan;
using testsupport::planWith;

class TestMoePlan : public QObject {
    Q_OBJECT

private slots:
    void deepSeekV3CountsAsPublished();
    void flopsFollowMegatronsCount();
    void routedExpertsShardOverExpertParallelism();
    void aDenseModelIsUnchangedByTheMoeCode();
    void allToAllAndImbalanceAreStepComponents();
    void dispatcherAndOverlapAct();
    void unknownImbalanceWidensBothRanges();
    void maverickAlternatesDenseAndMoeLayers();
};

void TestMoePlan::deepSeekV3CountsAsPublished()
{
    const Plan plan = planWith("deepseek-v3-2048-h800.json");
    const Estimate est = estimate(plan);
    // 671 B and 37 B without the MTP module (technical report, Sec. 4.2), which adds one block.
    QVERIFY(std::abs(est.parameters.total - est.parameters.mtp - 671.03e9) < 0.01e9);
    QVERIFY(std::abs(est.parameters.active - est.parameters.mtpActive - 37.55e9) < 0.01e9);
    QVERIFY(est.parameters.mtp > 11e9 && est.parameters.mtp < 12.5e9);
    // One MLA layer: 187,107,328 (MoeArithmetic's test derives it).
    QCOMPARE(est.parameters.kinds[0].attention, 187107328.0);
    // Kinds implied by model.moe.dense_layers: 3 dense layers, then 58 MoE.
    QCOMPARE(plan.model.kindCount(), 2);
    QCOMPARE(plan.model.layersOfKind(0), 3);
    QCOMPARE(plan.model.layersOfKind(1), 58);
    QVERIFY(!plan.model.kind(0).moe && plan.model.kind(1).moe);
    QCOMPARE(est.parameters.kinds[0].routedExperts, 0.0);
    QCOMPARE(est.parameters.kinds[1].routedExperts, 256.0 * 3 * 7168 * 2048);
    // The stages hold every parameter once (the MTP block on the last stage).
    double stages = 0;
    for (const StageEstimate& st : est.stages)
        stages += st.parameters;
    QVERIFY(std::abs(stages - est.parameters.total) < 1.0);
    QVERIFY(est.stages.back().parameters > est.parameters.mtp + est.parameters.lmHead);
}

void TestMoePlan::flopsFollowMegatronsCount()
{
    const Plan plan = planWith("deepseek-v3-2048-h800.json");
    const Estimate est = estimate(plan);
    // Issue 24's figure: about 2.600e11 FLOPs per token with one MTP layer at s = 4,096.
    QVERIFY2(std::abs(est.flops.perToken - 2.600e11) < 0.002e11, qPrintable(QString::number(est.flops.perToken)));
    QCOMPARE(est.flops.total, est.flops.perToken * plan.training.tokens);
    // 6 N_active D is the comparison, not the count.
    QCOMPARE(est.flops.model6nd, 6.0 * est.parameters.active * plan.training.tokens);
    QVERIFY(est.flops.total != est.flops.model6nd);
}

void TestMoePlan::routedExpertsShardOverExpertParallelism()
{
    const Plan plan = planWith("deepseek-v3-2048-h800.json");
    const Estimate est = estimate(plan);
    const StageEstimate& st = est.stages[3];  // four MoE layers
    QCOMPARE(st.routedExpertParameters, 4 * est.parameters.kinds[1].routedExperts);
    const double dense = st.parameters - st.routedExpertParameters;
    QVERIFY(std::abs(st.parametersPerGpu - (dense / plan.layout.tp + st.routedExpertParameters / 64.0)) < 1.0);
    // Doubling EP halves what each GPU holds of the experts.
    const Estimate ep128 = estimate(planWith("deepseek-v3-2048-h800.json", {"layout.ep=128"}));
    QVERIFY(std::abs(ep128.stages[3].parametersPerGpu - (dense + st.routedExpertParameters / 128.0)) < 1.0);
    QVERIFY(ep128.stages[3].memory.weights < est.stages[3].memory.weights);
    // ZeRO-1 shards the experts' optimizer over EDP = TP x CP x DP / (EP x ETP) = 2, the rest over DP = 128.
    const auto state = modelStateBytesPerParameter(plan);
    const double expected = dense * state.optimizer() / 128.0 + st.routedExpertParameters / 64.0 * state.optimizer() / 2.0;
    QVERIFY(std::abs(st.memory.optimizer - expected) < 1e-6 * expected);
}

void TestMoePlan::aDenseModelIsUnchangedByTheMoeCode()
{
    // The worked example's figures are the seeds' acceptance tests; here: nothing MoE shows up.
    const Plan plan = planWith("70b-2048-h100.json");
    const Estimate est = estimate(plan);
    QCOMPARE(est.parameters.active, est.parameters.total);
    QCOMPARE(est.parameters.mtp, 0.0);
    for (const StageEstimate& st : est.stages)
        QCOMPARE(st.routedExpertParameters, 0.0);
    const Analysis a = analyse(plan);
    QCOMPARE(a.predicted.components.epCommunication, 0.0);
    QCOMPARE(a.predicted.components.expertImbalance, 0.0);
    QVERIFY(!a.predicted.range.unknownLoadImbalance);
    // The MoE switches are neither known nor unknown for a dense model.
    for (const UnknownEffect& u : a.predicted.range.unknownEffects)
        QVERIFY2(u.field.find("moe") == std::string::npos, u.field.c_str());
}

void TestMoePlan::allToAllAndImbalanceAreStepComponents()
{
    const Plan balanced = planWith("mixtral-8x22b-256-h100.json", {"model.moe.load_imbalance=1"});
    const Analysis a = analyse(balanced);
    const PredictedComponents& c = a.predicted.components;
    QVERIFY(c.epCommunication > 0);
    QCOMPARE(c.expertImbalance, 0.0);
    QVERIFY(std::abs(c.total() - a.predicted.stepSeconds) <= 1e-9 * a.predicted.stepSeconds);
    // A hot rank with 1.5x the mean tokens costs its experts' GEMMs and its share of the exchange.
    const Analysis hot = analyse(planWith("mixtral-8x22b-256-h100.json", {"model.moe.load_imbalance=1.5"}));
    QVERIFY(hot.predicted.components.expertImbalance > 0);
    QVERIFY(hot.predicted.stepSeconds > a.predicted.stepSeconds);
    // EP 1: no all-to-all at all.
    const Analysis noEp = analyse(planWith("mixtral-8x22b-256-h100.json", {"model.moe.load_imbalance=1", "layout.ep=1"}));
    QCOMPARE(noEp.predicted.components.epCommunication, 0.0);
}

void TestMoePlan::dispatcherAndOverlapAct()
{
    const auto step = [](std::vector<std::string> overrides) {
        overrides.push_back("model.moe.load_imbalance=1");
        return analyse(planWith("deepseek-v3-2048-h800.json", overrides)).predicted;
    };
    const PredictedStep deepEp = step({"framework.moe_comm_overlap=false"});
    const PredictedStep allToAll = step({"framework.moe_comm_overlap=false", "framework.moe_dispatcher=alltoall"});
    const PredictedStep overlapped = step({});
    // DeepEP crosses the network once per node, not once per expert: less exposed exchange.
    QVERIFY(deepEp.components.epCommunication < allToAll.components.epCommunication);
    // Hidden under another micro-batch's compute, the exchange all but disappears.
    QVERIFY(overlapped.components.epCommunication < 0.5 * deepEp.components.epCommunication);
    // One GEMM per expert fills the GPU worse than one grouped GEMM.
    const PredictedStep ungrouped = step({"framework.moe_grouped_gemm=false"});
    QVERIFY(ungrouped.stepSeconds > overlapped.stepSeconds);
    // And launches a kernel pair per local expert: 4 experts per GPU at EP 64, so 6 more forward
    // kernels per MoE layer than grouped, each paying its fixed cost (kernel overhead grows).
    QVERIFY2(ungrouped.components.kernelOverhead > overlapped.components.kernelOverhead,
        qPrintable(QString("%1 vs %2").arg(ungrouped.components.kernelOverhead).arg(overlapped.components.kernelOverhead)));
    // The dense model's layers have no expert kernels: a dense plan's overhead is unchanged by the switch.
    const PredictedStep dense = analyse(planWith("70b-2048-h100.json")).predicted;
    const PredictedStep denseSwitch = analyse(planWith("70b-2048-h100.json", {"framework.moe_grouped_gemm=false"})).predicted;
    QCOMPARE(denseSwitch.components.kernelOverhead, dense.components.kernelOverhead);
}

void TestMoePlan::maverickAlternatesDenseAndMoeLayers()
{
    // Llama 4 Maverick: 48 layers, every 2nd one MoE (model.moe.layer_step = 2; layers 1, 3, 5, ...
    // counted from 0, as Hugging Face's interleave_moe_layer_step places them).
    const ModelPreset* maverick = findModelPreset("Llama 4 Maverick");
    QVERIFY(maverick);
    Plan plan = planWith("mixtral-8x22b-256-h100.json", {"layout.pp=4", "layout.dp=32", "layout.recompute=full"});
    plan.model = maverick->model;
    plan.layout.ep = 64;
    const ModelSpec& m = plan.model;
    QCOMPARE(m.kindCount(), 2);
    QVERIFY(m.kindsInterleave());
    QCOMPARE(m.layersOfKind(0), 24);
    QCOMPARE(m.layersOfKind(1), 24);
    QVERIFY(!m.kind(0).moe && m.kind(1).moe);
    QCOMPARE(m.kind(0).ffnHiddenSize, 16384);
    for (int layer = 0; layer < m.layers; ++layer)
        QCOMPARE(m.kindOfLayer(layer), layer % 2);
    // Any range counts its layers of each kind: layers 3-6 (0-based) hold 3 and 5 as MoE.
    int dense = 0, moe = 0;
    forEachKindIn(m, 3, 4, [&](int k, int count) { (k == 0 ? dense : moe) += count; });
    QCOMPARE(dense, 2);
    QCOMPARE(moe, 2);
    QCOMPARE(m.kindLabel(1), std::string("MoE, every 2nd layer"));

    // Four stages of 12 layers, 6 of each kind: the cost split follows the interleaving, so every
    // stage holds the same experts (not the dense layers first and the MoE ones last).
    const Estimate est = estimate(plan);
    QVERIFY2(!est.hasErrors(), qPrintable(QString::fromStdString(est.warnings.empty() ? "" : describe(est.warnings.front()))));
    QCOMPARE(int(est.stages.size()), 4);
    for (const StageEstimate& st : est.stages) {
        QCOMPARE(st.layers, 12);
        QCOMPARE(st.routedExpertParameters, 6 * est.parameters.kinds[1].routedExperts);
    }
    QCOMPARE(est.parameters.kinds[1].routedExperts, 128.0 * 3 * 5120 * 8192);
    QCOMPARE(est.parameters.kinds[0].routedExperts, 0.0);
    // Published: 400 B total, 17 B active (the preset test holds them to the rounding).
    const double stages = est.stages[0].parameters + est.stages[1].parameters + est.stages[2].parameters + est.stages[3].parameters;
    QVERIFY(std::abs(stages - est.parameters.total) < 1.0);
    QVERIFY(est.parameters.total > 390e9 && est.parameters.total < 410e9);
    QVERIFY(est.parameters.active > 16.5e9 && est.parameters.active < 17.5e9);
    // Without the step the same fields would make every layer MoE: twice the routed experts.
    ModelSpec allMoe = m;
    allMoe.moe->layerStep = 1;
    QCOMPARE(allMoe.kindCount(), 1);
    QVERIFY(countParameters(allMoe).total > 1.8 * est.parameters.total);
}

void TestMoePlan::unknownImbalanceWidensBothRanges()
{
    const Analysis known = analyse(planWith("mixtral-8x22b-256-h100.json", {"model.moe.load_imbalance=1.1"}));
    const Analysis unknown = analyse(planWith("mixtral-8x22b-256-h100.json"));
    // The expectation is the known 1.1; only the range moves.
    QVERIFY(std::abs(known.predicted.stepSeconds - unknown.predicted.stepSeconds) < 1e-9 * known.predicted.stepSeconds);
    QVERIFY(unknown.predicted.range.unknownLoadImbalance);
    QVERIFY(unknown.predicted.range.low.stepSeconds > known.predicted.range.low.stepSeconds);
    bool named = false;
    for (const UnknownEffect& u : unknown.predicted.range.unknownEffects) {
        named = named || u.field == "model.moe.load_imbalance";
        // The Megatron-Core profile settles every MoE switch, the dispatcher included.
        QVERIFY2(u.field.rfind("framework.moe", 0) != 0, u.field.c_str());
    }
    QVERIFY(named);
    QVERIFY(unknown.memoryRange.unknownLoadImbalance);
    QVERIFY(unknown.memoryRange.highBytes > known.memoryRange.highBytes);
}

QTEST_APPLESS_MAIN(TestMoePlan)
#include "tst_moeplan.moc"
