// The sensitivity tornado , offscreen: one bar per input of trainplan::sensitivity,
// widest swing on top, each bar's width the swing it shows, the base line through them; the
// step-time measure re-sorts; the chart follows the document and the basis; an update costs
// well under 5 ms; the painter draws into vector devices for the report.
#include "PixelCount.h"
#include <QBuffer>
#include <QPainter>
#include <QPdfWriter>
#include <QPicture>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <chrono>

#include "charts/TornadoChart.h"
#include "charts/TornadoPainter.h"
#include "document/PlanDocument.h"
#include "planfile/WorkedExamples.h"

using trainplan::SensitivityBasis;

namespace {

const QRectF kRect(0, 0, 900, 500);


QImage render(const TornadoPainter& tornado, QSize size = kRect.size().toSize())
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    tornado.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

}  // namespace

class TestTornado : public QObject {
    Q_OBJECT

private slots:
    void oneBarPerInputSortedBySwing();
    void barWidthsAreTheSwing();
    void stepTimeMeasureSortsByStepSwing();
    void drawsBothHalvesAndTheBaseLine();
    void reactsToTheDocumentAndTheBasis();
    void paintsIntoPdf();
    void tooltipNamesTheInputAndBothEnds();
    void screenshot();
};

void TestTornado::oneBarPerInputSortedBySwing()
{
    TornadoPainter tornado;
    const auto result = trainplan::sensitivity(trainplan::defaultPlan());
    tornado.setResult(result);
    const QList<QRectF> bars = tornado.barRects(kRect);
    QCOMPARE(bars.size(), int(result.bars.size()));
    QVERIFY(bars.size() >= 10);
    // Widest swing on top, and every input drawn exactly once.
    std::vector<int> seen(tornado.order());
    std::sort(seen.begin(), seen.end());
    for (size_t i = 0; i < seen.size(); ++i)
        QCOMPARE(seen[i], int(i));
    for (size_t k = 1; k < tornado.order().size(); ++k) {
        QVERIFY(tornado.swing(result.bars[size_t(tornado.order()[k - 1])]) >= tornado.swing(result.bars[size_t(tornado.order()[k])]));
        QVERIFY(bars[int(k)].top() > bars[int(k - 1)].bottom());  // rows top to bottom, no overlap
    }
    for (const QRectF& r : bars)
        QVERIFY(kRect.contains(r));
}

void TestTornado::barWidthsAreTheSwing()
{
    TornadoPainter tornado;
    tornado.setResult(trainplan::sensitivity(trainplan::defaultPlan()));
    const QList<QRectF> bars = tornado.barRects(kRect);
    const QRectF base = tornado.baseLine(kRect);
    // Pixels per day from the widest bar; every bar spans its outcomes and touches the base.
    const auto& first = tornado.result().bars[size_t(tornado.order()[0])];
    const double scale = bars[0].width() / tornado.swing(first);
    QVERIFY(scale > 10);
    for (int k = 0; k < bars.size(); ++k) {
        const auto& bar = tornado.result().bars[size_t(tornado.order()[size_t(k)])];
        const double lo = std::min({tornado.base(), tornado.outcomeLow(bar), tornado.outcomeHigh(bar)});
        const double hi = std::max({tornado.base(), tornado.outcomeLow(bar), tornado.outcomeHigh(bar)});
        QVERIFY(std::abs(bars[k].width() - (hi - lo) * scale) < 1.0);
        QVERIFY(bars[k].left() <= base.left() + 0.5 && bars[k].right() >= base.left() - 0.5);
    }
    // Non-increasing widths where bars straddle the base (all but one-sided ones).
    QVERIFY(bars.first().width() >= bars.last().width());
}

void TestTornado::stepTimeMeasureSortsByStepSwing()
{
    TornadoPainter tornado;
    tornado.setResult(trainplan::sensitivity(trainplan::defaultPlan()));
    const std::vector<int> byDays = tornado.order();
    tornado.setMeasure(TornadoPainter::Measure::StepSeconds);
    const auto& bars = tornado.result().bars;
    for (size_t k = 1; k < tornado.order().size(); ++k)
        QVERIFY(bars[size_t(tornado.order()[k - 1])].swingStepSeconds >= bars[size_t(tornado.order()[k])].swingStepSeconds);
    QVERIFY(tornado.order() != byDays);  // failures move days, not the step: a different order
    QCOMPARE(tornado.base(), tornado.result().baseStepSeconds);
    QCOMPARE(tornado.unit(), QString("s"));
}

void TestTornado::drawsBothHalvesAndTheBaseLine()
{
    TornadoPainter tornado;
    tornado.setResult(trainplan::sensitivity(trainplan::defaultPlan()));
    const QImage image = render(tornado);
    QVERIFY(countPixels(image, TornadoPainter::lowColor()) > 2000);
    QVERIFY(countPixels(image, TornadoPainter::highColor()) > 2000);
    // The top bar: the low half on one side of the base line, the high half on the other.
    const QRectF top = tornado.barRects(kRect).first();
    const double xb = tornado.baseLine(kRect).left();
    const int y = int(top.center().y());
    const QColor left = image.pixelColor(int((top.left() + xb) / 2), y);
    const QColor right = image.pixelColor(int((top.right() + xb) / 2), y);
    QVERIFY(left != right);
    QVERIFY(left == TornadoPainter::lowColor() || left == TornadoPainter::highColor());
    QVERIFY(right == TornadoPainter::lowColor() || right == TornadoPainter::highColor());
}

void TestTornado::reactsToTheDocumentAndTheBasis()
{
    PlanDocument doc;
    TornadoChart chart(&doc);
    chart.resize(900, 500);
    const double baseDays = chart.tornado().result().baseDays;
    QCOMPARE(chart.tornado().result().basis, SensitivityBasis::Predicted);
    QCOMPARE(chart.barRects().size(), int(chart.tornado().result().bars.size()));
    // Half the inter-node bandwidth: a slower run, recomputed without being asked.
    doc.edit("Slower network", [](trainplan::Plan& p) { p.cluster.interNodeBytesPerSecond *= 0.5; });
    QVERIFY(chart.tornado().result().baseDays > baseDays);
    doc.undoStack()->undo();
    QCOMPARE(chart.tornado().result().baseDays, baseDays);
    // No MTBF: the failure inputs disappear, one bar fewer per input.
    const int before = int(chart.tornado().result().bars.size());
    doc.edit("No failures", [](trainplan::Plan& p) { p.cluster.mtbfSeconds.reset(); });
    QCOMPARE(int(chart.tornado().result().bars.size()), before - 1);
    QCOMPARE(chart.barRects().size(), before - 1);
    doc.undoStack()->undo();
    // The assumed-MFU basis has MFU as an input; the predicted one has the efficiencies.
    QSignalSpy basis(&chart, &TornadoChart::basisChanged);
    auto hasInput = [&](const char* name) {
        for (const auto& b : chart.tornado().result().bars)
            if (b.input == name)
                return true;
        return false;
    };
    QVERIFY(hasInput("Matmul efficiency"));
    chart.setBasis(SensitivityBasis::Assumed);
    QCOMPARE(basis.count(), 1);
    QCOMPARE(chart.tornado().result().basis, SensitivityBasis::Assumed);
    QVERIFY(hasInput("MFU (assumed)"));
    QVERIFY(!hasInput("Matmul efficiency"));
    chart.setMeasure(TornadoPainter::Measure::StepSeconds);
    QCOMPARE(chart.measure(), TornadoPainter::Measure::StepSeconds);
}

void TestTornado::paintsIntoPdf()
{
    TornadoPainter tornado;
    tornado.setResult(trainplan::sensitivity(trainplan::defaultPlan()));
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    pdf.setResolution(96);  // the painter's sizes are 96-dpi logical pixels
    {
        QPainter p(&pdf);
        tornado.paint(p, QRectF(0, 0, 700, 400));
    }
    QVERIFY(bytes.startsWith("%PDF"));
    QVERIFY(bytes.size() > 2000);
    QPicture picture;
    {
        QPainter p(&picture);
        tornado.paint(p, kRect);
    }
    QVERIFY(picture.size() > 1000);
}

void TestTornado::tooltipNamesTheInputAndBothEnds()
{
    TornadoPainter tornado;
    tornado.setResult(trainplan::sensitivity(trainplan::defaultPlan()));
    const QRectF top = tornado.barRects(kRect).first();
    const int k = tornado.barAt(kRect, top.center());
    QCOMPARE(k, 0);
    const QString tip = tornado.toolTip(k);
    const auto& bar = tornado.result().bars[size_t(tornado.order()[0])];
    QVERIFY2(tip.contains(QString::fromStdString(bar.input)), qPrintable(tip));
    QVERIFY(tip.contains("Lower") && tip.contains("Higher") && tip.contains("days"));
    QCOMPARE(tornado.barAt(kRect, QPointF(10, 5)), -1);  // the title row
}

void TestTornado::screenshot()
{
    PlanDocument doc;
    TornadoChart chart(&doc);
    chart.resize(900, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    const QImage image = chart.grab().toImage();
    QCOMPARE(image.size(), QSize(900, 500));
    const QString dir = qEnvironmentVariable("TRAINPLAN_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QVERIFY(image.save(dir + "/tornado.png"));
        chart.setMeasure(TornadoPainter::Measure::StepSeconds);
        QVERIFY(chart.grab().save(dir + "/tornado-step.png"));
        chart.setMeasure(TornadoPainter::Measure::PaddedDays);
        chart.setBasis(SensitivityBasis::Assumed);
        QVERIFY(chart.grab().save(dir + "/tornado-assumed.png"));
        chart.setBasis(SensitivityBasis::Predicted);
        chart.resize(420, 300);
        QVERIFY(chart.grab().save(dir + "/tornado-small.png"));
    }
}

QTEST_MAIN(TestTornado)
#include "tst_tornado.moc"
