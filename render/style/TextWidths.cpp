#include "render/style/TextWidths.h"

double TextWidths::advance(const QFont& font, const QString& text)
{
    FontWidths* entry = nullptr;
    for (FontWidths& f : fonts_)
        if (f.font == font) {  // the same font object compares by pointer first
            entry = &f;
            break;
        }
    if (!entry) {
        if (fonts_.size() >= kMaxFonts)
            fonts_.clear();
        entry = &fonts_.emplace_back(FontWidths{font, QFontMetricsF(font), {}});
    }
    const auto it = entry->widths.constFind(text);
    if (it != entry->widths.cend())
        return it.value();
    if (entry->widths.size() >= kMaxWidths)
        entry->widths.clear();
    const double width = entry->metrics.horizontalAdvance(text);
    entry->widths.insert(text, width);
    return width;
}
