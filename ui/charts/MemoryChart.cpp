#include "ui/charts/MemoryChart.h"

#include "core/base/Units.h"
#include "ui/document/PlanDocument.h"

MemoryChart::MemoryChart(PlanDocument* document, QWidget* parent)
    : PaintedChart(parent)
    , doc_(document)
{
    setMinimumSize(280, 200);
    connect(doc_, &PlanDocument::planChanged, this, &MemoryChart::refresh);
    refresh();
}

void MemoryChart::refresh()
{
    // Memory is one step's (StepShape.h): an edit of the assumed MFU or the tokens leaves it.
    StepShape shape = StepShape::of(doc_->plan());
    if (drawn_ && *drawn_ == shape)
        return;
    drawn_ = std::move(shape);
    painter_.setEstimate(doc_->estimate());
    painter_.setRange(doc_->analysis().memoryRange);
    update();
}

double MemoryChart::barValue(int part, int stage) const
{
    return painter_.valueBytes(part, stage) / trainplan::units::GB;
}

double MemoryChart::capacityLine() const
{
    return painter_.capacityBytes() / trainplan::units::GB;
}

QString MemoryChart::toolTipAt(QPoint point) const
{
    return painter_.toolTip(painter_.stageAt(point));
}
