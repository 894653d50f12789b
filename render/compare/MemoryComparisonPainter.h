// Memory per GPU of each compared plan, stage by stage, on one GB axis: for each pipeline stage
// number a group of bars, one per plan that has that stage (its letter under it), stacked by the
// same components and colours as the memory chart (render/charts/MemoryChartPainter.h); each
// distinct GPU capacity as a dashed line naming the plans it belongs to. A stage over its
// capacity is drawn darker. The comparison window and the comparison PDF share it.
#pragma once

#include <QRectF>

class ComparisonSet;
class QPainter;

class MemoryComparisonPainter {
public:
    void setSet(const ComparisonSet* set) { set_ = set; }
    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;

private:
    const ComparisonSet* set_ = nullptr;
};
