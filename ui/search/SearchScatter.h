// The layout search as a scatter plot: memory of the fullest GPU against predicted time, one
// point per kept layout, the Pareto front highlighted and joined, the simplest layout and the
// plan's current layout marked. Clicking a point selects its row (rowClicked); the panel
// selects a point with setSelectedRow.
#pragma once

#include <QChartView>

#include <optional>
#include <vector>

#include "search/LayoutSearch.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;

class SearchScatter : public QChartView {
    Q_OBJECT

public:
    explicit SearchScatter(QWidget* parent = nullptr);

    // x is step seconds when every row has the same global batch, else predicted days (the
    // Pareto front is on whole-run time, which step time ranks only at a fixed batch).
    void setResult(const trainplan::SearchResult& result);
    // The plan's own layout (memory GB, and step seconds or days as the axis), or none.
    void setCurrentPoint(const std::optional<QPointF>& point);
    void setSelectedRow(int row);  // -1: none
    void setStale(bool stale);

    bool xIsDays() const { return xIsDays_; }
    int offChartCount() const { return offChart_; }
    QPointF pointOf(const trainplan::SearchRow& row) const;
    // Chart values, for tests: every kept layout, the Pareto ones, the selected one.
    QList<QPointF> allPoints() const;
    QList<QPointF> paretoPoints() const;
    QList<QPointF> selectedPoints() const;
    std::optional<QPointF> currentPoint() const;
    QPointF positionOf(const QPointF& value) const;  // value to view coordinates
    int rowAt(const QPoint& position, double radius) const;  // view coordinates; -1: none within radius

signals:
    void rowClicked(int row);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void fitAxes();
    void updateTitle();

    trainplan::SearchResult result_;
    bool xIsDays_ = false;
    bool stale_ = false;
    int offChart_ = 0;  // rows slower than the drawn range
    QScatterSeries* others_;
    QScatterSeries* pareto_;
    QLineSeries* paretoLine_;
    QScatterSeries* simplest_;
    QScatterSeries* current_;
    QScatterSeries* selected_;
    QValueAxis* xAxis_;
    QValueAxis* yAxis_;
};
