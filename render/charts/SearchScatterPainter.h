// The layout search as a scatter plot, drawn into any QPainter: memory of the fullest GPU
// against predicted time, one point per kept layout, the Pareto front highlighted and joined
// left to right, the simplest layout and the plan's own layout marked, the selected layout
// ringed. Geometry is a function of the rectangle, so hit tests and positions need no paint.
#pragma once

#include <QColor>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <optional>
#include <vector>

#include "core/search/LayoutSearch.h"

class QPainter;

class SearchScatterPainter {
public:
    // x is step seconds when every row has the same global batch, else predicted days (the
    // Pareto front is on whole-run time, which step time ranks only at a fixed batch).
    void setResult(const trainplan::SearchResult& result);
    // The plan's own layout (memory GB, and step seconds or days as the axis), or none.
    void setCurrentPoint(const std::optional<QPointF>& point);
    void setSelectedRow(int row);  // -1: none
    void setStale(bool stale);
    // Said after each MFU (trainplan::mfuBasisNote of the searched plan); empty for BF16 GEMMs.
    void setMfuBasisNote(const QString& note) { mfuBasisNote_ = note; }

    const trainplan::SearchResult& result() const { return result_; }
    bool xIsDays() const { return xIsDays_; }
    int offChartCount() const { return offChart_; }  // rows slower than the drawn range
    QPointF pointOf(const trainplan::SearchRow& row) const;
    QList<QPointF> allPoints() const;
    QList<QPointF> paretoPoints() const;  // left to right
    QList<QPointF> selectedPoints() const;
    std::optional<QPointF> currentPoint() const { return current_; }
    double xMin() const { return xFrom_; }
    double xMax() const { return xTo_; }
    QString xAxisTitle() const;
    // The notes above the plot (stale results, the empty hint, layouts beyond the range).
    struct Note {
        QString text;
        QColor color;
    };
    std::vector<Note> notes() const;

    // Geometry for the chart painted into rect at scale.
    QRectF plotArea(const QRectF& rect, double scale = 1.0) const;
    QPointF positionOf(const QPointF& value, const QRectF& rect, double scale = 1.0) const;
    // The row whose marker centre is nearest position within radius, or -1.
    int rowAt(QPointF position, double radius, const QRectF& rect, double scale = 1.0) const;
    // Rich text for the layout under position (or the plan's own marker), empty for none.
    QString toolTipAt(QPointF position, const QRectF& rect, double scale = 1.0) const;

    void paint(QPainter& painter, const QRectF& rect, double scale = 1.0) const;

private:
    struct Geometry {
        QRectF notes, legend, plot;
        double yEnd = 1, yStep = 1, xStep = 1;
    };
    Geometry geometryFor(const QRectF& rect, double scale) const;
    QPointF toPosition(const Geometry& geometry, const QPointF& value) const;
    void fitRange();

    trainplan::SearchResult result_;
    std::optional<QPointF> current_;
    int selected_ = -1;
    bool xIsDays_ = false;
    bool stale_ = false;
    QString mfuBasisNote_;
    int offChart_ = 0;
    double xFrom_ = 0, xTo_ = 1, yTop_ = 80;  // yTop_: the largest drawn memory plus headroom
};
