// The math view's sources: every step names where its formula comes from; a worked example's
// own figure appears only when the plan is that example, in the note, marked for comparison.
#include <QtTest>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/base/Format.h"
#include "core/planfile/WorkedExamples.h"
#include "core/text/Derivation.h"

#include <algorithm>
#include <cmath>

using namespace testsupport;
using namespace trainplan;

namespace {

bool contains(const std::string& text, const char* fragment) { return text.find(fragment) != std::string::npos; }

}  // namespace

class TestDerivation : public QObject {
    Q_OBJECT

private slots:
    void sourcesNeverCiteAWorkedExample_data();
    void sourcesNeverCiteAWorkedExample();
    void comparisonsOnlyForThatExample();
    void noInternalDocumentNames();
    void givenValuesAreNotRepeated();
    void stepTimeDividesByTheExactStepCount_data();
    void stepTimeDividesByTheExactStepCount();
    void sumsWriteTheTermsTheyName_data();
    void sumsWriteTheTermsTheyName();
    void predictedStepQuotesTheAnalysis_data();
    void predictedStepQuotesTheAnalysis();
    void moeStepsShowMegatronsCount();
};

void TestDerivation::sourcesNeverCiteAWorkedExample_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::newRow("example A") << "70b-2048-h100.json" << "";
    QTest::newRow("example B") << "70b-512-gpu.json" << "";
    QTest::newRow("B with MFU 0.4") << "70b-512-gpu.json" << "training.mfu=0.4";
    QTest::newRow("A on PP 8") << "70b-2048-h100.json" << "layout.pp=8 layout.dp=32";
    QTest::newRow("A without failures") << "70b-2048-h100.json" << "cluster.mtbf_hours_per_node=null";
}

void TestDerivation::sourcesNeverCiteAWorkedExample()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const Plan plan = planWith(example.toStdString(), toStd(splitOverrides(overrides)));
    for (const auto& section : derive(plan, estimate(plan))) {
        for (const auto& step : section.steps) {
            QVERIFY2(!step.source.empty(), step.id.c_str());
            for (const char* banned : {"worked example", "seed", "Seed", "example"})
                QVERIFY2(!contains(step.source, banned), qPrintable(QString("%1: %2").arg(step.id.c_str(), step.source.c_str())));
        }
    }
}

void TestDerivation::comparisonsOnlyForThatExample()
{
    const Plan a = planWith("70b-2048-h100.json");
    const auto sectionsA = derive(a, estimate(a));
    const auto* sixNd = findStep(sectionsA, "time.model_6nd_seconds");
    QVERIFY(sixNd);
    QVERIFY2(contains(sixNd->note, "for comparison, worked example A") && contains(sixNd->note, "8.4 days"), sixNd->note.c_str());

    // The 512-GPU plan is worked example B: no example A figure anywhere, B's own where it has one.
    const Plan b = planWith("70b-512-gpu.json");
    const auto sectionsB = derive(b, estimate(b));
    for (const auto& section : sectionsB)
        for (const auto& step : section.steps)
            QVERIFY2(!contains(step.note, "worked example A"), step.id.c_str());
    QVERIFY(!contains(findStep(sectionsB, "time.model_6nd_seconds")->note, "8.4"));
    QVERIFY(contains(findStep(sectionsB, "time.days")->note, "for comparison, worked example B: ≈ 6.6 days"));

    // Changed in any input, a plan is no longer the example and shows no comparisons at all.
    for (const Plan& changed :
        {planWith("70b-512-gpu.json", {"training.mfu=0.4"}), planWith("70b-2048-h100.json", {"training.tokens=1e12"})}) {
        QCOMPARE(workedExampleOf(changed), WorkedExample::None);
        for (const auto& section : derive(changed, estimate(changed)))
            for (const auto& step : section.steps)
                QVERIFY2(!contains(step.note, "worked example"), step.id.c_str());
    }
    // The name alone does not matter.
    Plan renamed = b;
    renamed.name = "my copy";
    QCOMPARE(workedExampleOf(renamed), WorkedExample::B);
}

void TestDerivation::noInternalDocumentNames()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const std::string text = derivationToText(derive(plan, estimate(plan)));
    for (const char* banned : {"seed 0", "interfaces.md", "design.md"})
        QVERIFY2(!contains(text, banned), banned);
}

// A given value ("60 s", shown as "60.0 s") has nothing to substitute: views skip that line
// rather than print "given = 60 s = 60.0 s"; a real substitution is always shown.
void TestDerivation::givenValuesAreNotRepeated()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const auto sections = derive(plan, estimate(plan));
    const DerivationStep* stall = findStep(sections, "reliability.checkpoint_write_seconds");
    QVERIFY(stall);
    QCOMPARE(QString::fromStdString(stall->formula), QString("given"));
    QVERIFY(!substitutionAddsToResult(*stall));
    int shown = 0, skipped = 0;
    for (const auto& section : sections)
        for (const auto& step : section.steps) {
            const bool adds = substitutionAddsToResult(step);
            (adds ? shown : skipped) += 1;
            // Any arithmetic in the substitution is shown.
            for (const char* op : {" × ", " / ", " + ", " = ", " − "})
                if (contains(step.substituted, op))
                    QVERIFY2(adds, step.id.c_str());
        }
    QVERIFY(shown > 3 * skipped);  // skipping is the exception
    const DerivationStep* flops = findStep(sections, "flops.model_6nd");
    QVERIFY(flops && substitutionAddsToResult(*flops));
}

void TestDerivation::stepTimeDividesByTheExactStepCount_data()
{
    QTest::addColumn<QString>("example");
    QTest::newRow("example A") << "70b-2048-h100.json";
    QTest::newRow("example B") << "70b-512-gpu.json";
}

// The step time is compute seconds over the exact step count; the division shows that count,
// not the rounded-up one the steps row gives, nor a rounding of it that is neither.
void TestDerivation::stepTimeDividesByTheExactStepCount()
{
    QFETCH(QString, example);
    const Plan plan = planWith(example.toStdString());
    const Estimate e = estimate(plan);
    const auto sections = derive(plan, e);
    const auto* step = findStep(sections, "time.step_seconds");
    QVERIFY(step);
    const auto slash = step->substituted.rfind(" / ");
    QVERIFY(slash != std::string::npos);
    std::string divisor = step->substituted.substr(slash + 3);
    divisor.erase(std::remove(divisor.begin(), divisor.end(), ','), divisor.end());
    const double shown = std::stod(divisor);
    QVERIFY2(std::abs(shown - e.time.stepsExact) < 0.05, step->substituted.c_str());
    if (e.time.stepsExact != double(e.time.steps)) {
        QVERIFY2(shown != std::round(shown), step->substituted.c_str());  // its fraction is shown
        QVERIFY2(contains(step->note, formatInteger(double(e.time.steps)).c_str()), step->note.c_str());
    }
    QVERIFY(contains(step->formula, "exact steps"));
}

void TestDerivation::sumsWriteTheTermsTheyName_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::newRow("example A") << "70b-2048-h100.json" << "";
    QTest::newRow("example B") << "70b-512-gpu.json" << "";
    QTest::newRow("A, full recompute") << "70b-2048-h100.json" << "layout.recompute=full";
    QTest::newRow("A, no recompute") << "70b-2048-h100.json" << "layout.recompute=none";
    QTest::newRow("A, PP 1 ZeRO-3") << "70b-2048-h100.json" << "layout.pp=1 layout.dp=256 layout.zero_stage=3";
}

// A sum names its terms in the formula and writes a value for each, no more and no fewer:
// terms that are zero on this plan are dropped from both (and said so in the note).
void TestDerivation::sumsWriteTheTermsTheyName()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const Plan plan = planWith(example.toStdString(), toStd(splitOverrides(overrides)));
    const auto sections = derive(plan, estimate(plan));
    // Top-level " + " separators only: "model + (2·N_layers + 4·L·h·s)·D" is two terms.
    const auto terms = [](const std::string& text) {
        int n = 1, depth = 0;
        for (size_t i = 0; i < text.size(); ++i) {
            depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
            n += depth == 0 && text.compare(i, 3, " + ") == 0;
        }
        return n;
    };
    for (const char* id : {"memory.activations", "flops.hardware", "memory.reserve", "memory.model_and_activations", "parameters.total",
                           "parameters.per_layer", "memory.model_state_per_gpu_mean"}) {
        const auto* step = findStep(sections, id);
        QVERIFY2(step, id);
        QVERIFY2(terms(step->formula) == terms(step->substituted),
            qPrintable(QString("%1: %2 = %3").arg(id, step->formula.c_str(), step->substituted.c_str())));
    }
    const auto* activations = findStep(sections, "memory.activations");
    QVERIFY2(!contains(activations->substituted, "+ 0 B"), activations->substituted.c_str());
}

// DeepSeek-V3 (MoE, MLA, MTP): the derivation writes MLA's attention, the experts' FFN (total and
// what a token passes through), MTP, the active parameters and Megatron-LM's FLOP count term by
// term, each step the estimate's own number and the terms adding up to the per-token count.
void TestDerivation::moeStepsShowMegatronsCount()
{
    const Plan plan = planWith("deepseek-v3-2048-h800.json");
    const Estimate e = estimate(plan);
    const auto sections = derive(plan, e);
    const auto value = [&](const char* id) {
        const auto* step = findStep(sections, id);
        if (!step)
            qFatal("missing step %s", id);
        return step->value;
    };
    QCOMPARE(value("parameters.attention_per_layer"), 187107328.0);
    QVERIFY(contains(findStep(sections, "parameters.attention_per_layer")->title, "latent"));
    QCOMPARE(value("parameters.ffn_per_layer.2"), e.parameters.kinds[1].ffn);
    QVERIFY(contains(findStep(sections, "parameters.ffn_per_layer.2")->formula, "E·3·h·f_e"));
    QCOMPARE(value("parameters.active"), e.parameters.active);
    QCOMPARE(value("parameters.mtp"), e.parameters.mtp);
    QCOMPARE(value("parameters.total"), e.parameters.total);
    QCOMPARE(value("flops.per_token"), e.flops.perToken);
    QCOMPARE(value("flops.total"), e.flops.total);
    QCOMPARE(value("flops.model_6nd"), 6.0 * e.parameters.active * plan.training.tokens);
    const double h = plan.model.hiddenSize, mtp = plan.model.mtpLayers;
    const double logits = h * plan.model.vocabSize * (mtp + 1), mtpFrames = mtp * (3 * h + 2 * h * h);
    const double weights = value("flops.ffn_weights") + value("flops.attention_weights") + mtpFrames + logits;
    QVERIFY(std::abs(6.0 * weights + value("flops.attention_per_token") - e.flops.perToken) < 1e-9 * e.flops.perToken);
    // Memory by bucket: the experts over EP x ETP with their state sharded over EDP, the rest over TP.
    QVERIFY(std::abs(value("parameters.total") - value("memory.routed_expert_parameters")) > 0);
    QVERIFY(std::abs(value("memory.parameters_per_gpu_mean") - e.parametersPerGpuMean) < 1e-6 * e.parametersPerGpuMean);
    QVERIFY(contains(findStep(sections, "memory.optimizer_per_gpu_mean")->formula, "EDP"));
    // No dense-only step claims a formula that is not the one computed.
    QVERIFY(!findStep(sections, "flops.embedding_lookup"));
    for (const auto& section : sections)
        for (const auto& step : section.steps)
            QVERIFY2(!contains(step.formula, "12 · L · h · s"), step.id.c_str());
    // The MoE layer's time names its all-to-all and imbalance, so its terms add to the layer.
    const auto analysed = derive(analyse(plan));
    const auto* layer = findStep(analysed, "predicted.layer_forward.2");
    QVERIFY(layer);
    QVERIFY2(contains(layer->formula, "EP all-to-all") && contains(layer->formula, "expert imbalance"), layer->formula.c_str());
    QCOMPARE(layer->value, analyse(plan).predicted.layers[1].forward());
}

QTEST_GUILESS_MAIN(TestDerivation)
void TestDerivation::predictedStepQuotesTheAnalysis_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::newRow("example A") << "70b-2048-h100.json" << "";
    QTest::newRow("example B") << "70b-512-gpu.json" << "";
    QTest::newRow("A interleaved") << "70b-2048-h100.json" << "layout.schedule=interleaved layout.virtual_stages=2";
    QTest::newRow("A ZeRO-3, PP 1") << "70b-2048-h100.json" << "layout.pp=1 layout.dp=256 layout.zero_stage=3 layout.stage_layers=[]";
    QTest::newRow("DeepSeek-V3: MTP on the busiest stage") << "deepseek-v3-2048-h800.json" << "";
}

// The "Predicted step time" section (derive(analysis)) shows the step-time model's own numbers:
// the layer, the components that make the step, MFU and the range, and the step is their sum.
void TestDerivation::predictedStepQuotesTheAnalysis()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const Analysis a = analyse(planWith(example.toStdString(), toStd(overrides.split(' ', Qt::SkipEmptyParts))));
    const auto sections = derive(a);
    QVERIFY(std::any_of(sections.begin(), sections.end(), [](const DerivationSection& s) { return s.title == "Predicted step time"; }));
    const auto value = [&](const char* id) {
        const DerivationStep* step = findStep(sections, id);
        return step ? step->value : -1.0;
    };
    const PredictedStep& p = a.predicted;
    // One kind keeps the plain names; several number theirs from 1.
    const std::string first = p.layers.size() == 1 ? "" : ".1";
    QCOMPARE(value(("predicted.layer_forward" + first).c_str()), p.layers[0].forward());
    QCOMPARE(value(("predicted.layer_backward" + first).c_str()), p.layers[0].backward());
    QCOMPARE(value("predicted.step_seconds"), p.stepSeconds);
    QCOMPARE(value("predicted.mfu"), p.mfu);
    QCOMPARE(value("predicted.matmul_efficiency"), p.matmulEfficiency);
    const auto& c = p.components;
    const double parts = value("predicted.stage_busy") + std::max(0.0, value("predicted.pipeline_bubble"))
        + std::max(0.0, value("predicted.pp_sends")) + value("predicted.dp_exposed") + value("predicted.optimizer");
    QVERIFY(std::abs(parts - p.stepSeconds) <= 1e-9 * p.stepSeconds);
    QCOMPARE(value("predicted.dp_exposed"), c.dpCommunication);
    QCOMPARE(value("predicted.range"), p.range.low.mfu);
    // MTP depths on the busiest stage are written into its busy time.
    const DerivationStep* busy = findStep(sections, "predicted.stage_busy");
    const bool mtpOnBusiest = a.plan.model.mtpLayers > 0 && a.estimate.stages[size_t(p.referenceStage)].hasLmHead;
    QCOMPARE(busy->substituted.find(" MTP × (") != std::string::npos, mtpOnBusiest);
    // The section sits before reliability and after communication.
    std::vector<std::string> titles;
    for (const auto& s : sections)
        titles.push_back(s.title);
    const auto at = [&](const char* t) { return std::find(titles.begin(), titles.end(), t) - titles.begin(); };
    QVERIFY(at("Communication") < at("Predicted step time") && at("Predicted step time") < at("Reliability"));
}

#include "tst_derivation.moc"
