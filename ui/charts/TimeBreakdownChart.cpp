#include "charts/TimeBreakdownChart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include "document/PlanDocument.h"

TimeBreakdownChart::TimeBreakdownChart(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , doc_(document)
{
    setMinimumSize(280, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    connect(doc_, &PlanDocument::planChanged, this, &TimeBreakdownChart::refresh);
    refresh();
}

void TimeBreakdownChart::refresh()
{
    painter_.setAnalysis(doc_->analysis());
    update();
}

void TimeBreakdownChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    painter_.paint(p, QRectF(rect()));
}

bool TimeBreakdownChart::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const auto [row, part] = painter_.segmentAt(help->pos());
        if (row >= 0)
            QToolTip::showText(help->globalPos(), painter_.toolTip(row, part), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}
