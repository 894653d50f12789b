// The timeline's level-of-detail image (render/timeline/TimelineDensityImage.h): each pixel
// column of a stage row is a stacked bar, forward on top, then backward, then W, each as tall as
// its share of the column's time; the rest is transparent. Checked pixel by pixel against bars
// worked out here from whole-pixel blocks, over widths that are and are not a multiple of the
// four pixels the fill writes at a time, and rows that touch only part of the image.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include <array>
#include <cmath>
#include <random>

#include "render/timeline/TimelineDensityImage.h"

namespace {

const std::array<QColor, TimelineDensityImage::PartCount> kColors = {QColor(200, 40, 40), QColor(40, 40, 200), QColor(40, 160, 40)};

}  // namespace

class TestTimelineDensity : public QObject {
    Q_OBJECT

private slots:
    void stackedBarsMatchTheirShares_data();
    void stackedBarsMatchTheirShares();
};

void TestTimelineDensity::stackedBarsMatchTheirShares_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("first");  // the columns a row's blocks touch
    QTest::addColumn<int>("last");
    QTest::newRow("whole image, multiple of four") << 64 << 0 << 63;
    QTest::newRow("whole image, odd width") << 67 << 0 << 66;
    QTest::newRow("inner columns, unaligned ends") << 50 << 3 << 45;
    QTest::newRow("fewer columns than one group") << 40 << 10 << 12;
    QTest::newRow("one column") << 9 << 4 << 4;
}

void TestTimelineDensity::stackedBarsMatchTheirShares()
{
    QFETCH(int, width);
    QFETCH(int, first);
    QFETCH(int, last);
    constexpr int kRowHeight = 10, kRows = 3;
    std::mt19937 random(unsigned(width * 131 + first * 7 + last));
    std::uniform_int_distribution<int> tenths(0, 3);

    TimelineDensityImage density;
    density.begin(QRectF(0, 0, width, kRows * kRowHeight), 1.0, kColors);
    // shares[row][column][part], in tenths of the column's pixel.
    std::vector<std::array<int, TimelineDensityImage::PartCount>> shares(size_t(kRows) * size_t(width), {0, 0, 0});
    for (int row = 0; row < kRows; ++row) {
        density.beginRow(row * kRowHeight, (row + 1) * kRowHeight);
        for (int c = first; c <= last; ++c) {
            double x = c;
            for (int part = 0; part < TimelineDensityImage::PartCount; ++part) {
                const int share = tenths(random);  // at most 9 tenths in all: whole-pixel bar ends
                shares[size_t(row * width + c)][size_t(part)] = share;
                density.add(TimelineDensityImage::Part(part), x, x + share / 10.0);
                x += share / 10.0;
            }
        }
        density.endRow();
    }
    QImage image(width, kRows * kRowHeight, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter p(&image);
        density.draw(p);
    }

    for (int row = 0; row < kRows; ++row)
        for (int c = 0; c < width; ++c) {
            const auto& share = shares[size_t(row * width + c)];
            const int total = share[0] + share[1] + share[2];
            // Cumulative ends in pixels, as a share of the column scaled to the row's height.
            const double scale = (total > 10 ? 10.0 / total : 1.0) * kRowHeight / 10.0;
            const int endForward = int(std::lround(share[0] * scale));
            const int endBackward = int(std::lround((share[0] + share[1]) * scale));
            const int endWeightGrad = int(std::lround(total * scale));
            for (int h = 0; h < kRowHeight; ++h) {
                const QRgb expected = h < endForward ? kColors[0].rgba()
                    : h < endBackward                ? kColors[1].rgba()
                    : h < endWeightGrad              ? kColors[2].rgba()
                                                     : 0u;
                const QRgb actual = image.pixel(c, row * kRowHeight + h);
                if (actual != expected)
                    QFAIL(qPrintable(QString("row %1, column %2, pixel %3: %4, expected %5 (shares %6 %7 %8)")
                                         .arg(row).arg(c).arg(h).arg(actual, 8, 16).arg(expected, 8, 16)
                                         .arg(share[0]).arg(share[1]).arg(share[2])));
            }
        }
}

QTEST_APPLESS_MAIN(TestTimelineDensity)
#include "tst_timelinedensity.moc"
