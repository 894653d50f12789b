// The step-time chart's painter, with no widgets: the predicted row's range line (whisker and
// its "range a - b" text) stays inside the plot, above the seconds axis's tick labels, at every
// pane height the window gives it, down to the bottom row's minimum at 1280x720.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include "core/analysis/Analysis.h"
#include "core/planfile/WorkedExamples.h"
#include "render/charts/StepTimeChartPainter.h"

class TestStepTimeChart : public QObject {
    Q_OBJECT

private slots:
    void rangeTextStaysAboveTheTickLabels_data();
    void rangeTextStaysAboveTheTickLabels();
};

void TestStepTimeChart::rangeTextStaysAboveTheTickLabels_data()
{
    QTest::addColumn<QSize>("size");
    // The step-time pane at 1280x720 (about 285 x 190 px of chart), then taller and wider ones.
    QTest::newRow("1280x720 pane") << QSize(285, 190);
    QTest::newRow("short") << QSize(285, 160);
    QTest::newRow("1366x768 pane") << QSize(330, 220);
    QTest::newRow("1920x1080 pane") << QSize(560, 330);
    QTest::newRow("tall") << QSize(600, 600);
}

void TestStepTimeChart::rangeTextStaysAboveTheTickLabels()
{
    QFETCH(QSize, size);
    const trainplan::Analysis analysis = trainplan::analyse(trainplan::defaultPlan());
    QVERIFY(analysis.predicted.range.low.stepSeconds > analysis.predicted.range.high.stepSeconds);
    StepTimeChartPainter chart;
    chart.setAnalysis(analysis);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    chart.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
    p.end();
    const QRectF plot = chart.plotRect(), label = chart.rangeLabelRect();
    QVERIFY(!plot.isEmpty());
    QVERIFY2(!label.isEmpty(), "the default plan has a range, so its text is drawn");
    // Tick labels start 2 px under the plot (ChartFrame's paintHorizontalAxis).
    QVERIFY2(label.bottom() <= plot.bottom() + 2.0 + 1e-9,
             qPrintable(QStringLiteral("range text ends at %1, tick labels start at %2").arg(label.bottom()).arg(plot.bottom() + 2)));
    QVERIFY(label.left() >= plot.left() - 1e-9 && label.right() <= plot.right() + 1e-9);
    // The bar keeps room for its own value label.
    QVERIFY(chart.barHeight() >= 12.0);
}

QTEST_MAIN(TestStepTimeChart)
#include "tst_steptimechart.moc"
