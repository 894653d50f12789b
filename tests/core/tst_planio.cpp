// Plan files: every bad-input path names its JSON field and says why; good files
// round-trip exactly; saves are atomic.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "TestSupport.h"

using namespace testsupport;
using nlohmann::json;

class TestPlanIO : public QObject {
    Q_OBJECT

private slots:
    void examplesLoad();
    void badInput_data();
    void badInput();
    void reportsEveryProblemAtOnce();
    void syntaxErrorNamesLineAndColumn();
    void roundTripIsExact_data();
    void roundTripIsExact();
    void saveIsAtomicAndRoundTrips();
    void globalBatchInTokens();
    void dpAuto();
    void overrideSyntax();
};

void TestPlanIO::examplesLoad()
{
    for (const char* e : {"70b-2048-h100.json", "70b-512-gpu.json"}) {
        const auto plan = trainplan::loadPlanFile(examplePath(e));
        QVERIFY(!plan.name.empty());
    }
}

void TestPlanIO::badInput_data()
{
    QTest::addColumn<QString>("assignment");  // applied to the seed 000 example
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("zero TP") << "layout.tp=0" << "layout.tp" << "at least 1";
    QTest::newRow("negative TP") << "layout.tp=-8" << "layout.tp" << "at least 1";
    QTest::newRow("fractional TP") << "layout.tp=2.5" << "layout.tp" << "whole number";
    QTest::newRow("TP as word") << "layout.tp=eight" << "layout.tp" << "whole number";
    QTest::newRow("fractional PP") << "layout.pp=1.5" << "layout.pp" << "whole number";
    QTest::newRow("zero DP") << "layout.dp=0" << "layout.dp" << "at least 1";
    QTest::newRow("DP bad word") << "layout.dp=all" << "layout.dp" << "\"auto\"";
    QTest::newRow("DP auto not dividing") << "layout.dp=auto layout.tp=3" << "layout.dp" << "does not divide";
    QTest::newRow("absurd hidden size") << "model.hidden_size=1e12" << "model.hidden_size" << "implausibly large";
    QTest::newRow("absurd GPUs") << "cluster.gpus=1e12" << "cluster.gpus" << "implausibly large";
    QTest::newRow("zero layers") << "model.layers=0" << "model.layers" << "at least 1";
    QTest::newRow("zero MFU") << "training.mfu=0" << "training.mfu" << "greater than 0";
    QTest::newRow("MFU over 1") << "training.mfu=1.5" << "training.mfu" << "at most 1";
    QTest::newRow("negative memory") << "cluster.memory_gb=-80" << "cluster.memory_gb" << "greater than 0";
    QTest::newRow("zero bandwidth") << "cluster.inter_node_bandwidth_gb_per_s=0" << "cluster.inter_node_bandwidth_gb_per_s" << "greater than 0";
    QTest::newRow("tokens as text") << "training.tokens=\"many\"" << "training.tokens" << "must be a number";
    QTest::newRow("tokens missing") << "training.tokens=null" << "training.tokens" << "is missing";
    QTest::newRow("typo in key") << "model.hiden_size=8192" << "model.hiden_size" << "did you mean \"hidden_size\"";
    QTest::newRow("unknown enum") << "layout.schedule=zigzag" << "layout.schedule" << "must be one of";
    QTest::newRow("bool as number") << "layout.sequence_parallel=1" << "layout.sequence_parallel" << "true or false";
    QTest::newRow("ZeRO 4") << "layout.zero_stage=4" << "layout.zero_stage" << "at most 3";
    QTest::newRow("KV heads not dividing") << "model.kv_heads=7" << "model.kv_heads" << "must divide";
    QTest::newRow("stage layers sum") << "layout.stage_layers=[19,21,21,18]" << "layout.stage_layers" << "sums to 79";
    QTest::newRow("stage layers count") << "layout.stage_layers=[40,40]" << "layout.stage_layers" << "lists 2 stages";
    QTest::newRow("stage layers zero") << "layout.stage_layers=[0,40,20,20]" << "layout.stage_layers[0]" << "at least 1";
    QTest::newRow("batch tokens not multiple") << "training.global_batch_sequences=null training.global_batch_tokens=1000" << "training.global_batch_tokens" << "multiple of";
    QTest::newRow("both batch forms") << "training.global_batch_tokens=4194304" << "training.global_batch_tokens" << "not both";
    QTest::newRow("both MTBF forms") << "cluster.mtbf_hours_per_gpu=8000" << "cluster.mtbf_hours_per_gpu" << "not both";
    QTest::newRow("PP over layers") << "layout.pp=81" << "layout.pp" << "only 80 layers";
    QTest::newRow("section not object") << "model=3" << "model" << "must be an object";
    QTest::newRow("newer version") << "version=2" << "version" << "newer than this TrainPlan reads";
    QTest::newRow("wrong format") << "format=\"something.else\"" << "format" << "not a TrainPlan plan file";
    QTest::newRow("fragmentation over 0.9") << "training.fragmentation_fraction=0.95" << "training.fragmentation_fraction" << "at most 0.9";
    QTest::newRow("negative restart") << "reliability.restart_seconds=-1" << "reliability.restart_seconds" << "at least 0";
}

void TestPlanIO::badInput()
{
    QFETCH(QString, assignment);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    for (const auto& a : toStd(splitOverrides(assignment)))
        trainplan::applyOverride(doc, a);
    try {
        trainplan::planFromJson(doc);
        QFAIL("the plan was accepted");
    } catch (const trainplan::PlanError& e) {
        bool found = false;
        QStringList seen;
        for (const auto& p : e.problems()) {
            seen << QString::fromStdString(p.path + ": " + p.message);
            found = found || (QString::fromStdString(p.path) == path && QString::fromStdString(p.message).contains(fragment));
        }
        QVERIFY2(found, qPrintable("expected " + path + " ~ " + fragment + "; got " + seen.join(" | ")));
    }
}

void TestPlanIO::reportsEveryProblemAtOnce()
{
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    doc["layout"]["tp"] = 0;
    doc["training"]["mfu"] = 7;
    doc["model"]["layers"] = 1.5;
    try {
        trainplan::planFromJson(doc);
        QFAIL("accepted");
    } catch (const trainplan::PlanError& e) {
        QCOMPARE(int(e.problems().size()), 3);
    }
}

void TestPlanIO::syntaxErrorNamesLineAndColumn()
{
    try {
        trainplan::planFromText("{\n  \"format\": \"trainplan.plan\",\n  \"version\": 1,,\n}");
        QFAIL("accepted");
    } catch (const trainplan::PlanError& e) {
        const QString msg = QString::fromStdString(e.problems().front().message);
        QVERIFY2(msg.contains("not valid JSON") && msg.contains("line 3"), qPrintable(msg));
    }
    for (const char* text : {"", "[]", "42", "null", "\"plan\""}) {
        QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::planFromText(text));
    }
}

void TestPlanIO::roundTripIsExact_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("overrides");
    QTest::newRow("seed 000") << "70b-2048-h100.json" << "";
    QTest::newRow("seed 004") << "70b-512-gpu.json" << "";
    QTest::newRow("uneven, auto DP, per-GPU MTBF")
        << "70b-2048-h100.json" << "layout.stage_layers=[19,21,21,19] layout.dp=auto cluster.mtbf_hours_per_node=null cluster.mtbf_hours_per_gpu=8000.5";
    QTest::newRow("bandwidth checkpoint, tokens batch")
        << "70b-512-gpu.json" << "reliability.checkpoint_write_seconds=null reliability.checkpoint_write_gb_per_s_per_gpu=2.5 training.buffer_gb=3.3";
}

void TestPlanIO::roundTripIsExact()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const auto plan = planWith(example.toStdString(), toStd(splitOverrides(overrides)));
    const json first = trainplan::planToJson(plan);
    const auto again = trainplan::planFromJson(first);
    QCOMPARE(QString::fromStdString(trainplan::planToJson(again).dump()), QString::fromStdString(first.dump()));
    // Estimates from the re-read plan are bit-identical.
    QCOMPARE(QString::fromStdString(estimateJsonFor(again).dump()), QString::fromStdString(estimateJsonFor(plan).dump()));
}

void TestPlanIO::saveIsAtomicAndRoundTrips()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("plan.json").toStdString();
    const auto plan = planWith("70b-2048-h100.json");
    trainplan::savePlanFile(plan, path);
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp-trainplan")));
    const auto loaded = trainplan::loadPlanFile(path);
    QCOMPARE(QString::fromStdString(trainplan::planToText(loaded)), QString::fromStdString(trainplan::planToText(plan)));
    // A failed save (directory missing) throws and leaves nothing behind.
    QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::savePlanFile(plan, dir.filePath("missing/plan.json").toStdString()));
}

void TestPlanIO::globalBatchInTokens()
{
    const auto plan = planWith("70b-2048-h100.json", {"training.global_batch_sequences=null", "training.global_batch_tokens=4194304"});
    QCOMPARE(plan.training.globalBatchSequences, 1024);
}

void TestPlanIO::dpAuto()
{
    const auto plan = planWith("70b-2048-h100.json", {"layout.tp=4", "layout.dp=auto"});
    QCOMPARE(plan.layout.dp, 128);
    QVERIFY(plan.layout.dpAuto);
    QCOMPARE(QString::fromStdString(trainplan::planToJson(plan)["layout"]["dp"].get<std::string>()), QString("auto"));
}

void TestPlanIO::overrideSyntax()
{
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::applyOverride(doc, "layout.tp"));
    QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::applyOverride(doc, "=4"));
    QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::applyOverride(doc, "layout..tp=4"));
    QVERIFY_THROWS_EXCEPTION(trainplan::PlanError, trainplan::applyOverride(doc, "version.x=4"));
    trainplan::applyOverride(doc, "layout.schedule=interleaved");
    QCOMPARE(QString::fromStdString(doc["layout"]["schedule"].get<std::string>()), QString("interleaved"));
    trainplan::applyOverride(doc, "layout.stage_layers=[19,21,21,19]");
    QCOMPARE(int(doc["layout"]["stage_layers"].size()), 4);
}

QTEST_GUILESS_MAIN(TestPlanIO)
#include "tst_planio.moc"
