// Colours and sizes shared by every view, so the window, charts and exports agree.
#pragma once

#include <QColor>
#include <QString>

#include "core/analysis/Thresholds.h"
#include "core/estimate/Warning.h"

namespace theme {

// Neutral tones of text, lines and surfaces (Tailwind's gray scale).
inline QColor ink()
{
    return QColor(0x11, 0x18, 0x27);
}  // headings, values
inline QColor inkSoft()
{
    return QColor(0x37, 0x41, 0x51);
}  // labels
inline QColor muted()
{
    return QColor(0x4b, 0x55, 0x63);
}  // secondary text, axis labels
inline QColor faint()
{
    return QColor(0x6b, 0x72, 0x80);
}  // notes, captions
inline QColor quiet()
{
    return QColor(0x9c, 0xa3, 0xaf);
}  // disabled, placeholders
inline QColor border()
{
    return QColor(0xd1, 0xd5, 0xdb);
}
inline QColor gridLine()
{
    return QColor(0xe5, 0xe7, 0xeb);
}
inline QColor panel()
{
    return QColor(0xf9, 0xfa, 0xfb);
}  // card background
inline QColor accent()
{
    return QColor(0x7c, 0x3a, 0xed);
}  // selection, focus

// Memory components, in stacking order (weights at the bottom).
inline QColor weights()
{
    return QColor(0x3b, 0x82, 0xf6);
}
inline QColor gradients()
{
    return QColor(0x8b, 0x5c, 0xf6);
}
inline QColor optimizer()
{
    return QColor(0xf5, 0x9e, 0x0b);
}
inline QColor activations()
{
    return QColor(0x10, 0xb9, 0x81);
}
// ZeRO-3's gathered parameters and gradients: a lighter green beside the activations they
// work with (transient, not model state).
inline QColor shardingBuffers()
{
    return QColor(0x6e, 0xe7, 0xb7);
}
inline QColor buffers()
{
    return QColor(0x9c, 0xa3, 0xaf);
}
// The runtime reserve, in greys from dark to light (it is overhead, not the model).
inline QColor cudaContext()
{
    return QColor(0x6b, 0x72, 0x80);
}
inline QColor workspace()
{
    return QColor(0x8b, 0x93, 0xa1);
}
inline QColor ncclBuffers()
{
    return QColor(0xa3, 0xab, 0xb8);
}
inline QColor fragmentation()
{
    return QColor(0xc4, 0xc9, 0xd2);
}
inline QColor capacity()
{
    return QColor(0xdc, 0x26, 0x26);
}

// Step time parts.
inline QColor compute()
{
    return QColor(0x25, 0x63, 0xeb);
}
inline QColor bubble()
{
    return QColor(0xd1, 0xd5, 0xdb);
}
inline QColor memoryBound()
{
    return QColor(0x93, 0xc5, 0xfd);
}
inline QColor recompute()
{
    return QColor(0xfb, 0xbf, 0x24);
}
inline QColor tpComm()
{
    return QColor(0x06, 0xb6, 0xd4);
}
inline QColor ppComm()
{
    return QColor(0xa8, 0x55, 0xf7);
}
inline QColor dpExposed()
{
    return QColor(0xef, 0x44, 0x44);
}
inline QColor dpHidden()
{
    return QColor(0xfc, 0xa5, 0xa5);
}
// Mixture-of-experts parts: the expert all-to-all (teal) and the busiest expert rank's extra
// time (orange), apart from the TP and DP blues and reds.
inline QColor epComm()
{
    return QColor(0x0d, 0x94, 0x88);
}
inline QColor expertImbalance()
{
    return QColor(0xea, 0x58, 0x0c);
}
inline QColor kernelOverhead()
{
    return QColor(0x64, 0x74, 0x8b);
}
inline QColor range()
{
    return QColor(0x1f, 0x29, 0x37);
}  // low-high whiskers of a prediction

inline QColor severity(trainplan::Severity s)
{
    switch (s) {
    case trainplan::Severity::Error:
        return QColor(0xdc, 0x26, 0x26);
    case trainplan::Severity::Warning:
        return QColor(0xd9, 0x77, 0x06);
    case trainplan::Severity::Info:
        return QColor(0x25, 0x63, 0xeb);
    }
    return Qt::black;
}
inline QColor ok()
{
    return QColor(0x16, 0xa3, 0x4a);
}
// A figure coloured by the core's verdict (analysis/Thresholds.h): `fine` when it reads as planned.
inline QColor verdict(trainplan::Verdict v, const QColor& fine)
{
    switch (v) {
    case trainplan::Verdict::Fine:
        return fine;
    case trainplan::Verdict::Warning:
        return severity(trainplan::Severity::Warning);
    case trainplan::Verdict::Error:
        return severity(trainplan::Severity::Error);
    }
    return fine;
}
// Series told apart by hue alone (the sizing chart's accelerators): Tailwind's 600 shades of
// blue, emerald, amber, violet, rose and cyan, then again.
inline QColor series(int index)
{
    static const QColor colors[] = {QColor(0x25, 0x63, 0xeb), QColor(0x05, 0x96, 0x69), QColor(0xd9, 0x77, 0x06),
                                    QColor(0x7c, 0x3a, 0xed), QColor(0xe1, 0x1d, 0x48), QColor(0x08, 0x91, 0xb2)};
    return colors[((index % 6) + 6) % 6];
}
inline QColor highlight()
{
    return QColor(0xfd, 0xe6, 0x8a);
}

// Rich text with the theme's colours: "@ink", "@inkSoft", "@muted", "@faint", "@grid", "@error"
// and "@ok" in `html` become their hex names, so HTML fragments name colours by role too.
inline QString styled(QString html)
{
    html.replace(QLatin1String("@inkSoft"), inkSoft().name());
    html.replace(QLatin1String("@ink"), ink().name());
    html.replace(QLatin1String("@muted"), muted().name());
    html.replace(QLatin1String("@faint"), faint().name());
    html.replace(QLatin1String("@grid"), gridLine().name());
    html.replace(QLatin1String("@error"), severity(trainplan::Severity::Error).name());
    html.replace(QLatin1String("@ok"), ok().name());
    return html;
}

}  // namespace theme
