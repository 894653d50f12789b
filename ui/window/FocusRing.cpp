#include "ui/window/FocusRing.h"

#include <QEvent>
#include <QFocusEvent>
#include <QPainter>
#include <QRegion>

#include "render/style/Theme.h"

FocusRing::FocusRing(QWidget* owner, QObject* application)
    : QWidget(owner)
    , owner_(owner)
{
    setObjectName("focusRing");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    hide();
    application->installEventFilter(this);
}

bool FocusRing::ownsWindowOf(const QWidget* widget) const
{
    const QWidget* window = widget->window();
    return window == owner_ || window->parentWidget() == owner_;  // the window, or a dock floating off it
}

void FocusRing::watchChain(bool on)
{
    // The control and every parent up to its window: any of them moving moves the control.
    for (QWidget* w = target_; w; w = w->isWindow() ? nullptr : w->parentWidget()) {
        if (on)
            w->installEventFilter(this);
        else
            w->removeEventFilter(this);
    }
}

void FocusRing::setWidget(QWidget* widget)
{
    if (widget == target_) {
        follow();
        return;
    }
    if (target_)
        watchChain(false);
    target_ = widget;
    if (!target_) {
        hide();
        return;
    }
    watchChain(true);
    setParent(target_->window());  // a layer over the control's whole window
    follow();
}

void FocusRing::follow()
{
    if (!target_ || !target_->isVisible()) {
        hide();
        return;
    }
    QWidget* window = target_->window();
    if (parentWidget() != window)  // its dock floated off, or docked again
        setParent(window);
    // What the ancestors show of the control (a scroll area shows part of its content).
    QRect visible(target_->mapTo(window, QPoint(0, 0)), target_->size());
    for (QWidget* w = target_->parentWidget(); w && w != window; w = w->parentWidget())
        visible &= QRect(w->mapTo(window, QPoint(0, 0)), w->size());
    if (visible.isEmpty()) {
        hide();
        return;
    }
    const QRect outer = visible.adjusted(-kWidth, -kWidth, kWidth, kWidth) & window->rect();
    setGeometry(outer);
    ring_ = QRect(QPoint(0, 0), outer.size());
    // Only the outline is this widget: what lies under the middle shows and takes the mouse.
    setMask(QRegion(ring_) - QRegion(ring_.adjusted(kWidth, kWidth, -kWidth, -kWidth)));
    show();
    raise();
    update();
}

bool FocusRing::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::FocusIn && watched->isWidgetType()) {
        auto* widget = static_cast<QWidget*>(watched);
        const Qt::FocusReason reason = static_cast<QFocusEvent*>(event)->reason();
        const bool fromKeyboard = reason == Qt::TabFocusReason || reason == Qt::BacktabFocusReason || reason == Qt::ShortcutFocusReason;
        // Only controls of the window that owns the ring; a dialog or a popup draws its own.
        if (fromKeyboard && !widget->isWindow() && (widget->focusPolicy() & Qt::TabFocus) && ownsWindowOf(widget))
            setWidget(widget);
        else if (reason == Qt::PopupFocusReason || reason == Qt::ActiveWindowFocusReason)
            setWidget(widget == target_ ? widget : nullptr);  // back from a menu or another window
        else
            setWidget(nullptr);  // the mouse, or the program: no ring
        return false;
    }
    if (target_ && watched->isWidgetType()) {
        auto* w = static_cast<QWidget*>(watched);
        const bool inChain = w == target_ || w->isAncestorOf(target_);
        if (inChain) {
            switch (event->type()) {
            case QEvent::Move:
            case QEvent::Resize:
            case QEvent::Show:
            case QEvent::Hide:
            case QEvent::ZOrderChange:
                follow();
                break;
            case QEvent::ParentChange:
                setWidget(nullptr);  // docked or floated: the next focus change rings it again
                break;
            default: break;
            }
        }
    }
    return false;
}

void FocusRing::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    // Whole pixels, no antialiasing: the outline is exactly the theme's focus colour.
    for (int i = 0; i < kWidth; ++i) {
        p.setPen(theme::accent());
        p.setBrush(Qt::NoBrush);
        p.drawRect(ring_.adjusted(i, i, -i - 1, -i - 1));
    }
}
