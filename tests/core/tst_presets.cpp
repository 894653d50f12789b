// Presets: every model's parameter count from its dimensions matches what its authors
// publish (a check on both the preset data and the parameter formulas), and every
// accelerator carries a source and sane figures.
#include <QtTest>

#include "core/base/Units.h"
#include "core/estimate/Estimate.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

class TestPresets : public QObject {
    Q_OBJECT

private slots:
    void modelsMatchPublishedCounts_data();
    void modelsMatchPublishedCounts();
    void acceleratorsAreSourced();
    void presetNamesAgreeWithTheirMemory();
    void rackScalePartsShareOneNvlinkDomain();
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
    for (const char* name : {"A100 SXM 40GB", "A100 SXM 80GB", "H100 SXM 80GB", "H100 NVL 94GB", "H200 SXM 141GB", "B200 180GB",
             "B300 288GB", "GB200 NVL72 186GB", "GB300 NVL72 288GB", "MI300X 192GB", "MI355X 288GB"})
        QVERIFY2(trainplan::findAcceleratorPreset(name), name);
    for (const auto& a : all) {
        QVERIFY2(!a.source.empty(), a.name.c_str());
        QVERIFY2(!a.scaleUpLink.empty() && a.powerWatts >= 100 && a.powerWatts <= 2000, a.name.c_str());
        QVERIFY2(a.efficiency.valid() && !a.efficiencySource.empty(), a.name.c_str());
        // FP8 is twice BF16 and FP4 twice FP8 or more, where the part has them (dense figures).
        if (a.peakFp8FlopsPerSecond > 0)
            QVERIFY2(std::abs(a.peakFp8FlopsPerSecond / a.peakBf16FlopsPerSecond - 2.0) < 0.01, a.name.c_str());
        if (a.peakFp4FlopsPerSecond > 0)
            QVERIFY2(a.peakFp4FlopsPerSecond >= 1.99 * a.peakFp8FlopsPerSecond, a.name.c_str());
        QVERIFY(a.memoryBytes >= 40e9 && a.memoryBytes <= 320e9);
        QVERIFY(a.peakBf16FlopsPerSecond >= 300e12 && a.peakBf16FlopsPerSecond <= 5e15);
        QVERIFY(a.intraNodeBytesPerSecond > a.interNodeBytesPerSecond);
    }
    QCOMPARE(trainplan::findAcceleratorPreset("H100 SXM 80GB")->peakBf16FlopsPerSecond, 989e12);
}

// A preset's name gives the vendor's nominal memory, in binary units (an "80GB" H100 holds
// 81,090 MiB); its memory_gb is what the runtime reports, in 1e9-byte GB. The two agree in GiB.
void TestPresets::presetNamesAgreeWithTheirMemory()
{
    const QRegularExpression nominal(QStringLiteral("(\\d+)GB$"));
    for (const auto& a : trainplan::acceleratorPresets()) {
        const auto match = nominal.match(QString::fromStdString(a.name));
        QVERIFY2(match.hasMatch(), a.name.c_str());
        const double named = match.captured(1).toDouble();
        const double gib = a.memoryBytes / trainplan::units::GiB;
        QVERIFY2(std::abs(gib - named) / named < 0.05, qPrintable(QString("%1: %2 GiB").arg(a.name.c_str()).arg(gib)));
    }
}

// GB200 and GB300 NVL72: trays of 4 GPUs, 72 GPUs on one NVLink domain; choosing the preset sets
// the cluster's domain, and choosing another part clears it. AMD's scale-up link has its own name.
void TestPresets::rackScalePartsShareOneNvlinkDomain()
{
    for (const char* name : {"GB200 NVL72 186GB", "GB300 NVL72 288GB"}) {
        const auto* rack = trainplan::findAcceleratorPreset(name);
        QVERIFY(rack);
        QCOMPARE(rack->gpusPerNode, 4);
        QCOMPARE(rack->nvlinkDomain, 72);
        trainplan::ClusterSpec c;
        trainplan::applyAccelerator(*rack, c);
        QCOMPARE(c.scaleUpDomain(), 72);
        QCOMPARE(trainplan::acceleratorPresetOf(c), rack);
        c.nvlinkDomain = 64;  // 16 of the rack's 18 trays in the job: the same part
        QCOMPARE(trainplan::acceleratorPresetOf(c), rack);
        c.nvlinkDomain = 0;  // trays alone: no longer the preset's hardware
        QVERIFY(trainplan::acceleratorPresetOf(c) != rack);
        QCOMPARE(trainplan::acceleratorMismatch(c).fields, std::vector<std::string>{"cluster.nvlink_domain"});
        trainplan::applyAccelerator(*trainplan::findAcceleratorPreset("H100 SXM 80GB"), c);
        QCOMPARE(c.scaleUpDomain(), 8);
    }
    trainplan::ClusterSpec amd;
    trainplan::applyAccelerator(*trainplan::findAcceleratorPreset("MI355X 288GB"), amd);
    QCOMPARE(trainplan::scaleUpLinkName(amd), std::string("Infinity Fabric"));
    QCOMPARE(trainplan::scaleUpDomainNoun(amd), std::string("node"));
    trainplan::ClusterSpec nvl;
    trainplan::applyAccelerator(*trainplan::findAcceleratorPreset("H100 NVL 94GB"), nvl);
    QCOMPARE(nvl.scaleUpDomain(), 2);  // an NVLink-bridged pair inside an 8-GPU server
    QCOMPARE(trainplan::scaleUpDomainNoun(nvl), std::string("NVLink bridge domain"));
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
