// Text widths remembered per font and string. QFontMetricsF keeps no cache: every
// horizontalAdvance() shapes its text anew. The layout diagram measures the same few hundred
// labels on every slider tick, and that measuring was half its layout time (perf, TP slider,
// 1920x1080). Bounded: a font's table starts over past kMaxWidths strings.
#pragma once

#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QString>

#include <vector>

class TextWidths {
public:
    // QFontMetricsF(font).horizontalAdvance(text), remembered.
    double advance(const QFont& font, const QString& text);

    static constexpr qsizetype kMaxWidths = 4096;
    static constexpr size_t kMaxFonts = 8;

private:
    struct FontWidths {
        QFont font;
        QFontMetricsF metrics;
        QHash<QString, double> widths;
    };
    std::vector<FontWidths> fonts_;
};
