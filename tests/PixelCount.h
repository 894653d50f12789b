// Counting the pixels of one colour in a rendered image: how the GUI tests check that a
// drawing shows what it should without comparing whole images.
#pragma once

#include <QColor>
#include <QImage>

inline int countPixels(const QImage& image, QColor color)
{
    const QRgb want = color.rgb();
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            n += (line[x] | 0xff000000u) == want;
    }
    return n;
}
