#include "render/charts/ChartFrame.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "render/style/Fonts.h"
#include "render/style/Theme.h"

namespace chartframe {

namespace {

constexpr double kSwatch = 10;  // legend swatch edge, logical px
constexpr double kGap = 14;     // between legend entries

double entryWidth(const QFontMetricsF& fm, const LegendEntry& e, double scale)
{
    return (kSwatch + 5) * scale + fm.horizontalAdvance(e.label);
}

}  // namespace

QFont labelFont(double scale)
{
    return fonts::points(8.0 * scale);
}

QFont valueFont(double scale)
{
    return fonts::points(7.5 * scale);
}

QFont titleFont(double scale)
{
    return fonts::points(9.0 * scale, true);
}

double legendHeight(const std::vector<LegendEntry>& entries, double width, double scale)
{
    if (entries.empty())
        return 0;
    const QFontMetricsF fm(labelFont(scale));
    const double line = fm.height() + 4 * scale;
    double x = 0;
    int lines = 1;
    for (const auto& e : entries) {
        const double w = entryWidth(fm, e, scale);
        if (x > 0 && x + w > width) {
            ++lines;
            x = 0;
        }
        x += w + kGap * scale;
    }
    return lines * line;
}

double paintLegend(QPainter& p, const QRectF& rect, const std::vector<LegendEntry>& entries, double scale)
{
    if (entries.empty())
        return 0;
    p.save();
    const QFont font = labelFont(scale);
    p.setFont(font);
    const QFontMetricsF fm(font, p.device());
    const double line = fm.height() + 4 * scale;
    double x = rect.left(), y = rect.top();
    for (const auto& e : entries) {
        const double w = entryWidth(fm, e, scale);
        if (x > rect.left() && x + w > rect.right()) {
            x = rect.left();
            y += line;
        }
        const QRectF swatch(x, y + (line - kSwatch * scale) / 2, kSwatch * scale, kSwatch * scale);
        if (e.dashed) {
            p.setPen(QPen(e.color, 2 * scale, Qt::DashLine));
            p.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()));
        } else {
            p.setPen(QPen(e.color.darker(115), 1));
            p.setBrush(e.color);
            p.drawRect(swatch);
        }
        p.setPen(theme::inkSoft());
        p.drawText(QRectF(swatch.right() + 5 * scale, y, w, line), Qt::AlignLeft | Qt::AlignVCenter, e.label);
        x += w + kGap * scale;
    }
    p.restore();
    return y + line - rect.top();
}

double tickStep(double top, int targetTicks)
{
    if (!(top > 0) || !std::isfinite(top))
        return 1;
    const double raw = top / std::max(1, targetTicks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10 * magnitude;
}

double axisEnd(double top, int targetTicks)
{
    const double step = tickStep(top, targetTicks);
    return std::max(step, std::ceil(top / step - 1e-9) * step);
}

QString tickLabel(double value, double step)
{
    int decimals = 0;
    while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6)
        ++decimals;
    return QString::number(value, 'f', decimals);
}

void paintVerticalAxis(QPainter& p, const QRectF& plot, double end, double step, double tickWidth, double titleLeft, const QString& title,
    double scale)
{
    const double lineH = QFontMetricsF(p.font(), p.device()).height();
    for (double v = 0; v <= end + 1e-9; v += step) {
        const double y = plot.bottom() - v / end * plot.height();
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(theme::muted());
        p.drawText(QRectF(plot.left() - tickWidth - 6 * scale, y - lineH / 2, tickWidth, lineH), Qt::AlignRight | Qt::AlignVCenter,
            tickLabel(v, step));
    }
    // On a short plot "GB per GPU" would be cut at both ends: the unit alone ("GB"), else elided.
    const QFontMetricsF metrics(p.font(), p.device());
    QString shown = title;
    if (metrics.horizontalAdvance(shown) > plot.height()) {
        const QString unit = title.section(QStringLiteral(" per "), 0, 0);
        shown = metrics.horizontalAdvance(unit) <= plot.height() ? unit : metrics.elidedText(title, Qt::ElideRight, plot.height());
    }
    p.save();
    p.translate(titleLeft + lineH / 2, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -lineH / 2, plot.height(), lineH), Qt::AlignCenter, shown);
    p.restore();
}

void paintHorizontalAxis(QPainter& p, const QRectF& plot, double end, double step, double rightLimit, double scale)
{
    const double lineH = QFontMetricsF(p.font(), p.device()).height();
    const double labelW = 80 * scale;
    for (double v = 0; v <= end + 1e-12; v += step) {
        const double x = plot.left() + v / end * plot.width();
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(theme::muted());
        const double left = std::min(x - labelW / 2, rightLimit - labelW);
        p.drawText(QRectF(left, plot.bottom() + 2 * scale, labelW, lineH), left < x - labelW / 2 ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignCenter,
            tickLabel(v, step));
    }
}

}  // namespace chartframe
