// The one typeface of drawings and exports. DejaVu Sans ships everywhere Qt runs
// headless, so PNG, SVG and PDF exports match the window; no ligatures, so text copied
// or searched in a PDF reads "fl", not a ligature glyph.
#pragma once

#include <QFont>

namespace fonts {

QFont pixels(int pixelSize, QFont::Weight weight = QFont::Normal);
QFont points(double pointSize, bool bold = false);

}  // namespace fonts
