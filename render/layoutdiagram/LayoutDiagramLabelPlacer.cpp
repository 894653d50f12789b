#include "render/layoutdiagram/LayoutDiagramLabelPlacer.h"

#include <algorithm>
#include <limits>

LayoutDiagramLabelPlacer::LayoutDiagramLabelPlacer(const QRectF& bounds, double padding)
    : bounds_(bounds)
    , padding_(padding)
{
}

void LayoutDiagramLabelPlacer::addObstacle(const QPolygonF& convexPolygon)
{
    if (!convexPolygon.isEmpty())
        obstacles_.push_back({convexPolygon, convexPolygon.boundingRect()});
}

void LayoutDiagramLabelPlacer::addObstacle(const QRectF& rect)
{
    obstacles_.push_back({QPolygonF(rect), rect});
}

bool LayoutDiagramLabelPlacer::convexIntersectsRect(const QPolygonF& poly, const QRectF& rect)
{
    const int n = int(poly.size());
    if (n == 0)
        return false;
    // Axes: the rectangle's two, then each polygon edge's normal. Touching is not overlap.
    const auto separated = [&](double ax, double ay) {
        double pMin = std::numeric_limits<double>::max(), pMax = -pMin;
        for (const QPointF& p : poly) {
            const double v = p.x() * ax + p.y() * ay;
            pMin = std::min(pMin, v);
            pMax = std::max(pMax, v);
        }
        double rMin = std::numeric_limits<double>::max(), rMax = -rMin;
        for (const QPointF& p : {rect.topLeft(), rect.topRight(), rect.bottomLeft(), rect.bottomRight()}) {
            const double v = p.x() * ax + p.y() * ay;
            rMin = std::min(rMin, v);
            rMax = std::max(rMax, v);
        }
        return pMax <= rMin || rMax <= pMin;
    };
    if (separated(1, 0) || separated(0, 1))
        return false;
    for (int i = 0; i < n; ++i) {
        const QPointF e = poly[(i + 1) % n] - poly[i];
        if ((e.x() != 0 || e.y() != 0) && separated(-e.y(), e.x()))
            return false;
    }
    return true;
}

bool LayoutDiagramLabelPlacer::isFree(const QRectF& rect) const
{
    if (!bounds_.contains(rect))
        return false;
    const QRectF padded = rect.adjusted(-padding_, -padding_, padding_, padding_);
    for (const QRectF& r : placed_)
        if (r.intersects(padded))
            return false;
    for (const Obstacle& o : obstacles_)
        if (o.bounds.intersects(padded) && convexIntersectsRect(o.polygon, padded))
            return false;
    return true;
}

std::optional<QRectF> LayoutDiagramLabelPlacer::place(const std::vector<QRectF>& candidates)
{
    for (const QRectF& c : candidates) {
        if (isFree(c)) {
            placed_.push_back(c);
            return c;
        }
    }
    return std::nullopt;
}
