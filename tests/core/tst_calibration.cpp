// Calibration from one measured run (calibration/Calibration.h): the measured layout predicts
// what was measured after the fit; another layout of the same cluster moves by the fitted figure
// alone; what one run cannot settle is refused with its reason; logs of Megatron-LM and
// torchtitan are read; the calibrated plan keeps its record and its narrower range; and the
// calibrated band is what the reference runs, taken in pairs, give (CalibrationValidation.h).
#include <QtTest>

#include <cmath>

#include "TestSupport.h"
#include "core/analysis/Analysis.h"
#include "core/base/BoundedFile.h"
#include "core/base/PlanError.h"
#include "core/base/Units.h"
#include "core/calibration/Calibration.h"
#include "core/calibration/CalibrationValidation.h"
#include "core/calibration/TrainingLog.h"
#include "core/plan/PlanIO.h"
#include "core/text/TextReport.h"

using namespace testsupport;
using namespace trainplan;

namespace {

Plan exampleA(const std::vector<std::string>& overrides = {})
{
    return planWith("70b-2048-h100.json", overrides);
}

double predictedStep(const Plan& plan)
{
    return analyse(plan).predicted.stepSeconds;
}

CalibrationInputs measuredStep(double seconds)
{
    CalibrationInputs in;
    in.run.stepSeconds = seconds;
    in.framework = "Megatron-LM core_r0.12";
    in.date = "2026-12-05";
    return in;
}

Plan withOverrides(const Plan& plan, const std::vector<std::string>& overrides)
{
    nlohmann::json doc = planToJson(plan);
    for (const auto& o : overrides)
        applyOverride(doc, o);
    return planFromJson(doc);
}

std::string fixture(const std::string& name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/calibration/" + name;
}

bool mentions(const std::vector<UnfittedFigure>& list, const std::string& field)
{
    for (const auto& u : list)
        if (u.what.find(field) != std::string::npos)
            return true;
    return false;
}

std::vector<RealityCase> referenceCases()
{
    const std::string root = std::string(TRAINPLAN_SOURCE_DIR) + "/resources/reference/";
    std::vector<RealityCase> cases = realityCases(readJsonFile(root + "published_runs.json"));
    for (auto& c : calibrationCases(readJsonFile(root + "calibration_runs.json")))
        cases.push_back(std::move(c));
    return cases;
}

}  // namespace

class TestCalibration : public QObject {
    Q_OBJECT

private slots:
    void measuredLayoutPredictsTheMeasurement();
    void otherLayoutsMoveByTheFittedFigureOnly();
    void exposedCommunicationFitsTheLinkThatCarriesIt();
    void refusesWhatOneRunCannotSettle();
    void peakMemoryFitsTheAllocatorSlack();
    void readsMegatronAndTorchtitanLogs();
    void badMeasurementsNameTheirField();
    void calibratedPlanKeepsItsRecordAndNarrowsItsRange();
    void calibratedBandIsTheReferencePairs();
    void enteredRunNamesWhatWasEntered();
};

// The same layout, fitted to a step 15 % slower than predicted, predicts the measured step; the
// only figure that moved is the GEMM efficiency, and it fell.
void TestCalibration::measuredLayoutPredictsTheMeasurement()
{
    const Plan plan = exampleA();
    const double before = predictedStep(plan);
    const CalibrationResult r = calibrate(plan, measuredStep(1.15 * before));
    QCOMPARE(r.fitted.size(), size_t(1));
    QCOMPARE(QString::fromStdString(r.fitted[0].field), QString("cluster.efficiency.matmul_fraction"));
    QVERIFY(r.fitted[0].after < r.fitted[0].before);
    QVERIFY(r.plan.cluster.efficiency.matmul.has_value());
    const double after = predictedStep(r.plan);
    QVERIFY2(std::abs(after / (1.15 * before) - 1.0) < 1e-4, qPrintable(QString::number(after) + " vs " + QString::number(1.15 * before)));
    QCOMPARE(r.figures.front().after, after);
    QCOMPARE(r.figures.front().before, before);
    // Nothing but the fitted figure and the record changed.
    Plan undone = r.plan;
    undone.cluster.efficiency.matmul.reset();
    undone.cluster.calibration.reset();
    QVERIFY(undone == plan);
    // A faster measurement raises the figure.
    const CalibrationResult faster = calibrate(plan, measuredStep(0.95 * before));
    QVERIFY(faster.fitted.size() == 1 && faster.fitted[0].after > faster.fitted[0].before);
    QVERIFY(std::abs(predictedStep(faster.plan) / (0.95 * before) - 1.0) < 1e-4);
}

// Another layout of the calibrated cluster: the parts of the step that do not run GEMMs are the
// same as before the fit, and the GEMM parts are slower.
void TestCalibration::otherLayoutsMoveByTheFittedFigureOnly()
{
    const Plan plan = exampleA();
    const CalibrationResult r = calibrate(plan, measuredStep(1.2 * predictedStep(plan)));
    for (const auto& overrides : std::vector<std::vector<std::string>>{
             {"layout.tp=4", "layout.pp=8", "layout.dp=64"}, {"layout.tp=8", "layout.pp=1", "layout.dp=256", "layout.zero_stage=3"}}) {
        Plan other = plan, otherCalibrated = r.plan;
        for (Plan* p : {&other, &otherCalibrated})
            *p = withOverrides(*p, overrides);
        const PredictedStep a = analyse(other).predicted, b = analyse(otherCalibrated).predicted;
        QVERIFY(b.stepSeconds > a.stepSeconds);
        QVERIFY(b.components.forwardCompute > a.components.forwardCompute);
        QVERIFY(b.components.backwardCompute > a.components.backwardCompute);
        QCOMPARE(b.components.memoryBound, a.components.memoryBound);
        QCOMPARE(b.components.optimizer, a.components.optimizer);
        QCOMPARE(b.components.kernelOverhead, a.components.kernelOverhead);
        QCOMPARE(b.components.ppSend, a.components.ppSend);
        // Exactly the prediction with the fitted figure put in by hand.
        Plan byHand = other;
        byHand.cluster.efficiency.matmul = r.plan.cluster.efficiency.matmul;
        QCOMPARE(analyse(byHand).predicted.stepSeconds, b.stepSeconds);
    }
}

// Without overlapping the gradient reduction, example A waits on the network at the end of each
// step: a measured exposed communication fits the network's collective fraction, then the step
// fits the GEMMs, and both figures land. FSDP over DP 256 without a pipeline is the other case:
// its step is the network's (the GEMMs hide under the gathers), so the GEMMs are refused.
void TestCalibration::exposedCommunicationFitsTheLinkThatCarriesIt()
{
    const auto exposed = [](const PredictedComponents& c) {
        return c.tpCommunication + c.cpCommunication + c.zeroCommunication + c.epCommunication + c.ppSend + c.dpCommunication;
    };
    const Plan plan = exampleA({"framework.profile=megatron-core-2024", "framework.overlap_grad_reduce=false"});
    const PredictedStep p = analyse(plan).predicted;
    const double comm = exposed(p.components);
    QVERIFY2(comm > 0.05 * p.stepSeconds, qPrintable(QString::number(comm)));
    CalibrationInputs in = measuredStep(1.1 * p.stepSeconds);
    in.run.exposedCommunicationSeconds = 1.3 * comm;
    const CalibrationResult r = calibrate(plan, in);
    if (r.fitted.size() != 2)
        qInfo("%s", calibrationToText(r).c_str());
    QCOMPARE(r.fitted.size(), size_t(2));
    QCOMPARE(QString::fromStdString(r.fitted[0].field), QString("cluster.efficiency.network_collective_fraction"));
    QVERIFY(r.fitted[0].after < r.fitted[0].before);
    QCOMPARE(QString::fromStdString(r.fitted[1].field), QString("cluster.efficiency.matmul_fraction"));
    QCOMPARE(r.figures.size(), size_t(2));
    for (const auto& f : r.figures)
        QVERIFY2(std::abs(f.after / f.measured - 1.0) < 1e-3, f.name.c_str());
    QCOMPARE(QString::fromStdString(r.plan.cluster.calibration->fitted),
        QString("cluster.efficiency.network_collective_fraction, cluster.efficiency.matmul_fraction"));

    const Plan fsdp = exampleA({"layout.pp=1", "layout.dp=256", "layout.zero_stage=3", "framework.profile=megatron-core-2024"});
    const PredictedStep q = analyse(fsdp).predicted;
    in = measuredStep(1.1 * q.stepSeconds);
    in.run.exposedCommunicationSeconds = 1.1 * exposed(q.components);
    const CalibrationResult g = calibrate(fsdp, in);
    QCOMPARE(g.fitted.size(), size_t(1));
    QCOMPARE(QString::fromStdString(g.fitted[0].field), QString("cluster.efficiency.network_collective_fraction"));
    QVERIFY(mentions(g.notFitted, "cluster.efficiency.matmul_fraction"));
    // Without the GEMM fit the step is not calibrated: its range keeps the shipped band.
    QVERIFY(g.plan.cluster.calibrationApplies() && !usesCalibratedStepBand(g.plan));
    QCOMPARE(analyse(g.plan).predicted.range.modelErrorSlower, std::exp(stepErrorBand().logHigh) - 1.0);
}

void TestCalibration::refusesWhatOneRunCannotSettle()
{
    const Plan plan = exampleA();
    const double step = predictedStep(plan);
    // Far faster than GEMMs at the dense peak allow: refused, and the plan is left as it was.
    const CalibrationResult tooFast = calibrate(plan, measuredStep(0.2 * step));
    QVERIFY(tooFast.fitted.empty());
    QVERIFY(mentions(tooFast.notFitted, "cluster.efficiency.matmul_fraction"));
    QVERIFY(tooFast.plan == plan);
    QVERIFY(!tooFast.plan.cluster.calibration);
    // The overlap switches are never fitted, and always said so.
    QVERIFY(mentions(tooFast.notFitted, "framework.overlap_grad_reduce"));
    // An exposed-communication figure on a layout without collectives (one GPU): refused, naming
    // both links.
    const Plan hidden = withOverrides(plan, {"cluster.gpus=1", "cluster.gpus_per_node=1", "layout.tp=1", "layout.pp=1", "layout.dp=1",
        "training.global_batch_sequences=8"});
    CalibrationInputs in = measuredStep(predictedStep(hidden));
    in.run.exposedCommunicationSeconds = 0.05 * *in.run.stepSeconds;
    const CalibrationResult r = calibrate(hidden, in);
    if (!mentions(r.notFitted, "network_collective_fraction, cluster.efficiency.scale_up_collective_fraction"))
        qInfo("%s", calibrationToText(r).c_str());
    QVERIFY(mentions(r.notFitted, "network_collective_fraction, cluster.efficiency.scale_up_collective_fraction"));
    QCOMPARE(r.fitted.size(), size_t(1));  // the GEMMs still fit the step
}

// A Megatron-LM memory report is the allocator's max reserved: the fit adds the CUDA context and
// NCCL's buffers from the model, and the fitted slack reproduces the figure.
void TestCalibration::peakMemoryFitsTheAllocatorSlack()
{
    const Plan plan = exampleA();
    const Analysis a = analyse(plan);
    const MemoryBreakdown& m = a.estimate.perGpu;
    CalibrationInputs in = measuredStep(a.predicted.stepSeconds);
    in.run.peakIsAllocatorReserved = true;
    const double target = m.modelAndActivations * 1.25 + m.workspace;  // a slack of 25 %
    in.run.peakMemoryBytes = target;
    const CalibrationResult r = calibrate(plan, in);
    QVERIFY(std::abs(r.plan.training.fragmentationFraction - 0.25) < 1e-9);
    const Estimate after = estimate(r.plan);
    QVERIFY(std::abs(after.perGpu.total - after.perGpu.cudaContext - after.perGpu.ncclBuffers - after.perGpu.extraAllowance - target) < 1.0);
    // A figure below state and activations alone is refused, naming the field.
    in.run.peakMemoryBytes = 0.5 * m.modelAndActivations;
    QVERIFY(mentions(calibrate(plan, in).notFitted, "training.fragmentation_fraction"));
}

void TestCalibration::readsMegatronAndTorchtitanLogs()
{
    const MeasuredRun megatron = measuredRunFromLog(readRegularFile(fixture("megatron-train.log")), "megatron-train.log");
    // The first iteration (41 s: warm-up) is left out: the median of 3010.2, 3040.8, 2998.0, 3025.4 ms.
    QCOMPARE(*megatron.stepSeconds, 0.5 * (3.0102 + 3.0254));
    QCOMPARE(megatron.samples, 5);
    QCOMPARE(*megatron.peakMemoryBytes, 23552.0 * units::MiB);
    QVERIFY(megatron.peakIsAllocatorReserved);
    QVERIFY(megatron.source.find("Megatron-LM") != std::string::npos);
    const MeasuredRun titan = measuredRunFromLog(readRegularFile(fixture("torchtitan-train.log")), "torchtitan-train.log");
    QVERIFY(!titan.stepSeconds);
    QCOMPARE(*titan.tokensPerSecondPerGpu, 1751.0);  // median of 1,742, 1,760, 1,751 after step 1
    QCOMPARE(*titan.peakMemoryBytes, 58.80 * units::GiB);
    // A calibration from the log lands the plan on the log's step.
    CalibrationInputs in;
    in.run = megatron;
    in.run.peakMemoryBytes.reset();
    const CalibrationResult r = calibrate(exampleA(), in);
    QVERIFY(std::abs(predictedStep(r.plan) / *megatron.stepSeconds - 1.0) < 1e-4);
    QVERIFY(r.plan.cluster.calibration->source.find("megatron-train.log") != std::string::npos);
    // Text with no iteration lines is refused.
    QVERIFY_THROWS_EXCEPTION(PlanError, measuredRunFromLog("hello\nworld\n", "x.log"));
    QVERIFY_THROWS_EXCEPTION(PlanError, measuredRunFromLog("elapsed time per iteration (ms): nan\n", "x.log"));
    // A memory reading whose bytes overflow (found by fuzz_calibration) is refused with a reason.
    try {
        measuredRunFromLog("step: 30  loss: 7.55  memory: 1e308GiB(74.24%)  tps: 1,751\n", "x.log");
        QFAIL("an overflowing memory reading was accepted");
    } catch (const PlanError& e) {
        QVERIFY2(e.problems().front().message.find("1.00e308 GiB") != std::string::npos, e.problems().front().message.c_str());
    }
}

void TestCalibration::badMeasurementsNameTheirField()
{
    const Plan plan = exampleA();
    const auto problemPath = [&](const CalibrationInputs& in) -> std::string {
        try {
            calibrate(plan, in);
        } catch (const PlanError& e) {
            return e.problems().front().path;
        }
        return "(accepted)";
    };
    for (double bad : {0.0, -1.0, std::nan(""), double(INFINITY)})
        QCOMPARE(QString::fromStdString(problemPath(measuredStep(bad))), QString("measured.step_seconds"));
    QCOMPARE(QString::fromStdString(problemPath(CalibrationInputs{})), QString("measured.step_seconds"));
    CalibrationInputs in = measuredStep(5.0);
    in.run.exposedCommunicationSeconds = 6.0;
    QCOMPARE(QString::fromStdString(problemPath(in)), QString("measured.exposed_communication_seconds"));
    in = measuredStep(5.0);
    in.run.peakMemoryBytes = 1e12;
    QCOMPARE(QString::fromStdString(problemPath(in)), QString("measured.peak_memory_gb"));
    in = measuredStep(5.0);
    in.run.tokensPerSecondPerGpu = 10.0;  // implies a far longer step than 5 s
    QCOMPARE(QString::fromStdString(problemPath(in)), QString("measured.tokens_per_second_per_gpu"));
}

// The record survives a save and a load. While the cluster is the one measured on, the range
// takes the calibrated band, and narrows where the measurement settles an unknown: worked
// example B's part is no preset, so its figures are borrowed and the range spans them, until
// the GEMM figure is measured; a measured peak settles the allocator slack, so the memory
// range's light end keeps it. Moved to another part, the plan is predicted as before.
void TestCalibration::calibratedPlanKeepsItsRecordAndNarrowsItsRange()
{
    const Plan plan = exampleA();
    const CalibrationResult r = calibrate(plan, measuredStep(1.1 * predictedStep(plan)));
    const Plan read = planFromJson(planToJson(r.plan));
    QVERIFY(read == r.plan);
    QCOMPARE(read.cluster.calibration->date, std::string("2026-12-05"));
    QCOMPARE(read.cluster.calibration->framework, std::string("Megatron-LM core_r0.12"));
    QVERIFY(read.cluster.calibration->measuredLayout.find("TP 8") != std::string::npos);
    const PredictedRange& calibrated = analyse(r.plan).predicted.range;
    QCOMPARE(calibrated.modelErrorSlower, std::exp(calibratedStepErrorBand().logHigh) - 1.0);
    QCOMPARE(calibrated.modelErrorFaster, 1.0 - std::exp(calibratedStepErrorBand().logLow));
    // The report and the math say where the figures came from.
    const std::string report = estimateToText(analyse(r.plan), true);
    QVERIFY(report.find("calibrated from") != std::string::npos);
    QVERIFY(report.find("conformal band of reference runs predicted after calibrating") != std::string::npos);
    QVERIFY(estimateToText(analyse(plan), true).find("calibrated from") == std::string::npos);
    Plan moved = r.plan;
    moved.cluster.accelerator = "H200 SXM 141GB";
    QVERIFY(estimateToText(analyse(moved), true).find("not this part") != std::string::npos);
    QVERIFY(!moved.cluster.calibrationApplies());
    QCOMPARE(analyse(moved).predicted.range.modelErrorSlower, std::exp(stepErrorBand().logHigh) - 1.0);

    const Plan b = planWith("70b-512-gpu.json");
    const PredictedRange borrowed = analyse(b).predicted.range;
    QVERIFY(borrowed.unknownEfficiencies);
    const CalibrationResult rb = calibrate(b, measuredStep(predictedStep(b)));
    const PredictedRange settled = analyse(rb.plan).predicted.range;
    const auto efficiencyEffect = [](const PredictedRange& range) {
        for (const UnknownEffect& e : range.unknownEffects)
            if (e.field == "cluster.efficiency")
                return e;
        return UnknownEffect{};
    };
    // The borrowed figures' swing, the GEMM's share of it gone: the rest (attention, HBM, links) stays.
    const UnknownEffect wide = efficiencyEffect(borrowed), narrow = efficiencyEffect(settled);
    QVERIFY2(narrow.slowerFactor - 1.0 < 0.5 * (wide.slowerFactor - 1.0),
        qPrintable(QString("%1 -> %2").arg(wide.slowerFactor).arg(narrow.slowerFactor)));
    QVERIFY(narrow.fasterFactor > wide.fasterFactor);
    QVERIFY(settled.unknownsLogSlower < borrowed.unknownsLogSlower);
    QVERIFY(settled.unknownsLogFaster < borrowed.unknownsLogFaster);

    const Analysis a = analyse(plan);
    CalibrationInputs in = measuredStep(a.predicted.stepSeconds);
    in.run.peakMemoryBytes = a.estimate.perGpu.total;
    const Analysis withPeak = analyse(calibrate(plan, in).plan);
    QVERIFY(withPeak.memoryRange.lowBytes <= withPeak.estimate.perGpu.total);
    QVERIFY(withPeak.memoryRange.lowBytes > a.memoryRange.lowBytes);
}

// Every gated reference row in turn as the one measured run, the rest of its family predicted
// with the fitted figure: the error before and after, and the band those residuals give, which
// must be the one the app ships for calibrated plans.
void TestCalibration::calibratedBandIsTheReferencePairs()
{
    const CalibrationValidation v = validateOneRunCalibration(referenceCases());
    qInfo("one-run calibration: %d calibrations, %d refused, %zu predicted pairs", v.calibrations, v.refusals, v.pairs.size());
    const auto row = [](const char* what, const StepErrorStats& e) {
        qInfo("  %-58s n=%4d  median %5.1f %%  p90 %5.1f %%", what, e.count, 100 * e.median, 100 * e.p90);
    };
    row("shipped figures (in sample)", v.inSample);
    row("a cluster never measured (leave one family out)", v.outOfSample);
    row("calibrated on one other run of the family", v.calibrated);
    row("  of those, the same model on another layout or batch", v.calibratedSameModel);
    for (const auto& f : v.families) {
        qInfo("  %s", f.family.c_str());
        row("    leave one family out", f.outOfSample);
        row("    calibrated on one other run", f.calibrated);
    }
    qInfo("  calibrated band at %.0f %%: x%.3f to x%.3f (shipped x%.3f to x%.3f)", 100 * v.band.coverage, std::exp(v.band.logLow),
        std::exp(v.band.logHigh), std::exp(stepErrorBand().logLow), std::exp(stepErrorBand().logHigh));
    QVERIFY(v.pairs.size() >= 20);
    QVERIFY(v.calibrated.median < v.outOfSample.median);
    const StepErrorBand& shipped = calibratedStepErrorBand();
    QCOMPARE(shipped.coverage, v.band.coverage);
    QVERIFY2(std::abs(shipped.logLow - v.band.logLow) < 5e-4 && std::abs(shipped.logHigh - v.band.logHigh) < 5e-4,
        qPrintable(QString("kCalibratedStepErrorBand should be {%1, %2}").arg(v.band.logLow, 0, 'f', 4).arg(v.band.logHigh, 0, 'f', 4)));
}

// A typed-in measurement is named the same way by the CLI and the window: the step wins over a
// throughput given beside it, and nothing entered names nothing.
void TestCalibration::enteredRunNamesWhatWasEntered()
{
    const auto step = trainplan::enteredMeasuredRun(2.73, std::nullopt);
    QCOMPARE(step.source, std::string("entered: step 2.73 s"));
    QVERIFY(step.stepSeconds && !step.tokensPerSecondPerGpu);
    const auto tps = trainplan::enteredMeasuredRun(std::nullopt, 1050.0);
    QCOMPARE(tps.source, std::string("entered: 1,050 tokens/s per GPU"));
    QVERIFY(tps.tokensPerSecondPerGpu && !tps.stepSeconds);
    const auto both = trainplan::enteredMeasuredRun(3.0, 900.0);
    QVERIFY(both.stepSeconds && !both.tokensPerSecondPerGpu);
    QVERIFY(trainplan::enteredMeasuredRun(std::nullopt, std::nullopt).source.empty());
}

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
