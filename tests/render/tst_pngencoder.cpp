// The slides' PNG encoder (render/report/PngEncoder.h): lossless (every pixel read back as it
// was painted, alpha dropped onto the opaque picture), a PNG any reader takes, and nothing for a
// null image.
#include <QGuiApplication>
#include <QImage>
#include <QLinearGradient>
#include <QPainter>
#include <QtTest>

#include "render/report/PngEncoder.h"

class TestPngEncoder : public QObject {
    Q_OBJECT

private slots:
    void readsBackPixelForPixel();
    void nullImageGivesNothing();
};

void TestPngEncoder::readsBackPixelForPixel()
{
    // Odd sizes (a row not a multiple of 4 bytes), a gradient, antialiased text and shapes.
    QImage image(333, 187, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        QLinearGradient g(0, 0, 333, 187);
        g.setColorAt(0, QColor(10, 200, 30));
        g.setColorAt(1, QColor(240, 20, 90));
        p.fillRect(QRect(0, 0, 200, 100), g);
        p.setPen(QPen(QColor(20, 60, 250), 3));
        p.drawEllipse(QPointF(250, 120), 60, 40);
        p.drawText(QPointF(10, 170), "TP 8 x PP 4 x DP 64");
    }
    const QByteArray png = pngencoder::encode(image);
    QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
    const QImage back = QImage::fromData(png, "PNG");
    QCOMPARE(back.size(), image.size());
    QCOMPARE(back.convertToFormat(QImage::Format_RGB32), image);
    // Fully opaque colour from a premultiplied ARGB image reads back the same too.
    QImage argb(17, 9, QImage::Format_ARGB32_Premultiplied);
    argb.fill(QColor(1, 2, 3));
    QCOMPARE(QImage::fromData(pngencoder::encode(argb), "PNG").convertToFormat(QImage::Format_RGB32), argb.convertToFormat(QImage::Format_RGB32));
}

void TestPngEncoder::nullImageGivesNothing()
{
    QVERIFY(pngencoder::encode(QImage()).isEmpty());
}

QTEST_MAIN(TestPngEncoder)
#include "tst_pngencoder.moc"
