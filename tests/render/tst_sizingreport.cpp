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
    QVERIFY2(sizingreport::writePdf(r, "70B on 2,048 H100s", path, QPageSize::A4, &error, &pages), qPrintable(error));
    QVERIFY(pages >= 2);
    const QString text = runTool("pdftotext", {"-layout", path, "-"});
    QVERIFY2(text.contains("the cheapest that meets the 20-day deadline"), qPrintable(text.left(400)));
    QVERIFY(text.contains("Every configuration sized") && text.contains("B200 180GB") && text.contains("H100 SXM 80GB"));
    QVERIFY(text.contains("days, predicted, with failures"));
    QVERIFY(!sizingreport::writePdf(r, "x", dir.filePath("missing/sizing.pdf"), QPageSize::A4, &error));
}

QTEST_MAIN(TestSizingReport)
#include "tst_sizingreport.moc"
