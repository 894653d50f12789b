// What the painter-drawn charts share: a legend that wraps onto as many lines as its width
// needs (so no entry is ever cut), a value axis with round ticks, and the chart typography.
// Sizes are logical pixels at 96 dpi times `scale` (slides and presentation enlarge them).
#pragma once

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>

#include <vector>

class QPainter;

namespace chartframe {

struct LegendEntry {
    QString label;
    QColor color;
    bool dashed = false;  // a line (capacity), not a filled swatch
};

QFont labelFont(double scale);   // axis labels, legend
QFont valueFont(double scale);   // numbers on bars
QFont titleFont(double scale);

// Height the legend takes when wrapped into `width`.
double legendHeight(const std::vector<LegendEntry>& entries, double width, double scale);
// Paints it from the top of rect; returns the height used.
double paintLegend(QPainter& painter, const QRectF& rect, const std::vector<LegendEntry>& entries, double scale);

// Round tick step for an axis running from 0 to at least `top`, with about `targetTicks` ticks.
double tickStep(double top, int targetTicks);
// The axis end: the first multiple of the tick step at or above top.
double axisEnd(double top, int targetTicks);
// Axis label in the unit's natural precision: "0", "20", "2.5", "0.25".
QString tickLabel(double value, double step);

// A value axis up the plot's left edge, 0 to `end` in `step`s: grid lines across the plot, tick
// labels right-aligned in the `tickWidth` before it, and `title` rotated at `titleLeft`. Uses the
// painter's current font for the labels.
void paintVerticalAxis(QPainter& painter, const QRectF& plot, double end, double step, double tickWidth, double titleLeft,
    const QString& title, double scale);
// A value axis along the plot's bottom, 0 to `end` in `step`s: grid lines up the plot and tick
// labels under it, the last kept left of `rightLimit` rather than cut at the chart's edge.
void paintHorizontalAxis(QPainter& painter, const QRectF& plot, double end, double step, double rightLimit, double scale);

}  // namespace chartframe
