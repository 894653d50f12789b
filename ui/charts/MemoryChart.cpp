#include "charts/MemoryChart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include "document/PlanDocument.h"

MemoryChart::MemoryChart(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    setMinimumSize(280, 200);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    connect(doc_, &PlanDocument::planChanged, this, &MemoryChart::refresh);
    refresh();
}

void MemoryChart::refresh()
{
    painter_.setEstimate(doc_->estimate());
    update();
}

double MemoryChart::barValue(int part, int stage) const
{
    return painter_.valueBytes(part, stage) / 1e9;
}

double MemoryChart::capacityLine() const
{
    return painter_.capacityBytes() / 1e9;
}

void MemoryChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    painter_.paint(p, QRectF(rect()));
}

bool MemoryChart::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const int stage = painter_.stageAt(help->pos());
        if (stage >= 0)
            QToolTip::showText(help->globalPos(), painter_.toolTip(stage), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}
