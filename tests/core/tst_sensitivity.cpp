// Sensitivity (tornado) bars: sorted by swing, finite, each moving the way physics says, and the
// centre equal to the step-time model's own prediction.
#include <QtTest>

#include <cmath>

#include "TestSupport.h"
#include "core/analysis/Sensitivity.h"

using namespace testsupport;
using namespace trainplan;

namespace {

const SensitivityBar* bar(const SensitivityResult& r, const std::string& field)
{
    for (const auto& b : r.bars)
        if (b.field == field)
            return &b;
    return nullptr;
}

void print(const char* title, const SensitivityResult& r)
{
    qInfo("%s: base %.3f s/step, %.2f days", title, r.baseStepSeconds, r.baseDays);
    for (const auto& b : r.bars)
        qInfo("  %-26s %10.4g .. %-10.4g step %.3f .. %.3f s  days %.2f .. %.2f  (swing %.3f d)", b.input.c_str(), b.lowValue, b.highValue,
              b.stepSecondsLow, b.stepSecondsHigh, b.daysLow, b.daysHigh, b.swingDays);
}

}  // namespace

class TestSensitivity : public QObject {
    Q_OBJECT

private slots:
    void barsAreSortedAndFinite_data();
    void barsAreSortedAndFinite();
    void barsMoveTheRightWay();
    void centreIsThePrediction();
    void assumedBasisUsesMfu();
    void discreteInputsStayValid();
    void jsonHasTheBars();
    void barsSayHowTheyMove();
    void resultNamesItsBasis();
};

void TestSensitivity::barsAreSortedAndFinite_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<bool>("assumed");
    QTest::newRow("worked example A predicted") << "70b-2048-h100.json" << false;
    QTest::newRow("worked example B predicted") << "70b-512-gpu.json" << false;
    QTest::newRow("worked example A assumed") << "70b-2048-h100.json" << true;
}

void TestSensitivity::barsAreSortedAndFinite()
{
    QFETCH(QString, example);
    QFETCH(bool, assumed);
    SensitivityOptions o;
    o.basis = assumed ? SensitivityBasis::Assumed : SensitivityBasis::Predicted;
    const SensitivityResult r = sensitivity(planWith(example.toStdString()), o);
    print(qPrintable(QString(QTest::currentDataTag())), r);
    QVERIFY(r.bars.size() >= 9);
    QVERIFY(std::isfinite(r.baseStepSeconds) && r.baseStepSeconds > 0);
    QVERIFY(std::isfinite(r.baseDays) && r.baseDays > 0);
    for (size_t i = 0; i < r.bars.size(); ++i) {
        const auto& b = r.bars[i];
        for (double v : {b.stepSecondsLow, b.stepSecondsHigh, b.daysLow, b.daysHigh, b.swingDays})
            QVERIFY2(std::isfinite(v) && v >= 0, b.input.c_str());
        if (b.kind == SensitivityKind::Unknown) {
            // An unknown input's ends are its slower and faster values, named; the slower end
            // is never the faster one.
            QVERIFY2(!b.lowText.empty() && !b.highText.empty() && !b.baseText.empty(), b.input.c_str());
            QVERIFY2(b.stepSecondsLow >= b.stepSecondsHigh, b.input.c_str());
            QVERIFY(b.change.rfind("unknown: ", 0) == 0);
        } else {
            for (double v : {b.lowValue, b.highValue})
                QVERIFY2(std::isfinite(v) && v >= 0, b.input.c_str());
        }
        QCOMPARE(b.swingDays, std::abs(b.daysHigh - b.daysLow));
        if (i > 0)
            QVERIFY(r.bars[i - 1].swingDays >= b.swingDays);
    }
    QVERIFY(r.bars.front().swingDays > 0);
}

void TestSensitivity::barsMoveTheRightWay()
{
    const SensitivityResult r = sensitivity(planWith("70b-2048-h100.json"));
    const auto* peak = bar(r, "cluster.peak_bf16_tflops");
    const auto* matmul = bar(r, "step_time.matmul_efficiency");
    const auto* intra = bar(r, "cluster.intra_node_bandwidth_gb_per_s");
    const auto* inter = bar(r, "cluster.inter_node_bandwidth_gb_per_s");
    const auto* hbm = bar(r, "hbm_bandwidth_gb_per_s");
    const auto* mtbf = bar(r, "cluster.mtbf_hours_per_node");
    const auto* checkpoint = bar(r, "reliability.checkpoint_write_seconds");
    QVERIFY(peak && matmul && intra && inter && hbm && mtbf && checkpoint);
    // Faster hardware: the high end is faster, the low end slower.
    for (const auto* b : {peak, matmul, intra, hbm}) {
        QVERIFY2(b->stepSecondsHigh < r.baseStepSeconds && r.baseStepSeconds < b->stepSecondsLow, b->input.c_str());
        QVERIFY2(b->daysHigh < b->daysLow, b->input.c_str());
    }
    QVERIFY(inter->stepSecondsHigh <= r.baseStepSeconds && r.baseStepSeconds <= inter->stepSecondsLow);
    // A compute-bound layout: compute moves the step more than the network does.
    QVERIFY(peak->swingStepSeconds > inter->swingStepSeconds);
    QVERIFY(matmul->swingStepSeconds > intra->swingStepSeconds);
    // Failures change days, not the step.
    QCOMPARE(mtbf->stepSecondsLow, r.baseStepSeconds);
    QVERIFY(mtbf->daysHigh < mtbf->daysLow);
    QVERIFY(checkpoint->daysHigh > checkpoint->daysLow);
}

void TestSensitivity::centreIsThePrediction()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const SensitivityResult r = sensitivity(plan);
    const PredictedStep p = predictStep(plan, estimate(plan));
    QCOMPARE(r.baseStepSeconds, p.stepSeconds);
    QCOMPARE(r.baseDays, estimate(withPredictedMfu(plan, p)).reliability.paddedDays);
}

void TestSensitivity::assumedBasisUsesMfu()
{
    SensitivityOptions o;
    o.basis = SensitivityBasis::Assumed;
    const Plan plan = planWith("70b-2048-h100.json");
    const SensitivityResult r = sensitivity(plan, o);
    QVERIFY(!bar(r, "step_time.matmul_efficiency"));
    const auto* mfu = bar(r, "training.mfu");
    QVERIFY(mfu);
    QCOMPARE(r.baseStepSeconds, estimate(plan).time.stepSeconds);
    // Step time is inversely proportional to the assumed MFU; bandwidth plays no part there.
    QVERIFY(std::abs(mfu->stepSecondsHigh * 1.1 - r.baseStepSeconds) < 1e-9 * r.baseStepSeconds);
    QCOMPARE(bar(r, "cluster.inter_node_bandwidth_gb_per_s")->swingStepSeconds, 0.0);
}

void TestSensitivity::discreteInputsStayValid()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const SensitivityResult r = sensitivity(plan);
    const auto* batch = bar(r, "training.global_batch_sequences");
    const auto* micro = bar(r, "training.micro_batch_size");
    const auto* seq = bar(r, "model.sequence_length");
    QVERIFY(batch && micro && seq);
    const long long unit = (long long)plan.layout.dp * plan.training.microBatchSize;
    QCOMPARE((long long)batch->lowValue % unit, 0LL);
    QCOMPARE((long long)batch->highValue % unit, 0LL);
    QVERIFY(batch->lowValue < batch->baseValue && batch->highValue > batch->baseValue);
    // Micro-batch 1 has no smaller neighbour: the low end stays at the base.
    QCOMPARE(micro->lowValue, 1.0);
    QCOMPARE(micro->stepSecondsLow, r.baseStepSeconds);
    QCOMPARE(micro->highValue, 2.0);
    QCOMPARE(int(seq->lowValue) % 64, 0);
    QVERIFY(seq->lowValue < 4096 && seq->highValue > 4096);

    // Found by fuzz_sensitivity: a global batch that is not a multiple of DP x b (1,025 on DP 64,
    // itself a red flag) rounded to 1,024 at both ends; each end must lie on its own side.
    Plan odd = plan;
    odd.training.globalBatchSequences = 1025;
    const SensitivityResult o = sensitivity(odd);
    const auto* oddBatch = bar(o, "training.global_batch_sequences");
    QVERIFY(oddBatch);
    QVERIFY2(oddBatch->lowValue < 1025 && oddBatch->highValue > 1025,
             qPrintable(QString("%1 <- 1025 -> %2").arg(oddBatch->lowValue).arg(oddBatch->highValue)));
    // A sequence shorter than one step of 64 x CP has no shorter neighbour on that grid.
    Plan shortSeq = plan;
    shortSeq.model.sequenceLength = 48;
    const SensitivityResult shortResult = sensitivity(shortSeq);
    const auto* shortBar = bar(shortResult, "model.sequence_length");
    if (shortBar)
        QVERIFY2(shortBar->lowValue <= 48 && shortBar->highValue >= 48,
                 qPrintable(QString("%1 <- 48 -> %2").arg(shortBar->lowValue).arg(shortBar->highValue)));
}

void TestSensitivity::jsonHasTheBars()
{
    const auto doc = sensitivityToJson(sensitivity(planWith("70b-512-gpu.json")));
    QVERIFY(hasPath(doc, "sensitivity.base_step_seconds"));
    QVERIFY(hasPath(doc, "sensitivity.base_days"));
    const auto& bars = doc.at("sensitivity").at("bars");
    QVERIFY(bars.size() >= 9);
    for (const char* key :
        {"input", "field", "low_value", "high_value", "step_seconds_low", "step_seconds_high", "days_low", "days_high", "swing_days"})
        QVERIFY2(bars.at(0).contains(key), key);
}

void TestSensitivity::barsSayHowTheyMove()
{
    const Plan plan = planWith("70b-2048-h100.json");
    const SensitivityResult r = sensitivity(plan);
    for (const auto& b : r.bars) {
        const bool discrete =
            b.field == "training.micro_batch_size" || b.field == "training.global_batch_sequences" || b.field == "model.sequence_length";
        if (b.kind == SensitivityKind::Unknown)
            continue;  // barsAreSortedAndFinite checks these
        QCOMPARE(b.kind == SensitivityKind::Discrete, discrete);
        if (!discrete) {
            // Continuous inputs move by exactly +-10 %, and say so.
            QCOMPARE(b.change, std::string("±10 %"));
            QVERIFY(std::abs(b.lowValue - 0.9 * b.baseValue) <= 1e-12 * b.baseValue);
            QVERIFY(std::abs(b.highValue - 1.1 * b.baseValue) <= 1e-12 * b.baseValue);
        }
    }
    // Micro-batch 1 has no smaller valid size and 2 is the next one: "b 1 → 2", never "±10 %".
    const auto* micro = bar(r, "training.micro_batch_size");
    QVERIFY(micro);
    QCOMPARE(micro->change, std::string("b 1 → 2"));
    // The global batch moves to multiples of DP x b = 64 nearest to +-10 % (921.6 and 1,126.4): 896 and 1,152.
    const auto* batch = bar(r, "training.global_batch_sequences");
    QCOMPARE(batch->change, std::string("B 896 ← 1,024 → 1,152"));
    // A micro-batch in the middle of its valid sizes moves both ways.
    const SensitivityResult mid = sensitivity(planWith("70b-2048-h100.json", {"training.micro_batch_size=2"}));
    QCOMPARE(bar(mid, "training.micro_batch_size")->change, std::string("b 1 ← 2 → 4"));
}

void TestSensitivity::resultNamesItsBasis()
{
    const Plan plan = planWith("70b-2048-h100.json");
    SensitivityOptions assumedOptions;
    assumedOptions.basis = SensitivityBasis::Assumed;
    const SensitivityResult predicted = sensitivity(plan);
    const SensitivityResult assumed = sensitivity(plan, assumedOptions);
    QVERIFY(predicted.basisLabel.find("predicted") != std::string::npos);
    QCOMPARE(assumed.basisLabel, std::string("assumed MFU of 40 %"));
    QVERIFY(predicted.title.find(predicted.basisLabel) != std::string::npos);
    QVERIFY(assumed.title.find("padded days") != std::string::npos);
    const auto doc = sensitivityToJson(assumed);
    QCOMPARE(doc["sensitivity"]["basis"].get<std::string>(), std::string("assumed"));
    QCOMPARE(doc["sensitivity"]["basis_label"].get<std::string>(), assumed.basisLabel);
    QCOMPARE(doc["sensitivity"]["bars"][0]["kind"].is_string(), true);
}

QTEST_GUILESS_MAIN(TestSensitivity)
#include "tst_sensitivity.moc"
