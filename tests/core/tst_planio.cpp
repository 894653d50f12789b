// Plan files: every bad-input path names its JSON field and says why; good files
// round-trip exactly; saves are atomic.
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <set>

#include <fstream>

#include <sys/stat.h>

#include "core/base/BoundedJson.h"
#include "core/plan/PlanFields.h"

#include "TestSupport.h"
#include "core/base/Units.h"

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
    void emptyStageLayersIsTheEvenSplit();
    void overrideSyntax();
    void fieldTableMatchesTheDocs();
    void fieldTableIsConsistent();
    void deletingAnyRowBreaksTheReaderAndTheWriter();
    void omittedFieldsReadAsStructDefaults();
    void versionOneFileReadsToTheSamePlan();
    void numberOutsideDoubleRangeNamesTheField();
    void deepNestingIsRefused();
    void overrideRejectsBytesThatAreNotUtf8();
    void layoutProductCannotOverflow();
    void physicallyImplausibleInputsAreRejected_data();
    void physicallyImplausibleInputsAreRejected();
    void unreadableFileIsAPlanError();
    void duplicateKeysAreRefused_data();
    void duplicateKeysAreRefused();
    void duplicateKeysInASetValueAreRefused();
    void invalidUtf8InAKeyNamesItsObject_data();
    void invalidUtf8InAKeyNamesItsObject();
    void freeTextFieldsAreBounded_data();
    void freeTextFieldsAreBounded();
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
    QTest::addColumn<QString>("assignment");  // applied to the worked example A example
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
    QTest::newRow("zero bandwidth") << "cluster.inter_node_bandwidth_gb_per_s=0"
                                    << "cluster.inter_node_bandwidth_gb_per_s"
                                    << "greater than 0";
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
    QTest::newRow("batch tokens not multiple") << "training.global_batch_sequences=null training.global_batch_tokens=1000"
                                               << "training.global_batch_tokens"
                                               << "multiple of";
    QTest::newRow("both batch forms") << "training.global_batch_tokens=4194304" << "training.global_batch_tokens" << "not both";
    QTest::newRow("both MTBF forms") << "cluster.mtbf_hours_per_gpu=8000" << "cluster.mtbf_hours_per_gpu" << "not both";
    QTest::newRow("PP over layers") << "layout.pp=81" << "layout.pp" << "only 80 layers";
    QTest::newRow("section not object") << "model=3" << "model" << "must be an object";
    QTest::newRow("newer version") << "version=3"
                                   << "version"
                                   << "newer than this TrainPlan reads";
    QTest::newRow("wrong format") << "format=\"something.else\"" << "format" << "not a TrainPlan plan file";
    QTest::newRow("fragmentation over 0.9") << "training.fragmentation_fraction=0.95" << "training.fragmentation_fraction" << "at most 0.9";
    QTest::newRow("negative restart") << "reliability.restart_seconds=-1" << "reliability.restart_seconds" << "at least 0";
    // Mixture-of-experts input (issue 24), on the example with eight experts of top-2.
    const QString moe = R"(model.moe={"experts":8,"top_k":2,"expert_ffn_hidden_size":7168})";
    QTest::newRow("top-k above experts") << moe + " model.moe.top_k=9" << "model.moe.top_k" << "only 8 routed experts";
    QTest::newRow("zero experts") << moe + " model.moe.experts=0" << "model.moe.experts" << "at least 1";
    QTest::newRow("experts missing") << R"(model.moe={"top_k":2,"expert_ffn_hidden_size":7168})" << "model.moe.experts" << "is missing";
    QTest::newRow("EP not dividing experts") << moe + " layout.ep=3" << "layout.ep" << "must divide the 8 routed experts";
    QTest::newRow("EP x ETP not dividing a stage") << moe + " layout.ep=8 layout.etp=3" << "layout.ep" << "must divide the ranks";
    QTest::newRow("EP without experts") << "layout.ep=8" << "layout.ep" << "no experts";
    QTest::newRow("dense layers above the layers") << moe + " model.moe.dense_layers=80" << "model.moe.dense_layers" << "at least one";
    QTest::newRow("MoE layer step leaves no MoE layer") << moe + " model.moe.dense_layers=78 model.moe.layer_step=3"
                                                         << "model.moe.layer_step" << "at least one must be an MoE layer";
    QTest::newRow("MoE layer step zero") << moe + " model.moe.layer_step=0" << "model.moe.layer_step" << "at least 1";
    QTest::newRow("capacity factor below 1") << moe + " model.moe.capacity_factor=0.8" << "model.moe.capacity_factor" << "at least 1";
    QTest::newRow("imbalance below 1") << moe + " model.moe.load_imbalance=0.5" << "model.moe.load_imbalance" << "at least 1";
    QTest::newRow("imbalance not finite") << moe + " model.moe.load_imbalance=\"inf\"" << "model.moe.load_imbalance" << "must be a number";
    QTest::newRow("MLA KV rank zero")
        << R"(model.mla={"q_lora_rank":0,"kv_lora_rank":0,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128})"
        << "model.mla.kv_lora_rank" << "at least 1";
    QTest::newRow("MLA head size missing") << R"(model.mla={"q_lora_rank":0,"kv_lora_rank":512,"qk_rope_head_dim":64,"v_head_dim":128})"
                                           << "model.mla.qk_nope_head_dim" << "is missing";
    QTest::newRow("MoE kind without experts") << R"(model.layer_kinds=[{"layers":80,"moe":true}])" << "model.layer_kinds[0].moe"
                                              << "no model.moe";
    QTest::newRow("MTP negative") << "model.mtp_layers=-1" << "model.mtp_layers" << "at least 0";
    QTest::newRow("dense width missing with dense layers") << moe + " model.moe.dense_layers=2 model.ffn_hidden_size=null"
                                                           << "model.ffn_hidden_size" << "is missing";
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
    QTest::newRow("worked example A") << "70b-2048-h100.json" << "";
    QTest::newRow("worked example B") << "70b-512-gpu.json" << "";
    QTest::newRow("uneven, auto DP, per-GPU MTBF")
        << "70b-2048-h100.json"
        << "layout.stage_layers=[19,21,21,19] layout.dp=auto cluster.mtbf_hours_per_node=null cluster.mtbf_hours_per_gpu=8000.5";
    QTest::newRow("bandwidth checkpoint, tokens batch")
        << "70b-512-gpu.json"
        << "reliability.checkpoint_write_seconds=null reliability.checkpoint_write_gb_per_s_per_gpu=2.5 training.buffer_gb=3.3";
    // Notes were read and then dropped, so saving lost them.
    QTest::newRow("notes are kept") << "70b-2048-h100.json" << "notes=ask_infra_about_spare_nodes";
}

void TestPlanIO::roundTripIsExact()
{
    QFETCH(QString, example);
    QFETCH(QString, overrides);
    const auto plan = planWith(example.toStdString(), toStd(splitOverrides(overrides)));
    const json first = trainplan::planToJson(plan);
    const auto again = trainplan::planFromJson(first);
    QCOMPARE(QString::fromStdString(trainplan::planToJson(again).dump()), QString::fromStdString(first.dump()));
    if (overrides.startsWith("notes="))
        QCOMPARE(QString::fromStdString(again.notes), overrides.mid(6));
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

void TestPlanIO::emptyStageLayersIsTheEvenSplit()
{
    // An empty list reads as the even split, like an absent field (the reader rejected it).
    const auto plan = planWith("70b-2048-h100.json", {"layout.stage_layers=[]"});
    QVERIFY(plan.layout.stageLayers.empty());
    QCOMPARE(plan.layout.pp, 4);
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

namespace {

std::string dataPlan(const std::string& name)
{
    return std::string(TRAINPLAN_SOURCE_DIR) + "/tests/data/plans/" + name;
}

std::string fileText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The problem at `path` whose message contains `fragment`, or a description of what was seen.
QString expectProblem(const std::function<void()>& read, const QString& path, const QString& fragment)
{
    try {
        read();
    } catch (const trainplan::PlanError& e) {
        QStringList seen;
        for (const auto& p : e.problems()) {
            if (QString::fromStdString(p.path) == path && QString::fromStdString(p.message).contains(fragment))
                return {};
            seen << QString::fromStdString(p.path + ": " + p.message);
        }
        return "expected " + path + " ~ " + fragment + "; got " + seen.join(" | ");
    } catch (const std::exception& e) {
        return QString("expected a PlanError, got ") + e.what();
    }
    return "the input was accepted";
}

// What a message shows of bytes that are not UTF-8: printable ASCII as is, the rest as '?'.
QString printableBytes(const std::string& bytes)
{
    QString out;
    for (unsigned char c : bytes)
        out += (c >= 0x20 && c < 0x7F) ? QChar(c) : QChar('?');
    return out;
}

}  // namespace

// docs/plan-format.md's field table is generated from PlanFields; regenerate it when a field
// changes (the expected text is printed on failure).
void TestPlanIO::fieldTableMatchesTheDocs()
{
    const std::string doc = fileText(std::string(TRAINPLAN_SOURCE_DIR) + "/docs/plan-format.md");
    const std::string begin = "<!-- plan-fields:begin -->\n", end = "<!-- plan-fields:end -->";
    const auto b = doc.find(begin), e = doc.find(end);
    QVERIFY2(b != std::string::npos && e != std::string::npos && b < e, "docs/plan-format.md has no plan-fields markers");
    const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
    const std::string expected = trainplan::planFieldsMarkdownTable();
    QVERIFY2(table == expected,
        qPrintable("docs/plan-format.md's field table is out of date; it should be:\n" + QString::fromStdString(expected)));
    // And, read back as a table, every row names a field with the table's default.
    int rows = 0;
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| `", 0) != 0)
            continue;
        const auto pathEnd = line.find('`', 3);
        const std::string path = line.substr(3, pathEnd - 3);
        const trainplan::PlanField* f = trainplan::findPlanField(path);
        QVERIFY2(f, path.c_str());
        QStringList cells = QString::fromStdString(line).split(" | ");
        QVERIFY(cells.size() >= 5);
        const QString def = cells[3];
        if (f->required)
            QVERIFY2(def.startsWith("required"), path.c_str());
        else if (!f->defaultValue.empty())
            QVERIFY2(def.startsWith("`" + QString::fromUtf8(f->defaultValue.data(), int(f->defaultValue.size())) + "`"), path.c_str());
        ++rows;
    }
    QCOMPARE(rows, int(trainplan::planFields().size()));
}

void TestPlanIO::fieldTableIsConsistent()
{
    QSet<QString> paths;
    for (const auto& f : trainplan::planFields()) {
        const QString path = QString::fromUtf8(f.path.data(), int(f.path.size()));
        QVERIFY2(!paths.contains(path), qPrintable("duplicate " + path));
        paths << path;
        QVERIFY2(!f.label.empty(), qPrintable(path));
        QVERIFY2(!f.title.empty(), qPrintable(path + ": the window and the PDF call it by its title"));
        QVERIFY2(!(f.required && !f.defaultValue.empty()), qPrintable(path + ": required fields have no default"));
        if (f.type == trainplan::PlanFieldType::Integer || f.type == trainplan::PlanFieldType::Number
            || f.type == trainplan::PlanFieldType::IntegerList || f.type == trainplan::PlanFieldType::IntegerOrAuto) {
            QVERIFY2(std::isfinite(f.min) && std::isfinite(f.max) && f.min < f.max, qPrintable(path));
            QVERIFY2(f.toSi > 0, qPrintable(path));
        }
        if (f.type == trainplan::PlanFieldType::Choice)
            QVERIFY2(!f.choices.empty(), qPrintable(path));
        if (!f.alternative.empty())
            QVERIFY2(trainplan::findPlanField(f.alternative), qPrintable(path));
        // A default is valid JSON of the field's kind, within range.
        if (!f.defaultValue.empty()) {
            const json d = json::parse(f.defaultValue);
            if (d.is_number())
                QVERIFY2(d.get<double>() >= f.min && d.get<double>() <= f.max, qPrintable(path));
        }
    }
    // Every field the writer writes is in the table.
    const json written = trainplan::planToJson(planWith("70b-2048-h100.json"));
    // Nested objects ("training.reserve") name their fields by the whole path. The framework
    // section is written only when the plan sets it; it is checked by the framework's own tests.
    std::function<void(const json&, const std::string&)> walk = [&](const json& node, const std::string& prefix) {
        for (const auto& [key, value] : node.items()) {
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            if (value.is_object())
                walk(value, path);
            else
                QVERIFY2(trainplan::findPlanField(path), path.c_str());
        }
    };
    walk(written, "");
    QVERIFY_THROWS_EXCEPTION(std::logic_error, trainplan::planField("layout.nonsense"));
    QCOMPARE(QString::fromStdString(std::string(trainplan::planField("cluster.memory_gb").unit)), QString("GB"));
    QCOMPARE(trainplan::planField("cluster.memory_gb").toSi, trainplan::units::GB);
}

// An omitted optional field reads as the struct's default, so code that builds a Plan and
// code that reads one agree; and each default is the one the table documents.
void TestPlanIO::omittedFieldsReadAsStructDefaults()
{
    const trainplan::Plan plan = trainplan::loadPlanFile(dataPlan("minimal-v1.json"));
    trainplan::Plan expected;  // struct defaults, with the required fields the file gives
    expected.name = plan.name;
    expected.model.name = plan.model.name;
    expected.model.layers = plan.model.layers;
    expected.model.hiddenSize = plan.model.hiddenSize;
    expected.model.ffnHiddenSize = plan.model.ffnHiddenSize;
    expected.model.attentionHeads = plan.model.attentionHeads;
    expected.model.vocabSize = plan.model.vocabSize;
    expected.model.sequenceLength = plan.model.sequenceLength;
    expected.model.kvHeads = plan.model.attentionHeads;                            // derived default
    expected.model.headDim = plan.model.hiddenSize / plan.model.attentionHeads;   // derived default
    expected.cluster.accelerator = plan.cluster.accelerator;
    expected.cluster.gpus = plan.cluster.gpus;
    expected.cluster.gpusPerNode = plan.cluster.gpusPerNode;
    expected.cluster.memoryBytesPerGpu = plan.cluster.memoryBytesPerGpu;
    expected.cluster.peakFlopsPerGpu = plan.cluster.peakFlopsPerGpu;
    expected.cluster.intraNodeBytesPerSecond = plan.cluster.intraNodeBytesPerSecond;
    expected.cluster.interNodeBytesPerSecond = plan.cluster.interNodeBytesPerSecond;
    expected.training.tokens = plan.training.tokens;
    expected.training.globalBatchSequences = plan.training.globalBatchSequences;
    expected.training.microBatchSize = plan.training.microBatchSize;
    expected.training.mfu = plan.training.mfu;
    expected.layout.tp = plan.layout.tp;
    expected.layout.pp = plan.layout.pp;
    expected.layout.dp = plan.layout.dp;
    // Layout fields a file leaves out are unknown (Plan.h, LayoutUnknown); the struct's are known.
    expected.layout.unknownFields = trainplan::kUnknownRecompute | trainplan::kUnknownSequenceParallel | trainplan::kUnknownSchedule;
    QVERIFY2(plan == expected, qPrintable("read:    " + QString::fromStdString(trainplan::planToJson(plan).dump()) +
                                          "\nstruct:  " + QString::fromStdString(trainplan::planToJson(expected).dump())));
    // Field by field against the table's documented defaults, as written.
    const json written = trainplan::planToJson(plan);
    int checked = 0;
    for (const auto& f : trainplan::planFields()) {
        if (f.required || f.defaultValue.empty() || f.section().empty())
            continue;
        const json::json_pointer at("/" + std::string(f.section()) + "/" + std::string(f.key()));
        if (!written.contains(at))
            continue;
        QVERIFY2(written.at(at) == json::parse(f.defaultValue), std::string(f.path).c_str());
        ++checked;
    }
    QVERIFY(checked >= 15);
}

// Format version 1 is the current one; a kept version-1 file reads to the plan of its example,
// and reading never writes: the file's bytes and time stamp are unchanged.
// The reader and the writer look every field up in the table (planField): a row deleted from it
// (hidden here by the test-only PlanFieldHiddenForTest) makes reading any plan, and writing any
// plan that has the field, throw std::logic_error naming the path.
void TestPlanIO::deletingAnyRowBreaksTheReaderAndTheWriter()
{
    // Two plans that between them take every branch of the writer: notes, an FP8 peak, MTBF per
    // node and per GPU, a checkpoint time and a bandwidth, layers per stage, DP as "auto" and as a
    // number, and every framework switch.
    const auto full = [](std::vector<std::string> overrides) {
        for (const char* o : {"notes=kept", "cost.price_per_gpu_hour_usd=2.5", "cost.gpu_power_watts=650", "cost.grid_kg_co2e_per_kwh=0.4", "cluster.peak_fp8_tflops=1979", "cluster.peak_fp4_tflops=3958", "cluster.nvlink_domain=16", "layout.stage_layers=[19,21,21,19]", "layout.recompute=full",
                 "layout.recompute_layers=2", "framework.profile=megatron-core-2024", "framework.tp_comm_overlap=true",
                 "framework.overlap_grad_reduce=true", "framework.overlap_param_gather=true", "framework.fused_kernels=true",
                 "framework.cuda_graphs=false", "framework.dropout=false", "framework.fp32_gradients=true", "framework.flash_attention=3",
                 "framework.optimizer=fused", "framework.gradient_accumulation=fused", "framework.selective_recompute=core-attention",
                 "framework.zero3_gathering=submodule", "framework.moe_dispatcher=deepep", "framework.moe_grouped_gemm=true",
                 "framework.moe_comm_overlap=false",
                 R"(model.moe={"experts":8,"top_k":2,"expert_ffn_hidden_size":7168,"shared_experts":1,"shared_expert_ffn_hidden_size":4096,)"
                 R"("dense_layers":0,"layer_step":2,"router_bias":true,"max_nodes_per_token":4,"capacity_factor":1.25,"load_imbalance":1.2})",
                 R"(model.mla={"q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128})",
                 "model.mtp_layers=1", "layout.ep=8", "layout.etp=2",
                 R"(cluster.calibration={"source":"train.log","accelerator":"H100 SXM 80GB","framework":"Megatron-LM core_r0.12",)"
                 R"("date":"2026-12-05","measured_layout":"TP 8, PP 4","measured_step_seconds":6.5,"fitted":"cluster.efficiency.matmul_fraction"})",
                 R"(cluster.efficiency={"matmul_fraction":0.7,"sm_count":132,"gemm_tile_m":128,"gemm_tile_n":256,"gemm_k_half":512,)"
                 R"("flash_attention_fraction":0.5,"flash_attention_3_fraction":0.7,"hbm_bandwidth_gb_per_s":3350,"hbm_fraction":0.8,)"
                 R"("scale_up_collective_fraction":0.8,"network_collective_fraction":0.85,"kernel_overhead_us":20,"kernel_launch_us":4,)"
                 R"("scale_up_step_latency_us":3,"network_step_latency_us":8})",
                 R"(model.layer_kinds=[{"name":"first","layers":40},{"layers":40,"ffn_hidden_size":14336,"moe":true}])"})
            overrides.push_back(o);
        return planWith("70b-2048-h100.json", overrides);
    };
    const std::vector<trainplan::Plan> plans = {full({"layout.dp=auto"}),
        full({"cluster.mtbf_hours_per_node=null", "cluster.mtbf_hours_per_gpu=8000", "reliability.checkpoint_write_seconds=null",
            "reliability.checkpoint_write_gb_per_s_per_gpu=2"})};
    const json file = readJsonFile(examplePath("70b-2048-h100.json"));
    // Every path some plan's file has.
    std::set<std::string> written;
    std::function<void(const json&, const std::string&)> walk = [&](const json& node, const std::string& prefix) {
        for (const auto& [key, value] : node.items()) {
            const std::string path = prefix.empty() ? key : prefix + "." + key;
            if (value.is_object()) {
                walk(value, path);
            } else {
                written.insert(path);
                // An array of objects (model.layer_kinds): each element's fields by the array's path.
                if (value.is_array())
                    for (const auto& element : value)
                        if (element.is_object())
                            walk(element, path);
            }
        }
    };
    for (const auto& plan : plans)
        walk(trainplan::planToJson(plan), "");
    std::vector<std::string> paths;
    for (const auto& f : trainplan::planFields())
        paths.emplace_back(f.path);
    std::set<std::string> neverWritten;
    for (const std::string& path : paths) {
        const trainplan::PlanFieldHiddenForTest hidden(path);
        QVERIFY(!trainplan::findPlanField(path));
        try {
            trainplan::planFromJson(file);
            QFAIL(qPrintable("the reader read a plan without the row of " + QString::fromStdString(path)));
        } catch (const std::logic_error& e) {
            QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
        }
        if (!written.count(path)) {
            neverWritten.insert(path);
            continue;
        }
        int broken = 0;
        for (const auto& plan : plans) {
            try {
                trainplan::planToJson(plan);
            } catch (const std::logic_error& e) {
                QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
                ++broken;
            }
        }
        QVERIFY2(broken > 0, qPrintable("the writer wrote " + QString::fromStdString(path) + " without its row"));
    }
    // Only what the reader accepts instead of another field is never written: the batch in
    // tokens (written as sequences) and "dp_auto" (written as "dp": "auto").
    QCOMPARE(neverWritten, (std::set<std::string>{"layout.dp_auto", "training.global_batch_tokens"}));
    // With every row back, both work again.
    QCOMPARE(trainplan::planFromJson(trainplan::planToJson(plans[1])), plans[1]);
}

void TestPlanIO::versionOneFileReadsToTheSamePlan()
{
    const std::string path = dataPlan("v1-example-a.json");
    const std::string before = fileText(path);
    struct stat st0, st1;
    QCOMPARE(::stat(path.c_str(), &st0), 0);
    trainplan::Plan kept = trainplan::loadPlanFile(path);
    trainplan::Plan example = planWith("70b-2048-h100.json");
    kept.name = example.name;
    kept.nameUserSet = example.nameUserSet;  // the examples' names follow what they plan since issue 23
    kept.notes = example.notes;  // the kept file says what it is
    // The example's capacity became the H100's CUDA-visible memory (85.03 GB) after this file was
    // kept; everything else reads the same.
    QCOMPARE(kept.cluster.memoryBytesPerGpu, 80e9);
    kept.cluster.memoryBytesPerGpu = example.cluster.memoryBytesPerGpu;
    QVERIFY(kept == example);
    QCOMPARE(::stat(path.c_str(), &st1), 0);
    QCOMPARE(fileText(path), before);
    QCOMPARE(st1.st_mtim.tv_sec, st0.st_mtim.tv_sec);
    QCOMPARE(st1.st_mtim.tv_nsec, st0.st_mtim.tv_nsec);
    // A newer version is refused with a clear message.
    json doc = json::parse(before);
    doc["version"] = trainplan::kPlanVersion + 1;
    QVERIFY2(expectProblem([&] { trainplan::planFromJson(doc); }, "version", "newer than this TrainPlan reads").isEmpty(), "newer version");
}

void TestPlanIO::numberOutsideDoubleRangeNamesTheField()
{
    std::string text = fileText(examplePath("70b-2048-h100.json"));
    const auto at = text.find("1.4e12");
    QVERIFY(at != std::string::npos);
    text.replace(at, 6, "1e400");
    QString r = expectProblem([&] { trainplan::planFromText(text); }, "training.tokens", "outside the range of a double");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    r = expectProblem([&] { trainplan::planFromText(text); }, "training.tokens", "line 34");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // Inside an array, and negative.
    r = expectProblem(
        [] { trainplan::planFromText(R"({"layout": {"stage_layers": [1, 2, -1e999]}})"); }, "layout.stage_layers[2]", "outside the range");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    r = expectProblem([&] { trainplan::applyOverride(doc, "training.tokens=1e400"); }, "training.tokens", "outside the range of a double");
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

// ~70,000 levels (140 KB) would overflow the stack of anything walking the document
// recursively; the reader stops at kMaxJsonDepth.
void TestPlanIO::deepNestingIsRefused()
{
    const std::string deep = std::string(70000, '[') + std::string(70000, ']');
    QString r = expectProblem([&] { trainplan::planFromText(deep); }, QString("[0]").repeated(64), "nests deeper than 64 levels");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    const std::string inPlan = R"({"format": "trainplan.plan", "notes": )" + deep + "}";
    r = expectProblem([&] { trainplan::planFromText(inPlan); }, "notes" + QString("[0]").repeated(63), "nests deeper");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    r = expectProblem([&] { trainplan::applyOverride(doc, "layout.stage_layers=" + deep); }, "layout.stage_layers", "nests deeper");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // A path of 35,000 keys would build a document as deep.
    std::string longPath = "a";
    for (int i = 0; i < 35000; ++i)
        longPath += ".a";
    r = expectProblem([&] { trainplan::applyOverride(doc, longPath + "=1"); }, QString::fromStdString(longPath), "not a valid field path");
    QVERIFY2(r.isEmpty(), qPrintable(r.left(200)));
    // 64 levels is still fine.
    QVERIFY(trainplan::parseJsonBounded(std::string(64, '[') + std::string(64, ']'), "test").is_array());
}

void TestPlanIO::overrideRejectsBytesThatAreNotUtf8()
{
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    for (const std::string& bad : {std::string("\xff"), std::string("\xc3("), std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80"),
             std::string("\xc0\xaf")}) {
        const QString r = expectProblem([&] { trainplan::applyOverride(doc, "name=" + bad); }, "name", "not valid UTF-8");
        QVERIFY2(r.isEmpty(), qPrintable(r));
        const QString r2 = expectProblem([&] { trainplan::applyOverride(doc, "model.name" + bad + "=x"); },
            "model.name" + printableBytes(bad), "path is not valid UTF-8");
        QVERIFY2(r2.isEmpty(), qPrintable(r2));
    }
    trainplan::applyOverride(doc, "name=Grüße 🚀");
    QCOMPARE(QString::fromStdString(doc["name"].get<std::string>()), QString::fromUtf8("Grüße 🚀"));
    QVERIFY(trainplan::isValidUtf8("plain"));
    QVERIFY(!trainplan::isValidUtf8("\xe2\x82"));  // truncated
}

void TestPlanIO::layoutProductCannotOverflow()
{
    // Each factor is within its own bound; the product (1e28) is not, and is not computed.
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    for (const char* a : {"layout.tp=10000000", "layout.pp=10000000", "layout.dp=10000000", "layout.cp=10000000", "model.layers=10000"})
        trainplan::applyOverride(doc, a);
    QString r = expectProblem([&] { trainplan::planFromJson(doc); }, "layout", "more than 10000000 GPUs");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    trainplan::applyOverride(doc, "layout.dp=auto");
    r = expectProblem([&] { trainplan::planFromJson(doc); }, "layout.dp", "does not divide");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // Batch x sequence: tokens per step within bound.
    doc = readJsonFile(examplePath("70b-2048-h100.json"));
    trainplan::applyOverride(doc, "training.global_batch_sequences=1000000000");
    trainplan::applyOverride(doc, "model.sequence_length=10000000");
    r = expectProblem([&] { trainplan::planFromJson(doc); }, "training.global_batch_sequences", "tokens per step");
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

void TestPlanIO::physicallyImplausibleInputsAreRejected_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("MTBF 1e-308 h") << "cluster.mtbf_hours_per_node=1e-308" << "cluster.mtbf_hours_per_node" << "at least 0.1 hours";
    QTest::newRow("MTBF per GPU tiny") << "cluster.mtbf_hours_per_node=null cluster.mtbf_hours_per_gpu=1e-5"
                                       << "cluster.mtbf_hours_per_gpu"
                                       << "physically implausible";
    QTest::newRow("MTBF huge") << "cluster.mtbf_hours_per_node=1e300" << "cluster.mtbf_hours_per_node" << "at most";
    QTest::newRow("memory 1 byte") << "cluster.memory_gb=1e-9" << "cluster.memory_gb" << "at least 0.1 GB";
    QTest::newRow("peak tiny") << "cluster.peak_bf16_tflops=1e-300" << "cluster.peak_bf16_tflops" << "physically implausible";
    QTest::newRow("peak huge") << "cluster.peak_bf16_tflops=1e300" << "cluster.peak_bf16_tflops" << "at most";
    QTest::newRow("intra bandwidth tiny") << "cluster.intra_node_bandwidth_gb_per_s=1e-300"
                                          << "cluster.intra_node_bandwidth_gb_per_s"
                                          << "at least";
    QTest::newRow("inter bandwidth huge") << "cluster.inter_node_bandwidth_gb_per_s=1e300"
                                          << "cluster.inter_node_bandwidth_gb_per_s"
                                          << "at most";
    QTest::newRow("tokens huge") << "training.tokens=1e300" << "training.tokens" << "at most";
    QTest::newRow("tokens tiny") << "training.tokens=1e-300" << "training.tokens" << "at least 1";
    QTest::newRow("MFU tiny") << "training.mfu=1e-300" << "training.mfu" << "at least";
    QTest::newRow("checkpoint seconds tiny") << "reliability.checkpoint_write_seconds=1e-300"
                                             << "reliability.checkpoint_write_seconds"
                                             << "at least";
    QTest::newRow("checkpoint bandwidth huge")
        << "reliability.checkpoint_write_seconds=null reliability.checkpoint_write_gb_per_s_per_gpu=1e300"
        << "reliability.checkpoint_write_gb_per_s_per_gpu"
        << "at most";
    QTest::newRow("restart huge") << "reliability.restart_seconds=1e300" << "reliability.restart_seconds" << "at most";
    QTest::newRow("buffer huge") << "training.buffer_gb=1e300" << "training.buffer_gb" << "at most";
    QTest::newRow("sequence huge") << "model.sequence_length=1e12" << "model.sequence_length" << "implausibly large";
    QTest::newRow("layers huge") << "model.layers=1000000" << "model.layers" << "implausibly large";
}

void TestPlanIO::physicallyImplausibleInputsAreRejected()
{
    QFETCH(QString, assignment);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    const QString r = expectProblem([&] { planWith("70b-2048-h100.json", toStd(splitOverrides(assignment))); }, path, fragment);
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

void TestPlanIO::unreadableFileIsAPlanError()
{
    QString r = expectProblem([] { trainplan::loadPlanFile("/nonexistent/plan.json"); }, "", "No such file or directory");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    QTemporaryDir dir;
    r = expectProblem([&] { trainplan::loadPlanFile(dir.path().toStdString()); }, "", "is a folder, not a file");
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

// A key given twice in one object used to keep the last value silently; it is refused with
// the key's path and where its second appearance starts, in a plan, in any text read
// through parseJsonBounded and in a --set value.
void TestPlanIO::duplicateKeysAreRefused_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("where");
    QTest::newRow("top level") << QByteArray(R"({"format": "trainplan.plan", "version": 1, "version": 2})") << "version"
                               << "line 1, column 44";
    QTest::newRow("same value twice") << QByteArray("{\n  \"notes\": \"x\",\n  \"notes\": \"x\"\n}") << "notes" << "line 3, column 3";
    QTest::newRow("nested") << QByteArray(R"({"model": {"layers": 80, "hidden_size": 8192, "layers": 40}})") << "model.layers"
                            << "line 1, column 47";
    QTest::newRow("spelt with an escape") << QByteArray(R"({"model": {"name": "a", "n\u0061me": "b"}})") << "model.name"
                                          << "line 1, column 25";
    QTest::newRow("object in an array") << QByteArray(R"({"layout": {"stage_layers": [1, {"a": 1, "a": 2}]}})")
                                        << "layout.stage_layers[1].a"
                                        << "line 1, column 42";
    QTest::newRow("empty key") << QByteArray(R"({"": 1, "": 2})") << "" << "line 1, column 9";
    QTest::newRow("after a nested object") << QByteArray(R"({"training": {"reserve": {"nccl_channels": 2}, "reserve": {}}})")
                                           << "training.reserve"
                                           << "line 1, column 48";
}

void TestPlanIO::duplicateKeysAreRefused()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, path);
    QFETCH(QString, where);
    const std::string t = text.toStdString();
    QString r = expectProblem([&] { trainplan::planFromText(t); }, path, "appears twice");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    r = expectProblem([&] { trainplan::parseJsonBounded(t, "test.json"); }, path, "test.json " + where);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    const auto parsed = trainplan::tryParseJsonBounded(t, "test.json");
    QVERIFY(parsed.status != trainplan::BoundedJsonResult::Status::Ok);
    QCOMPARE(QString::fromStdString(parsed.path), path);
}

void TestPlanIO::duplicateKeysInASetValueAreRefused()
{
    json doc = readJsonFile(examplePath("70b-2048-h100.json"));
    const QString r = expectProblem(
        [&] { trainplan::applyOverride(doc, R"(layout.stage_layers={"a": 1, "a": 2})"); }, "layout.stage_layers", "\"a\" appears twice");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // The same key in two objects is no duplicate.
    const json j = trainplan::parseJsonBounded(R"({"a": {"x": 1}, "b": {"x": [{"x": 2}]}, "x": 3})", "test");
    QCOMPARE(j["b"]["x"][0]["x"].get<int>(), 2);
}

void TestPlanIO::invalidUtf8InAKeyNamesItsObject_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("first key of a section") << QByteArray("{\"model\": {\"\xffname\": \"x\"}}") << "model"
                                            << "line 1, column 12: a key in model is not valid UTF-8";
    QTest::newRow("key after another") << QByteArray("{\"model\": {\"name\": \"x\",\n  \"lay\xc3(ers\": 80}}") << "model"
                                       << "line 2, column 3: a key in model is not valid UTF-8";
    QTest::newRow("top level") << QByteArray("{\"format\": \"trainplan.plan\", \"\xed\xa0\x80\": 1}") << ""
                               << "line 1, column 30: a key at the top level is not valid UTF-8";
    QTest::newRow("object in an array") << QByteArray("{\"layout\": {\"stage_layers\": [{\"ok\": 1, \"b\xf4\x90\x80\x80\": 2}]}}")
                                        << "layout.stage_layers[0]" << "a key in layout.stage_layers[0] is not valid UTF-8";
    QTest::newRow("escaped quote before it") << QByteArray("{\"notes\": {\"a\": 1, \"x\\\"\xc0\xaf\": 2}}") << "notes"
                                             << "line 1, column 20: a key in notes is not valid UTF-8";
    // A value that is not UTF-8 is named by its own key, as before.
    QTest::newRow("value") << QByteArray("{\"model\": {\"name\": \"\xff\"}}") << "model.name" << "ill-formed UTF-8";
}

void TestPlanIO::invalidUtf8InAKeyNamesItsObject()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    const std::string t = text.toStdString();
    QString r = expectProblem([&] { trainplan::planFromText(t); }, path, fragment);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // The message itself is text a person or a script can read: no stray bytes copied in.
    const auto parsed = trainplan::tryParseJsonBounded(t, "the plan");
    QCOMPARE(int(parsed.status), int(trainplan::BoundedJsonResult::Status::SyntaxError));
    QVERIFY2(trainplan::isValidUtf8(parsed.message), qPrintable(printableBytes(parsed.message)));
}

// Free text is bounded (a 15 MB name cost 36 s and 1 GB in the PDF export); a longer one is
// refused by the reader and by --set, naming the field and the limit, never cut short.
void TestPlanIO::freeTextFieldsAreBounded_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("limit");
    QTest::newRow("name") << "name" << 200;
    QTest::newRow("model.name") << "model.name" << 200;
    QTest::newRow("cluster.accelerator") << "cluster.accelerator" << 200;
    QTest::newRow("framework.profile") << "framework.profile" << 200;
    QTest::newRow("notes") << "notes" << 10000;
}

void TestPlanIO::freeTextFieldsAreBounded()
{
    QFETCH(QString, path);
    QFETCH(int, limit);
    const std::string p = path.toStdString();
    const json example = readJsonFile(examplePath("70b-2048-h100.json"));
    const json::json_pointer at("/" + QString(path).replace('.', '/').toStdString());
    const QString tooLong = "at most " + QString::number(limit) + " characters";
    const auto withText = [&](const std::string& text) {
        json doc = example;
        doc[at] = text;
        return doc;
    };
    // One past the limit, in the file and through --set.
    const std::string over(size_t(limit) + 1, 'x');
    QString r = expectProblem([&] { trainplan::planFromJson(withText(over)); }, path, tooLong);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    r = expectProblem([&] { trainplan::planFromText(withText(over).dump()); }, path, tooLong);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    r = expectProblem(
        [&] {
            json doc = example;
            trainplan::applyOverride(doc, p + "=" + over);
            trainplan::planFromJson(doc);
        },
        path, tooLong);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // 15 MB, as the report that found it.
    r = expectProblem([&] { trainplan::planFromText(withText(std::string(15'000'000, 'n')).dump()); }, path, tooLong);
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // The limit counts characters, not bytes: `limit` two-byte characters are fine (a profile
    // must also be a known one, so for it only the length is checked).
    std::string atLimit;
    for (int i = 0; i < limit; ++i)
        atLimit += "\xc3\xa9";  // é
    const auto accepted = [&](const json& doc) {
        try {
            trainplan::planFromJson(doc);
        } catch (const trainplan::PlanError& e) {
            for (const auto& problem : e.problems())
                if (problem.message.find("characters") != std::string::npos)
                    return false;
        }
        return true;
    };
    QVERIFY(accepted(withText(atLimit)));
    QVERIFY(!accepted(withText(atLimit + "\xc3\xa9")));
    json doc = example;
    trainplan::applyOverride(doc, p + "=" + atLimit);
    QVERIFY(accepted(doc));
    if (path == "name") {
        json typed = withText(atLimit);
        typed["name_user_set"] = true;  // the example's own name is generated
        const auto plan = trainplan::planFromJson(typed);
        QCOMPARE(plan.name, atLimit);  // kept whole, as typed
    }
}

QTEST_GUILESS_MAIN(TestPlanIO)
#include "tst_planio.moc"
