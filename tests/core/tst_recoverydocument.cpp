// The recovery file (planfile/RecoveryDocument.h): what is written reads back to the same plan, and a
// damaged or hostile file is a PlanError naming the field, never a crash.
#include <QtTest>

#include <functional>

#include "core/base/BoundedJson.h"
#include "core/planfile/RecoveryDocument.h"

#include "TestSupport.h"

using namespace testsupport;
using nlohmann::json;

namespace {

// Empty when `read` throws a PlanError with a problem at `path` whose message holds `fragment`;
// otherwise what happened instead.
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
        return "expected " + path + " ~ " + fragment + "; got " + seen.join(" | ").left(400);
    } catch (const std::exception& e) {
        return QString("expected a PlanError, got ") + e.what();
    }
    return "the input was accepted";
}

// A valid recovery document of worked example A, to damage one key at a time.
json validDocument()
{
    return json::parse(trainplan::recoveryDocumentToText(planWith("70b-2048-h100.json"), "/home/me/70b.json", "2024-05-01T12:00:00Z"));
}

}  // namespace

class TestRecoveryDocument : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void deepNestingIsRejected();
    void wrongDocumentIsRejected_data();
    void wrongDocumentIsRejected();
    void badPlanNamesThePlanField_data();
    void badPlanNamesThePlanField();
    void writerRefusesWhatWouldNotReadBack();
};

void TestRecoveryDocument::roundTrip_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("originalPath");
    QTest::addColumn<QString>("savedAt");
    QTest::newRow("example A, saved file") << "70b-2048-h100.json" << QStringList{} << "/home/me/plans/70b.json" << "2024-05-01T12:00:00Z";
    QTest::newRow("example B, new plan") << "70b-512-gpu.json" << QStringList{} << "" << "2023-12-31T23:59:59Z";
    QTest::newRow("unicode name and path, offset")
        << "70b-2048-h100.json" << QStringList{"name=Grüße 🚀 \"quoted\" \\ run", "layout.tp=4", "layout.dp=auto"}
        << "/tmp/Plän €/a \"b\".json"
        << "2024-02-29T08:30:00.123+02:00";
    QTest::newRow("unknown fields stay unknown")
        << "70b-2048-h100.json" << QStringList{"layout.recompute=null", "layout.sequence_parallel=null"} << "x.json"
        << "2024-05-01T12:00:00";
}

void TestRecoveryDocument::roundTrip()
{
    QFETCH(QString, example);
    QFETCH(QStringList, overrides);
    QFETCH(QString, originalPath);
    QFETCH(QString, savedAt);
    std::vector<std::string> sets;
    for (const QString& o : overrides)
        sets.push_back(o.toStdString());
    const trainplan::Plan plan = planWith(example.toStdString(), sets);
    const std::string text = trainplan::recoveryDocumentToText(plan, originalPath.toStdString(), savedAt.toStdString());
    QVERIFY(text.ends_with("\n"));
    const json written = json::parse(text);
    QCOMPARE(QString::fromStdString(written.at("format").get<std::string>()), QString("trainplan.recovery"));
    QCOMPARE(written.at("version").get<int>(), 1);

    const trainplan::RecoveryDocument read = trainplan::parseRecoveryDocument(text);
    QCOMPARE(QString::fromStdString(read.originalPath), originalPath);
    QCOMPARE(QString::fromStdString(read.savedAt), savedAt);
    QVERIFY(read.plan == plan);
    // Written again, the same bytes.
    QCOMPARE(QString::fromStdString(trainplan::recoveryDocumentToText(read.plan, read.originalPath, read.savedAt)),
        QString::fromStdString(text));
}

// 100,000 levels would exhaust the stack of a recursive parser (issue 20: a crash at every start);
// the bounded reader stops at kMaxJsonDepth with a message.
void TestRecoveryDocument::deepNestingIsRejected()
{
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    QString r = expectProblem([&] { trainplan::parseRecoveryDocument(deep); }, QString("[0]").repeated(64), "nests deeper than 64 levels");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // Unclosed, as a file cut short would be.
    r = expectProblem([&] { trainplan::parseRecoveryDocument(std::string(100000, '[')); }, QString("[0]").repeated(64), "nests deeper");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    // Inside the plan, where the plan reader would otherwise walk it.
    json doc = validDocument();
    doc["plan"]["notes"] = "DEEP";
    std::string nested;
    for (int i = 0; i < 100000; ++i)
        nested += "{\"a\":";
    nested += "1" + std::string(100000, '}');
    std::string inPlan = doc.dump();
    inPlan.replace(inPlan.find("\"DEEP\""), 6, nested);
    r = expectProblem(
        [&] { trainplan::parseRecoveryDocument(inPlan); }, "plan.notes" + QString(".a").repeated(62), "nests deeper than 64 levels");
    QVERIFY2(r.isEmpty(), qPrintable(r.left(300)));
}

void TestRecoveryDocument::wrongDocumentIsRejected_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment");
    const auto with = [](const std::function<void(json&)>& edit) {
        json doc = validDocument();
        edit(doc);
        return QByteArray::fromStdString(doc.dump());
    };
    QTest::newRow("empty file") << QByteArray() << "" << "not valid JSON";
    // A syntax error names where the reader was.
    QTest::newRow("cut short") << QByteArray(R"({"format": "trainplan.recovery", "version": 1, "plan": {"model": )") << "plan.model"
                               << "not valid JSON";
    QTest::newRow("not JSON") << QByteArray("session of 12 May") << "" << "not valid JSON";
    QTest::newRow("an array") << QByteArray("[1, 2]") << "" << "must be a JSON object";
    QTest::newRow("a plan file") << QByteArray::fromStdString(trainplan::planToText(planWith("70b-2048-h100.json"))) << "format"
                                 << "must be \"trainplan.recovery\"";
    QTest::newRow("format missing") << with([](json& d) { d.erase("format"); }) << "format" << "is missing";
    QTest::newRow("format wrong") << with([](json& d) { d["format"] = "trainplan.recover"; }) << "format"
                                  << "not a TrainPlan recovery file";
    QTest::newRow("format a number") << with([](json& d) { d["format"] = 1; }) << "format" << "got 1";
    QTest::newRow("version missing") << with([](json& d) { d.erase("version"); }) << "version" << "is missing";
    QTest::newRow("version newer") << with([](json& d) { d["version"] = 2; }) << "version" << "newer than this TrainPlan reads";
    QTest::newRow("version huge") << with([](json& d) { d["version"] = 18446744073709551615ull; }) << "version" << "newer";
    QTest::newRow("version zero") << with([](json& d) { d["version"] = 0; }) << "version" << "must be 1";
    QTest::newRow("version text") << with([](json& d) { d["version"] = "1"; }) << "version" << "whole number";
    QTest::newRow("version fraction") << with([](json& d) { d["version"] = 1.5; }) << "version" << "whole number";
    QTest::newRow("original_path missing") << with([](json& d) { d.erase("original_path"); }) << "original_path" << "is missing";
    QTest::newRow("original_path a number") << with([](json& d) { d["original_path"] = 3; }) << "original_path" << "must be a string";
    QTest::newRow("saved_at missing") << with([](json& d) { d.erase("saved_at"); }) << "saved_at" << "is missing";
    QTest::newRow("saved_at null") << with([](json& d) { d["saved_at"] = nullptr; }) << "saved_at" << "must be a string";
    QTest::newRow("saved_at not a date") << with([](json& d) { d["saved_at"] = "yesterday"; }) << "saved_at" << "ISO 8601";
    QTest::newRow("saved_at 30 February") << with([](json& d) { d["saved_at"] = "2024-02-30T10:00:00Z"; }) << "saved_at" << "ISO 8601";
    QTest::newRow("plan missing") << with([](json& d) { d.erase("plan"); }) << "plan" << "is missing";
    QTest::newRow("plan a string") << with([](json& d) { d["plan"] = "70b.json"; }) << "plan" << "must be an object";
    QTest::newRow("unknown key") << with([](json& d) { d["saved_by"] = "me"; }) << "saved_by" << "not a known field";
    QTest::newRow("number out of range") << QByteArray(R"({"format": "trainplan.recovery", "version": 1e400})") << "version"
                                         << "outside the range";
    QTest::newRow("invalid UTF-8") << QByteArray("{\"format\": \"trainplan.recovery\", \"original_path\": \"\xff\"}") << "original_path"
                                   << "not valid JSON";
}

void TestRecoveryDocument::wrongDocumentIsRejected()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    const QString r = expectProblem([&] { trainplan::parseRecoveryDocument(bytes.toStdString()); }, path, fragment);
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

void TestRecoveryDocument::badPlanNamesThePlanField_data()
{
    QTest::addColumn<QString>("assignment");  // applied to the recovery document's plan
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("zero TP") << "layout.tp=0" << "plan.layout.tp" << "at least 1";
    QTest::newRow("typo in key") << "model.hiden_size=8192" << "plan.model.hiden_size" << "did you mean \"hidden_size\"";
    QTest::newRow("tokens missing") << "training.tokens=null" << "plan.training.tokens" << "is missing";
    QTest::newRow("stage split") << "layout.stage_layers=[1,2,3]" << "plan.layout.stage_layers" << "";
    QTest::newRow("a newer plan") << "version=99" << "plan.version" << "newer than this TrainPlan reads";
    QTest::newRow("model not an object") << "model=7" << "plan.model" << "must be an object";
}

void TestRecoveryDocument::badPlanNamesThePlanField()
{
    QFETCH(QString, assignment);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    json doc = validDocument();
    trainplan::applyOverride(doc["plan"], assignment.toStdString());
    const QString r = expectProblem([&] { trainplan::parseRecoveryDocument(doc.dump(2)); }, path, fragment);
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

void TestRecoveryDocument::writerRefusesWhatWouldNotReadBack()
{
    const trainplan::Plan plan = planWith("70b-2048-h100.json");
    QString r = expectProblem(
        [&] { trainplan::recoveryDocumentToText(plan, "/tmp/\xff.json", "2024-05-01T12:00:00Z"); }, "original_path", "not valid UTF-8");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    r = expectProblem([&] { trainplan::recoveryDocumentToText(plan, "", "12 May"); }, "saved_at", "ISO 8601");
    QVERIFY2(r.isEmpty(), qPrintable(r));
    trainplan::Plan badName = plan;
    badName.name = "run \xc3(";
    r = expectProblem([&] { trainplan::recoveryDocumentToText(badName, "", "2024-05-01T12:00:00Z"); }, "plan", "not valid UTF-8");
    QVERIFY2(r.isEmpty(), qPrintable(r));
}

QTEST_GUILESS_MAIN(TestRecoveryDocument)
#include "tst_recoverydocument.moc"
