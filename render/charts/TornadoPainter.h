// Draws a sensitivity result (trainplan::sensitivity) as a tornado chart into any QPainter:
// one horizontal bar per input, widest swing on top, each bar running from the outcome with
// the input 10 % down to the outcome with it 10 % up, split at the base value (drawn as a
// vertical line). Input names and base values on the left, the input's low and high values at
// the bar ends, the outcome axis below. No QWidget, so the window, PDF report and slides share
// it; sizes are logical pixels at 96 dpi (callers scale the painter, as for the timeline).
#pragma once

#include <QColor>
#include <QCoreApplication>
#include <QList>
#include <QRectF>
#include <QString>

#include <vector>

#include "core/analysis/Sensitivity.h"
#include "render/style/Theme.h"

class QPainter;

class TornadoPainter {
    Q_DECLARE_TR_FUNCTIONS(TornadoPainter)

public:
    enum class Measure {
        PaddedDays,   // days including failures, checkpoints and restarts (the run's length)
        StepSeconds,  // one step's time (failure inputs do not move it)
    };

    void setResult(const trainplan::SensitivityResult& result);
    const trainplan::SensitivityResult& result() const { return result_; }
    void setMeasure(Measure measure);
    Measure measure() const { return measure_; }

    void paint(QPainter& painter, const QRectF& rect) const;

    // Indices into result().bars in drawing order (top first): widest swing of the measure first.
    const std::vector<int>& order() const { return order_; }
    // Each drawn bar's rectangle (low end to high end), in drawing order, for a paint into rect.
    // A bar with no swing is a zero-width rectangle at the base value.
    QList<QRectF> barRects(const QRectF& rect) const;
    QRectF baseLine(const QRectF& rect) const;  // zero-width rectangle from top to bottom of the bars
    // The bar under a point (index into order()), or -1.
    int barAt(const QRectF& rect, QPointF point) const;
    QString toolTip(int orderIndex) const;

    double outcomeLow(const trainplan::SensitivityBar& bar) const;   // the measure with the input low
    double outcomeHigh(const trainplan::SensitivityBar& bar) const;
    double base() const;
    double swing(const trainplan::SensitivityBar& bar) const;
    QString unit() const;  // "days" or "s"
    QString title() const;  // titleHead() + titleDetail()
    QString titleHead() const;
    QString titleDetail() const;
    // The input's value as a person reads it ("890 TFLOP/s", "3,712 tokens", "900 h").
    static QString inputValueText(const trainplan::SensitivityBar& bar, double value);

    static QColor lowColor() { return theme::weights(); }   // input 10 % down
    static QColor highColor() { return theme::optimizer(); }  // input 10 % up

private:
    struct Geometry {
        QRectF title, legend, labels, plot, axis;
        double rowHeight = 0, barHeight = 0;
        double from = 0, to = 1;  // outcome range across plot.width()
        double x(double value) const { return plot.left() + (value - from) / (to - from) * plot.width(); }
    };
    Geometry layout(const QRectF& rect) const;
    QString outcomeText(double value) const;

    trainplan::SensitivityResult result_;
    Measure measure_ = Measure::PaddedDays;
    std::vector<int> order_;
};
