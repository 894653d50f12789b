#include "ui/timeline/TimelineCanvas.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "render/timeline/TimelineScene.h"

namespace {

// One wheel notch (angleDelta 120, QWheelEvent) zooms by 1.25x: ten notches are about 10x,
// and a trackpad's fractions of a notch zoom smoothly.
constexpr double kZoomPerNotch = 1.25;

}  // namespace

TimelineCanvas::TimelineCanvas(TimelineScene* scene, QWidget* parent)
    : QWidget(parent)
    , scene_(scene)
{
    setMouseTracking(true);  // hover highlight without a button held
    setFocusPolicy(Qt::WheelFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);  // the scene fills every pixel
    setCursor(Qt::OpenHandCursor);
}

void TimelineCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    scene_->paint(p, QRectF(rect()));
    ++paintCount_;
}

bool TimelineCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = scene_->toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineCanvas::zoom(double x, double factor)
{
    scene_->zoomAt(x, factor);
    update();
    emit windowChanged();
}

void TimelineCanvas::scrollBy(double pixels)
{
    const double range = scene_->scrollRange(QSizeF(size()));
    const double to = std::clamp(scene_->scroll() + pixels, 0.0, range);
    if (to == scene_->scroll())
        return;
    scene_->setScroll(to);
    update();
    emit scrolled();
}

void TimelineCanvas::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    emit resized();
}

void TimelineCanvas::wheelEvent(QWheelEvent* event)
{
    // Shift (or Alt, which some systems turn into a horizontal wheel) scrolls the rows.
    if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
        const QPoint delta = event->angleDelta();
        const int d = std::abs(delta.y()) >= std::abs(delta.x()) ? delta.y() : delta.x();
        scrollBy(-d / 120.0 * 3 * fontMetrics().height());
        event->accept();
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0) {
        event->ignore();
        return;
    }
    zoom(event->position().x(), std::pow(kZoomPerNotch, notches));
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    dragFrom_ = event->position();
    setCursor(Qt::ClosedHandCursor);
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (dragFrom_ && (event->buttons() & Qt::LeftButton)) {
        scene_->panBy(event->position().x() - dragFrom_->x());
        dragFrom_ = event->position();
        update();
        emit windowChanged();
        return;
    }
    updateHover(event->position());
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && dragFrom_) {
        dragFrom_.reset();
        setCursor(Qt::OpenHandCursor);
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseDoubleClickEvent(event);
    scene_->fit();
    update();
    emit windowChanged();
    event->accept();  // not to the dashboard pane, which would enlarge itself
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event)
{
    const double centre = scene_->timeline().axis().left() + scene_->timeline().axis().width() / 2;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoom(centre, 2.0); return;
    case Qt::Key_Minus: zoom(centre, 0.5); return;
    case Qt::Key_PageDown: scrollBy(height() * 0.9); return;
    case Qt::Key_PageUp: scrollBy(-height() * 0.9); return;
    case Qt::Key_Down: scrollBy(fontMetrics().height()); return;
    case Qt::Key_Up: scrollBy(-fontMetrics().height()); return;
    case Qt::Key_0:
    case Qt::Key_Home:
        scene_->fit();
        update();
        emit windowChanged();
        return;
    default: QWidget::keyPressEvent(event);
    }
}

void TimelineCanvas::leaveEvent(QEvent* event)
{
    if (scene_->timeline().highlight()) {
        scene_->timeline().setHighlight(std::nullopt);
        update();
    }
    QWidget::leaveEvent(event);
}

void TimelineCanvas::updateHover(QPointF point)
{
    const auto hit = scene_->eventAt(point);
    if (hit != scene_->timeline().highlight()) {
        scene_->timeline().setHighlight(hit);
        update();
    }
}
