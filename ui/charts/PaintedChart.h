// A widget that shows one of render/'s chart painters: paints it on white and turns hover into
// the painter's tooltip. Subclasses say what to paint and what the point under the mouse means.
#pragma once

#include <QWidget>

class QPainter;

class PaintedChart : public QWidget {
    Q_OBJECT

public:
    explicit PaintedChart(QWidget* parent = nullptr);

protected:
    virtual void paintChart(QPainter& painter, const QRectF& rect) const = 0;
    // Rich text for the point, or empty for no tooltip.
    virtual QString toolTipAt(QPoint point) const = 0;

    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};
