// Places the diagram's text so that no two labels overlap, no label covers a drawn node,
// and no label leaves the target rectangle (so nothing is ever clipped). Each label offers
// candidate rectangles in order of preference; the first free one wins.
#pragma once

#include <QPolygonF>
#include <QRectF>

#include <optional>
#include <vector>

class LayoutDiagramLabelPlacer {
public:
    explicit LayoutDiagramLabelPlacer(const QRectF& bounds, double padding = 3.0);

    // Shapes text must stay off. Polygons must be convex (box hulls and faces are).
    void addObstacle(const QPolygonF& convexPolygon);
    void addObstacle(const QRectF& rect);

    bool isFree(const QRectF& rect) const;
    // The first free candidate, now reserved; nothing if every candidate collides.
    std::optional<QRectF> place(const std::vector<QRectF>& candidates);
    void reserve(const QRectF& rect) { placed_.push_back(rect); }

    const std::vector<QRectF>& placed() const { return placed_; }

    // Separating-axis test between a convex polygon and a rectangle.
    static bool convexIntersectsRect(const QPolygonF& convexPolygon, const QRectF& rect);

private:
    struct Obstacle {
        QPolygonF polygon;
        QRectF bounds;
    };
    QRectF bounds_;
    double padding_;
    std::vector<Obstacle> obstacles_;
    std::vector<QRectF> placed_;
};
