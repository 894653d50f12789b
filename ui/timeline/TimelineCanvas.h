// The drawing surface of TimelineView: paints a TimelineScene and turns the mouse into zoom
// (wheel, around the pointer), pan (drag), fit (double-click) and hover (highlight and
// tooltip of the block under the pointer). Keys: + and - zoom, 0 fits. When the rows are
// taller than the canvas (the scene scrolls), Shift+wheel, Page Up/Down and the arrow keys
// scroll them.
#pragma once

#include <QPointF>
#include <QWidget>

#include <optional>

class TimelineScene;

class TimelineCanvas : public QWidget {
    Q_OBJECT

public:
    explicit TimelineCanvas(TimelineScene* scene, QWidget* parent = nullptr);

    int paintCount() const { return paintCount_; }
    QSize sizeHint() const override { return {900, 520}; }
    QSize minimumSizeHint() const override { return {480, 300}; }

    void scrollBy(double pixels);  // vertically, within the scene's range

signals:
    void windowChanged();  // zoomed, panned or fitted
    void scrolled();       // the rows moved vertically
    void resized();

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void zoom(double x, double factor);
    void updateHover(QPointF point);

    TimelineScene* scene_;
    std::optional<QPointF> dragFrom_;
    int paintCount_ = 0;
};
