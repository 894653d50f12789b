// The comparison's drawings and report (render/compare): the tables name every figure with its
// difference and every changed input, the memory chart draws each stage of each plan, and the
// PDF holds the tables, the overlaid charts and a page per plan. Worked example A's alternative
// (FSDP with TP 8 against TP 8 x PP 4) is the pair compared.
#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include "../RunTool.h"
#include "core/analysis/Analysis.h"
#include "core/base/Format.h"
#include "core/planfile/WorkedExamples.h"
#include "render/compare/ComparisonHtml.h"
#include "render/compare/ComparisonPdf.h"
#include "render/compare/ComparisonSet.h"
#include "render/compare/MemoryComparisonPainter.h"
#include "render/compare/StepComparisonPainter.h"
#include "render/charts/StepTimeChartPainter.h"
#include "render/style/Theme.h"

namespace {

// Worked example A and the alternative it names: FSDP (ZeRO-3) over DP 256 with TP 8, no pipeline.
trainplan::Plan fsdpVariant()
{
    trainplan::Plan plan = trainplan::defaultPlan();
    plan.layout.pp = 1;
    plan.layout.dp = plan.cluster.gpus / plan.layout.tp;
    plan.layout.zeroStage = 3;
    return plan;
}

ComparisonSet examplePair()
{
    return ComparisonSet({trainplan::analyse(trainplan::defaultPlan()), trainplan::analyse(fsdpVariant())}, {"a.json", "b.json"});
}

// Most separate runs of `color` along any one row: bars side by side count once each.
int mostRunsInARow(const QImage& image, QColor color)
{
    int most = 0;
    for (int y = 0; y < image.height(); ++y) {
        int runs = 0;
        bool inside = false;
        for (int x = 0; x < image.width(); ++x) {
            const bool hit = image.pixelColor(x, y) == color;
            runs += hit && !inside;
            inside = hit;
        }
        most = std::max(most, runs);
    }
    return most;
}

}  // namespace

class TestComparisonReport : public QObject {
    Q_OBJECT

private slots:
    void tablesNameEveryFigureAndChange();
    void memoryChartDrawsEachStageOfEachPlan();
    void stepChartGivesEachPlanARow();
    void stepChartSaysWhichPeakAnFp8PlansMfuIsAgainst();
    void pdfHoldsTablesChartsAndEachPlan();
};

void TestComparisonReport::tablesNameEveryFigureAndChange()
{
    const ComparisonSet set = examplePair();
    QCOMPARE(set.size(), 2);
    const QString html = comparisonhtml::page(set);
    QVERIFY(html.contains("B against A"));
    for (const auto& figure : set.comparison().figures)
        QVERIFY2(html.contains(QString::fromStdString(figure.label)), figure.label.c_str());
    // What changed names the layout fields by title and path, and nothing the two share.
    for (const char* path : {"layout.pp", "layout.dp", "layout.zero_stage"})
        QVERIFY2(html.contains(path), path);
    QVERIFY(!html.contains("cluster.gpus"));
    // One figure, one value: B's predicted step is the analysis's own, formatted as everywhere.
    const double step = trainplan::analyse(fsdpVariant()).predicted.stepSeconds;
    QVERIFY(html.contains(QString::fromStdString(trainplan::formatSeconds(step))));
    QVERIFY(!html.contains("@ink"));  // theme roles resolved to colours
}

void TestComparisonReport::memoryChartDrawsEachStageOfEachPlan()
{
    const ComparisonSet set = examplePair();
    MemoryComparisonPainter painter;
    painter.setSet(&set);
    QImage image(1000, 420, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    painter.paint(p, QRectF(0, 0, 1000, 420));
    p.end();
    // A has four stages and B one: five weights segments side by side in the bars' bottom rows.
    QCOMPARE(mostRunsInARow(image, theme::weights()), 5);
}

void TestComparisonReport::stepChartGivesEachPlanARow()
{
    const ComparisonSet two = examplePair();
    const ComparisonSet three({trainplan::analyse(trainplan::defaultPlan()), trainplan::analyse(fsdpVariant()),
                                  trainplan::analyse(trainplan::defaultPlan())},
        {});
    StepComparisonPainter a, b;
    a.setSet(&two);
    b.setSet(&three);
    QVERIFY(b.preferredHeight(800) > a.preferredHeight(800));
    // Each row's bar starts with its compute segment: one band of wide compute-coloured rows per
    // plan (the legend's swatch is narrower than the threshold).
    QImage image(800, int(b.preferredHeight(800)), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    b.paint(p, QRectF(0, 0, image.width(), image.height()));
    p.end();
    const QColor compute = StepTimeChartPainter::partColor(StepTimeChartPainter::Compute);
    int rows = 0;
    bool inside = false;
    for (int y = 0; y < image.height(); ++y) {
        int count = 0;
        for (int x = 0; x < image.width(); ++x)
            count += image.pixelColor(x, y) == compute;
        const bool hit = count > 30;
        rows += hit && !inside;
        inside = hit;
    }
    QVERIFY2(rows == 3, qPrintable(QString::number(rows)));
}

// The chart's text as an SVG document: what it wrote, in drawing order.
QString stepChartSvg(const ComparisonSet& set, double height)
{
    StepComparisonPainter chart;
    chart.setSet(&set);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(800, int(height)));
    QPainter p(&svg);
    chart.paint(p, QRectF(0, 0, 800, height));
    p.end();
    return QString::fromUtf8(buffer.data());
}

void TestComparisonReport::stepChartSaysWhichPeakAnFp8PlansMfuIsAgainst()
{
    // BF16 GEMMs on both sides: MFU needs no basis. One plan with FP8 GEMMs: its MFU is still
    // against the BF16 peak (the MFU card's wording), whether the rows have room for a line of
    // its own or the note follows the MFU.
    const ComparisonSet bf16 = examplePair();
    QVERIFY(!stepChartSvg(bf16, 400).contains(QStringLiteral("BF16")));
    trainplan::Plan fp8 = trainplan::defaultPlan();
    fp8.training.matmulPrecision = trainplan::MatmulPrecision::Fp8;
    const ComparisonSet mixed({trainplan::analyse(trainplan::defaultPlan()), trainplan::analyse(fp8)}, {"a.json", "b.json"});
    for (double height : {400.0, 160.0}) {
        const QString svg = stepChartSvg(mixed, height);
        QCOMPARE(svg.count(QStringLiteral("vs BF16 peak")), 1);
    }
}

void TestComparisonReport::pdfHoldsTablesChartsAndEachPlan()
{
    const ComparisonSet set = examplePair();
    QTemporaryDir dir;
    const QString path = dir.filePath("comparison.pdf");
    QString error;
    int pages = 0;
    QVERIFY2(comparisonpdf::write(set, path, QPageSize::A4, &error, &pages), qPrintable(error));
    QVERIFY(pages >= 4);  // tables, charts, one page per plan
    const QString info = runTool("pdfinfo", {path});
    QVERIFY2(info.contains(QRegularExpression(QStringLiteral("Pages:\\s+%1\\b").arg(pages))), qPrintable(info));
    QVERIFY2(info.contains("842 x 595 pts"), qPrintable(info));  // landscape A4: wide tables, charts side by side
    const QString text = runTool("pdftotext", {"-layout", path, "-"});
    for (const QString& expected : {QString("Figures and inputs side by side"), QString("B against A"), QString("layout.zero_stage"),
             QString("Memory per GPU by pipeline stage"), QString("Where each step goes"), QString("page 1 of %1").arg(pages)})
        QVERIFY2(text.contains(expected), qPrintable(expected));
    for (int i = 0; i < set.size(); ++i)
        QVERIFY2(text.contains(QString::fromStdString(set.plan(i).plan().name)), qPrintable(set.heading(i)));
    // A path it cannot write fails with the path named, and leaves nothing behind.
    QVERIFY(!comparisonpdf::write(set, dir.filePath("missing/comparison.pdf"), QPageSize::A4, &error));
    QVERIFY2(error.contains("missing"), qPrintable(error));
}

QTEST_MAIN(TestComparisonReport)
#include "tst_comparisonreport.moc"
