// Where a step's time goes, live: StepTimeChartPainter over the document's analysis (the
// predicted step by component beside the step at the assumed MFU), with hover values.
#pragma once

#include "render/charts/StepTimeChartPainter.h"
#include "ui/charts/PaintedChart.h"

class PlanDocument;

class TimeBreakdownChart : public PaintedChart {
    Q_OBJECT

public:
    explicit TimeBreakdownChart(PlanDocument* document, QWidget* parent = nullptr);
    double value(int part, int row) const { return painter_.value(part, row); }  // seconds
    const StepTimeChartPainter& chartPainter() const { return painter_; }

    using Part = StepTimeChartPainter::Part;
    using Row = StepTimeChartPainter::Row;
    static constexpr int PartCount = StepTimeChartPainter::PartCount;
    static constexpr Row AssumedRow = StepTimeChartPainter::AssumedRow;
    static constexpr Row PredictedRow = StepTimeChartPainter::PredictedRow;

protected:
    void paintChart(QPainter& painter, const QRectF& rect) const override { painter_.paint(painter, rect); }
    QString toolTipAt(QPoint point) const override;

private:
    void refresh();

    PlanDocument* doc_;
    StepTimeChartPainter painter_;
};
