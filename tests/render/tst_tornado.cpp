// The sensitivity tornado's painter, with no widgets: one bar per input of
// trainplan::sensitivity, widest swing on top, each bar's width the swing it shows, the base
// line through them; the step-time measure re-sorts; it draws into vector devices for the
// report. The chart in the window: tests/ui/tst_tornadochart.cpp.
#include <QBuffer>
#include <QPainter>
#include <QPdfWriter>
#include <QPicture>
#include <QtTest>

#include <algorithm>

#include "../PixelCount.h"
#include "core/planfile/WorkedExamples.h"
#include "render/charts/TornadoPainter.h"

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
    void paintsIntoPdf();
    void tooltipNamesTheInputAndBothEnds();
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

QTEST_MAIN(TestTornado)
#include "tst_tornado.moc"
