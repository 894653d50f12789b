// The layout search as a scatter plot in the window: SearchScatterPainter (memory of the
// fullest GPU against predicted time, the Pareto front highlighted and joined, the simplest
// layout and the plan's current layout marked) with hover details. Clicking a point selects
// its row (rowClicked); the panel selects a point with setSelectedRow.
#pragma once

#include <optional>

#include "render/charts/SearchScatterPainter.h"
#include "ui/charts/PaintedChart.h"

class SearchScatter : public PaintedChart {
    Q_OBJECT

public:
    explicit SearchScatter(QWidget* parent = nullptr);

    // x is step seconds when every row has the same global batch, else predicted days.
    void setResult(const trainplan::SearchResult& result);
    // The plan's own layout (memory GB, and step seconds or days as the axis), or none.
    void setCurrentPoint(const std::optional<QPointF>& point);
    void setSelectedRow(int row);  // -1: none
    void setStale(bool stale);
    void setMfuBasisNote(const QString& note) { painter_.setMfuBasisNote(note); }

    bool xIsDays() const { return painter_.xIsDays(); }
    int offChartCount() const { return painter_.offChartCount(); }
    QPointF pointOf(const trainplan::SearchRow& row) const { return painter_.pointOf(row); }
    // Chart values, for tests: every kept layout, the Pareto ones, the selected one.
    QList<QPointF> allPoints() const { return painter_.allPoints(); }
    QList<QPointF> paretoPoints() const { return painter_.paretoPoints(); }
    QList<QPointF> selectedPoints() const { return painter_.selectedPoints(); }
    std::optional<QPointF> currentPoint() const { return painter_.currentPoint(); }
    QString title() const;  // the notes above the plot, one per line
    QRectF plotArea() const { return painter_.plotArea(QRectF(rect())); }
    QPointF positionOf(const QPointF& value) const { return painter_.positionOf(value, QRectF(rect())); }  // widget coordinates
    int rowAt(const QPoint& position, double radius) const { return painter_.rowAt(position, radius, QRectF(rect())); }  // -1: none
    const SearchScatterPainter& chartPainter() const { return painter_; }

signals:
    void rowClicked(int row);

protected:
    void paintChart(QPainter& painter, const QRectF& rect) const override { painter_.paint(painter, rect); }
    QString toolTipAt(QPoint point) const override { return painter_.toolTipAt(point, QRectF(rect())); }
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    SearchScatterPainter painter_;
};
