// Where each compared plan's step goes, on one seconds axis: a row per plan (its letter, MFU and
// total), the predicted step stacked by the same components and colours as the step-time chart
// (render/charts/StepTimeChartPainter.h), and its honest range as a whisker. The comparison
// window and the comparison PDF share it.
#pragma once

#include <QRectF>

class ComparisonSet;
class QPainter;

class StepComparisonPainter {
public:
    void setSet(const ComparisonSet* set) { set_ = set; }
    // The height that gives each plan's row room for its bar and labels at this width.
    double preferredHeight(double width, double scale = 1.0) const;
    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;

private:
    const ComparisonSet* set_ = nullptr;
};
