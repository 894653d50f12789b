// The sizing answer drawn (render/sizing): the chart rings the cheapest configuration on time and
// draws the deadline; the PDF holds the sentences, the chart and every configuration.
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QtTest>

#include "../RunTool.h"
#include "core/planfile/PlanFile.h"
#include "core/sizing/ClusterSizing.h"
#include "render/sizing/SizingChartPainter.h"
#include "render/sizing/SizingReport.h"
#include "render/report/PdfReport.h"
#include "render/report/ReportContext.h"
#include "render/report/SizingPdf.h"
#include "core/analysis/Analysis.h"

namespace {

trainplan::SizingResult exampleSizing()
{
    trainplan::SizingOptions o;
    o.deadlineDays = 20;
    o.minGpus = 512;
    o.maxGpus = 2048;
    o.accelerators = {{"H100 SXM", 2.5}, {"B200", 5.0}};
    return trainplan::sizeCluster(trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json"), o);
}

}  // namespace

class TestSizingReport : public QObject {
    Q_OBJECT

private slots:
    void chartMarksTheCheapestAndTheDeadline();
    void pdfHoldsTheAnswerTheChartAndEveryPoint();
    void planReportGetsASizingSectionWhenSized();
};

void TestSizingReport::chartMarksTheCheapestAndTheDeadline()
{
    const trainplan::SizingResult r = exampleSizing();
    QVERIFY(r.cheapest.has_value());
    SizingChartPainter chart;
    chart.setResult(&r);
    QImage image(900, 500, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    chart.paint(p, QRectF(0, 0, 900, 500));
    p.end();
    // Every usable point is drawn where its days and cost put it: faster to the left, dearer higher
    // (log axes keep the order), and hovering it finds it.
    int drawn = 0;
    for (size_t i = 0; i < r.points.size(); ++i) {
        const QPointF a = chart.pointPosition(int(i));
        QCOMPARE(std::isfinite(a.x()), r.points[i].usable);
        if (!r.points[i].usable)
            continue;
        ++drawn;
        QVERIFY(QRectF(0, 0, 900, 500).contains(a));
        for (size_t j = 0; j < r.points.size(); ++j) {
            if (!r.points[j].usable)
                continue;
            const QPointF b = chart.pointPosition(int(j));
            if (r.points[i].days < r.points[j].days)
                QVERIFY(a.x() < b.x());
            if (*r.points[i].usd < *r.points[j].usd)
                QVERIFY(a.y() > b.y());
        }
    }
    QVERIFY(drawn >= 8);
    QCOMPARE(chart.pointAt(chart.pointPosition(int(*r.cheapest))), int(*r.cheapest));
    QCOMPARE(chart.pointAt(QPointF(-100, -100)), -1);
}

void TestSizingReport::pdfHoldsTheAnswerTheChartAndEveryPoint()
{
    const trainplan::SizingResult r = exampleSizing();
    QTemporaryDir dir;
    const QString path = dir.filePath("sizing.pdf");
    QString error;
    int pages = 0;
    QVERIFY2(sizingpdf::write(r, "70B on 2,048 H100s", path, QPageSize::A4, &error, &pages), qPrintable(error));
    QVERIFY(pages >= 2);
    const QString text = runTool("pdftotext", {"-layout", path, "-"});
    QVERIFY2(text.contains("the cheapest that meets the 20-day deadline"), qPrintable(text.left(400)));
    QVERIFY(text.contains("Every configuration sized") && text.contains("B200 180GB") && text.contains("H100 SXM 80GB"));
    QVERIFY(text.contains("days, predicted, with failures"));
    QVERIFY(!sizingpdf::write(r, "x", dir.filePath("missing/sizing.pdf"), QPageSize::A4, &error));
}

// The plan's own PDF report: no sizing section unless a sizing is given; with one, the answer,
// the chart and each accelerator's Pareto front (its rows only, the cheapest among them).
void TestSizingReport::planReportGetsASizingSectionWhenSized()
{
    const trainplan::Plan plan = trainplan::loadPlanFile(TRAINPLAN_SOURCE_DIR "/examples/70b-2048-h100.json");
    ReportContext plain(trainplan::analyse(plan), "70b");
    for (const ReportSection& s : plain.sections())
        QVERIFY(s.kind != ReportView::Sizing);

    const trainplan::SizingResult r = exampleSizing();
    ReportContext sized(trainplan::analyse(plan), "70b");
    sized.setSizing(r);
    const ReportSection& section = sized.section(ReportView::Sizing);
    QCOMPARE(section.title, QString("Sizing the cluster"));
    QCOMPARE(section.parts.size(), size_t(4));  // sentences, chart, the H100's front, the B200's front
    QCOMPARE(int(section.parts[1].kind), int(ReportPartKind::Drawing));
    QVERIFY(section.parts[2].html.contains("H100 SXM 80GB") && !section.parts[2].html.contains("B200 180GB"));
    // Front-only rows: as many rows as the accelerator has Pareto points (and the cheapest).
    int front = 0;
    for (size_t i = 0; i < r.points.size(); ++i)
        front += r.points[i].accelerator == "B200 180GB" && (r.points[i].pareto || (r.cheapest && *r.cheapest == i));
    QCOMPARE(int(section.parts[3].html.count("<tr")) - 1, front);

    QTemporaryDir dir;
    QString error;
    int plainPages = 0, sizedPages = 0;
    QVERIFY2(pdfreport::write(plain, dir.filePath("plain.pdf"), QPageSize::A4, &error, &plainPages), qPrintable(error));
    QVERIFY2(pdfreport::write(sized, dir.filePath("sized.pdf"), QPageSize::A4, &error, &sizedPages), qPrintable(error));
    QVERIFY(sizedPages > plainPages);
    const QString text = runTool("pdftotext", {"-layout", dir.filePath("sized.pdf"), "-"}).simplified();
    QVERIFY(text.contains("Sizing the cluster"));
    QVERIFY2(text.contains("the cheapest that meets the 20-day deadline"), qPrintable(text.left(600)));
    QVERIFY(text.contains("the Pareto front of days against cost"));
    QVERIFY(!runTool("pdftotext", {"-layout", dir.filePath("plain.pdf"), "-"}).contains("Sizing the cluster"));
}

QTEST_MAIN(TestSizingReport)
#include "tst_sizingreport.moc"
