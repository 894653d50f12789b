#include "render/layoutdiagram/LayoutDiagramGeometry.h"

#include <QFontMetricsF>

#include <algorithm>
#include <climits>
#include <cmath>

#include "render/layoutdiagram/LayoutDiagramFlatGrid.h"
#include "render/layoutdiagram/LayoutDiagramLabelPlacer.h"
#include "render/layoutdiagram/LayoutDiagramModel.h"
#include "render/layoutdiagram/LayoutDiagramStyle.h"

using trainplan::ParallelDim;

namespace {

// Pixels per node length. The top keeps one node from filling a wall; the bottom is where
// a node's two-line label no longer fits beside its box, so boxes merge into blocks.
constexpr double kMaxScale = 230;
constexpr double kMinScale = 40;
constexpr double kMinCellPixels = 8;  // a GPU drawn smaller than this is noise: draw blocks
constexpr int kMaxDetailedNodes = 32; // never try to draw more nodes than this one by one
constexpr size_t kMinUsefulBlocks = 8; // fewer blocks than this say less than the flat grid
constexpr int kMaxPlates = 3;         // a block of nodes shows as a pile of this many boards
constexpr int kMaxGhosts = 3;         // the replicas behind show as this many boards at most
constexpr int kPanelLinkLines = 2;    // the selected GPU's links, packed side by side
constexpr double kMinPanelWidth = 300;
constexpr double kLabelGap = 8;
constexpr double kStripGap = 8;
// Below this share of the panel's height for the drawing, the selection panel gives its band up.
constexpr double kMinDrawingShare = 0.4;
constexpr double kMargin = 8;
constexpr double kRackFloorPixels = 5;  // a rack's floor reaches this far past its boxes

// The GPUs of a node sit in a grid about twice as wide as deep (4 x 2 for eight): rows is
// the largest divisor of the count not above sqrt(count / 2), so rows fill evenly.
int gridRows(int gpus)
{
    int rows = 1;
    for (int r = 1; r * r * 2 <= gpus; ++r)
        if (gpus % r == 0)
            rows = r;
    return rows;
}

QPolygonF thickLine(const QLineF& line, double halfWidth)
{
    const QPointF d = line.p2() - line.p1();
    const double len = std::hypot(d.x(), d.y());
    if (len <= 0)
        return {};
    const QPointF n(-d.y() / len * halfWidth, d.x() / len * halfWidth);
    return QPolygonF({line.p1() + n, line.p2() + n, line.p2() - n, line.p1() - n});
}

QRectF united(const QRectF& a, const QRectF& b)
{
    return a.isNull() ? b : a.united(b);
}

QStringList wrapWords(const QString& text, const QFont& font, const LayoutDiagramStyle& style, double width, int* elided = nullptr)
{
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && style.advance(font, candidate) > width) {
            lines << line;
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty())
        lines << line;
    for (QString& l : lines) {
        if (style.advance(font, l) <= width)
            continue;
        const QString shown = QFontMetricsF(font).elidedText(l, Qt::ElideRight, width);  // a single word wider than the strip
        if (elided && shown != l)
            ++*elided;
        l = shown;
    }
    return lines;
}

}  // namespace

// Sizes in node lengths (a node's board is 1 long): the proportions of the drawing.
struct LayoutDiagramGeometry::Dimensions {
    int cols = 1;
    int rows = 1;
    double margin = 0.05;     // board edge around the GPUs
    double cell = 0;          // one GPU's square
    double depth = 0;         // board depth
    double plate = 0.06;      // board thickness
    double plateGap = 0.035;  // between the boards of a block of nodes
    double cubeInset = 0;
    double cubeHeight = 0;
    double gap = 0.42;        // between boxes of the front row: room for the activation arrow
    double ghostSep = 0.34;   // between a board and the replicas behind it: room for the DP link
    double ghostStep = 0.13;
    int ghosts = 0;

    explicit Dimensions(const LayoutDiagramModel& model)
    {
        const int gpus = model.rankMap().gpusPerNode();
        rows = gridRows(gpus);
        cols = (gpus + rows - 1) / rows;
        cell = (1 - 2 * margin) / cols;
        depth = rows * cell + 2 * margin;
        cubeInset = 0.13 * cell;
        cubeHeight = 0.55 * cell;
        ghosts = std::min(kMaxGhosts, model.replicasBehind());
    }
    double backEnd() const { return ghosts > 0 ? 2 * depth + ghostSep + (ghosts - 1) * ghostStep : depth; }
};

// A few lines of text that move together: a node's label, a stack's, the back caption.
struct LayoutDiagramGeometry::LabelBlock {
    enum class Kind { Node, Stack, BackCaption };
    Kind kind = Kind::Node;
    int unit = 0;
    std::vector<LayoutDiagramText> lines;  // rectangles relative to the block's top left
    QSizeF size;
    QPointF anchor;

    void addLine(const QString& text, const QFont& font, const LayoutDiagramStyle& style, LayoutDiagramText::Font fontRole, QColor color,
                 LayoutDiagramText::Role role)
    {
        const double w = std::ceil(style.advance(font, text)) + 2;
        const double h = std::ceil(QFontMetricsF(font).height());
        const double y = lines.empty() ? 0 : size.height() + 1;
        lines.push_back({text, QRectF(0, y, w, h), fontRole, color, role, Qt::AlignLeft});
        size = QSizeF(std::max(size.width(), w), y + h);
    }

    // Preferred positions first: beside the anchor, then nudged up and down.
    std::vector<QRectF> candidates() const
    {
        const double w = size.width(), h = size.height();
        std::vector<QRectF> out;
        switch (kind) {
        case Kind::Node:
        case Kind::Stack: {
            const double left = kind == Kind::Node ? anchor.x() - kLabelGap - w : anchor.x() + kLabelGap;
            for (double dy : {0.0, 0.5, -0.5, 1.0, -1.0, 1.5})
                out.emplace_back(left, anchor.y() - h / 2 + dy * h, w, h);
            break;
        }
        case Kind::BackCaption:
            for (double dy : {0.0, -0.6, -1.2})
                for (double dx : {-0.35, 0.0, -0.7, 0.35, -1.0, 0.7})
                    out.emplace_back(anchor.x() + dx * w, anchor.y() - kLabelGap - h + dy * h, w, h);
            break;
        }
        return out;
    }
};

QFont LayoutDiagramGeometry::font(const LayoutDiagramStyle& style, LayoutDiagramText::Font font)
{
    switch (font) {
    case LayoutDiagramText::Font::Caption: return style.captionFont;
    case LayoutDiagramText::Font::Title: return style.titleFont;
    case LayoutDiagramText::Font::Label: return style.labelFont;
    case LayoutDiagramText::Font::Small: return style.smallFont;
    }
    return style.labelFont;
}

LayoutDiagramGeometry::LayoutDiagramGeometry(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, const QRectF& target)
    : target_(target)
{
    const QRectF r = target_.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    double top = r.top() + layoutTopStrip(model, style) + kStripGap;
    const bool tpGroups = model.rankMap().size(ParallelDim::Tp) > 1;
    const double bottom = r.bottom() - layoutBottomStrip(model, style, tpGroups, model.racks()) - kStripGap;
    // A short, narrow panel (an MoE plan's longer caption at 1280x720) would leave the drawing a
    // sliver: the selection panel then gives its band back and shows over the drawing's top
    // right when a GPU is clicked, without the hover hint. A thumbnail-sized target (under one and
    // a half panels wide) keeps the band: its drawing is a sketch either way and the hint says
    // what to do.
    if (panelBand_ > 0 && r.width() >= 1.5 * kMinPanelWidth && bottom - top < kMinDrawingShare * r.height()) {
        top -= panelBand_;
        const double w = std::min(r.width() * 0.6, 640.0);
        panelRect_ = QRectF(r.right() - w, top, w, panelRect_.height());
        panelOverlays_ = true;
    }
    diagramRect_ = QRectF(r.left(), top, r.width(), std::max(0.0, bottom - top));
    const size_t stripTexts = texts_.size();
    const Dimensions d(model);
    const auto parts = partitions(model);
    const QRectF area = diagramRect_;

    // Finer detail first; at each level wide labels, then the same words on more lines. The
    // flat grid comes in where the isometric drawing would lose its GPUs: right after the
    // detailed level for a replica of a few nodes, before blocks get coarse for one of many.
    const int frontCount = int(model.frontNodes().size());
    bool flatTried = false;
    const auto tryFlat = [&] {
        flatTried = true;
        return adoptFlatGrid(model, style, stripTexts);
    };
    const size_t attempts = parts.size() * 2;
    for (size_t attempt = 0; attempt < attempts; ++attempt) {
        const auto& ranges = parts[attempt / 2];
        const bool flatWanted = frontCount <= kMaxDetailedNodes ? attempt >= 2 : ranges.size() < kMinUsefulBlocks;
        if (!flatTried && flatWanted && tryFlat())
            break;
        const bool compact = attempt % 2 == 1;
        const bool lastChance = attempt + 1 == attempts;
        const bool oneNodePerBox = std::all_of(ranges.begin(), ranges.end(), [](const Range& r) { return r.first == r.last; });
        const auto detailedAt = [&](double k) { return oneNodePerBox && k * d.cell >= kMinCellPixels; };

        buildUnits(model, ranges, d, LayoutDiagramProjection({}, kMinScale), detailedAt(kMinScale), UnitParts::Bounds);
        auto blocks = fixedLabels(model, style, compact);
        // The drawing and its labels grow with the scale, so the largest scale that fits is
        // found by bisection on the bounding box; labels are then placed for real.
        const auto boundsAt = [&](double k) {
            buildUnits(model, ranges, d, LayoutDiagramProjection({}, k), detailedAt(k), UnitParts::Bounds);
            anchorLabels(blocks);
            return sceneBounds(blocks);
        };
        const auto fits = [&](double k) {
            const QRectF b = boundsAt(k);
            return b.width() <= area.width() && b.height() <= area.height();
        };
        double k = kMinScale;
        if (!fits(kMinScale)) {
            if (!lastChance)
                continue;
        } else if (fits(kMaxScale)) {
            k = kMaxScale;
        } else {
            double lo = kMinScale, hi = kMaxScale;
            for (int i = 0; i < 16; ++i) {
                const double mid = (lo + hi) / 2;
                (fits(mid) ? lo : hi) = mid;
            }
            k = lo;
        }
        // Labels may still collide with a neighbour's box: shrink until they do not.
        bool placed = false;
        for (;;) {
            const QRectF b = boundsAt(k);
            const QPointF origin = area.center() - b.center();
            projection_ = LayoutDiagramProjection(origin, k);
            buildUnits(model, ranges, d, projection_, detailedAt(k));
            anchorLabels(blocks);
            texts_.resize(stripTexts);
            const bool tooSmall = k * 0.92 < kMinScale;
            placed = placeFixedLabels(blocks, lastChance && tooSmall);
            if (placed || tooSmall)
                break;
            k *= 0.92;
        }
        if (placed || lastChance) {
            // Boxes of a few nodes too small for their GPUs: the flat grid draws them instead.
            const bool noGpus = units_.empty() || !units_.front().detailed;
            if (noGpus && !flatTried && frontCount <= kMaxDetailedNodes && tryFlat())
                break;
            aggregated_ = !oneNodePerBox || (!units_.empty() && !units_.front().detailed);
            break;
        }
    }
    // Blocks of nodes show no TP outlines, and blocks across racks no rack outlines, so the
    // legend does not offer them (it only shrinks).
    const bool racksDropped = model.racks() && rackOutlines_.empty();
    if (!flat_ && ((tpGroups && aggregated_) || racksDropped))
        layoutBottomStrip(model, style, tpGroups && !aggregated_, !racksDropped);
    texts_.insert(texts_.end(), bottomTexts_.begin(), bottomTexts_.end());
    chooseHint(style, model.experts() && model.experts()->ep() > 1);
}

bool LayoutDiagramGeometry::adoptFlatGrid(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, size_t stripTexts)
{
    // The flat grid's own legend (its row labels name the stages), then, if the rows still do
    // not fit, the red flag in brief (Red flags has its words in full).
    const auto legend = legend_;
    const auto bottomTexts = bottomTexts_;
    const QRectF rect = diagramRect_;
    const QRectF r = target_.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const bool tpGroups = model.rankMap().size(ParallelDim::Tp) > 1;
    std::optional<LayoutDiagramFlatGrid::Layout> grid;
    for (const bool brief : {false, true}) {
        if (brief && !model.tpWarning())
            break;
        const double bottom = r.bottom() - layoutBottomStrip(model, style, tpGroups, model.racks(), brief, true) - kStripGap;
        diagramRect_.setBottom(std::max(diagramRect_.top(), bottom));
        grid = LayoutDiagramFlatGrid::build(model, style, diagramRect_);
        if (grid)
            break;
    }
    if (!grid) {
        legend_ = legend;
        bottomTexts_ = bottomTexts;
        diagramRect_ = rect;
        return false;
    }
    units_ = std::move(grid->units);
    texts_.resize(stripTexts);
    texts_.insert(texts_.end(), grid->texts.begin(), grid->texts.end());
    tpBridges_ = std::move(grid->tpBridges);
    flowArrows_ = std::move(grid->flowArrows);
    unitOfFront_ = std::move(grid->unitOfFront);
    outlineFlatRacks(model);
    drawnGpus_ = grid->drawnGpus;
    hiddenNodes_ = grid->hiddenNodes;
    droppedLabels_ = 0;
    aggregated_ = false;
    flat_ = true;
    return true;
}

void LayoutDiagramGeometry::chooseHint(const LayoutDiagramStyle& style, bool epGroups)
{
    // What the pointer can do here, in the longest words that fit the panel: GPUs drawn one
    // by one answer a hover with their rank, blocks of nodes with what they stand for.
    hint_.clear();
    if (!style.interactiveHints || units_.empty() || panelOverlays_)
        return;
    const QString groups = epGroups ? QStringLiteral("Click one: its TP, DP and EP groups and pipeline neighbours light up.")
                                    : QStringLiteral("Click one: its TP group, pipeline neighbours and DP group light up.");
    std::vector<QStringList> wordings;
    if (drawnGpus_ > 0) {
        wordings = {{QStringLiteral("Hover a GPU for its rank, node and coordinates."), groups},
                    {QStringLiteral("Hover a GPU for its rank and coordinates."), QStringLiteral("Click one to light up its groups.")},
                    {QStringLiteral("Hover a GPU: its rank."), QStringLiteral("Click: its groups.")}};
    } else {
        wordings = {{QStringLiteral("Hover a block of nodes for what it stands for."), groups},
                    {QStringLiteral("Hover a block for what it holds."), QStringLiteral("Click one to light up its groups.")}};
    }
    for (const QStringList& lines : wordings) {
        const bool fits =
            std::all_of(lines.begin(), lines.end(), [&](const QString& l) { return style.advance(style.smallFont, l) + 2 <= panelRect_.width(); });
        if (fits) {
            hint_ = lines;
            return;
        }
    }
}

std::vector<std::vector<LayoutDiagramGeometry::Range>> LayoutDiagramGeometry::partitions(const LayoutDiagramModel& model) const
{
    const auto& front = model.frontNodes();
    const int count = int(front.size());
    // When every front node holds one stage and every stage the same number of nodes,
    // blocks follow stage boundaries so a block's label names whole stages.
    int perStage = 0;
    bool uniform = std::all_of(front.begin(), front.end(), [](const LayoutDiagramNode& n) { return n.firstStage == n.lastStage; });
    for (int i = 0; uniform && i < count;) {
        int j = i;
        while (j < count && front[size_t(j)].firstStage == front[size_t(i)].firstStage)
            ++j;
        if (perStage != 0 && j - i != perStage)
            uniform = false;
        perStage = j - i;
        i = j;
    }
    const auto aligned = [&](int chunk) {
        if (!uniform || perStage <= 1)
            return chunk;
        if (chunk <= perStage) {
            while (perStage % chunk != 0)
                ++chunk;
            return chunk;
        }
        return (chunk + perStage - 1) / perStage * perStage;
    };
    std::vector<int> chunks;
    if (count <= kMaxDetailedNodes)
        chunks.push_back(1);
    for (int boxes : {24, 16, 12, 8, 6, 4, 3, 2, 1}) {
        const int chunk = aligned((count + boxes - 1) / boxes);
        if (chunks.empty() || chunk > chunks.back())
            chunks.push_back(chunk);
    }
    std::vector<std::vector<Range>> out;
    for (int chunk : chunks) {
        std::vector<Range> ranges;
        for (int first = 0; first < count; first += chunk)
            ranges.push_back({first, std::min(count, first + chunk) - 1});
        out.push_back(std::move(ranges));
    }
    return out;
}

void LayoutDiagramGeometry::buildUnits(const LayoutDiagramModel& model, const std::vector<Range>& ranges, const Dimensions& d,
                                       const LayoutDiagramProjection& proj, bool detailed, UnitParts parts)
{
    const bool everything = parts == UnitParts::Everything;
    const auto& map = model.rankMap();
    const auto& front = model.frontNodes();
    const int gpus = map.gpusPerNode();
    const int world = map.worldSize();
    const int stages = model.stages();
    const double k = proj.scale();

    units_.clear();
    units_.reserve(ranges.size());
    unitOfFront_.assign(front.size(), 0);
    tpBridges_.clear();
    flowArrows_.clear();
    drawnGpus_ = 0;
    std::vector<double> tops;

    for (const Range& r : ranges) {
        LayoutDiagramUnit u;
        u.firstFront = r.first;
        u.lastFront = r.last;
        u.firstStage = INT_MAX;
        u.lastStage = -1;
        for (int f = r.first; f <= r.last; ++f) {
            const auto& n = front[size_t(f)];
            unitOfFront_[size_t(f)] = int(units_.size());
            u.firstStage = std::min(u.firstStage, n.firstStage);
            u.lastStage = std::max(u.lastStage, n.lastStage);
            u.tpCrossesNodes |= n.tpCrossesNodes;
        }
        u.detailed = detailed && r.first == r.last;
        const int node = front[size_t(r.first)].node;
        u.representativeRank = map.rankOn({node, 0});
        for (int g = 0; g < gpus; ++g) {
            const int rank = map.rankOn({node, g});
            if (rank < world && model.inReplicaOne(rank)) {
                u.representativeRank = rank;
                break;
            }
        }

        const double x0 = double(units_.size()) * (1 + d.gap), x1 = x0 + 1, xm = x0 + 0.5;
        const int plates = u.detailed ? 1 : std::min(kMaxPlates, u.nodes());
        for (int p = 0; everything && p < plates; ++p) {
            const double z0 = p * (d.plate + d.plateGap);
            u.plates.push_back(proj.faces({x0, 0, z0, x1, d.depth, z0 + d.plate}));
        }
        const double top = (plates - 1) * (d.plate + d.plateGap) + d.plate;
        tops.push_back(top);
        double zMax = top;

        if (u.detailed)
            zMax = top + d.cubeHeight;
        if (u.detailed && everything) {
            u.cellOfLocalGpu.assign(size_t(gpus), -1);
            // Back row first so nearer GPUs cover farther ones.
            for (int row = d.rows - 1; row >= 0; --row) {
                for (int col = 0; col < d.cols; ++col) {
                    const int g = row * d.cols + col;
                    if (g >= gpus)
                        continue;
                    LayoutDiagramCell c;
                    c.localGpu = g;
                    const double cx0 = x0 + d.margin + col * d.cell + d.cubeInset, cy0 = d.margin + row * d.cell + d.cubeInset;
                    const double cx1 = cx0 + d.cell - 2 * d.cubeInset, cy1 = cy0 + d.cell - 2 * d.cubeInset;
                    const int rank = map.rankOn({node, g});
                    if (rank < world) {
                        c.rank = rank;
                        c.otherReplica = !model.inReplicaOne(rank);
                        const QColor base = LayoutDiagramStyle::stageColor(map.coordinate(rank, ParallelDim::Pp), stages);
                        c.color = c.otherReplica ? LayoutDiagramStyle::otherReplicaColor(base) : base;
                        c.faces = proj.faces({cx0, cy0, top, cx1, cy1, top + d.cubeHeight});
                        c.topCenter = proj.map((cx0 + cx1) / 2, (cy0 + cy1) / 2, top + d.cubeHeight);
                        ++drawnGpus_;
                    } else {
                        c.faces.top = proj.flatRect(cx0, cy0, cx1, cy1, top);
                        c.faces.hull = c.faces.top;
                        c.topCenter = proj.map((cx0 + cx1) / 2, (cy0 + cy1) / 2, top);
                    }
                    u.cellOfLocalGpu[size_t(g)] = int(u.cells.size());
                    u.cells.push_back(std::move(c));
                }
            }
            // TP groups: one outline per row each group covers (groups are runs of ranks).
            if (map.size(ParallelDim::Tp) > 1) {
                const double pad = d.cubeInset * 0.45;
                for (int g = 0; g < gpus;) {
                    const int rank = map.rankOn({node, g});
                    if (rank >= world)
                        break;
                    const auto group = map.tpGroup(rank);
                    int end = g;
                    while (end + 1 < gpus && (end + 1) / d.cols == g / d.cols && map.rankOn({node, end + 1}) < world &&
                           group.contains(map.rankOn({node, end + 1})))
                        ++end;
                    const int row = g / d.cols;
                    u.tpOutlines.push_back(
                        {proj.flatRect(x0 + d.margin + (g % d.cols) * d.cell + pad, d.margin + row * d.cell + pad,
                             x0 + d.margin + (end % d.cols + 1) * d.cell - pad, d.margin + (row + 1) * d.cell - pad, top),
                            map.crossesNodes(group)});
                    g = end + 1;
                }
            }
        } else if (!u.detailed && everything) {
            // A block of nodes: its stages as stripes on the top board, each at least 2 px wide.
            const int count = u.lastStage - u.firstStage + 1;
            const double usable = 1 - 2 * d.margin;
            const int stripes = std::clamp(int(usable * k / 2), 1, count);
            for (int i = 0; i < stripes; ++i) {
                const int stage = u.firstStage + int((long long)i * count / stripes);
                u.stripes.push_back({proj.flatRect(x0 + d.margin + usable * i / stripes, d.margin,
                                         x0 + d.margin + usable * (i + 1) / stripes, d.depth - d.margin, top),
                    LayoutDiagramStyle::stageColor(stage, stages)});
            }
        }

        if (d.ghosts > 0) {
            for (int j = d.ghosts - 1; everything && j >= 0; --j) {
                const double y0 = d.depth + d.ghostSep + j * d.ghostStep;
                u.ghosts.push_back(proj.faces({x0, y0, 0, x1, y0 + d.depth, d.plate}));
            }
            if (u.firstStage == u.lastStage)
                u.ghostColor = LayoutDiagramStyle::otherReplicaColor(LayoutDiagramStyle::stageColor(u.firstStage, stages));
            u.stackHull = proj.hull({x0, d.depth + d.ghostSep, 0, x1, d.backEnd(), d.plate});
            u.stackTop = proj.map(xm, d.depth + d.ghostSep + d.depth / 2, d.plate);
            u.dpOut = proj.map(xm, d.depth, top);
            u.dpIn = proj.map(xm, d.depth + d.ghostSep, d.plate);
            u.stackLabelAnchor = proj.map(x1, d.backEnd(), d.plate / 2);
            u.stackBackCorner = proj.map(x0, d.backEnd(), d.plate);
        }
        u.hull = proj.hull({x0, 0, 0, x1, d.depth, zMax});
        u.topCenter = proj.map(xm, d.depth / 2, zMax);
        u.flowOut = proj.map(x1, d.depth * 0.62, top);
        u.flowIn = proj.map(x0, d.depth * 0.62, top);
        u.labelAnchor = proj.map(x0, 0, zMax / 2);
        units_.push_back(std::move(u));
    }

    for (size_t i = 0; everything && i + 1 < units_.size(); ++i) {
        const auto& a = units_[i];
        const auto& b = units_[i + 1];
        if (b.firstStage > a.lastStage)
            flowArrows_.emplace_back(a.flowOut, b.flowIn);
        // A TP group that runs from one box into the next crosses a node boundary.
        const int last = map.rankOn({front[size_t(a.lastFront)].node, gpus - 1});
        const int first = map.rankOn({front[size_t(b.firstFront)].node, 0});
        if (last < world && map.tpGroup(last).contains(first)) {
            const double xa = double(i) * (1 + d.gap) + 1, xb = xa + d.gap;
            tpBridges_.emplace_back(proj.map(xa - d.margin, d.depth * 0.3, tops[i]), proj.map(xb + d.margin, d.depth * 0.3, tops[i + 1]));
        }
    }
    outlineRacks(model, d, proj);  // also in Bounds: it moves the node labels' anchors
}

void LayoutDiagramGeometry::outlineRacks(const LayoutDiagramModel& model, const Dimensions& d, const LayoutDiagramProjection& proj)
{
    rackOutlines_.clear();
    if (!model.racks())
        return;
    const auto& front = model.frontNodes();
    std::vector<int> rackOfUnit;
    for (const auto& u : units_) {
        const int rack = model.rackOf(front[size_t(u.firstFront)].node);
        if (model.rackOf(front[size_t(u.lastFront)].node) != rack)
            return;  // a block across racks: no outline would be true
        rackOfUnit.push_back(rack);
    }
    // The floor of a rack's boxes: each box's footprint and a few pixels more, joined across
    // the gaps by the back part only, so the floor never runs under the node labels left of
    // each box; the labels move out by the floor's front corner.
    const double pad = kRackFloorPixels / proj.scale(), bridge = d.depth * 0.45, step = 1 + d.gap;
    const double labelShift = 2 * pad * proj.scale() * LayoutDiagramProjection::kCos30;
    for (auto& u : units_)
        u.labelAnchor.rx() -= labelShift;
    for (size_t first = 0; first < units_.size();) {
        size_t last = first;
        while (last + 1 < units_.size() && rackOfUnit[last + 1] == rackOfUnit[first])
            ++last;
        QPolygonF floor;
        for (size_t i = first; i <= last; ++i) {
            const double x0 = double(i) * step - pad, x1 = double(i) * step + 1 + pad;
            if (i > first)
                floor << proj.map(x0, bridge, 0);
            floor << proj.map(x0, -pad, 0) << proj.map(x1, -pad, 0);
            if (i < last)
                floor << proj.map(x1, bridge, 0);
        }
        floor << proj.map(double(last) * step + 1 + pad, d.depth + pad, 0) << proj.map(double(first) * step - pad, d.depth + pad, 0);
        rackOutlines_.push_back({floor, rackOfUnit[first], int(first), int(last)});
        first = last + 1;
    }
}

void LayoutDiagramGeometry::outlineFlatRacks(const LayoutDiagramModel& model)
{
    // Flat rows: a frame around the boards of one rack, in the gaps between rows.
    rackOutlines_.clear();
    if (!model.racks())
        return;
    const auto& front = model.frontNodes();
    for (size_t first = 0; first < units_.size();) {
        const int rack = model.rackOf(front[size_t(units_[first].firstFront)].node);
        size_t last = first;
        QRectF frame = units_[first].hull.boundingRect();
        while (last + 1 < units_.size() && model.rackOf(front[size_t(units_[last + 1].firstFront)].node) == rack)
            frame = frame.united(units_[++last].hull.boundingRect());
        frame.adjust(-3, -2, 3, 2);
        const QPolygonF corners({frame.topLeft(), frame.topRight(), frame.bottomRight(), frame.bottomLeft()});
        rackOutlines_.push_back({corners, rack, int(first), int(last)});
        first = last + 1;
    }
}

std::vector<LayoutDiagramGeometry::LabelBlock> LayoutDiagramGeometry::fixedLabels(const LayoutDiagramModel& model,
                                                                                  const LayoutDiagramStyle& style, bool compact) const
{
    using F = LayoutDiagramText::Font;
    using R = LayoutDiagramText::Role;
    const auto& map = model.rankMap();
    const auto& front = model.frontNodes();
    const int tp = map.size(ParallelDim::Tp), cp = map.size(ParallelDim::Cp);
    std::vector<LabelBlock> blocks;
    for (size_t i = 0; i < units_.size(); ++i) {
        const auto& u = units_[i];
        LabelBlock b;
        b.kind = LabelBlock::Kind::Node;
        b.unit = int(i);
        const QString where = u.nodes() == 1 ? model.nodeName(front[size_t(u.firstFront)].node)
                                             : QString(model.racks() ? QStringLiteral("%1 trays") : QStringLiteral("%1 nodes")).arg(u.nodes());
        b.addLine(model.stageText(u.firstStage, u.lastStage) + QStringLiteral(" · ") + where, style.titleFont, style, F::Title, style.text,
            R::NodeLabel);
        QString parallel = u.tpCrossesNodes ? QStringLiteral("TP %1 spans nodes ⚠").arg(tp) : QStringLiteral("TP %1").arg(tp);
        if (cp > 1)
            parallel += QStringLiteral(" · CP %1").arg(cp);
        const QColor color = u.tpCrossesNodes ? style.warning() : style.mutedText;
        const QString layers = model.layersText(u.firstStage, u.lastStage);
        if (compact) {
            b.addLine(parallel, style.labelFont, style, F::Label, color, R::NodeLabel);
            b.addLine(layers, style.labelFont, style, F::Label, style.mutedText, R::NodeLabel);
        } else {
            b.addLine(parallel + QStringLiteral(" · ") + layers, style.labelFont, style, F::Label, color, R::NodeLabel);
        }
        blocks.push_back(std::move(b));
    }
    if (model.replicasBehind() > 0) {
        const QString times = QStringLiteral(" × %1").arg(model.replicasBehind());
        for (size_t i = 0; i < units_.size(); ++i) {
            LabelBlock b;
            b.kind = LabelBlock::Kind::Stack;
            b.unit = int(i);
            b.addLine(model.stageText(units_[i].firstStage, units_[i].lastStage) + times, style.labelFont, style, F::Label, style.mutedText,
                      R::StackLabel);
            blocks.push_back(std::move(b));
        }
        LabelBlock caption;
        caption.kind = LabelBlock::Kind::BackCaption;
        const QString title = model.backCaption();
        const qsizetype split = title.indexOf(QStringLiteral(" ("));
        if (compact && split > 0) {  // "REPLICAS 2 … 64" over "(SAME LAYOUT, DIFFERENT DATA)"
            caption.addLine(title.left(split), style.titleFont, style, F::Title, style.mutedText, R::BackCaption);
            caption.addLine(title.mid(split + 1), style.titleFont, style, F::Title, style.mutedText, R::BackCaption);
        } else {
            caption.addLine(title, style.titleFont, style, F::Title, style.mutedText, R::BackCaption);
        }
        caption.addLine(model.backCountText(), style.labelFont, style, F::Label, style.mutedText, R::BackCaption);
        blocks.push_back(std::move(caption));
    }
    return blocks;
}

void LayoutDiagramGeometry::anchorLabels(std::vector<LabelBlock>& blocks) const
{
    for (LabelBlock& b : blocks) {
        switch (b.kind) {
        case LabelBlock::Kind::Node: b.anchor = units_[size_t(b.unit)].labelAnchor; break;
        case LabelBlock::Kind::Stack: b.anchor = units_[size_t(b.unit)].stackLabelAnchor; break;
        case LabelBlock::Kind::BackCaption: b.anchor = units_.front().stackBackCorner; break;
        }
    }
}

QRectF LayoutDiagramGeometry::sceneBounds(const std::vector<LabelBlock>& blocks) const
{
    QRectF bounds;
    for (const auto& u : units_) {
        bounds = united(bounds, u.hull.boundingRect());
        if (!u.stackHull.isEmpty())
            bounds = united(bounds, u.stackHull.boundingRect());
    }
    for (const auto& b : blocks)
        bounds = united(bounds, b.candidates().front());
    return bounds;
}

bool LayoutDiagramGeometry::placeFixedLabels(const std::vector<LabelBlock>& blocks, bool dropWhatDoesNotFit)
{
    LayoutDiagramLabelPlacer placer(diagramRect_);
    for (const auto& u : units_) {
        placer.addObstacle(u.hull);
        if (!u.stackHull.isEmpty()) {
            placer.addObstacle(u.stackHull);
            placer.addObstacle(thickLine(QLineF(u.dpOut, u.dpIn), 3));
        }
    }
    for (const QLineF& l : flowArrows_)
        placer.addObstacle(thickLine(l, 4));
    for (const QLineF& l : tpBridges_)
        placer.addObstacle(thickLine(l, 3));

    droppedLabels_ = 0;
    const auto commit = [&](const LabelBlock& b, const QRectF& at) {
        for (LayoutDiagramText t : b.lines) {
            t.rect.translate(at.topLeft());
            if (b.kind == LabelBlock::Kind::Node) {  // right-aligned against its box
                t.rect.moveRight(at.right());
                t.align = Qt::AlignRight;
            }
            texts_.push_back(std::move(t));
        }
    };
    for (const auto& b : blocks) {
        if (const auto at = placer.place(b.candidates()))
            commit(b, *at);
        else if (dropWhatDoesNotFit)
            ++droppedLabels_;
        else
            return false;
    }
    return true;
}

double LayoutDiagramGeometry::layoutTopStrip(const LayoutDiagramModel& model, const LayoutDiagramStyle& style)
{
    using F = LayoutDiagramText::Font;
    using R = LayoutDiagramText::Role;
    const QRectF r = target_.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetricsF cap(style.captionFont), label(style.labelFont), title(style.titleFont), small(style.smallFont);

    // Top: the caption on the left, the selection panel on the right (below when narrow).
    // A caption too long for its room wraps onto more lines rather than losing words.
    const QString caption = model.frontCaption(), layout = model.layoutCaption(), experts = model.expertCaption();
    // The expert grid's line wraps within the width the other two set.
    const double naturalW = std::ceil(std::max(style.advance(style.captionFont, caption), style.advance(style.labelFont, layout))) + 2;
    const bool beside = r.width() - naturalW - 24 >= kMinPanelWidth;
    const double captionW = beside ? naturalW : r.width();
    const double capH = std::ceil(cap.height()), layH = std::ceil(label.height());
    double y = r.top();
    for (const QString& line : wrapWords(caption, style.captionFont, style, captionW - 2, &elidedTexts_)) {
        texts_.push_back({line, QRectF(r.left(), y, captionW, capH), F::Caption, style.text, R::Caption});
        y += capH;
    }
    y += 2;
    for (const QString& line : wrapWords(layout, style.labelFont, style, captionW - 2, &elidedTexts_)) {
        texts_.push_back({line, QRectF(r.left(), y, captionW, layH), F::Label, style.mutedText, R::Caption});
        y += layH + 1;
    }
    // An MoE model's expert grid, in the warning colour when its all-to-all leaves the node.
    if (!experts.isEmpty())
        for (const QString& line : wrapWords(experts, style.labelFont, style, captionW - 2, &elidedTexts_)) {
            texts_.push_back({line, QRectF(r.left(), y, captionW, layH), F::Label,
                model.epCrossesNodes() ? style.warning() : style.mutedText, R::Caption});
            y += layH + 1;
        }
    const double captionH = y - 1 - r.top();
    // Below the caption, in a narrow target, one line of links (the tags in the drawing
    // name them too) keeps the rows their height.
    const int linkLines = beside ? kPanelLinkLines : 1;
    const double panelH = std::ceil(title.height()) + 1 + linkLines * (std::ceil(small.height()) + 1);
    double topH;
    if (beside) {
        const double panelW = std::min(r.width() - captionW - 24, 640.0);
        panelRect_ = QRectF(r.right() - panelW, r.top(), panelW, panelH);
        topH = std::max(captionH, panelH);
    } else {
        panelRect_ = QRectF(r.left(), r.top() + captionH + 4, r.width(), panelH);
        topH = captionH + 4 + panelH;
        panelBand_ = 4 + panelH;
    }
    return topH;
}

double LayoutDiagramGeometry::layoutBottomStrip(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, bool tpOutlines,
                                                bool rackOutlines, bool briefFlag, bool flatRows)
{
    using F = LayoutDiagramText::Font;
    using R = LayoutDiagramText::Role;
    const QRectF r = target_.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetricsF label(style.labelFont), small(style.smallFont);
    legend_.clear();
    bottomTexts_.clear();

    // Bottom: the legend, flowing into rows, then the red flag's words if the rule is broken.
    struct Entry {
        LayoutDiagramLegendItem item;
        QString text;
        QString after;  // the ramp's right-hand label
    };
    std::vector<Entry> entries;
    const int stages = model.stages();
    using S = LayoutDiagramLegendItem::Swatch;
    const auto item = [](S swatch, QColor color, int rampStages = 0) {
        LayoutDiagramLegendItem i;
        i.swatch = swatch;
        i.color = color;
        i.stages = rampStages;
        return i;
    };
    const auto& front = model.frontNodes();
    // Flat rows of one stage each are labelled with it, in its colour: no swatches needed.
    const bool rowsNameStages =
        flatRows && std::all_of(front.begin(), front.end(), [](const LayoutDiagramNode& n) { return n.firstStage == n.lastStage; });
    if (rowsNameStages) {
    } else if (LayoutDiagramStyle::stagesUseRamp(stages)) {
        entries.push_back({item(S::Ramp, {}, stages), QStringLiteral("Stage 1"), QStringLiteral("Stage %1").arg(stages)});
    } else {
        for (int s = 0; s < stages; ++s)
            entries.push_back({item(S::Block, LayoutDiagramStyle::stageColor(s, stages)), model.stageText(s, s), {}});
    }
    if (std::any_of(front.begin(), front.end(), [](const LayoutDiagramNode& n) { return n.sharedWithOtherReplicas; }))
        entries.push_back({item(S::Faded, LayoutDiagramStyle::otherReplicaColor(LayoutDiagramStyle::stageColor(0, stages))),
                           QStringLiteral("GPUs of other replicas"), {}});
    const bool tpCrosses = std::any_of(front.begin(), front.end(), [](const LayoutDiagramNode& n) { return n.tpCrossesNodes; });
    if (rackOutlines)
        entries.push_back({item(S::Rack, style.rackOutline),
                           QStringLiteral("rack: one NVLink domain of %1 GPUs").arg(model.rankMap().nvlinkDomain()), {}});
    if (tpOutlines)
        entries.push_back({item(S::Outline, style.tpOutline), QStringLiteral("TP group"), {}});
    if (tpCrosses)
        entries.push_back({item(S::WarningOutline, style.warning()), QStringLiteral("TP group across nodes"), {}});
    bool stageChanges = false;
    for (size_t i = 0; i + 1 < front.size(); ++i)
        stageChanges |= front[i + 1].firstStage > front[i].lastStage;
    if (stageChanges)
        entries.push_back({item(S::Arrow, style.ppLink), QStringLiteral("activations to the next stage (PP)"), {}});
    if (model.replicasBehind() > 0)
        entries.push_back({item(S::DashedArrow, style.dpLink), QStringLiteral("gradients with the replicas behind (DP)"), {}});
    // On screen only: the EP group lights up when a GPU is clicked (exports draw no selection).
    if (style.interactiveHints && model.experts() && model.experts()->ep() > 1)
        entries.push_back({item(S::Outline, style.epLink), QStringLiteral("EP group: click a GPU (all-to-all)"), {}});

    const double rowH = std::ceil(small.height()) + 4, swatch = 12, rampW = 110;
    double x = r.left(), y = 0;
    struct Placed {
        LayoutDiagramLegendItem item;
        std::vector<LayoutDiagramText> texts;
    };
    std::vector<Placed> placed;
    int legendElided = 0;  // the legend is laid out more than once: counted for the last one
    for (const Entry& e : entries) {
        const double textW = std::ceil(style.advance(style.smallFont, e.text)) + 2;
        const double afterW = e.after.isEmpty() ? 0 : std::ceil(style.advance(style.smallFont, e.after)) + 2;
        const double w = e.item.swatch == S::Ramp ? textW + 6 + rampW + 6 + afterW : swatch + 5 + textW;
        if (x > r.left() && x + w > r.right()) {
            x = r.left();
            y += rowH;
        }
        Placed p{e.item, {}};
        const double cy = y + rowH / 2;
        if (e.item.swatch == S::Ramp) {
            p.texts.push_back({e.text, QRectF(x, y, textW, rowH), F::Small, style.text, R::Legend});
            p.item.swatchRect = QRectF(x + textW + 6, cy - 5, rampW, 10);
            p.texts.push_back({e.after, QRectF(x + textW + 12 + rampW, y, afterW, rowH), F::Small, style.text, R::Legend});
        } else {
            p.item.swatchRect = QRectF(x, cy - swatch / 2, swatch, swatch);
            const double room = std::min(textW, r.right() - x - swatch - 5);
            // Most entries fit (textW is their whole width): eliding would shape them again.
            const QString shown = room >= textW ? e.text : small.elidedText(e.text, Qt::ElideRight, room - 2);
            legendElided += shown != e.text;
            p.texts.push_back({shown, QRectF(x + swatch + 5, y, room, rowH), F::Small, style.text, R::Legend});
        }
        placed.push_back(std::move(p));
        x += w + 16;
    }
    const double legendH = entries.empty() ? 0 : y + rowH;
    QStringList warningLines;
    int flagElided = 0;
    if (model.tpWarning()) {
        const QString words = briefFlag ? QStringLiteral("A TP group spans nodes: see Red flags.") : model.tpWarningText();
        warningLines = wrapWords(QStringLiteral("⚠ ") + words, style.labelFont, style, r.width(), &flagElided);
    }
    elidedTexts_ += legendElided + flagElided - bottomElided_;
    bottomElided_ = legendElided + flagElided;
    const double lineH = std::ceil(label.height()) + 1;
    const double bottomH = legendH + (warningLines.isEmpty() ? 0 : 4 + warningLines.size() * lineH);
    const double bottomTop = r.bottom() - bottomH;
    for (Placed& p : placed) {
        p.item.swatchRect.translate(0, bottomTop);
        legend_.push_back(p.item);
        for (LayoutDiagramText& t : p.texts) {
            t.rect.translate(0, bottomTop);
            bottomTexts_.push_back(std::move(t));
        }
    }
    double wy = bottomTop + legendH + 4;
    const QColor flagColor = model.tpWarning() ? LayoutDiagramStyle::severityColor(model.tpWarning()->severity) : style.warning();
    for (const QString& line : warningLines) {
        bottomTexts_.push_back({line, QRectF(r.left(), wy, r.width(), lineH), F::Label, flagColor, R::Warning});
        wy += lineH;
    }
    return bottomH;
}

LayoutDiagramPlace LayoutDiagramGeometry::placeOf(const LayoutDiagramModel& model, int rank) const
{
    const auto& map = model.rankMap();
    if (rank < 0 || rank >= map.worldSize() || units_.empty())
        return {};
    const int front = model.frontIndexOfNode(map.node(rank));
    if (front >= 0) {
        const int unit = unitOfFront_[size_t(front)];
        if (unit < 0)  // under the flat grid's ellipsis
            return {};
        const auto& u = units_[size_t(unit)];
        if (u.detailed)
            return {LayoutDiagramPlace::Kind::Cell, unit, u.cellOfLocalGpu[size_t(map.localGpu(rank))]};
        return {LayoutDiagramPlace::Kind::Unit, unit, -1};
    }
    const int column = model.columnOf(rank);
    if (column < 0)
        return {};
    const int unit = unitOfFront_[size_t(column)];
    if (unit < 0)
        return {};
    return {units_[size_t(unit)].ghosts.empty() ? LayoutDiagramPlace::Kind::Unit : LayoutDiagramPlace::Kind::Stack, unit, -1};
}

QPointF LayoutDiagramGeometry::anchorOf(const LayoutDiagramPlace& place) const
{
    switch (place.kind) {
    case LayoutDiagramPlace::Kind::Cell: return units_[size_t(place.unit)].cells[size_t(place.cell)].topCenter;
    case LayoutDiagramPlace::Kind::Unit: return units_[size_t(place.unit)].topCenter;
    case LayoutDiagramPlace::Kind::Stack: return units_[size_t(place.unit)].stackTop;
    case LayoutDiagramPlace::Kind::None: break;
    }
    return {};
}

int LayoutDiagramGeometry::unitAt(QPointF point) const
{
    // Front-most first: later boxes are drawn over earlier ones.
    for (int u = int(units_.size()) - 1; u >= 0; --u) {
        const QPolygonF& hull = units_[size_t(u)].hull;
        if (hull.boundingRect().contains(point) && hull.containsPoint(point, Qt::OddEvenFill))
            return u;
    }
    return -1;
}

int LayoutDiagramGeometry::stackAt(QPointF point) const
{
    if (unitAt(point) >= 0)  // the front row covers the stacks
        return -1;
    for (int u = int(units_.size()) - 1; u >= 0; --u)
        if (units_[size_t(u)].stackHull.containsPoint(point, Qt::OddEvenFill))
            return u;
    return -1;
}

std::optional<int> LayoutDiagramGeometry::rankAt(QPointF point) const
{
    const int unit = unitAt(point);
    if (unit < 0)
        return std::nullopt;
    const auto& u = units_[size_t(unit)];
    if (!u.detailed)
        return u.representativeRank;
    for (auto c = u.cells.rbegin(); c != u.cells.rend(); ++c)  // nearer GPUs were drawn last
        if (c->rank >= 0 && c->faces.hull.containsPoint(point, Qt::OddEvenFill))
            return c->rank;
    return std::nullopt;  // the board between GPUs
}

std::optional<QPointF> LayoutDiagramGeometry::gpuCenter(const LayoutDiagramModel& model, int rank) const
{
    const auto place = placeOf(model, rank);
    if (place.kind != LayoutDiagramPlace::Kind::Cell)
        return std::nullopt;
    const auto& c = units_[size_t(place.unit)].cells[size_t(place.cell)];
    // The middle of the block's front face, where no neighbour overlaps it.
    return c.faces.hull.boundingRect().center();
}
