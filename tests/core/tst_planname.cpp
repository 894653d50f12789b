// The plan's name: generated from the model, cluster and tokens until a person types one,
// kept as typed after that, generated again once cleared; and how files carry which it is.
// Also the presets a plan's numbers match, which the generated name's model size reads.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "TestSupport.h"
#include "core/planfile/PlanName.h"
#include "core/planfile/WorkedExamples.h"
#include "core/presets/Presets.h"

using nlohmann::json;
using trainplan::Plan;
using namespace testsupport;

class TestPlanName : public QObject {
    Q_OBJECT

private slots:
    void generatedNames_data();
    void generatedNames();
    void followsUntilTyped();
    void fileRoundTrip();
    void filesWithoutTheFlag();
    void setOverrideRenamesAFollowingPlan();
    void modelPresetsMatchByShape();
    void acceleratorPresetsMatchByFigures();
};

void TestPlanName::generatedNames_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("expected");
    QTest::newRow("worked example A") << "70b-2048-h100.json" << "" << "70B on 2,048 H100s, 1.4T tokens";
    QTest::newRow("worked example B, a label of its own") << "70b-512-gpu.json" << "" << "70B on 512 GPUs, 300B tokens";
    QTest::newRow("one GPU, a custom model")
        << "70b-2048-h100.json" << "cluster.gpus=1 layout.tp=1 layout.pp=1 layout.dp=1 model.layers=40 training.tokens=2.5e9"
        << "36B on 1 H100, 2.5B tokens";
    QTest::newRow("rounds up to the next scale") << "70b-2048-h100.json" << "training.tokens=999.96e9" << "70B on 2,048 H100s, 1T tokens";
}

void TestPlanName::generatedNames()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    QFETCH(QString, expected);
    std::vector<std::string> sets;
    for (const QString& o : overrides.split(' ', Qt::SkipEmptyParts))
        sets.push_back(o.toStdString());
    const Plan plan = planWith(example.toStdString(), sets);
    QCOMPARE(QString::fromStdString(trainplan::generatedPlanName(plan)), expected);
}

void TestPlanName::followsUntilTyped()
{
    Plan plan = trainplan::defaultPlan();
    QVERIFY(!plan.nameUserSet);
    QCOMPARE(QString::fromStdString(plan.name), QString("70B on 2,048 H100s, 1.4T tokens"));
    // 405B on 16,384 H200s: the name follows.
    plan.model = trainplan::findModelPreset("Llama 3.1 405B")->model;
    trainplan::applyAccelerator(*trainplan::findAcceleratorPreset("H200 SXM 141GB"), plan.cluster);
    plan.cluster.gpus = 16384;
    trainplan::refreshPlanName(plan);
    QCOMPARE(QString::fromStdString(plan.name), QString("405B on 16,384 H200s, 1.4T tokens"));
    // Typed: it stays as typed whatever changes.
    trainplan::setPlanName(plan, "Big run");
    QVERIFY(plan.nameUserSet);
    plan.training.tokens = 15.6e12;
    trainplan::refreshPlanName(plan);
    QCOMPARE(QString::fromStdString(plan.name), QString("Big run"));
    // Cleared (spaces count as clear): it follows again, at once.
    trainplan::setPlanName(plan, "   ");
    QVERIFY(!plan.nameUserSet);
    QCOMPARE(QString::fromStdString(plan.name), QString("405B on 16,384 H200s, 15.6T tokens"));
}

void TestPlanName::fileRoundTrip()
{
    Plan following = trainplan::defaultPlan();
    Plan typed = following;
    trainplan::setPlanName(typed, "My plan");
    for (const Plan& plan : {following, typed}) {
        const json doc = trainplan::planToJson(plan);
        QCOMPARE(doc.at("name_user_set").get<bool>(), plan.nameUserSet);
        QCOMPARE(QString::fromStdString(doc.at("name").get<std::string>()), QString::fromStdString(plan.name));
        const Plan again = trainplan::planFromJson(doc);
        QVERIFY(again == plan);
    }
    // A following plan read back keeps following: a changed model renames it.
    json doc = trainplan::planToJson(following);
    trainplan::applyOverride(doc, "cluster.gpus=4096");
    trainplan::applyOverride(doc, "layout.dp=128");
    QCOMPARE(QString::fromStdString(trainplan::planFromJson(doc).name), QString("70B on 4,096 H100s, 1.4T tokens"));
    // A typed one does not.
    doc = trainplan::planToJson(typed);
    trainplan::applyOverride(doc, "cluster.gpus=4096");
    trainplan::applyOverride(doc, "layout.dp=128");
    QCOMPARE(QString::fromStdString(trainplan::planFromJson(doc).name), QString("My plan"));
}

void TestPlanName::filesWithoutTheFlag()
{
    json doc = trainplan::planToJson(trainplan::defaultPlan());
    doc.erase("name_user_set");
    // The generated name: follows.
    Plan plan = trainplan::planFromJson(doc);
    QVERIFY(!plan.nameUserSet);
    // No name at all: follows, and gets one.
    doc.erase("name");
    plan = trainplan::planFromJson(doc);
    QVERIFY(!plan.nameUserSet);
    QCOMPARE(QString::fromStdString(plan.name), QString("70B on 2,048 H100s, 1.4T tokens"));
    // Any other name: kept, as the person's.
    doc["name"] = "70B on 2,048 H100s, 1.4T tokens (worked example A)";
    plan = trainplan::planFromJson(doc);
    QVERIFY(plan.nameUserSet);
    QCOMPARE(QString::fromStdString(plan.name), QString("70B on 2,048 H100s, 1.4T tokens (worked example A)"));
    // The shipped examples say their names are generated (issue 23: a --model on them renames).
    QVERIFY(!planWith("70b-2048-h100.json").nameUserSet);
    QVERIFY(!planWith("70b-512-gpu.json").nameUserSet);
    QCOMPARE(QString::fromStdString(planWith("70b-2048-h100.json", {"model.layers=126", "model.hidden_size=16384",
                 "model.ffn_hidden_size=53248", "model.attention_heads=128"}).name).contains("70B"), false);
    // Not a boolean: a problem naming the field.
    doc["name_user_set"] = "yes";
    try {
        trainplan::planFromJson(doc);
        QFAIL("a string for name_user_set was accepted");
    } catch (const trainplan::PlanError& e) {
        QCOMPARE(QString::fromStdString(e.problems().front().path), QString("name_user_set"));
    }
}

void TestPlanName::setOverrideRenamesAFollowingPlan()
{
    // --set name=... names the plan as typing it in the window does; a blank one, or a later
    // name_user_set=false, returns it to the generated name.
    json doc = trainplan::planToJson(trainplan::defaultPlan());
    trainplan::applyOverride(doc, "name=Cluster bid");
    QCOMPARE(QString::fromStdString(trainplan::planFromJson(doc).name), QString("Cluster bid"));
    QVERIFY(trainplan::planFromJson(doc).nameUserSet);
    trainplan::applyOverride(doc, "name_user_set=false");
    QCOMPARE(QString::fromStdString(trainplan::planFromJson(doc).name), QString("70B on 2,048 H100s, 1.4T tokens"));
    trainplan::applyOverride(doc, "name=Cluster bid");
    trainplan::applyOverride(doc, "name=");
    QVERIFY(!trainplan::planFromJson(doc).nameUserSet);
    QCOMPARE(QString::fromStdString(trainplan::planFromJson(doc).name), QString("70B on 2,048 H100s, 1.4T tokens"));
}

void TestPlanName::modelPresetsMatchByShape()
{
    // The default plan's model is Llama 3.1 70B's shape under another name, trained at 4,096.
    const Plan plan = trainplan::defaultPlan();
    QVERIFY(plan.model.name != "Llama 3.1 70B");
    const auto* preset = trainplan::modelPresetOf(plan.model);
    QVERIFY(preset);
    QCOMPARE(QString::fromStdString(preset->model.name), QString("Llama 3.1 70B"));
    // Every preset matches itself, at any sequence length; no two presets share a shape.
    for (const auto& p : trainplan::modelPresets()) {
        trainplan::ModelSpec m = p.model;
        m.sequenceLength = 1234;
        m.name = "renamed";
        QCOMPARE(trainplan::modelPresetOf(m), &p);
    }
    // Any number of the shape changed: no preset.
    trainplan::ModelSpec edited = plan.model;
    edited.layers = 81;
    QVERIFY(!trainplan::modelPresetOf(edited));
    edited = plan.model;
    edited.kvHeads = 16;
    QVERIFY(!trainplan::modelPresetOf(edited));
    edited = plan.model;
    edited.tiedEmbeddings = true;
    QVERIFY(!trainplan::modelPresetOf(edited));
}

void TestPlanName::acceleratorPresetsMatchByFigures()
{
    Plan plan = trainplan::defaultPlan();
    QCOMPARE(QString::fromStdString(trainplan::acceleratorPresetOf(plan.cluster)->name), QString("H100 SXM 80GB"));
    // The figures decide, not the label.
    plan.cluster.accelerator = "our H100 nodes";
    QCOMPARE(QString::fromStdString(trainplan::acceleratorPresetOf(plan.cluster)->name), QString("H100 SXM 80GB"));
    plan.cluster.interNodeBytesPerSecond = 25e9;
    QVERIFY(!trainplan::acceleratorPresetOf(plan.cluster));
    for (const auto& a : trainplan::acceleratorPresets()) {
        trainplan::ClusterSpec c;
        trainplan::applyAccelerator(a, c);
        QCOMPARE(trainplan::acceleratorPresetOf(c), &a);
    }
}

QTEST_GUILESS_MAIN(TestPlanName)
#include "tst_planname.moc"
