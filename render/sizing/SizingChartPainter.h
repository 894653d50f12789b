// The sizing answer as a chart (core/sizing/ClusterSizing.h): days with failures (x) against
// cost (y, dollars or GPU-hours), a point per accelerator and GPU count in that accelerator's
// colour, its Pareto front joined by a line, each point's day range as a whisker, the deadline
// as a vertical line and the budget as a horizontal one, the cheapest configuration that meets
// the deadline ringed and labelled, and where scaling stops paying marked. Both axes are
// logarithmic (counts span 8 to 32,768 GPUs). The sizing window, its PDF and the CLI share it.
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>

#include <vector>

#include "core/sizing/ClusterSizing.h"

class QPainter;

class SizingChartPainter {
public:
    void setResult(const trainplan::SizingResult* result) { result_ = result; }
    static QColor acceleratorColor(int index);
    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;
    // The point under `position` in the last paint, or -1; and where a point was drawn (NaN when not).
    int pointAt(QPointF position) const;
    QPointF pointPosition(int index) const;

private:
    const trainplan::SizingResult* result_ = nullptr;
    mutable std::vector<QPointF> drawn_;  // each point's centre in the last paint (NaN when not drawn)
};
