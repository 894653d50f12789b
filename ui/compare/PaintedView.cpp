#include "ui/compare/PaintedView.h"

#include <QPainter>

PaintedView::PaintedView(Paint paint, QWidget* parent)
    : QWidget(parent)
    , paint_(std::move(paint))
{
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void PaintedView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (paint_)
        paint_(p, QRectF(rect()));
}
