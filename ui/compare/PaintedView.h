// A widget that shows whatever one of render/'s painters draws, on white, at the widget's size:
// the comparison window's overlaid charts and each plan's diagram and schedule.
#pragma once

#include <QWidget>

#include <functional>

class PaintedView : public QWidget {
    Q_OBJECT

public:
    using Paint = std::function<void(QPainter&, const QRectF&)>;
    explicit PaintedView(Paint paint, QWidget* parent = nullptr);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Paint paint_;
};
