// trainplan-cli as scripts use it: exit codes, JSON on stdout, messages naming fields.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QDir>
#include <QProcess>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "../RunTool.h"

#include "core/planfile/PlanFile.h"

class TestCli : public QObject {
    Q_OBJECT

private:
    struct Run {
        int exitCode;
        QByteArray out, err;
    };
    Run run(const QStringList& args, const QByteArray& input = {})
    {
        QProcess p;
        p.start(TRAINPLAN_CLI_PATH, args);
        p.write(input);
        p.closeWriteChannel();
        p.waitForFinished(30000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
    }
    QString example(const char* name) { return QString(TRAINPLAN_SOURCE_DIR) + "/examples/" + name; }

private slots:
    void helpAndVersion();
    void hardwareExamplesRunEveryVerb_data();
    void hardwareExamplesRunEveryVerb();
    void textReport();
    void jsonReport();
    void setOverrides();
    void invalidInput_data();
    void invalidInput();
    void unreadablePlanIsInvalidInput();
    void hostileInput_data();
    void hostileInput();
    void setWithBytesThatAreNotUtf8();
    void markdownExportIsAtomicAndNamesFailures();
    void readsStdin();
    void fieldsListsEveryPath();
    void scheduleVerb();
    void searchVerb();
    void searchGroupsLayoutsWithTheSameFigures();
    void searchRedFlagsOption();
    void redFlagsExitThree_data();
    void redFlagsExitThree();
    void jsonCarriesResolvedValues();
    void presetsVerb();
    void presetOptions_data();
    void presetOptions();
    void unknownOrAmbiguousPreset_data();
    void unknownOrAmbiguousPreset();
    void acceleratorLabelMismatchIsFlagged();
    void importVerb();
    void calibrateVerb();
    void compareVerb();
    void clusterProfiles();
    void sizeVerb();
};

void TestCli::helpAndVersion()
{
    auto r = run({"--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("trainplan-cli estimate PLAN.json"));
    r = run({"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("trainplan-cli "));
}

void TestCli::hardwareExamplesRunEveryVerb_data()
{
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("accelerator");
    QTest::newRow("GB200 NVL72, 512 GPUs") << "deepseek-v3-512-gb200-nvl72.json" << "GB200 NVL72 186GB";
    QTest::newRow("B200, 256 GPUs, MXFP8") << "70b-256-b200-mxfp8.json" << "B200 180GB";
    QTest::newRow("MI300X, 256 GPUs") << "70b-256-mi300x.json" << "MI300X 192GB";
}

// Issue 25: the new parts run through estimate, schedule and search without an error-level red
// flag, on the hardware their files name.
void TestCli::hardwareExamplesRunEveryVerb()
{
    QFETCH(QString, plan);
    QFETCH(QString, accelerator);
    auto r = run({"estimate", example(plan.toUtf8().constData()), "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(doc["plan"].toObject()["cluster"].toObject()["accelerator"].toString(), accelerator);
    QVERIFY(doc["predicted"].toObject()["step_seconds"].toDouble() > 0);
    r = run({"schedule", example(plan.toUtf8().constData())});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = run({"search", example(plan.toUtf8().constData()), "--top", "3", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!QJsonDocument::fromJson(r.out).object()["search"].toObject()["results"].toArray().isEmpty());
}

void TestCli::textReport()
{
    auto r = run({"estimate", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 0);
    for (const char* s :
        {"Parameters", "Compute\n", "Predicted step", "At the assumed MFU", "Memory per GPU", "Pipeline", "Communication", "Reliability", "Warnings", "8.98 days", "15.8 %"})
        QVERIFY2(r.out.contains(s), s);
    r = run({"estimate", example("70b-2048-h100.json"), "--derivation"});
    QVERIFY(r.out.contains("6 · N · D"));
    QVERIFY(r.out.contains("Young 1974"));
}

void TestCli::jsonReport()
{
    const auto r = run({"estimate", example("70b-512-gpu.json"), "--json"});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(r.out, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const auto o = doc.object();
    QCOMPARE(o["pipeline"].toObject()["micro_batches"].toInt(), 8);
    QVERIFY(std::abs(o["communication"].toObject()["dp_seconds"].toDouble() - 0.77) < 0.012);
    QVERIFY(o["memory"].toObject()["per_gpu_bytes"].toObject().contains("total"));
    QVERIFY(o["warnings"].isArray());
}

void TestCli::setOverrides()
{
    const auto r = run(
        {"estimate", example("70b-2048-h100.json"), "--json", "--set", "layout.tp=16", "--set=layout.dp=32", "--set", "training.mfu=0.35"});
    QCOMPARE(r.exitCode, 0);
    const auto o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o["plan"].toObject()["layout"].toObject()["tp"].toInt(), 16);
    QCOMPARE(o["plan"].toObject()["training"].toObject()["mfu"].toDouble(), 0.35);
    QVERIFY(QJsonDocument(o["warnings"].toArray()).toJson().contains("TP_SPANS_NODES"));
}

void TestCli::invalidInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    const QString plan = example("70b-2048-h100.json");
    QTest::newRow("no command") << QStringList{} << "missing command";
    QTest::newRow("unknown command") << QStringList{"plan", plan} << "unknown command";
    QTest::newRow("no plan") << QStringList{"estimate"} << "missing PLAN.json";
    QTest::newRow("unknown option") << QStringList{"estimate", plan, "--yaml"} << "unknown option --yaml";
    QTest::newRow("set without value") << QStringList{"estimate", plan, "--set"} << "--set needs";
    QTest::newRow("set without =") << QStringList{"estimate", plan, "--set", "layout.tp"} << "PATH=VALUE";
    QTest::newRow("zero TP") << QStringList{"estimate", plan, "--set", "layout.tp=0"} << "layout.tp: must be at least 1";
    QTest::newRow("fractional PP") << QStringList{"estimate", plan, "--set", "layout.pp=2.5"} << "layout.pp: must be a whole number";
    QTest::newRow("negative tokens") << QStringList{"estimate", plan, "--set", "training.tokens=-1"}
                                     << "training.tokens: must be greater than 0";
}

void TestCli::invalidInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    const auto r = run(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(fragment), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

// A plan that cannot be read is invalid input like one that cannot be parsed: exit 2, with
// the path and the system's reason.
void TestCli::unreadablePlanIsInvalidInput()
{
    auto r = run({"estimate", "/nonexistent/plan.json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("cannot open /nonexistent/plan.json: No such file or directory"), r.err.constData());
    QTemporaryDir dir;
    r = run({"estimate", dir.path()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(dir.path().toUtf8()), r.err.constData());
    // A device or a named pipe is not read (before: /dev/zero up to the bound, a FIFO without a
    // writer hung the tool): refused at once, naming the path.
    const QString fifo = dir.filePath("plan.json");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString& path : {QString("/dev/zero"), fifo}) {
        QElapsedTimer timer;
        timer.start();
        r = run({"estimate", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path.toUtf8()) && r.err.contains("not a regular file"), r.err.constData());
        QVERIFY2(timer.elapsed() < 10000, "refusing a device or a pipe took seconds");
    }
}

void TestCli::hostileInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("input");  // standard input, for "-"
    QTest::addColumn<QString>("fragment");
    const QString plan = example("70b-2048-h100.json");
    QFile f(plan);
    f.open(QIODevice::ReadOnly);
    const QByteArray text = f.readAll();
    QByteArray overflow = text;
    overflow.replace("1.4e12", "1e400");
    QTest::newRow("1e400 in --set") << QStringList{"estimate", plan, "--set", "training.tokens=1e400"} << QByteArray()
                                    << "training.tokens: 1e400 is outside the range";
    QTest::newRow("1e400 in the file") << QStringList{"estimate", "-"} << overflow << "training.tokens: 1e400 is outside the range";
    QTest::newRow("70,000 levels deep") << QStringList{"estimate", "-"} << (QByteArray(70000, '[') + QByteArray(70000, ']'))
                                        << "nests deeper than 64 levels";
    // One argument is at most 128 KiB (Linux MAX_ARG_STRLEN): 60,000 levels.
    QTest::newRow("60,000 levels in --set") << QStringList{"estimate", plan, "--set",
        "layout.stage_layers=" + QString(60000, '[') + QString(60000, ']')}
                                            << QByteArray() << "layout.stage_layers: the value nests deeper";
    QTest::newRow("MTBF 1e-308") << QStringList{"estimate", plan, "--set", "cluster.mtbf_hours_per_node=1e-308"} << QByteArray()
                                 << "cluster.mtbf_hours_per_node: must be at least 0.1 hours";
    QTest::newRow("GPU product overflow") << QStringList{"estimate", plan, "--set", "layout.tp=10000000", "--set", "layout.pp=10000000",
        "--set", "layout.dp=10000000"} << QByteArray()
                                          << "layout: TP x PP x DP x CP is more than 10000000 GPUs";
}

void TestCli::hostileInput()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, input);
    QFETCH(QString, fragment);
    const auto r = run(args, input);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(fragment), r.err.left(400).constData());
    QVERIFY(r.out.isEmpty());
}

// QProcess would encode a QString argument as UTF-8, so the shell passes the raw bytes.
void TestCli::setWithBytesThatAreNotUtf8()
{
    QProcess p;
    p.start("/bin/sh",
        {"-c", "exec \"$0\" estimate \"$1\" --set \"$(printf 'model.name=\\377\\376')\"", TRAINPLAN_CLI_PATH,
            example("70b-2048-h100.json")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 2);
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(err.contains("model.name: the value is not valid UTF-8"), err.constData());
}

// export --markdown writes through writeFileAtomically in every build (no Qt needed), and a
// write that fails exits 1 naming the path and the reason.
void TestCli::markdownExportIsAtomicAndNamesFailures()
{
    QTemporaryDir dir;
    const QString out = dir.filePath("plan.md");
    auto r = run({"export", example("70b-2048-h100.json"), "--markdown", out});
    QCOMPARE(r.exitCode, 0);
    QFile md(out);
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QByteArray text = md.readAll();
    // The whole report, titled as the PDF is: the figures as tables, the warnings, the math.
    const auto plan = trainplan::loadPlanFile(example("70b-2048-h100.json").toStdString());
    QVERIFY(!plan.name.empty());
    QVERIFY2(text.startsWith(QByteArray::fromStdString("# " + plan.name + "\n")), text.left(80).constData());
    for (const char* part : {"\n## Predicted step", "\n## At the assumed MFU", "\n## Memory per GPU", "\n## Reliability", "\n## Warnings",
             "\n## Derivation", "| Figure | Value | Detail |\n|---|---|---|\n", "| step time (predicted) |"})
        QVERIFY2(text.contains(part), part);
    // The headline comes before the comparison.
    QVERIFY(text.indexOf("## Predicted step") < text.indexOf("## At the assumed MFU"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    const QString missing = dir.filePath("no/such/dir/plan.md");
    r = run({"export", example("70b-2048-h100.json"), "--markdown", missing});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(missing.toUtf8()) && r.err.contains("No such file or directory"), r.err.constData());
}

// `fields` lists every plan field, path first (what the shell completion reads), as text and JSON.
void TestCli::fieldsListsEveryPath()
{
    auto r = run({"fields"});
    QCOMPARE(r.exitCode, 0);
    QStringList paths;
    for (const QByteArray& line : r.out.split('\n'))
        if (!line.isEmpty())
            paths << QString::fromUtf8(line.split(' ').first());
    QVERIFY(paths.contains("layout.tp"));
    QVERIFY(paths.contains("training.mfu"));
    QVERIFY(r.out.contains("one of \"gpipe\", \"1f1b\""));
    r = run({"fields", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(r.out).array();
    QCOMPARE(rows.size(), paths.size());
    for (int i = 0; i < rows.size(); ++i)
        QCOMPARE(rows[i].toObject()["path"].toString(), paths[i]);
    r = run({"fields", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("fields takes no plan file"));
}

void TestCli::readsStdin()
{
    QFile f(example("70b-512-gpu.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto r = run({"estimate", "-", "--json"}, f.readAll());
    QCOMPARE(r.exitCode, 0);
    r = run({"estimate", "-"}, "{ not json");
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("not valid JSON"));
}

void TestCli::scheduleVerb()
{
    auto r = run({"schedule", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("bubble (closed form)") && r.out.contains("15.8 %"));

    r = run(
        {"schedule", example("70b-2048-h100.json"), "--json", "--set", "layout.schedule=interleaved", "--set", "layout.virtual_stages=2"});
    QCOMPARE(r.exitCode, 0);
    const auto s = QJsonDocument::fromJson(r.out).object()["schedule"].toObject();
    // docs/plan-format.md, "schedule --json: keys that must exist".
    QCOMPARE(s["kind"].toString(), QString("interleaved"));
    for (const char* key : {"step_seconds", "bubble_fraction", "closed_form_bubble_fraction"})
        QVERIFY2(s[key].isDouble(), key);
    QCOMPARE(s["closed_form_bubble_fraction"].toDouble(), 3.0 / 35.0);
    const auto stages = s["stages"].toArray();
    QCOMPARE(stages.size(), 4);
    QVERIFY(stages[0].toObject().contains("idle_seconds") && stages[0].toObject().contains("peak_in_flight_microbatches"));
    const auto events = s["events"].toArray();
    QVERIFY(events.size() > 4 * 16 * 2 * 2);
    QStringList kinds;
    for (const auto& e : events) {
        const auto o = e.toObject();
        for (const char* key : {"stage", "chunk", "microbatch", "kind", "start_seconds", "end_seconds"})
            QVERIFY2(o.contains(key), key);
        if (!kinds.contains(o["kind"].toString()))
            kinds << o["kind"].toString();
    }
    for (const char* k : {"F", "B", "send", "dp_sync"})
        QVERIFY2(kinds.contains(k), k);

    r = run({"schedule", example("70b-2048-h100.json"), "--json", "--no-events", "--set", "layout.schedule=zero-bubble"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(r.out).object()["schedule"].toObject()["events"].toArray().isEmpty());

    // m = 15 is not a multiple of p = 4: interleaving is impossible, named by field.
    r = run({"schedule", example("70b-2048-h100.json"), "--set", "layout.schedule=interleaved", "--set", "layout.virtual_stages=2",
             "--set", "training.global_batch_sequences=960"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("training.global_batch_sequences"));
}

void TestCli::searchRedFlagsOption()
{
    // Issue 22: Llama 3.1 405B on 16,384 H200s. By default no TP-across-nodes row leads, and every
    // result carries its memory verdict; --red-flags mixed ranks by speed alone, hide drops them.
    const QStringList llama = {"search", example("70b-2048-h100.json"), "--model", "llama 3.1 405", "--gpu", "H200", "--set",
        "cluster.gpus=16384", "--set", "training.tokens=15.6e12", "--set", "training.global_batch_sequences=2048", "--json", "--top", "20"};
    const auto resultsOf = [&](const QStringList& extra) {
        const auto r = run(llama + extra);
        [&] { QCOMPARE(r.exitCode, 0); }();
        return QJsonDocument::fromJson(r.out).object()["search"].toObject();
    };
    const auto flagsOf = [](const QJsonValue& row) { return row.toObject()["red_flags"].toArray(); };
    QJsonObject s = resultsOf({});
    QCOMPARE(s["red_flag_order"].toString(), QString("last"));
    QJsonArray results = s["results"].toArray();
    QCOMPARE(results.size(), 20);
    QVERIFY(flagsOf(results[0]).isEmpty());
    QCOMPARE(results[0].toObject()["memory"].toObject()["verdict"].toString(), QString("fits"));
    bool seenFlagged = false;
    for (const auto& v : results) {
        const QString verdict = v.toObject()["memory"].toObject()["verdict"].toString();
        QVERIFY(verdict == "fits" || verdict == "may not fit");
        QVERIFY(!seenFlagged || !flagsOf(v).isEmpty());  // once flagged rows begin, only flagged rows
        seenFlagged = seenFlagged || !flagsOf(v).isEmpty();
    }
    s = resultsOf({"--red-flags", "mixed"});
    QVERIFY(flagsOf(s["results"].toArray()[0]).contains(QJsonValue("TP_SPANS_NODES")));
    s = resultsOf({"--red-flags=hide"});
    QVERIFY(s["hidden_red_flags"].toDouble() > 0);
    for (const auto& v : s["results"].toArray())
        QVERIFY(flagsOf(v).isEmpty());
    const auto bad = run({"search", example("70b-512-gpu.json"), "--red-flags", "sometimes"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("--red-flags"));
    QVERIFY(run({"--help"}).out.contains("--red-flags"));
}

void TestCli::searchVerb()
{
    auto r = run({"search", example("70b-512-gpu.json"), "--top", "5"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("layouts evaluated") && r.out.contains("simplest"));

    r = run({"search", example("70b-2048-h100.json"), "--json", "--top", "10"});
    QCOMPARE(r.exitCode, 0);
    const auto s = QJsonDocument::fromJson(r.out).object()["search"].toObject();
    // docs/plan-format.md, "search --json: keys that must exist".
    QVERIFY(s["evaluated"].toDouble() > 1000);
    QVERIFY(s["fitting"].toDouble() > 0 && s["fitting"].toDouble() <= s["evaluated"].toDouble());
    QVERIFY(s["seconds"].isDouble());
    const auto results = s["results"].toArray();
    QVERIFY(results.size() >= 10);
    // --top N is N ranked rows; the Pareto front and the simplest layout have their own keys.
    QCOMPARE(results.size(), 10);
    const auto front = s["pareto_front"].toArray();
    QVERIFY(!front.isEmpty());
    for (const auto& v : front)
        QVERIFY(v.toObject()["pareto"].toBool());
    QVERIFY(s["simplest"].toObject()["simplest"].toBool());
    bool anyPareto = false;
    for (const auto& v : results) {
        const auto o = v.toObject();
        for (const char* key : {"step_seconds", "mfu", "memory_bytes", "gpu_hours", "pareto"})
            QVERIFY2(o.contains(key), key);
        const auto layout = o["layout"].toObject();
        for (const char* key : {"tp", "pp", "dp", "cp", "virtual_stages", "micro_batch", "zero", "recompute", "sequence_parallel"})
            QVERIFY2(layout.contains(key), key);
        QCOMPARE(layout["tp"].toInt() * layout["pp"].toInt() * layout["dp"].toInt() * layout["cp"].toInt(), 2048);
        QVERIFY(o["memory_bytes"].toDouble() <= 80e9);
        anyPareto = anyPareto || o["pareto"].toBool();
    }
    QVERIFY(anyPareto);

    r = run({"search", example("70b-2048-h100.json"), "--top", "3"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Top 3 by predicted step time") && r.out.contains("Pareto front of memory against step time"));
    QVERIFY(!r.out.contains("cost (USD)"));  // no price, no cost column
    // With a price, a time-ranked list still says what each layout costs.
    r = run({"search", example("70b-2048-h100.json"), "--top", "3", "--set", "cost.price_per_gpu_hour_usd=2.5"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Top 3 by predicted step time") && r.out.contains("cost (USD)"));
    r = run({"search", example("70b-2048-h100.json"), "--objective", "cost"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--cost-per-gpu-hour"));
    r = run({"search", example("70b-2048-h100.json"), "--objective", "cost", "--cost-per-gpu-hour", "2.5", "--top", "2"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("cost (USD)"));
    // The plan's own price serves when the option is not given.
    r = run({"search", example("70b-2048-h100.json"), "--objective", "cost", "--set", "cost.price_per_gpu_hour_usd=2.5", "--top", "2"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("cost (USD)"));

    r = run({"search", example("70b-2048-h100.json"), "--top", "zero"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--top"));
    r = run({"search", example("70b-2048-h100.json"), "--batch-range", "512"});
    QCOMPARE(r.exitCode, 2);
}

// Worked example B has layouts that differ only in DP x CP split or micro-batch with the same
// figures: the text folds them under their row ("= also"), the JSON gives every row a group id
// and its equivalents, and --top N is still N rows, no two of them with the same figures.
void TestCli::searchGroupsLayoutsWithTheSameFigures()
{
    auto r = run({"search", example("70b-512-gpu.json"), "--top", "12"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("  = also DP ") && r.out.contains("(same figures, within 0.25 %)"), r.out.constData());
    const QString text = QString::fromUtf8(r.out);
    const QString ranking = text.section("Top 12 by predicted step time", 1).section("Pareto front", 0, 0);
    int rows = 0;
    for (const QString& line : ranking.split('\n').mid(2))
        rows += !line.isEmpty() && !line.startsWith("  = also");
    QCOMPARE(rows, 12);

    r = run({"search", example("70b-512-gpu.json"), "--json", "--top", "12"});
    QCOMPARE(r.exitCode, 0);
    const auto s = QJsonDocument::fromJson(r.out).object()["search"].toObject();
    QVERIFY(s["grouped"].toBool());
    const auto results = s["results"].toArray();
    QCOMPARE(results.size(), 12);
    int folded = 0;
    for (int i = 0; i < results.size(); ++i) {
        const auto o = results[i].toObject();
        QCOMPARE(o["group"].toInt(), i + 1);
        const auto layout = o["layout"].toObject();
        for (const auto& e : o["equivalents"].toArray()) {
            const auto other = e.toObject();
            ++folded;
            for (const char* same : {"tp", "pp", "virtual_stages", "zero", "recompute", "sequence_parallel", "schedule"})
                QCOMPARE(other[same], layout[same]);
            QCOMPARE(other["dp"].toInt() * other["cp"].toInt(), layout["dp"].toInt() * layout["cp"].toInt());
        }
    }
    QVERIFY(folded > 0);
    // The Pareto front names the same groups by the same ids.
    for (const auto& v : s["pareto_front"].toArray()) {
        const auto o = v.toObject();
        const int group = o["group"].toInt();
        if (group <= results.size())
            QCOMPARE(results[group - 1].toObject()["step_seconds"].toDouble(), o["step_seconds"].toDouble());
    }
}

void TestCli::redFlagsExitThree_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("code");
    const QString plan = example("70b-2048-h100.json");
    QTest::newRow("does not fit") << QStringList{"estimate", plan, "--set", "cluster.memory_gb=20"} << "STAGE_OVER_CAPACITY";
    QTest::newRow("does not fit, json") << QStringList{"estimate", plan, "--json", "--set", "cluster.memory_gb=20"}
                                        << "STAGE_OVER_CAPACITY";
    QTest::newRow("layout does not match the GPUs") << QStringList{"estimate", plan, "--set", "layout.dp=32"} << "LAYOUT_PRODUCT_MISMATCH";
    QTest::newRow("TP does not divide heads") << QStringList{"estimate", plan, "--set", "layout.tp=3", "--set", "layout.pp=1", "--set",
        "layout.dp=682", "--set", "cluster.gpus=2046", "--set", "training.global_batch_sequences=682"}
                                              << "TP_DOES_NOT_DIVIDE_HEADS";
    QTest::newRow("cannot make progress")
        << QStringList{"estimate", plan, "--set", "cluster.mtbf_hours_per_node=1", "--set", "reliability.restart_seconds=3600"}
        << "FAILURES_OUTPACE_PROGRESS";
    QTest::newRow("schedule of a plan that does not fit")
        << QStringList{"schedule", plan, "--set", "cluster.memory_gb=20"} << "STAGE_OVER_CAPACITY";
}

void TestCli::redFlagsExitThree()
{
    QFETCH(QStringList, args);
    QFETCH(QString, code);
    const auto r = run(args);
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(!r.out.isEmpty(), "the output is still printed");
    QVERIFY2(QString::fromUtf8(r.err).contains(code), r.err.constData());
    if (args.contains("--json")) {
        QJsonParseError error;
        QJsonDocument::fromJson(r.out, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
    }
    // Warnings alone (TP across nodes) are not a failure.
    QCOMPARE(run({"estimate", example("70b-2048-h100.json"), "--set", "layout.tp=16", "--set", "layout.dp=32"}).exitCode, 0);
    QVERIFY(run({"--help"}).out.contains("3  the input is valid but the plan has error-level red flags"));
}

void TestCli::jsonCarriesResolvedValues()
{
    const auto r = run({"estimate", example("70b-2048-h100.json"), "--json", "--set", "layout.dp=auto", "--set", "layout.pp=8"});
    QCOMPARE(r.exitCode, 0);
    const auto doc = QJsonDocument::fromJson(r.out).object();
    const auto layout = doc["plan"].toObject()["layout"].toObject();
    QVERIFY(layout["dp"].isDouble());
    QCOMPARE(layout["dp"].toInt(), 32);
    QCOMPARE(layout["dp_auto"].toBool(), true);
    // The echoed plan reads back as the same plan.
    const auto again = run({"estimate", "-", "--json"}, QJsonDocument(doc["plan"].toObject()).toJson());
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(again.out).object()["plan"].toObject(), doc["plan"].toObject());
    const auto memory = doc["memory"].toObject()["per_gpu_bytes"].toObject();
    QVERIFY(memory["reserve"].toDouble() > 0);
    QCOMPARE(memory["total"].toDouble(), memory["model_and_activations"].toDouble() + memory["reserve"].toDouble());
}

void TestCli::presetsVerb()
{
    auto r = run({"presets", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto p = QJsonDocument::fromJson(r.out).object()["presets"].toObject();
    const auto models = p["models"].toArray();
    const auto accelerators = p["accelerators"].toArray();
    QVERIFY(models.size() >= 10 && accelerators.size() >= 8);
    QStringList names;
    for (const auto& a : accelerators) {
        const auto o = a.toObject();
        names << o["name"].toString();
        QVERIFY2(!o["source"].toString().isEmpty(), qPrintable(o["name"].toString()));
        QVERIFY(o["memory_gb"].toDouble() > 0 && o["peak_bf16_tflops"].toDouble() > 0);
    }
    for (const char* name : {"H800 SXM 80GB", "H200 SXM 141GB", "B200 180GB", "MI300X 192GB", "MI325X 256GB"})
        QVERIFY2(names.contains(name), name);
    for (const auto& m : models)
        QVERIFY(!m.toObject()["source"].toString().isEmpty());
    r = run({"presets"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Llama 3.1 405B") && r.out.contains("source: "));
}

void TestCli::presetOptions_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("path");  // "section/key"
    QTest::addColumn<double>("expected");
    const QString plan = example("70b-2048-h100.json");
    QTest::newRow("--gpu h800") << QStringList{"--gpu", "h800"} << "cluster/intra_node_bandwidth_gb_per_s" << 200.0;
    QTest::newRow("--gpu B200") << QStringList{"--gpu", "B200"} << "cluster/memory_gb" << 191.51;  // 182,642 MiB as CUDA sees it
    QTest::newRow("--gpu 'h-200 sxm'") << QStringList{"--gpu", "h-200 sxm"} << "cluster/memory_gb" << 150.11;  // 143,156 MiB
    QTest::newRow("--model 'llama 3.1 405'") << QStringList{"--model", "llama 3.1 405"} << "model/layers" << 126.0;
    // --set comes after the preset, so it wins.
    QTest::newRow("--set after --gpu") << QStringList{"--set", "cluster.memory_gb=100", "--gpu", "h200"} << "cluster/memory_gb" << 100.0;
    // Issue 23: a --set of the label to a preset's name applies the preset, not just the name;
    // a later --set still overrides one of its figures.
    QTest::newRow("--set accelerator=B200 180GB")
        << QStringList{"--set", "cluster.accelerator=B200 180GB"} << "cluster/memory_gb" << 191.51;
    QTest::newRow("--set accelerator=B200 peak") << QStringList{"--set", "cluster.accelerator=B200 180GB"} << "cluster/peak_bf16_tflops"
                                                << 2250.0;
    QTest::newRow("--set accelerator then memory")
        << QStringList{"--set", "cluster.accelerator=B200 180GB", "--set", "cluster.memory_gb=180"} << "cluster/memory_gb" << 180.0;
    // Issue 25: an NVL72 preset brings its 72-GPU NVLink domain; another part's preset removes it.
    QTest::newRow("--gpu gb200") << QStringList{"--gpu", "gb200"} << "cluster/nvlink_domain" << 72.0;
    QTest::newRow("--gpu gb200 gpus per node") << QStringList{"--gpu", "gb200"} << "cluster/gpus_per_node" << 4.0;
    QTest::newRow("rack then H100: no domain")
        << QStringList{"--set", "cluster.accelerator=GB200 NVL72 186GB", "--set", "cluster.accelerator=H100 SXM 80GB"}
        << "cluster/nvlink_domain" << 0.0;
    QTest::newRow("--gpu mi355x fp4") << QStringList{"--gpu", "mi355x"} << "cluster/peak_fp4_tflops" << 10066.3;
    // A label that names no preset stays a label.
    QTest::newRow("--set accelerator=custom") << QStringList{"--set", "cluster.accelerator=Our H100 pod"} << "cluster/memory_gb" << 85.03;
}

void TestCli::presetOptions()
{
    QFETCH(QStringList, args);
    QFETCH(QString, path);
    QFETCH(double, expected);
    const auto r = run(QStringList{"estimate", example("70b-2048-h100.json"), "--json"} + args);
    QVERIFY2(r.exitCode == 0 || r.exitCode == 3, r.err.constData());
    const auto plan = QJsonDocument::fromJson(r.out).object()["plan"].toObject();
    const auto parts = path.split('/');
    QCOMPARE(plan[parts[0]].toObject()[parts[1]].toDouble(), expected);
}

void TestCli::unknownOrAmbiguousPreset_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("listed");
    QTest::newRow("ambiguous gpu") << QStringList{"--gpu", "a100"} << QStringList{"A100 SXM 40GB", "A100 SXM 80GB", "ambiguous"};
    QTest::newRow("unknown gpu") << QStringList{"--gpu", "tpu"} << QStringList{"H100 SXM 80GB", "MI300X 192GB", "no preset"};
    QTest::newRow("ambiguous model") << QStringList{"--model", "llama 3.1"}
                                     << QStringList{"Llama 3.1 8B", "Llama 3.1 70B", "Llama 3.1 405B"};
}

void TestCli::unknownOrAmbiguousPreset()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, listed);
    const auto r = run(QStringList{"estimate", example("70b-2048-h100.json")} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    for (const auto& name : listed)
        QVERIFY2(QString::fromUtf8(r.err).contains(name), r.err.constData());
}

void TestCli::acceleratorLabelMismatchIsFlagged()
{
    // The label says H100 but the memory and NVLink figures are someone else's.
    const auto r = run({"estimate", example("70b-2048-h100.json"), "--json", "--set", "cluster.memory_gb=94", "--set",
                        "cluster.intra_node_bandwidth_gb_per_s=300"});
    QCOMPARE(r.exitCode, 0);
    const QString warnings = QString::fromUtf8(QJsonDocument(QJsonDocument::fromJson(r.out).object()["warnings"].toArray()).toJson());
    QVERIFY(warnings.contains("ACCELERATOR_DIFFERS_FROM_PRESET"));
    QVERIFY(warnings.contains("cluster.memory_gb") && warnings.contains("cluster.intra_node_bandwidth_gb_per_s"));
    QVERIFY(!warnings.contains("cluster.peak_bf16_tflops"));
    // The shipped example matches its preset exactly.
    const auto clean = run({"estimate", example("70b-2048-h100.json"), "--json"});
    QVERIFY(!clean.out.contains("ACCELERATOR_DIFFERS_FROM_PRESET"));
}


// `import FILE | estimate -`: the plan on standard output, what was not mapped on standard error,
// --json for the whole report, PLAN OPTIONS on the imported plan, exit 2 for what is not a source.
void TestCli::importVerb()
{
    const QString fixtures = QString(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/import/";
    auto r = run({"import", fixtures + "deepseek-v3.json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("no effect on the figures:") && r.err.contains("rope_scaling"), r.err.constData());
    QVERIFY2(r.err.contains("not mapped: quantization_config:"), r.err.constData());
    const auto estimate = run({"estimate", "-", "--json"}, r.out);
    QVERIFY2(estimate.exitCode == 0 || estimate.exitCode == 3, estimate.err.constData());
    const auto parameters = nlohmann::json::parse(estimate.out.toStdString())["parameters"];
    QVERIFY(parameters["active"].get<double>() < parameters["total"].get<double>() / 10);  // an MoE model came through

    r = run({"import", fixtures + "llama-3.1-8b", "--json", "--gpu", "h200", "--set", "cluster.gpus=64"});
    QCOMPARE(r.exitCode, 0);
    const auto report = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(QString::fromStdString(report["format"].get<std::string>()), QStringLiteral("huggingface"));
    QCOMPARE(report["plan"]["cluster"]["gpus"].get<int>(), 64);
    QVERIFY(QString::fromStdString(report["plan"]["cluster"]["accelerator"].get<std::string>()).startsWith("H200"));
    QVERIFY(report["unmapped"].is_array() && !report["unmapped"].empty());

    r = run({"import", fixtures + "megatron-llama3-70b.sh"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("\"tp\": 8"));
    r = run({"import", "-"}, "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --tensor-model-parallel-size 2");
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("\"tp\": 2"));

    r = run({"import", example("70b-512-gpu.json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("already a TrainPlan plan"));
    r = run({"import", fixtures + "missing.json"});
    QCOMPARE(r.exitCode, 2);
    r = run({"import", "-"}, R"({"model_type": "llama", "num_hidden_layers": -1, "hidden_size": 64, "num_attention_heads": 1, "vocab_size": 8})");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("num_hidden_layers (model.layers)"), r.err.constData());
    r = run({"import"});
    QCOMPARE(r.exitCode, 2);
}

// calibrate PLAN (--log | --step-seconds | --tokens-per-second-per-gpu): the calibrated plan on
// stdout (ready for estimate -), the report on stderr; bad measurements name their field.
void TestCli::calibrateVerb()
{
    const QString log = QString(TRAINPLAN_SOURCE_DIR) + "/tests/core/fixtures/calibration/megatron-train.log";
    auto r = run({"calibrate", example("70b-2048-h100.json"), "--log", log, "--framework", "Megatron-LM core_r0.12", "--date", "2026-11-30"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("GEMM efficiency (cluster.efficiency.matmul_fraction)") && r.err.contains("Not fitted:"), r.err.constData());
    QVERIFY(r.out.contains("\"measured_step_seconds\""));
    const auto estimate = run({"estimate", "-", "--json"}, r.out);
    QVERIFY2(estimate.exitCode == 0 || estimate.exitCode == 3, estimate.err.constData());
    const double step = nlohmann::json::parse(estimate.out.toStdString())["predicted"]["step_seconds"].get<double>();
    QVERIFY2(std::abs(step / (0.5 * (3.0102 + 3.0254)) - 1.0) < 1e-3, qPrintable(QString::number(step)));

    r = run({"calibrate", example("70b-2048-h100.json"), "--step-seconds", "3.1", "--peak-memory-gb", "30", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto doc = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(QString::fromStdString(doc["format"].get<std::string>()), QStringLiteral("trainplan.calibration"));
    QVERIFY(doc["plan"]["cluster"]["calibration"]["fitted"].get<std::string>().find("matmul_fraction") != std::string::npos);
    QVERIFY(doc["calibration"]["not_fitted"].is_array());

    for (const char* bad : {"-1", "nan", "inf", "0"}) {
        r = run({"calibrate", example("70b-2048-h100.json"), "--step-seconds", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("measured.step_seconds"), r.err.constData());
    }
    r = run({"calibrate", example("70b-2048-h100.json"), "--step-seconds", "3x"});
    QCOMPARE(r.exitCode, 2);
    r = run({"calibrate", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("calibrate needs one of"));
    r = run({"calibrate", example("70b-2048-h100.json"), "--step-seconds", "3", "--date", "yesterday"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("cluster.calibration.date"), r.err.constData());
    r = run({"calibrate", example("70b-2048-h100.json"), "--log", "-"}, "no iterations here\n");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("log:"), r.err.constData());
    r = run({"estimate", example("70b-2048-h100.json"), "--step-seconds", "3"});
    QCOMPARE(r.exitCode, 2);
}

// compare A B [--json]: the figures of each and the differing fields; one plan is not a comparison.
void TestCli::compareVerb()
{
    auto r = run({"compare", example("70b-2048-h100.json"), example("70b-512-gpu.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Step time, predicted"));
    QVERIFY(r.out.contains("cluster.gpus"));
    r = run({"compare", example("70b-2048-h100.json"), example("70b-512-gpu.json"), "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto json = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(json["plans"].size(), size_t(2));
    QVERIFY(!json["changed_fields"].empty());
    r = run({"compare", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("at least two plans"));
    r = run({"compare", example("70b-2048-h100.json"), "/nonexistent/plan.json"});
    QCOMPARE(r.exitCode, 2);

    // --pdf writes the comparison report beside the text on standard output.
    QTemporaryDir dir;
    const QString pdf = dir.filePath("comparison.pdf");
    r = run({"compare", example("70b-2048-h100.json"), example("70b-512-gpu.json"), "--pdf", pdf});
#ifdef TRAINPLAN_CLI_EXPORTS
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Step time, predicted"));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(5), QByteArray("%PDF-"));
#else
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("needs the Qt views"));
    QVERIFY(!QFile::exists(pdf));
#endif
}

// export --cluster-profile writes the plan's cluster as a named profile; --cluster takes it onto
// another plan (DP following the GPU count); a bad profile exits 2 naming the file and the field.
void TestCli::clusterProfiles()
{
    QTemporaryDir dir;
    const QString profile = dir.filePath("our-h100s.json");
    auto r = run({"export", example("70b-2048-h100.json"), "--set", "cluster.efficiency.matmul_fraction=0.5", "--cluster-profile", profile});
    QCOMPARE(r.exitCode, 0);
    QFile file(profile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto document = nlohmann::json::parse(file.readAll().toStdString());
    QCOMPARE(document["name"].get<std::string>(), std::string("our-h100s"));
    QCOMPARE(document["cluster"]["gpus"].get<int>(), 2048);
    r = run({"estimate", example("mixtral-8x22b-256-h100.json"), "--cluster", profile, "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto estimate = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(estimate["plan"]["cluster"]["gpus"].get<int>(), 2048);
    QCOMPARE(estimate["plan"]["cluster"]["efficiency"]["matmul_fraction"].get<double>(), 0.5);
    QVERIFY(estimate["plan"]["layout"]["dp_auto"].get<bool>());  // DP follows the profile's GPU count
    QCOMPARE(estimate["plan"]["layout"]["dp"].get<int>() * estimate["plan"]["layout"]["tp"].get<int>()
            * estimate["plan"]["layout"]["pp"].get<int>() * estimate["plan"]["layout"]["cp"].get<int>(),
        2048);

    QFile bad(dir.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"format": "trainplan.cluster-profile", "version": 1, "name": "x", "cluster": {"gpus": 0}})");
    bad.close();
    r = run({"estimate", example("mixtral-8x22b-256-h100.json"), "--cluster", bad.fileName()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--cluster") && r.err.contains("cluster.gpus"), qPrintable(r.err));
}

// size: the sizing as text and JSON, each --gpu a candidate with its price; a missing deadline or
// a bad figure exits 2 naming the option.
void TestCli::sizeVerb()
{
    auto r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "20", "--gpus", "1024:2048", "--gpu", "H100 SXM=2.5",
        "--gpu", "B200=5", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto json = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(json["format"].get<std::string>(), std::string("trainplan.sizing"));
    // interfaces.md's contract: size.candidates[] with its named keys, size.cheapest_meeting_deadline.
    const auto& size = json["size"];
    QCOMPARE(size["candidates"].size(), size_t(6));
    QCOMPARE(size["cost_basis"].get<std::string>(), std::string("usd"));
    for (const auto& c : size["candidates"]) {
        for (const char* key : {"accelerator", "gpus", "layout", "days", "days_range", "gpu_hours", "cost_usd", "meets_deadline", "pareto"})
            QVERIFY2(c.contains(key), key);
        QVERIFY(c["days_range"]["fewest"].get<double>() <= c["days"].get<double>());
        QVERIFY(c["days_range"]["most"].get<double>() >= c["days"].get<double>());
        QCOMPARE(c["layout"]["tp"].get<int>() * c["layout"]["pp"].get<int>() * c["layout"]["dp"].get<int>() * c["layout"]["cp"].get<int>(),
            c["gpus"].get<int>());
    }
    const auto& cheapest = size["cheapest_meeting_deadline"];
    QVERIFY(cheapest.is_object());
    QVERIFY(cheapest["meets_deadline"].get<bool>());
    QCOMPARE(size["candidates"][cheapest["index"].get<size_t>()]["cost_usd"], cheapest["cost_usd"]);
    // Nothing meets a one-day deadline: null, with the reason.
    r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "1", "--gpus", "256:512", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto none = nlohmann::json::parse(r.out.toStdString())["size"];
    QVERIFY(none["cheapest_meeting_deadline"].is_null());
    QVERIFY2(none["no_candidate_reason"].get<std::string>().find("No configuration meets the 1-day deadline") != std::string::npos,
        none["no_candidate_reason"].dump().c_str());
    r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "20", "--gpus", "2048:2048"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("the cheapest that meets the 20-day deadline") && r.out.contains("tokens per parameter"));
    r = run({"size", example("70b-2048-h100.json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--deadline-days"));
    r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "soon"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--deadline-days"));
    r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "20", "--gpu", "no-such-gpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("sizing.accelerators[0]"));
    r = run({"estimate", example("70b-2048-h100.json"), "--deadline-days", "20"});
    QCOMPARE(r.exitCode, 2);
    // export --pdf sizes the plan's own part for the report's sizing section; not without --pdf,
    // and the sizing's other options need the deadline.
    r = run({"export", example("70b-2048-h100.json"), "--markdown", "/dev/null", "--deadline-days", "20"});
    QCOMPARE(r.exitCode, 2);
    r = run({"export", example("70b-2048-h100.json"), "--pdf", "/tmp/never.pdf", "--budget", "1e6"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--deadline-days"), qPrintable(r.err));

    QTemporaryDir dir;
    const QString pdf = dir.filePath("sizing.pdf");
    r = run({"size", example("70b-2048-h100.json"), "--deadline-days", "20", "--gpus", "2048:2048", "--pdf", pdf});
#ifdef TRAINPLAN_CLI_EXPORTS
    QCOMPARE(r.exitCode, 0);
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(5), QByteArray("%PDF-"));
    // The plan's own report with the sizing section (issue 27: "the PDF gets a sizing page").
    const QString report = dir.filePath("report.pdf");
    r = run({"export", example("70b-2048-h100.json"), "--pdf", report, "--deadline-days", "20", "--gpus", "1024:2048"});
    QCOMPARE(r.exitCode, 0);
    const QString text = runTool("pdftotext", {"-layout", report, "-"}).simplified();
    QVERIFY2(text.contains("Sizing the cluster") && text.contains("the cheapest that meets the 20-day deadline"), qPrintable(text.left(800)));
#else
    QCOMPARE(r.exitCode, 1);
    QVERIFY(!QFile::exists(pdf));
#endif
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
