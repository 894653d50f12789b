// Memory per GPU for every pipeline stage, live: MemoryChartPainter over the document's
// analysis, with the stage's breakdown as hover text.
#pragma once
#include <QStringList>

#include <optional>

#include "render/charts/MemoryChartPainter.h"
#include "ui/charts/PaintedChart.h"
#include "ui/document/StepShape.h"

class PlanDocument;

class MemoryChart : public PaintedChart {
    Q_OBJECT

public:
    explicit MemoryChart(PlanDocument* document, QWidget* parent = nullptr);
    QStringList categories() const { return painter_.stageLabels(); }
    double barValue(int part, int stage) const;  // GB
    double capacityLine() const;                 // GB
    const MemoryChartPainter& chartPainter() const { return painter_; }

protected:
    void paintChart(QPainter& painter, const QRectF& rect) const override { painter_.paint(painter, rect); }
    QString toolTipAt(QPoint point) const override;

private:
    void refresh();

    PlanDocument* doc_;
    std::optional<StepShape> drawn_;  // what the bars were drawn from
    MemoryChartPainter painter_;
};
