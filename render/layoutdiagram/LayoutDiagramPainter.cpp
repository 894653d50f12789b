#include "render/layoutdiagram/LayoutDiagramPainter.h"

#include "render/layoutdiagram/LayoutDiagramFlatGrid.h"
#include "render/layoutdiagram/LayoutDiagramLabelPlacer.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <exception>

using trainplan::ParallelDim;

namespace {

// A pipeline link bows upward so it never runs along the boards it connects.
struct Curve {
    QPainterPath path;
    QPointF apex;
    QPointF endDirection;
};

Curve pipelineCurve(QPointF from, QPointF to)
{
    const double length = std::hypot(to.x() - from.x(), to.y() - from.y());
    const QPointF control = (from + to) / 2 - QPointF(0, std::max(26.0, 0.32 * length));
    Curve c;
    c.path.moveTo(from);
    c.path.quadTo(control, to);
    c.apex = 0.25 * from + 0.5 * control + 0.25 * to;
    c.endDirection = to - control;
    return c;
}

void drawArrowHead(QPainter& p, QPointF tip, QPointF direction, double size, QColor color)
{
    const double len = std::hypot(direction.x(), direction.y());
    if (len <= 0)
        return;
    const QPointF d = direction / len, n(-d.y(), d.x());
    const QPolygonF head({tip, tip - d * size + n * size * 0.5, tip - d * size - n * size * 0.5});
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawPolygon(head);
}

void drawArrow(QPainter& p, const QLineF& line, const QPen& pen, double headSize)
{
    const QPointF d = line.p2() - line.p1();
    const double len = std::hypot(d.x(), d.y());
    if (len <= headSize)
        return;
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawLine(QLineF(line.p1(), line.p2() - d / len * headSize * 0.8));
    drawArrowHead(p, line.p2(), d, headSize, pen.color());
}

// By what the dimension splits: a group holding the same weights (DP, CP) moves gradients.
QColor linkColor(const LayoutDiagramStyle& style, ParallelDim dim)
{
    switch (trainplan::parallelDimInfo(dim).splits) {
    case trainplan::DimSplits::Heads: return style.tpLink;
    case trainplan::DimSplits::Layers: return style.ppLink;
    case trainplan::DimSplits::Sequence:
    case trainplan::DimSplits::Batch: return style.dpLink;
    }
    return style.text;
}

QColor linkColor(const LayoutDiagramStyle& style, const LayoutDiagramLink& link)
{
    return link.expert ? style.epLink : linkColor(style, link.dim);
}

}  // namespace

LayoutDiagramPainter::LayoutDiagramPainter() = default;
LayoutDiagramPainter::~LayoutDiagramPainter() = default;

void LayoutDiagramPainter::setPlan(const trainplan::Plan& plan, const trainplan::Estimate& estimate)
{
    const int selected = selection_.rank;
    geometry_.reset();
    try {
        model_ = std::make_unique<LayoutDiagramModel>(plan, estimate);
        problem_.clear();
    } catch (const std::exception& e) {
        // RankMap refuses layouts it cannot number (a size below 1, over INT_MAX ranks).
        model_.reset();
        problem_ = QStringLiteral("No layout to draw: %1").arg(QString::fromUtf8(e.what()));
    }
    selection_ = model_ && selected >= 0 ? model_->selectionFor(selected) : LayoutDiagramSelection{};
}

void LayoutDiagramPainter::setStyle(const LayoutDiagramStyle& style)
{
    style_ = style;
    geometry_.reset();
}

void LayoutDiagramPainter::layout(const QRectF& target)
{
    if (!model_ || (geometry_ && geometry_->target() == target))
        return;
    geometry_ = std::make_unique<LayoutDiagramGeometry>(*model_, style_, target);
    updateHighlights();
}

std::optional<int> LayoutDiagramPainter::rankAt(QPointF point) const
{
    return geometry_ ? geometry_->rankAt(point) : std::nullopt;
}

std::optional<QPointF> LayoutDiagramPainter::gpuCenter(int rank) const
{
    return geometry_ && model_ ? geometry_->gpuCenter(*model_, rank) : std::nullopt;
}

QString LayoutDiagramPainter::describeRank(int rank) const
{
    return model_ && rank >= 0 && rank < model_->rankMap().worldSize() ? model_->describeRank(rank) : QString();
}

QString LayoutDiagramPainter::toolTipAt(QPointF point) const
{
    if (!geometry_ || !model_)
        return {};
    if (const int stack = geometry_->stackAt(point); stack >= 0) {
        const auto& u = geometry_->units()[size_t(stack)];
        return QStringLiteral("%1 of the other replicas: %2\n%3")
            .arg(model_->stageText(u.firstStage, u.lastStage), model_->backCaption().toLower(), model_->backCountText());
    }
    const int unit = geometry_->unitAt(point);
    const auto rank = geometry_->rankAt(point);
    if (unit < 0 || !rank)
        return {};
    const auto& u = geometry_->units()[size_t(unit)];
    if (u.detailed)
        return describeRank(*rank);
    return QStringLiteral("%1 · %2 nodes drawn as one block\nIts first GPU: ")
               .arg(model_->stageText(u.firstStage, u.lastStage))
               .arg(u.nodes())
        + describeRank(*rank);
}

void LayoutDiagramPainter::setSelectedRank(std::optional<int> rank)
{
    selection_ = model_ && rank ? model_->selectionFor(*rank) : LayoutDiagramSelection{};
    updateHighlights();
}

std::optional<int> LayoutDiagramPainter::selectedRank() const
{
    return selection_.isValid() ? std::optional<int>(selection_.rank) : std::nullopt;
}

void LayoutDiagramPainter::updateHighlights()
{
    if (!geometry_ || !model_)
        return;
    const auto& units = geometry_->units();
    cellMarks_.assign(units.size(), {});
    for (size_t i = 0; i < units.size(); ++i)
        cellMarks_[i].assign(units[i].cells.size(), 0);
    unitMarks_.assign(units.size(), 0);
    stackMarks_.assign(units.size(), 0);
    selectionTags_.clear();
    if (!selection_.isValid())
        return;

    const auto mark = [&](int rank, unsigned bits) {
        const auto place = geometry_->placeOf(*model_, rank);
        switch (place.kind) {
        case LayoutDiagramPlace::Kind::Cell: cellMarks_[size_t(place.unit)][size_t(place.cell)] |= bits; break;
        case LayoutDiagramPlace::Kind::Unit: unitMarks_[size_t(place.unit)] |= bits; break;
        case LayoutDiagramPlace::Kind::Stack: stackMarks_[size_t(place.unit)] |= bits; break;
        case LayoutDiagramPlace::Kind::None: break;
        }
    };
    for (int r : selection_.tpRanks)
        mark(r, TpGroup);
    if (selection_.previousStage)
        mark(*selection_.previousStage, PpNeighbour);
    if (selection_.nextStage)
        mark(*selection_.nextStage, PpNeighbour);
    for (int r : selection_.gradientRanks)
        if (r != selection_.rank)
            mark(r, DpGroup);
    for (int r : selection_.epRanks)
        if (r != selection_.rank)
            mark(r, EpGroup);
    mark(selection_.rank, Selected);

    // Each link's tag goes near the link, clear of every label and of what the selection
    // lights up; it may cover dimmed boxes (tags have an opaque background).
    LayoutDiagramLabelPlacer placer(geometry_->diagramRect());
    for (const LayoutDiagramText& t : geometry_->texts())
        if (geometry_->diagramRect().contains(t.rect))
            placer.reserve(t.rect);
    for (size_t u = 0; u < units.size(); ++u) {
        if (unitMarks_[u])
            placer.addObstacle(units[u].hull);
        if (stackMarks_[u])
            placer.addObstacle(units[u].stackHull);
        for (size_t c = 0; c < cellMarks_[u].size(); ++c)
            if (cellMarks_[u][c])
                placer.addObstacle(units[u].cells[c].faces.hull);
    }
    const QFontMetricsF fm(style_.smallFont);
    const QPointF self = geometry_->anchorOf(geometry_->placeOf(*model_, selection_.rank));
    for (const LayoutDiagramLink& link : selection_.links) {
        QPointF at = self;
        if (link.dim == ParallelDim::Pp)
            at = pipelineCurve(
                geometry_->anchorOf(geometry_->placeOf(*model_, link.from)), geometry_->anchorOf(geometry_->placeOf(*model_, link.to)))
                     .apex;
        else if (link.expert)
            for (size_t u = 0; u < units.size(); ++u) {
                if (stackMarks_[u] & EpGroup)
                    at = units[u].stackTop;
            }
        else if (link.dim == ParallelDim::Dp)
            for (size_t u = 0; u < units.size(); ++u)
                if (stackMarks_[u] & DpGroup)
                    at = units[u].stackTop;
        const QString& label = link.tag;
        const double w = std::ceil(fm.horizontalAdvance(label)) + 10, h = std::ceil(fm.height()) + 4;
        std::vector<QRectF> candidates;
        for (double dy : {-1.3, 1.3, -2.5, 2.5, -3.7, 3.7})
            for (double dx : {-0.5, 0.1, -1.1, 0.7, -1.7})
                candidates.emplace_back(at.x() + dx * w, at.y() + dy * h - h / 2, w, h);
        if (const auto rect = placer.place(candidates))
            selectionTags_.push_back({label, *rect, LayoutDiagramText::Font::Small, linkColor(style_, link),
                LayoutDiagramText::Role::LinkTag, Qt::AlignHCenter});
    }
}

std::vector<int> LayoutDiagramPainter::highlightedRanks(Mark mark) const
{
    std::vector<int> out;
    if (!geometry_)
        return out;
    const auto& units = geometry_->units();
    for (size_t u = 0; u < cellMarks_.size(); ++u)
        for (size_t c = 0; c < cellMarks_[u].size(); ++c)
            if (cellMarks_[u][c] & mark)
                out.push_back(units[u].cells[c].rank);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> LayoutDiagramPainter::highlightedBlocks(Mark mark) const
{
    std::vector<int> out;
    for (size_t u = 0; u < unitMarks_.size(); ++u)
        if (unitMarks_[u] & mark)
            out.push_back(int(u));
    return out;
}

std::vector<int> LayoutDiagramPainter::highlightedStacks(Mark mark) const
{
    std::vector<int> out;
    for (size_t u = 0; u < stackMarks_.size(); ++u)
        if (stackMarks_[u] & mark)
            out.push_back(int(u));
    return out;
}

std::vector<LayoutDiagramText> LayoutDiagramPainter::texts() const
{
    std::vector<LayoutDiagramText> out;
    if (geometry_)
        out = geometry_->texts();
    out.insert(out.end(), selectionTags_.begin(), selectionTags_.end());
    return out;
}

QColor LayoutDiagramPainter::markColor(unsigned marks) const
{
    if (marks & Selected)
        return style_.selected;
    if (marks & TpGroup)
        return style_.tpLink;
    if (marks & PpNeighbour)
        return style_.ppLink;
    if (marks & DpGroup)
        return style_.dpLink;
    return style_.epLink;
}

void LayoutDiagramPainter::drawBox(QPainter& p, const LayoutDiagramBoxFaces& f, QColor color) const
{
    // Faces filled aliased, edges stroked antialiased over them: Qt's antialiased polygon fill
    // was most of a paint, and the outline covers the fill's jagged edge.
    const bool smooth = p.testRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(Qt::NoPen);
    p.setBrush(LayoutDiagramStyle::frontFace(color));
    p.drawPolygon(f.front);
    p.setBrush(LayoutDiagramStyle::sideFace(color));
    p.drawPolygon(f.side);
    p.setBrush(LayoutDiagramStyle::topFace(color));
    p.drawPolygon(f.top);
    p.setRenderHint(QPainter::Antialiasing, smooth);
    p.setPen(QPen(color.darker(160), 0.8));
    p.setBrush(Qt::NoBrush);
    p.drawPolygon(f.front);
    p.drawPolygon(f.side);
    p.drawPolygon(f.top);
}

void LayoutDiagramPainter::drawScene(QPainter& p, bool onlyHighlighted) const
{
    const auto& units = geometry_->units();
    // Back to front: the racks' floors, the replicas behind, their gradient links, then the front row.
    if (!onlyHighlighted) {
        p.setPen(QPen(style_.rackOutline, 1.2, Qt::DashLine));
        p.setBrush(style_.rackFloor);
        for (const auto& rack : geometry_->rackOutlines())
            p.drawPolygon(rack.polygon);
    }
    for (size_t i = 0; i < units.size(); ++i) {
        if (onlyHighlighted && !stackMarks_[i])
            continue;
        const QColor ghost = units[i].ghostColor.isValid() ? units[i].ghostColor : style_.ghostSlab;
        for (const auto& g : units[i].ghosts)
            drawBox(p, g, ghost);
    }
    if (!onlyHighlighted) {
        QPen dashed(style_.dpLink, 1.4, Qt::DashLine);
        for (const auto& u : units)
            if (!u.ghosts.empty())
                drawArrow(p, QLineF(u.dpOut, u.dpIn), dashed, 6);
    }
    for (size_t i = 0; i < units.size(); ++i) {
        const auto& u = units[i];
        if (!onlyHighlighted || unitMarks_[i]) {
            for (const auto& plate : u.plates)
                drawBox(p, plate, u.tpCrossesNodes ? style_.warningSlab() : style_.slab);
            p.setPen(Qt::NoPen);
            for (const auto& s : u.stripes) {
                p.setBrush(s.color);
                p.drawPolygon(s.polygon);
            }
            if (!u.detailed && u.tpCrossesNodes) {
                p.setPen(QPen(style_.warning(), 2.2));
                p.setBrush(Qt::NoBrush);
                p.drawPolygon(u.plates.back().top);
            }
        }
        if (!onlyHighlighted) {
            p.setBrush(Qt::NoBrush);
            for (const auto& o : u.tpOutlines) {
                if (o.crossesNodes) {
                    p.setPen(QPen(style_.warning(), 2.4));
                    p.drawPolygon(o.polygon);
                } else {
                    // About 1.4 px of ink as two hairlines 0.4 px apart: Qt strokes a pen of at
                    // most one device pixel on its fast path, and a wider one through the general
                    // stroker at about 100 us per outline (two thirds of a 2,048-GPU paint).
                    p.setPen(QPen(style_.tpOutline, 1.0));
                    p.drawPolygon(o.polygon);
                    p.drawPolygon(o.polygon.translated(0, 0.4));
                }
            }
        }
        for (size_t c = 0; c < u.cells.size(); ++c) {
            if (onlyHighlighted && !cellMarks_[i][c])
                continue;
            const auto& cell = u.cells[c];
            if (cell.rank < 0) {
                p.setPen(QPen(style_.ghostEdge, 0.8, Qt::DotLine));
                p.setBrush(style_.emptySocket);
                p.drawPolygon(cell.faces.top);
            } else {
                drawBox(p, cell.faces, cell.color);
            }
        }
    }
    if (!onlyHighlighted) {
        const QPen flow(style_.ppLink, 1.8);
        for (const QLineF& l : geometry_->flowArrows())
            drawArrow(p, l, flow, geometry_->flat() ? LayoutDiagramFlatGrid::kFlowArrowHead : 8);
        p.setPen(QPen(style_.warning(), 3, Qt::SolidLine, Qt::RoundCap));
        for (const QLineF& l : geometry_->tpBridges())
            p.drawLine(l);
    }
}

void LayoutDiagramPainter::drawSelection(QPainter& p) const
{
    // Dim everything, then draw what the selection touches again on top, outlined.
    QColor veil = style_.background;
    veil.setAlpha(165);
    p.fillRect(geometry_->diagramRect(), veil);
    drawScene(p, true);

    const auto& units = geometry_->units();
    p.setBrush(Qt::NoBrush);
    for (size_t i = 0; i < units.size(); ++i) {
        if (stackMarks_[i]) {
            p.setPen(QPen(markColor(stackMarks_[i]), 2.4));
            p.drawPolygon(units[i].stackHull);
        }
        if (unitMarks_[i]) {
            p.setPen(QPen(markColor(unitMarks_[i]), 2.4));
            p.drawPolygon(units[i].hull);
        }
        for (size_t c = 0; c < cellMarks_[i].size(); ++c) {
            if (const unsigned m = cellMarks_[i][c]) {
                p.setPen(QPen(markColor(m), m & Selected ? 3.0 : 2.2));
                p.drawPolygon(units[i].cells[c].faces.hull);
            }
        }
    }

    const QPointF self = geometry_->anchorOf(geometry_->placeOf(*model_, selection_.rank));
    for (const LayoutDiagramLink& link : selection_.links) {
        const QPointF from = geometry_->anchorOf(geometry_->placeOf(*model_, link.from));
        const QPointF to = geometry_->anchorOf(geometry_->placeOf(*model_, link.to));
        if (link.dim == ParallelDim::Pp && QLineF(from, to).length() > 4) {  // not inside one block
            const Curve c = pipelineCurve(from, to);
            p.setPen(QPen(style_.ppLink, 2.4, link.crossesNodes ? Qt::SolidLine : Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawPath(c.path);
            drawArrowHead(p, c.path.pointAtPercent(1), c.endDirection, 10, style_.ppLink);
        }
    }
    const QPen dp(style_.dpLink, 2.2, Qt::DashLine);
    for (size_t i = 0; i < units.size(); ++i)
        if (stackMarks_[i] & DpGroup)
            drawArrow(p, QLineF(self, units[i].stackTop), dp, 9);
    // The EP group's members behind the front row (the all-to-all reaches them); dotted, so it
    // reads apart from the gradients' dashes where both go to the same stack.
    const QPen ep(style_.epLink, 2.2, Qt::DotLine);
    for (size_t i = 0; i < units.size(); ++i)
        if ((stackMarks_[i] & EpGroup) && !(stackMarks_[i] & DpGroup))
            drawArrow(p, QLineF(self, units[i].stackTop), ep, 9);

}

void LayoutDiagramPainter::drawTags(QPainter& p) const
{
    // White boxes so arrows running underneath never blur the words.
    for (const LayoutDiagramText& t : selectionTags_) {
        p.setPen(QPen(t.color, 1.2));
        p.setBrush(style_.background);
        p.drawRoundedRect(t.rect, 3, 3);
    }
    drawTexts(p, selectionTags_);
}

void LayoutDiagramPainter::drawTexts(QPainter& p, const std::vector<LayoutDiagramText>& texts) const
{
    for (const LayoutDiagramText& t : texts) {
        p.setFont(LayoutDiagramGeometry::font(style_, t.font));
        p.setPen(t.color);
        p.drawText(t.rect, int(t.align | Qt::AlignVCenter) | Qt::TextDontClip | Qt::TextSingleLine, t.text);
    }
}

void LayoutDiagramPainter::drawLegend(QPainter& p) const
{
    using S = LayoutDiagramLegendItem::Swatch;
    for (const auto& item : geometry_->legend()) {
        const QRectF r = item.swatchRect;
        switch (item.swatch) {
        case S::Block:
        case S::Faded:
            p.setPen(QPen(item.color.darker(150), 0.8));
            p.setBrush(item.color);
            p.drawRect(r);
            break;
        case S::Outline:
        case S::WarningOutline:
            p.setPen(QPen(item.color, item.swatch == S::WarningOutline ? 2.2 : 1.3));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(1, 1, -1, -1));
            break;
        case S::Rack:
            p.setPen(QPen(item.color, 1.2, Qt::DashLine));
            p.setBrush(style_.rackFloor);
            p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
            break;
        case S::Arrow:
        case S::DashedArrow:
            drawArrow(p, QLineF(r.left(), r.center().y(), r.right(), r.center().y()),
                      QPen(item.color, 1.6, item.swatch == S::DashedArrow ? Qt::DashLine : Qt::SolidLine), 6);
            break;
        case S::Ramp: {
            QLinearGradient ramp(r.topLeft(), r.topRight());
            constexpr int kStops = 12;
            for (int i = 0; i <= kStops; ++i)
                ramp.setColorAt(double(i) / kStops,
                    LayoutDiagramStyle::stageColor(int(std::lround(double(i) / kStops * (item.stages - 1))), item.stages));
            p.setPen(Qt::NoPen);
            p.setBrush(ramp);
            p.drawRect(r);
            break;
        }
        }
    }
}

void LayoutDiagramPainter::drawPanel(QPainter& p) const
{
    // The selected GPU on the first line, its links packed after it (a bullet in the link's
    // colour, then its text), so four links take two lines; lines hug the panel's outer edge.
    const QRectF panel = geometry_->panelRect();
    const bool rightAligned = panel.right() >= geometry_->target().right() - 20 && panel.left() > geometry_->target().left() + 40;
    const QFontMetricsF title(style_.titleFont), small(style_.smallFont);
    const auto lineAt = [&](double y, double h, double width) {
        const double left = rightAligned ? panel.right() - width : panel.left();
        return QRectF(left, y, width, h);
    };
    const auto drawLine = [&](const QString& text, const QFont& font, const QFontMetricsF& fm, QColor color, double y) {
        const QString shown = fm.elidedText(text, Qt::ElideRight, panel.width() - 2);
        p.setFont(font);
        p.setPen(color);
        p.drawText(lineAt(y, std::ceil(fm.height()), std::ceil(fm.horizontalAdvance(shown)) + 2),
            Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine | Qt::TextDontClip, shown);
        return y + std::ceil(fm.height()) + 1;
    };
    double y = panel.top();
    if (!selection_.isValid()) {
        // Only what the pointer can do at this level of detail, in words that fit (none in
        // an export: the geometry leaves the hint out without interactive hints).
        for (const QString& line : geometry_->hintLines())
            y = drawLine(line, style_.smallFont, small, style_.mutedText, y);
        return;
    }
    if (geometry_->panelOverlaysDrawing()) {
        // Over the drawing (LayoutDiagramGeometry gave the panel's band back): on a veil.
        QColor veil = style_.background;
        veil.setAlphaF(0.92);
        p.fillRect(panel, veil);
    }
    y = drawLine(selection_.title, style_.titleFont, title, style_.text, y);

    struct Item {
        QString text;
        QColor color;
        double width;
    };
    constexpr double kBullet = 13, kSpacing = 16;
    std::vector<std::vector<Item>> lines(1);
    double used = 0;
    for (const LayoutDiagramLink& link : selection_.links) {
        double width = kBullet + std::ceil(small.horizontalAdvance(link.text)) + 2;
        if (!lines.back().empty() && used + kSpacing + width > panel.width()) {
            lines.emplace_back();
            used = 0;
        }
        QString text = link.text;
        if (width > panel.width()) {
            text = small.elidedText(text, Qt::ElideRight, panel.width() - kBullet - 2);
            width = kBullet + std::ceil(small.horizontalAdvance(text)) + 2;
        }
        used += (lines.back().empty() ? 0 : kSpacing) + width;
        lines.back().push_back({text, linkColor(style_, link), width});
    }
    const double h = std::ceil(small.height());
    p.setFont(style_.smallFont);
    for (size_t i = 0; i < lines.size() && y + h <= panel.bottom() + 0.5; ++i) {
        double width = 0;
        for (const Item& item : lines[i])
            width += (width > 0 ? kSpacing : 0) + item.width;
        double x = lineAt(y, h, width).left();
        for (const Item& item : lines[i]) {
            p.setPen(Qt::NoPen);
            p.setBrush(item.color);
            p.drawRoundedRect(QRectF(x, y + h / 2 - 4, 9, 8), 2, 2);
            p.setPen(style_.text);
            p.drawText(QRectF(x + kBullet, y, item.width - kBullet, h),
                Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine | Qt::TextDontClip, item.text);
            x += item.width + kSpacing;
        }
        y += h + 1;
    }
}

void LayoutDiagramPainter::paint(QPainter& p, const QRectF& target)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    p.setClipRect(target, Qt::IntersectClip);  // a target too small for the drawing must not spill
    p.fillRect(target, style_.background);
    if (!model_) {
        p.setFont(style_.labelFont);
        p.setPen(style_.mutedText);
        p.drawText(target, Qt::AlignCenter | Qt::TextWordWrap, problem_.isEmpty() ? QStringLiteral("No plan") : problem_);
        p.restore();
        return;
    }
    layout(target);
    drawScene(p, false);
    if (selection_.isValid())
        drawSelection(p);
    // Text after the veil of a selection, so labels stay sharp while the boxes dim.
    drawTexts(p, geometry_->texts());
    drawLegend(p);
    drawTags(p);
    drawPanel(p);
    p.restore();
}
