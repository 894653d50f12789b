// The plan report and slides as a reader gets them, with no widgets: the PDF has the expected
// pages, its text carries the headline figures and section titles, fonts are embedded, charts
// and drawings are vectors (no raster images), SVGs are XML with real text. The views that show
// them in the window (the derivation, presentation mode): tests/ui/tst_reportviews.cpp.
#include <QDomDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "../RunTool.h"
#include "core/analysis/Analysis.h"
#include "core/analysis/LayoutRationale.h"
#include "core/base/Format.h"
#include "core/planfile/PlanFile.h"
#include "core/planfile/WorkedExamples.h"
#include "core/text/Derivation.h"
#include "core/text/TextReport.h"
#include "render/report/Exporter.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/ReportPainter.h"
#include "render/report/ReportSection.h"
#include "render/report/SlideExport.h"
#include "render/style/Theme.h"

namespace {

trainplan::Plan example(const char* name)
{
    return trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + name);
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void pdfHasPagesFiguresAndSections_data();
    void pdfHasPagesFiguresAndSections();
    void pdfEmbedsFontsAndHasNoRasterImages();
    void letterSizeWorks();
    void redFlagsReachTheReport();
    void slidesAreWrittenInEveryForm();
    void slideRunsNeverMix();
    void svgIsXmlWithRealText();
    void exportRefusesAnUnwritablePath();
    void pagesAreFullAtTheCommonPlanShapes_data();
    void pagesAreFullAtTheCommonPlanShapes();
    void redFlagsAreAShortSection();
    void deckRunsInReviewOrder();
    void deckNumbersAreTheAnalysis();
    void reportIsAListOfSections();

private:
    QTemporaryDir dir_;
};

void TestReport::pdfHasPagesFiguresAndSections_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("worked example A") << "70b-2048-h100.json"
                              << QStringList{"70.55 billion", "6.29e23", "8.98 days", "10.3 days", "20.9 GB", "15.8 %", "Inputs",
                                             "Memory and step time", "Pipeline schedule", "Layout on the hardware", "Red flags",
                                             "Validation and reliability plan", "Stage 1: one-node correctness", "Stage 4: convergence",
                                             "The math: Compute and time", "The math: Reliability", "6 · N · D", "Young 1974"};
    QTest::newRow("worked example B") << "70b-512-gpu.json"
                                      << QStringList{"69.50 billion", "6.53 days", "1.44e23", "760 ms", "Stage 3: reliability"};
    // Issue 25's hardware: an NVL72 rack, Blackwell with MXFP8, AMD with its own link's name.
    QTest::newRow("DeepSeek-V3 on GB200 NVL72") << "deepseek-v3-512-gb200-nvl72.json"
                                                << QStringList{"GB200 NVL72 186GB", "Layout on the hardware", "Pipeline schedule"};
    QTest::newRow("70B on B200, MXFP8") << "70b-256-b200-mxfp8.json" << QStringList{"B200 180GB", "mxfp8", "Layout on the hardware"};
    QTest::newRow("70B on MI300X") << "70b-256-mi300x.json" << QStringList{"MI300X 192GB", "Infinity Fabric", "Layout on the hardware"};
}

void TestReport::pdfHasPagesFiguresAndSections()
{
    QFETCH(QString, example);
    QFETCH(QStringList, expected);
    ReportContext context(trainplan::analyse(::example(example.toUtf8().constData())));
    const QString path = dir_.filePath(example + ".pdf");
    QString error;
    int pages = 0;
    QVERIFY2(pdfreport::write(context, path, QPageSize::A4, &error, &pages), qPrintable(error));
    QVERIFY(pages >= 10);
    const QString info = runTool("pdfinfo", {path});
    QVERIFY2(info.contains(QRegularExpression(QString("Pages:\\s+%1\\b").arg(pages))), qPrintable(info));
    QVERIFY(info.contains("A4"));
    const QString text = runTool("pdftotext", {"-layout", path, "-"});
    for (const auto& s : expected)
        QVERIFY2(text.contains(s), qPrintable("missing from the PDF text: " + s));
    QVERIFY(text.contains(QString("Page %1 of %1").arg(pages)));
}

void TestReport::pdfEmbedsFontsAndHasNoRasterImages()
{
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    const QString path = dir_.filePath("fonts.pdf");
    QString error;
    QVERIFY(pdfreport::write(context, path, QPageSize::A4, &error));
    const QStringList fonts = runTool("pdffonts", {path}).split('\n', Qt::SkipEmptyParts).mid(2);
    QVERIFY(!fonts.isEmpty());
    for (const auto& line : fonts) {
        const QStringList cols = line.simplified().split(' ');
        // columns: name type... encoding emb sub uni object ID; "emb" is the 4th from the end
        QVERIFY2(cols.size() >= 6 && cols[cols.size() - 5] == "yes", qPrintable("font not embedded: " + line));
    }
    const QStringList images = runTool("pdfimages", {"-list", path}).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(images.size(), 2);  // the two header lines only: no raster images at all
}

void TestReport::letterSizeWorks()
{
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    const QString path = dir_.filePath("letter.pdf");
    QString error;
    QVERIFY(pdfreport::write(context, path, QPageSize::Letter, &error));
    QVERIFY(runTool("pdfinfo", {path}).contains("letter"));
}

void TestReport::redFlagsReachTheReport()
{
    auto plan = trainplan::defaultPlan();
    plan.layout.tp = 16;
    plan.layout.dp = 32;
    plan.cluster.mtbfSeconds.reset();
    ReportContext context(trainplan::analyse(plan));
    const QString path = dir_.filePath("flags.pdf");
    QString error;
    QVERIFY(pdfreport::write(context, path, QPageSize::A4, &error));
    const QString text = runTool("pdftotext", {path, "-"});
    QVERIFY(text.contains("TP_SPANS_NODES"));
    QVERIFY(text.contains("NO_FAILURE_ALLOWANCE"));
    // Counted and pluralised ("1 error, 2 warnings, 0 notes"), never "1 errors and 1 warnings".
    QVERIFY(text.contains(QString::fromStdString(trainplan::warningCounts(context.estimate().warnings))));
    QVERIFY(!text.contains(QRegularExpression("\\b1 (errors|warnings)\\b")));
}

void TestReport::slidesAreWrittenInEveryForm()
{
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    const QString folder = dir_.filePath("slides");
    QString error;
    QStringList written;
    QVERIFY2(slideexport::writeAll(context, folder, &error, &written), qPrintable(error));
    const auto slides = slideexport::slides(context);
    QCOMPARE(written.size(), int(slides.size()) * 3 + 1);
    const QImage png(QDir(folder).filePath(slides[0].fileStem + ".png"));
    QCOMPARE(png.size(), QSize(1920, 1080));
    const QImage png2x(QDir(folder).filePath(slides[0].fileStem + "@2x.png"));
    QCOMPARE(png2x.size(), QSize(3840, 2160));
    const QString deck = QDir(folder).filePath("deck.pdf");
    const QString info = runTool("pdfinfo", {deck});
    QVERIFY2(info.contains(QRegularExpression(QString("Pages:\\s+%1\\b").arg(slides.size()))), qPrintable(info));
    QVERIFY(info.contains("1440 x 810 pts"));  // 16:9
    QVERIFY(runTool("pdftotext", {deck, "-"}).contains("Memory per GPU by pipeline stage"));
    const QStringList images = runTool("pdfimages", {"-list", deck}).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(images.size(), 2);
}

void TestReport::slideRunsNeverMix()
{
    const QString folder = dir_.filePath("runs");
    QString error;
    // A long plan's slides, then a short plan's into the same folder: only the second run's
    // files remain (the derivation appendix of the first had more slides).
    trainplan::Plan longer = trainplan::defaultPlan();
    ReportContext first(trainplan::analyse(longer));
    QVERIFY2(slideexport::writeAll(first, folder, &error), qPrintable(error));
    // An export killed midway left its staging folder beside the target: it never reaches the
    // target, and the next export clears it (of the files its manifest lists).
    const QString partial = dir_.filePath(".runs.trainplan-Ab12Cd");
    QVERIFY(QDir().mkpath(partial));
    QFile junk(partial + "/99-stale.png");
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.close();
    QFile manifest(partial + "/.trainplan-slides");
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write("TrainPlan slide export 2\n99-stale.png\n");
    manifest.close();
    trainplan::Plan other = longer;
    other.name = "second run";
    other.layout.pp = 1;
    other.layout.dp = 256;
    ReportContext second(trainplan::analyse(other));
    QStringList written;
    QVERIFY2(slideexport::writeAll(second, folder, &error, &written), qPrintable(error));
    QStringList expected;
    for (const QString& path : written)
        expected << QFileInfo(path).fileName();
    expected << ".trainplan-slides";
    QStringList present = QDir(folder).entryList(QDir::Files | QDir::Hidden);
    expected.sort();
    present.sort();
    QCOMPARE(present, expected);
    QVERIFY(!QFileInfo::exists(partial));
    QVERIFY(runTool("pdftotext", {QDir(folder).filePath("deck.pdf"), "-"}).contains("second run"));

    // A folder with someone else's files is refused, and left as it was.
    const QString foreign = dir_.filePath("holiday-photos");
    QVERIFY(QDir().mkpath(foreign));
    QFile photo(foreign + "/beach.jpg");
    QVERIFY(photo.open(QIODevice::WriteOnly));
    photo.close();
    QVERIFY(!slideexport::writeAll(second, foreign, &error));
    QVERIFY2(error.contains("did not write"), qPrintable(error));
    QCOMPARE(QDir(foreign).entryList(QDir::Files), QStringList{"beach.jpg"});
}

void TestReport::svgIsXmlWithRealText()
{
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    const QString folder = dir_.filePath("svg");
    QString error;
    QVERIFY(slideexport::writeAll(context, folder, &error));
    for (const auto& slide : slideexport::slides(context)) {
        QFile f(QDir(folder).filePath(slide.fileStem + ".svg"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QDomDocument doc;
        QVERIFY2(doc.setContent(&f), qPrintable(slide.fileStem));
        QCOMPARE(doc.documentElement().tagName(), QString("svg"));
        const auto texts = doc.elementsByTagName("text");
        QVERIFY2(texts.size() > 3, qPrintable(slide.fileStem));
        QVERIFY(doc.elementsByTagName("image").isEmpty());
    }
}

void TestReport::exportRefusesAnUnwritablePath()
{
    ReportContext context(trainplan::analyse(trainplan::defaultPlan()));
    QString error;
    QVERIFY(!pdfreport::write(context, "/nonexistent-dir/report.pdf", QPageSize::A4, &error));
    QVERIFY(error.contains("/nonexistent-dir/report.pdf"));
}

void TestReport::pagesAreFullAtTheCommonPlanShapes_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QStringList>("overrides");
    QTest::newRow("worked example A") << "70b-2048-h100.json" << QStringList{};
    QTest::newRow("worked example B") << "70b-512-gpu.json" << QStringList{};
    QTest::newRow("A without a pipeline") << "70b-2048-h100.json" << QStringList{"layout.pp=1", "layout.dp=256"};
    QTest::newRow("A with red flags (TP 3)") << "70b-2048-h100.json" << QStringList{"layout.tp=3"};
}

// Sections flow onto pages by their heights: every page but the last is at least three quarters
// full (the first page once was 60 % blank, and red flags took a page of their own).
void TestReport::pagesAreFullAtTheCommonPlanShapes()
{
    QFETCH(QString, example);
    QFETCH(QStringList, overrides);
    std::vector<std::string> sets;
    for (const auto& o : overrides)
        sets.push_back(o.toStdString());
    const trainplan::Plan plan = trainplan::loadPlanFile(std::string(TRAINPLAN_SOURCE_DIR) + "/examples/" + example.toStdString());
    trainplan::Plan varied = plan;
    if (!sets.empty()) {
        nlohmann::json doc = trainplan::planToJson(plan);
        for (const auto& s : sets)
            trainplan::applyOverride(doc, s);
        varied = trainplan::planFromJson(doc);
    }
    ReportContext context(trainplan::analyse(varied));
    const auto fill = pdfreport::pageFill(context, QPageSize::A4);
    QVERIFY(fill.size() >= 8);
    QStringList shown;
    for (double f : fill)
        shown << QString::number(f, 'f', 2);
    qInfo("%s: %zu pages, filled %s", qPrintable(example), fill.size(), qPrintable(shown.join(' ')));
    for (size_t i = 0; i + 1 < fill.size(); ++i)
        QVERIFY2(fill[i] >= 0.75, qPrintable(QString("page %1 is %2 full").arg(i + 1).arg(fill[i])));
}

void TestReport::redFlagsAreAShortSection()
{
    ReportContext clean(trainplan::analyse(example("70b-2048-h100.json")));
    QVERIFY(clean.estimate().warnings.empty());
    const QString path = dir_.filePath("clean.pdf");
    QString error;
    QVERIFY(pdfreport::write(clean, path, QPageSize::A4, &error));
    const QString first = runTool("pdftotext", {"-f", "1", "-l", "1", path, "-"});
    QVERIFY2(first.contains("Red flags: none."), qPrintable(first));
    QVERIFY(first.contains("The layout and why"));  // the page goes on after the one line
}

// The deck a reviewer presents: title, the ask, the layout and why, memory, time and pipeline,
// communication, reliability, risks and the staged plan; then the derivation as an appendix,
// fewer, fuller slides that hold every step once, in order.
void TestReport::deckRunsInReviewOrder()
{
    ReportContext context(trainplan::analyse(example("70b-2048-h100.json")));
    const auto slides = slideexport::slides(context);
    const QStringList expected = {context.title(), "The ask", "The layout and why", "Memory per GPU by pipeline stage",
        "Step time and pipeline", "Communication", "Reliability", "Risks and the staged validation plan"};
    QVERIFY(slides.size() > size_t(expected.size()));
    for (int i = 0; i < expected.size(); ++i)
        QCOMPARE(slideexport::slideTitle(context, slides[size_t(i)]), expected[i]);
    QVERIFY(slides[0].kind == SlideKind::Title);
    std::vector<std::pair<int, int>> shown;
    for (size_t i = size_t(expected.size()); i < slides.size(); ++i) {
        QVERIFY(slides[i].kind == SlideKind::Appendix);
        QCOMPARE(slideexport::slideTitle(context, slides[i]), QString("Appendix %1: the math").arg(i - size_t(expected.size()) + 1));
        QVERIFY(slides[i].columns.size() >= 1 && slides[i].columns.size() <= 2);
        for (const auto& column : slides[i].columns)
            for (const auto& piece : column)
                for (int step = piece.first; step < piece.last; ++step)
                    shown.push_back({piece.section, step});
    }
    std::vector<std::pair<int, int>> all;
    const auto sections = trainplan::derive(context.analysis());
    for (int s = 0; s < int(sections.size()); ++s)
        for (int step = 0; step < int(sections[size_t(s)].steps.size()); ++step)
            all.push_back({s, step});
    QVERIFY(shown == all);
    const size_t appendix = slides.size() - size_t(expected.size());
    QVERIFY2(appendix <= sections.size(), qPrintable(QString("%1 appendix slides for %2 sections").arg(appendix).arg(sections.size())));

    // The deck's pages carry the titles in the same order.
    const QString folder = dir_.filePath("review");
    QString error;
    QVERIFY2(slideexport::writeAll(context, folder, &error), qPrintable(error));
    const QString deck = QDir(folder).filePath("deck.pdf");
    for (int i = 0; i < expected.size(); ++i) {
        const QString text = runTool("pdftotext", {"-f", QString::number(i + 1), "-l", QString::number(i + 1), deck, "-"});
        QVERIFY2(text.simplified().contains(expected[i].simplified()), qPrintable(QString("slide %1: ").arg(i + 1) + text.left(200)));
    }
}

// Every figure a slide quotes is the analysis's own, in the shared formatting.
void TestReport::deckNumbersAreTheAnalysis()
{
    using namespace trainplan;
    ReportContext context(trainplan::analyse(example("70b-2048-h100.json")));
    const QString folder = dir_.filePath("numbers");
    QString error;
    QVERIFY2(slideexport::writeAll(context, folder, &error), qPrintable(error));
    const QString deck = QDir(folder).filePath("deck.pdf");
    const auto slide = [&](int n) {
        return runTool("pdftotext", {"-f", QString::number(n), "-l", QString::number(n), deck, "-"}).simplified();
    };
    const auto has = [](const QString& text, const std::string& figure) {
        return text.contains(QString::fromStdString(figure));
    };
    const Analysis& a = context.analysis();
    const Estimate& e = a.estimate;
    const PredictedStep& pr = a.predicted;

    const QString title = slide(1);
    QVERIFY2(has(title, formatNumber(a.atPredictedMfu.reliability.paddedDays) + " days with failures"), qPrintable(title));
    QVERIFY(has(title, formatInteger(pr.gpuHours) + " GPU-hours"));

    const QString ask = slide(2);
    for (const std::string& figure : {formatNumber(pr.days), formatNumber(e.time.days),
             formatNumber(a.atPredictedMfu.reliability.paddedDays), formatNumber(e.reliability.paddedDays), formatInteger(pr.gpuHours),
             formatInteger(e.time.gpuHours), formatSeconds(pr.stepSeconds), formatSeconds(e.time.stepSeconds), formatPercent(pr.mfu),
             formatNumber(pr.range.high.days), formatNumber(pr.range.low.days), formatInteger(pr.range.low.gpuHours)})
        QVERIFY2(has(ask, figure), figure.c_str());
    QVERIFY(ask.contains(timeBasisLabel(TimeBasis::Predicted)) && ask.contains(timeBasisLabel(TimeBasis::AssumedMfu)));

    const QString layout = slide(3);
    const trainplan::LayoutRationale& why = context.layoutRationale();
    QVERIFY(why.alternatives.size() >= 2);
    QVERIFY(has(layout, formatInteger(double(why.evaluated))));
    for (const auto& alt : why.alternatives) {
        QVERIFY2(has(layout, alt.name), alt.name.c_str());
        QVERIFY2(has(layout, alt.verdict.substr(0, alt.verdict.find(';'))), alt.verdict.c_str());
    }

    const QString memory = slide(4);
    for (const std::string& figure : {formatBytes(e.perGpu.total), formatBytes(e.perGpu.weights), formatBytes(e.perGpu.optimizer),
                                      formatBytes(e.perGpu.activations), formatBytes(e.headroomBytes)})
        QVERIFY2(has(memory, figure), figure.c_str());

    const QString time = slide(5);
    for (double part : {pr.components.forwardCompute, pr.components.backwardCompute, pr.components.pipelineBubble,
             pr.components.tpCommunication, pr.stepSeconds})
        QVERIFY2(has(time, formatSeconds(part)), formatSeconds(part).c_str());
    QVERIFY(has(time, formatPercent(pr.bubbleFraction)));

    const QString comm = slide(6);
    for (const std::string& figure : {formatBytes(e.communication.tpMessageBytes), formatSeconds(pr.components.tpCommunication),
                                      formatSeconds(pr.components.dpCommunication), formatBytes(e.communication.dpBytesPerGpu)})
        QVERIFY2(has(comm, figure), figure.c_str());

    const QString reliability = slide(7);
    for (const std::string& figure : {formatSeconds(e.reliability.checkpointIntervalSeconds), formatNumber(e.reliability.expectedFailures),
             formatNumber(a.atPredictedMfu.reliability.expectedFailures), formatBytes(e.reliability.checkpointBytes)})
        QVERIFY2(has(reliability, figure), figure.c_str());
}

void TestReport::reportIsAListOfSections()
{
    // The report is data (ReportSection.h): sections with a title, a kind and their parts, in the
    // document's order; the PDF flows their parts, the text views read their text, and the
    // validation plan's stages are parts of their own, not found by splitting its HTML.
    ReportContext context(trainplan::analyse(example("70b-2048-h100.json")));
    const auto& sections = context.sections();
    QStringList headings;
    for (const auto& s : sections)
        if (s.inDocument && s.headed && s.kind != ReportView::Derivation)
            headings << s.title;
    QCOMPARE(headings, (QStringList{"The layout and why", "Inputs", "Memory and step time", "Pipeline schedule", "Layout on the hardware",
                                    "Communication", "Reliability", "Sensitivity", "Risks", "Validation and reliability plan"}));
    const ReportSection& validation = context.section(ReportView::Validation);
    QCOMPARE(validation.parts.size(), size_t(4));
    QVERIFY(validation.parts[0].html.startsWith("<p>") && validation.parts[0].html.contains("<h3>Stage 1: one-node correctness</h3>"));
    for (int k = 1; k < 4; ++k)
        QVERIFY2(validation.parts[size_t(k)].html.startsWith(QString("<h3>Stage %1: ").arg(k + 1)),
            qPrintable(validation.parts[size_t(k)].html));
    // One derivation section per section of the math, a step a part.
    int math = 0;
    for (const auto& s : sections)
        if (s.kind == ReportView::Derivation) {
            QCOMPARE(s.parts.size(), context.derivation()[size_t(s.section)].steps.size());
            ++math;
        }
    QCOMPARE(math, int(context.derivation().size()));
    // Text views are their section's text.
    for (ReportView view : {ReportView::RedFlags, ReportView::Ask, ReportView::LayoutWhy, ReportView::Inputs, ReportView::Communication,
                            ReportView::Reliability, ReportView::Risks, ReportView::Staging, ReportView::Validation}) {
        const QString text = reportsections::text(context.section(view));
        QVERIFY(!text.isEmpty());
        QVERIFY(reportpainter::viewHtml(view, context).contains(theme::styled(text)));
    }
    // The PDF shows every headed section's title, in the list's order, and each stage.
    const QString path = dir_.filePath("sections.pdf");
    QString error;
    QVERIFY2(pdfreport::write(context, path, QPageSize::A4, &error), qPrintable(error));
    const QString text = runTool("pdftotext", {path, "-"});
    qsizetype at = 0;
    for (const auto& s : sections)
        if (s.inDocument && s.headed) {
            const qsizetype found = text.indexOf(s.title, at);
            QVERIFY2(found >= 0, qPrintable("not in the PDF in order: " + s.title));
            at = found;
        }
    for (int k = 1; k <= 4; ++k)
        QVERIFY(text.contains(QString("Stage %1: ").arg(k)));
}

QTEST_MAIN(TestReport)
#include "tst_report.moc"
