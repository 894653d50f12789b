// The one place text becomes markup. Every string that reaches HTML (rich text in the window,
// the report and the slides), an SVG file or a document's metadata passes through escaped(),
// so a plan name such as "</title><script>…" stays text wherever it is shown.
#pragma once

#include <QString>

#include <string>

namespace markup {

// &, <, > and both quotes as entities; control characters other than tab and newline dropped
// (XML 1.0 forbids them, and an SVG holding one does not open).
inline QString escaped(const QString& text)
{
    QString out;
    out.reserve(text.size() + text.size() / 8);
    for (const QChar c : text) {
        switch (c.unicode()) {
        case '&': out += QLatin1String("&amp;"); break;
        case '<': out += QLatin1String("&lt;"); break;
        case '>': out += QLatin1String("&gt;"); break;
        case '"': out += QLatin1String("&quot;"); break;
        case '\'': out += QLatin1String("&#39;"); break;
        default:
            if (c.unicode() < 0x20 && c != QLatin1Char('\t') && c != QLatin1Char('\n'))
                break;
            if (c.unicode() == 0xFFFE || c.unicode() == 0xFFFF)
                break;
            out += c;
        }
    }
    return out;
}

inline QString escaped(const std::string& text)
{
    return escaped(QString::fromStdString(text));
}

}  // namespace markup
