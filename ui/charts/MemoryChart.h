// Memory per GPU for every pipeline stage, live: MemoryChartPainter over the document's
// analysis, with the stage's breakdown as hover text.
#pragma once

#include <QStringList>
#include <QWidget>

#include "charts/MemoryChartPainter.h"

class PlanDocument;

class MemoryChart : public QWidget {
    Q_OBJECT

public:
    explicit MemoryChart(PlanDocument* document, QWidget* parent = nullptr);
    QStringList categories() const { return painter_.stageLabels(); }
    double barValue(int part, int stage) const;  // GB
    double capacityLine() const;                 // GB
    const MemoryChartPainter& chartPainter() const { return painter_; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;  // tooltips

private:
    void refresh();

    PlanDocument* doc_;
    MemoryChartPainter painter_;
};
