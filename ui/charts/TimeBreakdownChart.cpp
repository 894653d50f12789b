#include "ui/charts/TimeBreakdownChart.h"

#include "ui/document/PlanDocument.h"

TimeBreakdownChart::TimeBreakdownChart(PlanDocument* document, QWidget* parent)
    : PaintedChart(parent)
    , doc_(document)
{
    setMinimumSize(280, 160);
    connect(doc_, &PlanDocument::planChanged, this, &TimeBreakdownChart::refresh);
    refresh();
}

void TimeBreakdownChart::refresh()
{
    painter_.setAnalysis(doc_->analysis());
    update();
}

QString TimeBreakdownChart::toolTipAt(QPoint point) const
{
    const auto [row, part] = painter_.segmentAt(point);
    return painter_.toolTip(row, part);
}
