// One figure, one value: for several plans, the predicted step time, pipeline bubble and
// exposed data-parallel time agree between `trainplan-cli estimate --json`,
// `trainplan-cli schedule --json`, the document the window shows, and the text of the PDF
// report exported headless.
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/base/Format.h"
#include "core/planfile/PlanFile.h"
#include "render/report/Exporter.h"
#include "ui/document/PlanDocument.h"

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run cli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(TRAINPLAN_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QString examplePath(const QString& name)
{
    return QStringLiteral(TRAINPLAN_SOURCE_DIR "/examples/") + name;
}

// The first value after `label` in pdftotext's output (labels and values sit on separate lines
// or are separated by spaces).
QString valueAfter(const QString& text, const QString& label)
{
    const int at = text.indexOf(label);
    if (at < 0)
        return {};
    static const QRegularExpression number(QStringLiteral("(\\d[\\d,.]*\\s*(?:s|ms|µs|%))"));
    const auto m = number.match(text, at + label.size());
    return m.hasMatch() ? m.captured(1).simplified() : QString();
}

}  // namespace

class TestConsistency : public QObject {
    Q_OBJECT

private slots:
    void figuresAgreeEverywhere_data();
    void figuresAgreeEverywhere();
};

void TestConsistency::figuresAgreeEverywhere_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QStringList>("overrides");
    QTest::newRow("worked example A") << "70b-2048-h100.json" << QStringList{};
    QTest::newRow("worked example B") << "70b-512-gpu.json" << QStringList{};
    QTest::newRow("interleaved v=2") << "70b-2048-h100.json" << QStringList{"layout.schedule=interleaved", "layout.virtual_stages=2"};
    // A slow network leaves the gradient reduction exposed after the last backward.
    QTest::newRow("exposed DP") << "70b-2048-h100.json" << QStringList{"cluster.inter_node_bandwidth_gb_per_s=2", "layout.zero_stage=0"};
}

void TestConsistency::figuresAgreeEverywhere()
{
    QFETCH(QString, example);
    QFETCH(QStringList, overrides);
    QStringList sets;
    for (const auto& o : overrides)
        sets << "--set" << o;

    const Run est = cli(QStringList{"estimate", examplePath(example), "--json"} + sets);
    QCOMPARE(est.exitCode == 0 || est.exitCode == 3, true);
    const auto e = nlohmann::json::parse(est.out.toStdString());
    const Run sch = cli(QStringList{"schedule", examplePath(example), "--json", "--no-events"} + sets);
    QCOMPARE(sch.exitCode == 0 || sch.exitCode == 3, true);
    const auto s = nlohmann::json::parse(sch.out.toStdString())["schedule"];

    const double step = e["predicted"]["step_seconds"].get<double>();
    const double bubble = e["predicted"]["bubble_fraction"].get<double>();
    const double dp = e["predicted"]["components"]["dp_communication"].get<double>();
    QCOMPARE(e["predicted"]["basis"].get<std::string>(), std::string("predicted"));
    QCOMPARE(s["basis"].get<std::string>(), std::string("predicted"));
    QCOMPARE(s["step_seconds"].get<double>(), step);
    QCOMPARE(s["bubble_fraction"].get<double>(), bubble);
    QCOMPARE(s["dp_exposed_seconds"].get<double>(), dp);
    if (overrides.contains("layout.zero_stage=0"))
        QVERIFY2(dp > 0.05 * step, "the exposed-DP plan should expose a visible DP tail");

    // The window's document.
    QFile file(examplePath(example));
    QVERIFY(file.open(QIODevice::ReadOnly));
    nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
    for (const auto& o : overrides)
        trainplan::applyOverride(doc, o.toStdString());
    PlanDocument document;
    document.resetTo(trainplan::planFromJson(doc));
    QCOMPARE(document.predicted().stepSeconds, step);
    QCOMPARE(document.predicted().bubbleFraction, bubble);
    QCOMPARE(document.predicted().components.dpCommunication, dp);
    QCOMPARE(document.analysis().schedule.bubbleFraction == bubble || document.analysis().schedule.p == 1, true);

    // The PDF the window and the CLI export.
    QTemporaryDir dir;
    const QString pdf = dir.filePath("plan.pdf");
    ExportRequest request;
    request.pdfPath = pdf;
    QString error;
    QVERIFY2(exporter::run(document.analysis(), "plan", request, &error), qPrintable(error));
    QProcess text;
    text.start("pdftotext", {"-raw", pdf, "-"});
    QVERIFY(text.waitForFinished(30000));
    const QString body = QString::fromUtf8(text.readAllStandardOutput());
    QCOMPARE(valueAfter(body, "Step time, predicted"), QString::fromStdString(trainplan::formatSeconds(step)));
    QCOMPARE(valueAfter(body, "Pipeline bubble, predicted"), QString::fromStdString(trainplan::formatPercent(bubble)));
    QCOMPARE(valueAfter(body, "exposed DP, predicted:"), QString::fromStdString(trainplan::formatSeconds(dp)));
}

QTEST_MAIN(TestConsistency)
#include "tst_consistency.moc"
