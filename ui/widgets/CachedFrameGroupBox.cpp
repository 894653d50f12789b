#include "ui/widgets/CachedFrameGroupBox.h"

#include <QPaintEvent>
#include <QPainter>
#include <QStyleOptionGroupBox>

CachedFrameGroupBox::CachedFrameGroupBox(const QString& title, QWidget* parent)
    : QGroupBox(title, parent)
{
}

CachedFrameGroupBox::Key CachedFrameGroupBox::keyFor(const QStyleOptionGroupBox& option) const
{
    return {size(), devicePixelRatioF(), int(option.state), int(option.subControls), int(option.activeSubControls), option.text,
        option.palette.cacheKey(), font().key()};
}

void CachedFrameGroupBox::paintEvent(QPaintEvent* event)
{
    QStyleOptionGroupBox option;
    initStyleOption(&option);
    const Key key = keyFor(option);
    if (key != frameKey_) {  // the first paint too: no size equals the empty key's
        frame_ = QPixmap(size() * key.devicePixelRatio);
        frame_.setDevicePixelRatio(key.devicePixelRatio);
        frame_.fill(Qt::transparent);
        QPainter painter(&frame_);
        style()->drawComplexControl(QStyle::CC_GroupBox, &option, &painter, this);
        frameKey_ = key;
        ++framesDrawn_;
    }
    QPainter painter(this);
    for (const QRect& r : event->region())
        painter.drawPixmap(r, frame_, QRectF(QPointF(r.topLeft()) * key.devicePixelRatio, QSizeF(r.size()) * key.devicePixelRatio));
}
