// The strip under the timeline: activations in flight over time (InFlightSeries), drawn
// into any QPainter on the timeline's own time axis so both line up. With one schedule it
// shows each stage (up to kMaxStageLines of them); comparing schedules it shows stage 1,
// which holds the most, once per schedule, so GPipe climbing to m micro-batches while 1F1B
// stops at p is plain to see (the memory estimate's activations follow the same peaks).
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

#include "render/timeline/InFlightSeries.h"
#include "render/timeline/TimelineAxis.h"
#include "render/timeline/TimelineStyle.h"

class QPainter;
class TimelineModel;

class InFlightChartPainter {
public:
    static constexpr int kMaxStageLines = 8;

    void setModel(const TimelineModel* model) { model_ = model; }  // not owned
    void setStyle(const TimelineStyle& style) { style_ = style; }

    // Height below which the strip is not worth drawing.
    static double minimumHeight() { return 90; }
    // axis: the timeline's axis of the same paint (its x span and time window).
    void paint(QPainter& painter, const QRectF& target, const TimelineAxis& axis);

    struct Curve {
        int lane = 0;
        int stage = 0;
        QColor color;
        QString name;  // "Stage 2" or "GPipe"
        double peak = 0;
    };
    // Against the last paint.
    const std::vector<Curve>& curves() const { return curves_; }
    const QString& titleText() const { return title_; }
    // The value axis's ticks: whole micro-batches only, unless a curve moves in 1/v steps
    // (interleaved), whose counts are fractions.
    const std::vector<double>& yTicks() const { return yTicks_; }
    QString toolTipAt(QPointF point) const;  // every curve's value at the time under the point

private:
    void chooseCurves();
    double yFor(double value) const;

    const TimelineModel* model_ = nullptr;
    TimelineStyle style_;
    std::vector<Curve> curves_;
    QString title_;
    QRectF plot_;
    TimelineAxis axis_;
    double yMax_ = 1;
    std::vector<double> yTicks_;
    std::vector<InFlightSeries::Column> columns_;  // reused
};
