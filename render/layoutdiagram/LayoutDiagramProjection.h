// The isometric projection of the layout diagram. World axes: x runs along the front row
// (pipeline order, drawn down and to the right), y runs back through the replicas (up and
// to the right), z is height. The viewer looks from +x, -y, +z, so a box shows its top,
// its y = y0 face (lower left) and its x = x1 face (lower right).
#pragma once

#include <QPointF>
#include <QPolygonF>

struct LayoutDiagramBox {
    double x0 = 0, y0 = 0, z0 = 0;
    double x1 = 0, y1 = 0, z1 = 0;
};

// A box as drawn: its three visible faces and the outline around them.
struct LayoutDiagramBoxFaces {
    QPolygonF top;
    QPolygonF front;  // the y = y0 face
    QPolygonF side;   // the x = x1 face
    QPolygonF hull;   // convex hexagon around the three faces, for hit-testing and label collision
};

class LayoutDiagramProjection {
public:
    static constexpr double kCos30 = 0.86602540378443864676;
    static constexpr double kSin30 = 0.5;

    LayoutDiagramProjection() = default;
    LayoutDiagramProjection(QPointF origin, double scale) : origin_(origin), scale_(scale) {}

    double scale() const { return scale_; }
    QPointF origin() const { return origin_; }

    QPointF map(double x, double y, double z) const
    {
        return {origin_.x() + scale_ * kCos30 * (x + y), origin_.y() + scale_ * (kSin30 * (x - y) - z)};
    }

    LayoutDiagramBoxFaces faces(const LayoutDiagramBox& b) const
    {
        const QPointF a0 = map(b.x0, b.y0, b.z0), a1 = map(b.x1, b.y0, b.z0), a2 = map(b.x1, b.y1, b.z0);
        const QPointF t0 = map(b.x0, b.y0, b.z1), t1 = map(b.x1, b.y0, b.z1), t2 = map(b.x1, b.y1, b.z1),
                      t3 = map(b.x0, b.y1, b.z1);
        LayoutDiagramBoxFaces f;
        f.top = QPolygonF({t0, t1, t2, t3});
        f.front = QPolygonF({a0, a1, t1, t0});
        f.side = QPolygonF({a1, a2, t2, t1});
        f.hull = QPolygonF({a0, a1, a2, t2, t3, t0});
        return f;
    }

    // faces(b).hull alone, without the three faces' polygons.
    QPolygonF hull(const LayoutDiagramBox& b) const
    {
        return QPolygonF({map(b.x0, b.y0, b.z0), map(b.x1, b.y0, b.z0), map(b.x1, b.y1, b.z0), map(b.x1, b.y1, b.z1),
                          map(b.x0, b.y1, b.z1), map(b.x0, b.y0, b.z1)});
    }

    // The rectangle [x0, x1] x [y0, y1] lying flat at height z.
    QPolygonF flatRect(double x0, double y0, double x1, double y1, double z) const
    {
        return QPolygonF({map(x0, y0, z), map(x1, y0, z), map(x1, y1, z), map(x0, y1, z)});
    }

private:
    QPointF origin_;
    double scale_ = 1;
};
