// Layout fields a plan leaves out (Plan.h, LayoutUnknown) and framework switches it does not set:
// read as unknown, written back out as unknown, made known by an edit; an unknown recompute is the
// lightest that fits; the predicted range and the memory range cover the other values, and
// sensitivity names each unknown (analysis/PlanUnknowns.h).
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/analysis/PlanUnknowns.h"
#include "core/analysis/Sensitivity.h"
#include "core/estimate/PipelineModel.h"
#include "core/plan/LayoutUnknownFields.h"
#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"
#include "core/planfile/PlanFile.h"
#include "core/presets/Presets.h"
#include "core/steptime/StepTimeModel.h"
#include "core/text/EstimateJson.h"

using namespace testsupport;
using namespace trainplan;

namespace {

// Worked example A without the layout fields the tests leave out, and with a framework profile
// so that only the layout's unknowns widen the range.
Plan exampleWithout(const std::vector<std::string>& removed, const std::vector<std::string>& overrides = {})
{
    nlohmann::json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    for (const auto& o : overrides)
        applyOverride(doc, o);
    for (const auto& key : removed)
        doc["layout"].erase(key);
    doc["framework"] = {{"profile", "megatron-core-2024"}};
    return planFromJson(doc);
}

const unsigned kAll = kUnknownRecompute | kUnknownSequenceParallel | kUnknownSchedule;

}  // namespace

class TestUnknowns : public QObject {
    Q_OBJECT

private slots:
    void omittedOrNullFieldsAreUnknown();
    void unknownFieldsRoundTripAndEditsMakeThemKnown();
    void unknownRecomputeIsTheLightestThatFits();
    void partialRecomputeScalesMemoryAndWork();
    void unknownFieldsWidenThePredictedRange();
    void unknownFieldsWidenTheMemoryRange();
    void sensitivityNamesEachUnknown();
    void jsonSaysWhatWasAssumed();
    void borrowedEfficienciesAreAnUnknown();
    void reviewedEdges();
    void eachRowOfTheTableDrivesEveryEdge_data();
    void eachRowOfTheTableDrivesEveryEdge();
};

void TestUnknowns::omittedOrNullFieldsAreUnknown()
{
    QCOMPARE(planWith("70b-2048-h100.json").layout.unknownFields, 0u);  // the example gives every field
    const Plan plan = exampleWithout({"recompute", "sequence_parallel", "schedule", "virtual_stages"});
    QCOMPARE(plan.layout.unknownFields, kAll);
    // Expected values are the fields' defaults.
    QCOMPARE(plan.layout.recompute, Recompute::None);
    QCOMPARE(plan.layout.sequenceParallel, false);
    QCOMPARE(plan.layout.schedule, Schedule::OneFOneB);
    // null says the same as leaving the field out.
    nlohmann::json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    doc["layout"]["recompute"] = nullptr;
    QCOMPARE(planFromJson(doc).layout.unknownFields, unsigned(kUnknownRecompute));
    // The schedule is unknown only when neither it nor the chunk count is given.
    QCOMPARE(exampleWithout({"schedule"}).layout.unknownFields, 0u);
    QCOMPARE(exampleWithout({"schedule", "virtual_stages"}).layout.unknownFields, unsigned(kUnknownSchedule));
}

void TestUnknowns::unknownFieldsRoundTripAndEditsMakeThemKnown()
{
    const Plan plan = exampleWithout({"recompute", "sequence_parallel"});
    const nlohmann::json written = planToJson(plan);
    QVERIFY(!written.at("layout").contains("recompute"));
    QVERIFY(!written.at("layout").contains("sequence_parallel"));
    QVERIFY(written.at("layout").contains("schedule"));
    QCOMPARE(planFromJson(written), plan);
    // Setting a field to another value makes it known; leaving it makes no difference.
    Plan edited = plan;
    edited.layout.recompute = Recompute::Full;
    markEditedLayoutFieldsKnown(plan, edited);
    QCOMPARE(edited.layout.unknownFields, unsigned(kUnknownSequenceParallel));
    Plan untouched = plan;
    markEditedLayoutFieldsKnown(plan, untouched);
    QCOMPARE(untouched.layout.unknownFields, plan.layout.unknownFields);
    // --set names the field, so it is known.
    nlohmann::json doc = written;
    applyOverride(doc, "layout.recompute=none");
    QCOMPARE(planFromJson(doc).layout.unknownFields, unsigned(kUnknownSequenceParallel));
}

void TestUnknowns::unknownRecomputeIsTheLightestThatFits()
{
    // Worked example A fits without recompute: an unknown recompute stays none.
    const Plan fits = exampleWithout({"recompute"});
    QCOMPARE(analyse(fits).plan.layout.recompute, Recompute::None);
    // Micro-batch 8 at 8k tokens does not fit without recompute; the analysis assumes the
    // lightest setting that does and every figure follows it.
    const Plan heavy = exampleWithout(
        {"recompute"}, {"training.micro_batch_size=8", "model.sequence_length=8192", "training.global_batch_sequences=2048"});
    Plan none = heavy;
    none.layout.unknownFields = 0;
    QVERIFY(!estimate(none).fits);
    const Analysis a = analyse(heavy);
    QVERIFY(a.plan.layout.recompute != Recompute::None);
    QVERIFY(a.estimate.fits);
    Plan lighter = a.plan;
    lighter.layout.unknownFields = 0;
    if (a.plan.layout.recompute == Recompute::Full) {
        lighter.layout.recompute = Recompute::Selective;
        QVERIFY(!estimate(lighter).fits);
    }
    // A known recompute is never changed, fitting or not.
    QCOMPARE(analyse(none).plan.layout.recompute, Recompute::None);
}

// Full recompute of k layers a stage (Megatron's block method): activations fall, and the
// recompute FLOPs and time rise, layer by layer; the assumed recompute is the fewest layers that fit.
void TestUnknowns::partialRecomputeScalesMemoryAndWork()
{
    Plan plan = planWith("70b-2048-h100.json", {"layout.recompute=full", "layout.sequence_parallel=true"});
    double lastMemory = 1e300, lastFlops = -1.0, lastRecompute = -1.0;
    for (int k : {1, 5, 10, 20}) {
        plan.layout.recomputeLayers = k;
        const Analysis a = analyse(plan);
        QVERIFY2(a.estimate.perGpu.activations < lastMemory, qPrintable(QString::number(k)));
        QVERIFY(a.estimate.flops.recompute > lastFlops);
        QVERIFY(a.predicted.components.recompute > lastRecompute);
        lastMemory = a.estimate.perGpu.activations;
        lastFlops = a.estimate.flops.recompute;
        lastRecompute = a.predicted.components.recompute;
    }
    // k = every layer of the stage (20) is full recompute: the same figures as k = 0 ("all").
    const Estimate all = estimate(planWith("70b-2048-h100.json", {"layout.recompute=full", "layout.sequence_parallel=true"}));
    plan.layout.recomputeLayers = 20;
    QCOMPARE(estimate(plan).perGpu.total, all.perGpu.total);
    QCOMPARE(estimate(plan).flops.recompute, all.flops.recompute);
    // Half the layers recomputed: half of full recompute's extra FLOPs.
    plan.layout.recomputeLayers = 10;
    QVERIFY(std::abs(estimate(plan).flops.recompute / all.flops.recompute - 0.5) < 1e-12);
    // The assumed recompute of a plan that fits only with some: the fewest layers that fit, and
    // one fewer does not.
    const Plan tight = exampleWithout(
        {"recompute"}, {"training.micro_batch_size=4", "model.sequence_length=8192", "training.global_batch_sequences=2048"});
    const Plan settled = withAssumedRecompute(tight);
    if (settled.layout.recompute == Recompute::Full && settled.layout.recomputeLayers > 0) {
        QVERIFY(estimate(settled).fits);
        Plan fewer = settled;
        fewer.layout.recomputeLayers -= 1;
        fewer.layout.recompute = fewer.layout.recomputeLayers == 0 ? Recompute::Selective : Recompute::Full;
        QVERIFY(!estimate(fewer).fits);
    } else {
        QVERIFY2(false, "the tight plan should settle on a partial full recompute");
    }
}

void TestUnknowns::unknownFieldsWidenThePredictedRange()
{
    const Analysis known = analyse(planWith("70b-2048-h100.json", {"layout.schedule=1f1b"}));
    const Plan plan = exampleWithout(
        {"recompute", "sequence_parallel", "schedule", "virtual_stages"}, {"layout.sequence_parallel=false", "layout.recompute=none"});
    const Analysis unknown = analyse(plan);
    const PredictedRange& r = unknown.predicted.range;
    QCOMPARE(r.unknownLayoutFields, kAll);
    QCOMPARE(r.unknownInputs(), r.unknownSwitches + 3);
    // The example gives every layout field: none is unknown in its range.
    QCOMPARE(known.predicted.range.unknownLayoutFields, 0u);
    QCOMPARE(r.unknownSwitches, 0);  // the profile sets every switch
    // The slow end has full recompute and no SP: well beyond the model's error alone; the fast
    // end has SP and interleaving: faster.
    QVERIFY(r.low.stepSeconds > unknown.predicted.stepSeconds * (1.0 + r.modelErrorSlower) * 1.1);
    QVERIFY(r.high.stepSeconds < unknown.predicted.stepSeconds * (1.0 - r.modelErrorFaster));
    // Each unknown alone, recomputed here from the three effects: their logs add in quadrature,
    // then with the model's error band, nothing more.
    QCOMPARE(int(r.unknownEffects.size()), 3);
    double slow2 = 0, fast2 = 0, slowProduct = 1;
    for (const UnknownEffect& u : r.unknownEffects) {
        QVERIFY2(u.slowerFactor >= 1.0 && u.fasterFactor <= 1.0, qPrintable(QString::fromStdString(u.field)));
        slow2 += std::pow(std::log(u.slowerFactor), 2);
        fast2 += std::pow(std::log(u.fasterFactor), 2);
        slowProduct *= u.slowerFactor;
    }
    QVERIFY(std::abs(r.unknownsLogSlower - std::sqrt(slow2)) < 1e-12);
    QVERIFY(std::abs(r.unknownsLogFaster - std::sqrt(fast2)) < 1e-12);
    const double step0 = unknown.predicted.stepSeconds;
    QVERIFY(std::abs(r.low.stepSeconds / (step0 * std::exp(std::hypot(std::sqrt(slow2), stepErrorBand().logHigh))) - 1.0) < 1e-12);
    QVERIFY(std::abs(r.high.stepSeconds / (step0 * std::exp(-std::hypot(std::sqrt(fast2), stepErrorBand().logLow))) - 1.0) < 1e-12);
    // Not the worst case: narrower than every unknown at its slower value at once.
    QVERIFY(r.low.stepSeconds < step0 * slowProduct * std::exp(stepErrorBand().logHigh));
    // One effect checked against a plan that gives the input: full recompute on its own.
    const auto recompute = std::find_if(
        r.unknownEffects.begin(), r.unknownEffects.end(), [](const UnknownEffect& u) { return u.field == "layout.recompute"; });
    QVERIFY(recompute != r.unknownEffects.end());
    QCOMPARE(QString::fromStdString(recompute->slowerValue), QStringLiteral("full"));
    Plan fullRecompute = unknown.plan;
    fullRecompute.layout.unknownFields &= ~unsigned(kUnknownRecompute);
    fullRecompute.layout.recompute = Recompute::Full;
    fullRecompute.layout.recomputeLayers = 0;
    const double given = analyse(fullRecompute).predicted.stepSeconds;
    QVERIFY2(std::abs(given / (step0 * recompute->slowerFactor) - 1.0) < 1e-9,
        qPrintable(QString("full recompute given: %1 s; effect: %2 s").arg(given).arg(step0 * recompute->slowerFactor)));
    // A plan whose inputs are all known (every layout field given, a profile that sets every
    // switch) spans the model's error alone: the band's quantiles around its own step.
    const Analysis allKnown = analyse(exampleWithout({}));
    const PredictedRange& k = allKnown.predicted.range;
    const double step = allKnown.predicted.stepSeconds;
    QCOMPARE(k.unknownInputs(), 0);
    QVERIFY(k.unknownEffects.empty());
    QCOMPARE(k.unknownsLogSlower, 0.0);
    QCOMPARE(k.unknownsLogFaster, 0.0);
    QCOMPARE(k.low.stepSeconds / step, std::exp(stepErrorBand().logHigh));
    QCOMPARE(k.high.stepSeconds / step, std::exp(stepErrorBand().logLow));
    QCOMPARE(k.modelErrorSlower, std::exp(stepErrorBand().logHigh) - 1.0);
    QCOMPARE(k.modelErrorFaster, 1.0 - std::exp(stepErrorBand().logLow));
    QCOMPARE(k.coverage, stepErrorBand().coverage);
    QVERIFY(r.low.mfu < unknown.predicted.mfu && unknown.predicted.mfu < r.high.mfu);
    // TP 1 and PP 1: sequence parallelism and the schedule cannot act, so they are not counted.
    const Plan flat = exampleWithout({"sequence_parallel", "schedule", "virtual_stages"},
        {"layout.tp=1", "layout.pp=1", "layout.dp=auto", "cluster.gpus=64", "layout.zero_stage=3"});
    QCOMPARE(actingLayoutUnknowns(flat), 0u);
    QCOMPARE(analyse(flat).predicted.range.unknownLayoutFields, 0u);
}

void TestUnknowns::unknownFieldsWidenTheMemoryRange()
{
    const Plan given = planWith("70b-2048-h100.json", {"layout.recompute=none"});
    const Plan left = exampleWithout({"recompute"}, {"layout.recompute=none"});
    const Analysis a = analyse(given), b = analyse(left);
    QCOMPARE(b.memoryRange.unknownLayoutFields, unsigned(kUnknownRecompute));
    // Full recompute at the light end: below the known plan's light end.
    QVERIFY(b.memoryRange.lowBytes < a.memoryRange.lowBytes);
    QVERIFY(b.memoryRange.lowBytes < b.estimate.perGpu.total && b.estimate.perGpu.total < b.memoryRange.highBytes);
}

void TestUnknowns::sensitivityNamesEachUnknown()
{
    const Plan plan = exampleWithout({"sequence_parallel", "schedule", "virtual_stages"});
    const SensitivityResult r = sensitivity(plan);
    std::vector<std::string> named;
    for (const auto& b : r.bars)
        if (b.kind == SensitivityKind::Unknown)
            named.push_back(b.field);
    QCOMPARE(named.size(), size_t(2));
    QVERIFY(std::find(named.begin(), named.end(), "layout.sequence_parallel") != named.end());
    QVERIFY(std::find(named.begin(), named.end(), "layout.schedule") != named.end());
    for (const auto& b : r.bars)
        if (b.field == "layout.sequence_parallel") {
            QCOMPARE(b.lowText, std::string("off"));
            QCOMPARE(b.highText, std::string("on"));
            QVERIFY(b.stepSecondsLow > b.stepSecondsHigh);
        }
    // Every unknown switch of a plan without a framework section gets a bar of its own.
    Plan bare = planWith("70b-2048-h100.json");
    bare.framework = FrameworkSpec{};
    int switches = 0;
    for (const auto& b : sensitivity(bare).bars)
        switches += b.kind == SensitivityKind::Unknown;
    QVERIFY2(switches >= 8, qPrintable(QString::number(switches)));
}

void TestUnknowns::jsonSaysWhatWasAssumed()
{
    const Plan plan = exampleWithout({"recompute", "schedule", "virtual_stages"});
    const nlohmann::json doc = estimateToJson(analyse(plan));
    QCOMPARE(doc.at("assumed").at("layout.recompute").get<std::string>(), std::string("none"));
    QCOMPARE(doc.at("assumed").at("layout.schedule").get<std::string>(), std::string("1f1b"));
    QCOMPARE(doc.at("plan").at("layout").at("recompute").get<std::string>(), std::string("none"));
    const auto fields = doc.at("predicted").at("range").at("unknown_layout_fields");
    QCOMPARE(fields.size(), size_t(2));
    QCOMPARE(doc.at("predicted").at("range").at("unknown_inputs").get<int>(), 2);
    QVERIFY(doc.at("memory").at("range").contains("fits_at_low"));
    // The echoed plan reads back as the plan the figures are for, with nothing unknown.
    QCOMPARE(planFromJson(doc.at("plan")).layout.unknownFields, 0u);
}

// Edges a review found: the memory range of a settled partial recompute reaches full recompute of
// every layer; interleaved stages recompute recompute_layers per chunk; an unknown schedule that no
// interleaving can run is not counted; MXFP8 needs MX tensor cores.
// Worked example B's accelerator is no preset: its efficiencies are the nearest preset's, assumed,
// so the range widens by them and names them; a plan that gives every figure itself
// (cluster.efficiency) has nothing borrowed, and a named preset never does.
void TestUnknowns::borrowedEfficienciesAreAnUnknown()
{
    const Plan custom = planWith("70b-512-gpu.json");
    const Analysis borrowed = analyse(custom);
    const PredictedRange& r = borrowed.predicted.range;
    QVERIFY(r.unknownEfficiencies);
    const auto effect = std::find_if(
        r.unknownEffects.begin(), r.unknownEffects.end(), [](const UnknownEffect& u) { return u.field == "cluster.efficiency"; });
    QVERIFY(effect != r.unknownEffects.end());
    // 20 % slower matmuls, attention, HBM and collectives: several per cent on the step at least.
    QVERIFY2(effect->slowerFactor > 1.05 && effect->fasterFactor < 0.99,
        qPrintable(QString("%1 / %2").arg(effect->slowerFactor).arg(effect->fasterFactor)));
    QVERIFY(unknownInputsPhrase(0, 0, false, true).find("efficiencies") != std::string::npos);
    QCOMPARE(estimateToJson(borrowed).at("predicted").at("range").at("unknown_efficiencies").get<bool>(), true);

    // The same figures given in the plan: the same step, nothing unknown, a narrower range.
    const AcceleratorEfficiency e = efficiencyFor(custom.cluster);
    Plan given = custom;
    given.cluster.efficiency = EfficiencySpec{e.matmulEfficiency, e.smCount, e.gemmTileM, e.gemmTileN, e.gemmKHalf,
        e.flashAttentionEfficiency, e.flash3AttentionEfficiency, e.hbmBytesPerSecond, e.hbmEfficiency, e.intraNodeCollectiveEfficiency,
        e.interNodeCollectiveEfficiency, e.kernelOverheadSeconds, e.kernelLaunchSeconds, e.scaleUpStepSeconds, e.networkStepSeconds};
    QCOMPARE(given.cluster.efficiency.given(), EfficiencySpec::kFields);
    const Analysis known = analyse(given);
    QVERIFY(!known.predicted.range.unknownEfficiencies);
    QCOMPARE(known.predicted.stepSeconds, borrowed.predicted.stepSeconds);
    QVERIFY(known.predicted.range.low.stepSeconds < r.low.stepSeconds);
    QVERIFY(known.predicted.range.high.stepSeconds > r.high.stepSeconds);
    // All but one given: still borrowed.
    given.cluster.efficiency.matmul.reset();
    QVERIFY(analyse(given).predicted.range.unknownEfficiencies);
    // A named preset's figures are its own, measured.
    QVERIFY(!analyse(planWith("70b-2048-h100.json")).predicted.range.unknownEfficiencies);
}

void TestUnknowns::reviewedEdges()
{
    const Plan tight = exampleWithout(
        {"recompute"}, {"training.micro_batch_size=4", "model.sequence_length=8192", "training.global_batch_sequences=2048"});
    const Analysis a = analyse(tight);
    QVERIFY(a.plan.layout.recompute == Recompute::Full && a.plan.layout.recomputeLayers > 0);
    Plan all = a.plan;
    all.layout.recomputeLayers = 0;
    all.layout.unknownFields = 0;
    const Estimate everyLayer = estimate(all);
    QVERIFY(a.memoryRange.lowBytes <= everyLayer.perGpu.total - everyLayer.perGpu.fragmentation + 1.0);

    Plan interleaved = planWith("70b-2048-h100.json", {"layout.recompute=full", "layout.schedule=interleaved", "layout.virtual_stages=2"});
    interleaved.layout.recomputeLayers = 3;
    QCOMPARE(recomputedLayers(interleaved.layout, 20), 6);
    QCOMPARE(recomputedLayers(interleaved.layout, 4), 4);

    // 80 layers on PP 3 cannot interleave: the unknown schedule has nothing to cover.
    const Plan noInterleaving = exampleWithout({"schedule", "virtual_stages", "stage_layers"},
        {"layout.pp=5", "layout.dp=auto", "cluster.gpus=2560", "training.global_batch_sequences=1024"});
    QVERIFY(noInterleaving.layout.unknownFields & kUnknownSchedule);
    if (fewestInterleavingChunks(noInterleaving) == 0)
        QCOMPARE(actingLayoutUnknowns(noInterleaving) & kUnknownSchedule, 0u);

    Plan mx = planWith("70b-2048-h100.json", {"training.matmul_precision=mxfp8"});
    const auto fp8Error = [](const Plan& p) {
        const Estimate e = estimate(p);
        return std::any_of(e.warnings.begin(), e.warnings.end(), [](const Warning& w) { return w.code == WarningCode::Fp8Unsupported; });
    };
    QVERIFY(fp8Error(mx));  // an H100 has FP8 but not MX block scales
    mx.training.matmulPrecision = MatmulPrecision::Fp8;
    QVERIFY(!fp8Error(mx));
    applyAccelerator(*findAcceleratorPreset("B200 180GB"), mx.cluster);
    mx.training.matmulPrecision = MatmulPrecision::Mxfp8;
    QVERIFY(!fp8Error(mx));
}

// One row of the table of layout unknowns (LayoutUnknownFields.h) drives the reader and writer,
// edits, the predicted and memory ranges, the names in the range, sensitivity and the docs, and
// what estimate --json says it assumed: each row alone, on worked example A with SP off and no
// recompute, where every row can act.
void TestUnknowns::eachRowOfTheTableDrivesEveryEdge_data()
{
    QTest::addColumn<int>("row");
    QVERIFY(!layoutUnknownFields().empty());
    for (size_t i = 0; i < layoutUnknownFields().size(); ++i)
        QTest::newRow(std::string(layoutUnknownFields()[i].path).c_str()) << int(i);
}

void TestUnknowns::eachRowOfTheTableDrivesEveryEdge()
{
    QFETCH(int, row);
    const LayoutUnknownField& u = layoutUnknownFields()[size_t(row)];
    QCOMPARE(findLayoutUnknownField(u.path), &u);
    const auto key = [](std::string_view path) { return std::string(planField(path).key()); };
    // Reader: the field left out (with its companion, unless that may stand alone) is unknown.
    std::vector<std::string> removed{key(u.path)};
    if (!u.companion.empty() && !u.companionKnownAlone)
        removed.push_back(key(u.companion));
    const Plan plan = exampleWithout(removed, {"layout.sequence_parallel=false", "layout.recompute=none"});
    QCOMPARE(plan.layout.unknownFields, unsigned(u.bit));
    // The companion left out alone says nothing; the field left out alone is unknown unless its
    // companion, given, says it is known.
    if (!u.companion.empty()) {
        QCOMPARE(exampleWithout({key(u.companion)}).layout.unknownFields, 0u);
        QCOMPARE(exampleWithout({key(u.path)}).layout.unknownFields, u.companionKnownAlone ? unsigned(u.bit) : 0u);
    }
    // Writer: left out again, and read back the same.
    const nlohmann::json written = planToJson(plan);
    QVERIFY(!written.at("layout").contains(key(u.path)));
    QCOMPARE(planFromJson(written), plan);
    // Edits: a value of its range other than the expected one makes it known.
    const LayoutUnknownEnds ends = layoutUnknownEnds(plan);
    QVERIFY(u.acts(plan.layout, ends));
    int edits = 0;
    for (bool fast : {false, true}) {
        Plan edited = plan;
        u.setEnd(edited.layout, fast, ends);
        if (!u.differs(plan.layout, edited.layout))
            continue;
        markEditedLayoutFieldsKnown(plan, edited);
        QCOMPARE(edited.layout.unknownFields, 0u);
        ++edits;
    }
    QVERIFY(edits > 0);
    // The analysis: both ranges count it and are wider than the same plan's with the field known.
    const Analysis a = analyse(plan);
    Plan known = a.plan;
    known.layout.unknownFields = 0;
    const Analysis k = analyse(known);
    QCOMPARE(a.predicted.range.unknownLayoutFields, unsigned(u.bit));
    QCOMPARE(a.memoryRange.unknownLayoutFields, unsigned(u.bit));
    QVERIFY(a.predicted.range.low.stepSeconds > k.predicted.range.low.stepSeconds
        || a.predicted.range.high.stepSeconds < k.predicted.range.high.stepSeconds);
    QVERIFY(a.memoryRange.lowBytes < k.memoryRange.lowBytes || a.memoryRange.highBytes > k.memoryRange.highBytes);
    // Its names: the unknown inputs (the range's and sensitivity's), the phrase, the docs' note.
    const std::vector<UnknownInput> inputs = unknownInputs(a.plan);
    QCOMPARE(inputs.size(), size_t(1));
    QCOMPARE(inputs[0].label, std::string(u.label));
    QCOMPARE(inputs[0].field, std::string(u.path));
    QCOMPARE(inputs[0].expectedValue, u.valueName(a.plan.layout));
    QVERIFY(inputs[0].slowValue != inputs[0].fastValue);
    QCOMPARE(unknownInputsPhrase(0, u.bit), std::string(u.phrase));
    QCOMPARE(std::string(planField(u.path).defaultNote), layoutUnknownNote(u.path));
    QVERIFY(layoutUnknownNote(u.path).find(std::string(u.rangeWords) + " in the range") != std::string::npos);
    // estimate --json lists what it assumed under the row's paths.
    const nlohmann::json doc = estimateToJson(a);
    QVERIFY(doc.at("assumed").contains(std::string(u.path)));
    QVERIFY(doc.at("predicted").at("range").at("unknown_layout_fields") == nlohmann::json::array({std::string(u.path)}));
}

QTEST_GUILESS_MAIN(TestUnknowns)
#include "tst_unknowns.moc"
