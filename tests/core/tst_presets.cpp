// Presets: every model's parameter count from its dimensions matches what its authors
// publish (a check on both the preset data and the parameter formulas), and every
// accelerator carries a source and sane figures.
#include <QtTest>

#include "core/estimate/Estimate.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

class TestPresets : public QObject {
    Q_OBJECT

private slots:
    void modelsMatchPublishedCounts_data();
    void modelsMatchPublishedCounts();
    void acceleratorsAreSourced();
    void defaultPlanIsSeed000();
    void labelIndexAnswersEachLabelWhenLabelsAlternate();
};

void TestPresets::modelsMatchPublishedCounts_data()
{
    QTest::addColumn<QString>("name");
    for (const auto& p : trainplan::modelPresets())
        QTest::newRow(p.model.name.c_str()) << QString::fromStdString(p.model.name);
    QVERIFY(trainplan::modelPresets().size() >= 10);
}

void TestPresets::modelsMatchPublishedCounts()
{
    QFETCH(QString, name);
    const auto* preset = trainplan::findModelPreset(name.toStdString());
    QVERIFY(preset);
    QVERIFY(!preset->source.empty());
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.model = preset->model;
    const auto counts = trainplan::estimate(plan).parameters;
    // Published counts leave multi-token-prediction modules out (DeepSeek-V3 report, Sec. 4.2).
    const double counted = counts.total - counts.mtp;
    // Published counts are rounded (e.g. "175B", "6.74B", "37B"); 1.5 % covers that rounding.
    const double err = std::abs(counted - preset->nominalParameters) / preset->nominalParameters;
    QVERIFY2(err < 0.015,
        qPrintable(QString("%1: counted %2, published %3").arg(name).arg(counted, 0, 'g', 5).arg(preset->nominalParameters, 0, 'g', 5)));
    // An MoE model publishes what a token touches too; a dense model touches everything.
    const double active = counts.active - counts.mtpActive;
    if (preset->model.moe) {
        QVERIFY2(preset->nominalActiveParameters > 0, qPrintable(name));
        const double published = preset->nominalActiveParameters + (preset->nominalActiveExcludesEmbedding ? counts.embedding : 0.0);
        const double activeErr = std::abs(active - published) / published;
        // Active counts are published to two figures ("3.3B", "37B"): 2.5 % covers that rounding.
        QVERIFY2(activeErr < 0.025, qPrintable(QString("%1: counted %2 active, published %3")
                                                   .arg(name).arg(active, 0, 'g', 5).arg(published, 0, 'g', 5)));
    } else {
        QCOMPARE(active, counts.total);
    }
}

void TestPresets::acceleratorsAreSourced()
{
    const auto& all = trainplan::acceleratorPresets();
    QVERIFY(all.size() >= 6);
    for (const char* name : {"A100 SXM 40GB", "A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "B200 180GB", "MI300X 192GB"})
        QVERIFY2(trainplan::findAcceleratorPreset(name), name);
    for (const auto& a : all) {
        QVERIFY2(!a.source.empty(), a.name.c_str());
        QVERIFY(a.memoryBytes >= 40e9 && a.memoryBytes <= 300e9);
        QVERIFY(a.peakBf16FlopsPerSecond >= 300e12 && a.peakBf16FlopsPerSecond <= 5e15);
        QVERIFY(a.intraNodeBytesPerSecond > a.interNodeBytesPerSecond);
    }
    QCOMPARE(trainplan::findAcceleratorPreset("H100 SXM 80GB")->peakBf16FlopsPerSecond, 989e12);
}

void TestPresets::defaultPlanIsSeed000()
{
    const auto plan = trainplan::defaultPlan();
    QCOMPARE(plan.cluster.gpus, 2048);
    QCOMPARE(plan.layout.tp * plan.layout.pp * plan.layout.dp, 2048);
    QCOMPARE(plan.training.tokens, 1.4e12);
}

// presetLabelIndex() remembers the last label it matched (the estimate asks once per layout):
// alternating labels, each answer must still be the one for that label, the matcher's preset.
void TestPresets::labelIndexAnswersEachLabelWhenLabelsAlternate()
{
    const auto& presets = trainplan::acceleratorPresets();
    QVERIFY(presets.size() >= 2);
    std::vector<std::string> labels;
    for (const auto& p : presets)
        labels.push_back(p.name);
    labels.push_back("not an accelerator we know");
    labels.push_back("");
    for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < labels.size(); ++i) {
            const std::string& label = labels[(i * (round + 1)) % labels.size()];
            const auto match = trainplan::matchAcceleratorPreset(label);
            const int expected = match.preset && !match.ambiguous ? int(match.preset - presets.data()) : -1;
            QCOMPARE(trainplan::presetLabelIndex(label), expected);
            QCOMPARE(trainplan::presetLabelIndex(label), expected);  // the cached answer
        }
}

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
