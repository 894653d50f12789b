// The plan's framework section: profiles, switches, the reader's messages, the round trip, and
// that each switch moves the predicted step the way its mechanism says (and unknown ones widen
// the range).
#include <QtTest>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/planfile/PlanFile.h"

using namespace testsupport;
using namespace trainplan;

namespace {

Plan withFramework(const nlohmann::json& framework, const std::vector<std::string>& overrides = {})
{
    nlohmann::json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    for (const auto& o : overrides)
        applyOverride(doc, o);
    doc["framework"] = framework;
    return planFromJson(doc);
}

// A framework that names a profile and sets no switch of its own.
FrameworkSpec frameworkNamed(std::string profile)
{
    FrameworkSpec framework;
    framework.profile = std::move(profile);
    return framework;
}

double stepOf(const Plan& plan)
{
    return analyse(plan).predicted.stepSeconds;
}

}  // namespace

class TestFramework : public QObject {
    Q_OBJECT

private slots:
    void profilesSetTheirSwitches();
    void commonStackNamesReadAsTheirProfile();
    void readerRejectsBadValuesByPath();
    void roundTrips();
    void switchesActThroughTheirMechanisms();
    void unknownSwitchesWidenTheRange();
    void tpOverlapNeedsSequenceParallelism();
};

// What people call the stacks reads as the profile's own name; anything else is still refused.
void TestFramework::commonStackNamesReadAsTheirProfile()
{
    const std::pair<const char*, const char*> names[] = {{"NeMo", "megatron-core-2024"}, {"Megatron-Core", "megatron-core-2024"},
        {"torchtitan", "pytorch-fsdp2"}, {"FSDP2", "pytorch-fsdp2"}, {"PyTorch FSDP", "pytorch-fsdp2"},
        {"Megatron-DeepSpeed", "megatron-deepspeed-2022"}, {"megatron-lm-2021", "megatron-lm-2021"}};
    for (const auto& [given, canonical] : names)
        QCOMPARE(withFramework({{"profile", given}}).framework.profile, std::string(canonical));
    QVERIFY_THROWS_EXCEPTION(PlanError, withFramework({{"profile", "jax"}}));
}

void TestFramework::profilesSetTheirSwitches()
{
    for (auto name : frameworkProfileNames())
        QVERIFY2(findFrameworkProfile(name), std::string(name).c_str());
    const FrameworkSpec mc = resolvedFramework(frameworkNamed("megatron-core-2024"));
    QVERIFY(mc.tpCommOverlap.value_or(false) && mc.overlapGradReduce.value_or(false) && mc.fp32Gradients.value_or(false));
    QVERIFY(mc.flashAttention == FlashAttentionVersion::V3);
    const FrameworkSpec ds = resolvedFramework(frameworkNamed("megatron-deepspeed-2022"));
    QVERIFY(!ds.dropout);  // left unknown on purpose
    QVERIFY(ds.flashAttention == FlashAttentionVersion::None);
    // The plan's own switch wins over its profile's.
    FrameworkSpec own = frameworkNamed("pytorch-fsdp2");
    own.overlapParamGather = false;
    QCOMPARE(resolvedFramework(own).overlapParamGather.value(), false);
    const Plan plan = withFramework({{"profile", "megatron-core-2024"}});
    QCOMPARE(frameworkChoicesFor(plan).unknownSwitches, 0);
    QVERIFY(frameworkOptionsFor(plan).tpCommOverlap);
}

void TestFramework::readerRejectsBadValuesByPath()
{
    const auto problemPath = [](const nlohmann::json& framework) {
        try {
            withFramework(framework);
        } catch (const PlanError& e) {
            return QString::fromStdString(e.problems().front().path + ": " + e.problems().front().message);
        }
        return QString();
    };
    QVERIFY(problemPath({{"profile", "megatron-2030"}}).startsWith("framework.profile: must be one of"));
    QVERIFY(problemPath({{"tp_comm_overlap", "yes"}}).startsWith("framework.tp_comm_overlap: must be true or false"));
    QVERIFY(problemPath({{"flash_attention", 3}}).startsWith("framework.flash_attention: must be a string"));
    QVERIFY(problemPath({{"optimizer", "sgd"}}).startsWith("framework.optimizer: must be one of"));
    QVERIFY(problemPath({{"overlap_grad_reduc", true}}).contains("did you mean \"overlap_grad_reduce\""));
}

void TestFramework::roundTrips()
{
    const Plan plan =
        withFramework({{"profile", "pytorch-fsdp2"}, {"fused_kernels", false}, {"flash_attention", "3"}, {"optimizer", "per-tensor"}});
    const Plan again = planFromJson(planToJson(plan));
    QCOMPARE(again.framework, plan.framework);
    QVERIFY(!again.framework.tpCommOverlap);  // unset stays unset: the profile supplies it
    // A plan without the section writes none (the worked examples keep their files).
    QVERIFY(!planToJson(planWith("70b-2048-h100.json")).contains("framework"));
}

void TestFramework::switchesActThroughTheirMechanisms()
{
    const nlohmann::json base = {{"profile", "megatron-core-2024"}};
    const double reference = stepOf(withFramework(base));
    const auto with = [&](const char* key, const nlohmann::json& value) {
        nlohmann::json f = base;
        f[key] = value;
        return stepOf(withFramework(f));
    };
    QVERIFY(with("tp_comm_overlap", false) > reference);      // TP collectives exposed again
    QVERIFY(with("fused_kernels", false) > reference);        // more HBM passes and kernels
    QVERIFY(with("flash_attention", "2") > reference);        // FA2 below FA3 on H100
    QVERIFY(with("optimizer", "foreach") > reference);        // 3x the optimizer's bytes
    QVERIFY(with("dropout", true) > reference);               // mask traffic
    QVERIFY(with("fp32_gradients", false) <= reference);      // half the DP bytes
    QVERIFY(with("cuda_graphs", true) <= reference);          // no CPU launch floor
    // The unfused attention also changes memory: the 5as/h score term returns.
    const Plan unfused = withFramework({{"profile", "megatron-core-2024"}, {"flash_attention", "none"}}, {"layout.recompute=none"});
    const Plan flash = withFramework({{"profile", "megatron-core-2024"}}, {"layout.recompute=none"});
    QVERIFY(estimate(unfused).activation.attentionScoreTerm > 0);
    QCOMPARE(estimate(flash).activation.attentionScoreTerm, 0.0);
    // No dropout: Korthikanti's 34 loses its two mask bytes.
    QCOMPARE(estimate(flash).activation.linearCoefficient, 32.0 / 8);
    // FP32 gradient accumulators double the gradients' bytes.
    const Plan fp32 = withFramework({{"profile", "megatron-core-2024"}});
    const Plan bf16 = withFramework({{"profile", "megatron-core-2024"}, {"fp32_gradients", false}});
    QVERIFY(std::abs(estimate(fp32).perGpu.gradients / estimate(bf16).perGpu.gradients - 2.0) < 1e-12);
}

void TestFramework::unknownSwitchesWidenTheRange()
{
    const Analysis known = analyse(withFramework({{"profile", "megatron-core-2024"}}));
    const Analysis unknown = analyse(planWith("70b-2048-h100.json"));
    QCOMPARE(known.predicted.range.unknownSwitches, 0);
    QVERIFY(unknown.predicted.range.unknownSwitches >= 8);
    const auto width = [](const PredictedStep& p) { return p.range.low.stepSeconds / p.range.high.stepSeconds; };
    QVERIFY(width(unknown.predicted) > width(known.predicted));
    for (const Analysis* a : {&known, &unknown}) {
        const auto& r = a->predicted.range;
        QVERIFY(r.low.stepSeconds > a->predicted.stepSeconds && r.high.stepSeconds < a->predicted.stepSeconds);
        QVERIFY(r.low.mfu < a->predicted.mfu && r.high.mfu > a->predicted.mfu);
        QVERIFY(r.low.days > r.high.days && r.low.tokensPerSecondPerGpu < r.high.tokensPerSecondPerGpu);
    }
    const auto doc = predictedToJson(unknown.predicted, unknown.plan.model);
    for (const char* end : {"low", "high"})
        for (const char* key : {"step_seconds", "mfu", "tokens_per_second_per_gpu", "days", "gpu_hours", "tflops_per_gpu"})
            QVERIFY2(doc.at("range").at(end).contains(key), key);
}

void TestFramework::tpOverlapNeedsSequenceParallelism()
{
    // TE userbuffers overlap is for SP's all-gathers and reduce-scatters: without SP the flag does nothing.
    const nlohmann::json on = {{"profile", "megatron-core-2024"}};
    const nlohmann::json off = {{"profile", "megatron-core-2024"}, {"tp_comm_overlap", false}};
    const std::vector<std::string> noSp = {"layout.sequence_parallel=false"};
    QCOMPARE(stepOf(withFramework(on, noSp)), stepOf(withFramework(off, noSp)));
    const PredictedStep overlapped = analyse(withFramework(on)).predicted;
    const PredictedStep exposed = analyse(withFramework(off)).predicted;
    QVERIFY(overlapped.components.tpCommunication < 0.5 * exposed.components.tpCommunication);
    QVERIFY(overlapped.components.tpCommunication > 0);  // one chunk and SM contention remain
}

QTEST_GUILESS_MAIN(TestFramework)
#include "tst_framework.moc"
