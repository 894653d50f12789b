#include "render/layoutdiagram/LayoutDiagramFlatGrid.h"

#include <QFontMetricsF>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "render/layoutdiagram/LayoutDiagramModel.h"
#include "render/layoutdiagram/LayoutDiagramStyle.h"

using trainplan::ParallelDim;

namespace {

constexpr double kPad = 2;           // board edge around its GPUs
constexpr double kLabelGap = 8;      // label to board
constexpr double kSameStageGap = 5;  // between boards of one stage
constexpr double kFlowGap = 9;       // between stages: room for the activation arrow (kFlowArrowHead)
constexpr double kDpGap = 12;        // board to pile: room for the gradient arrow
constexpr double kGhostStep = 3;     // offset between the boards of a pile
constexpr double kGhostWidth = 1.2;  // a pile's board, in GPU widths
constexpr double kCountGap = 4;      // pile to its count
constexpr int kMaxGhosts = 3;
constexpr double kComfortableCell = 16;
constexpr int kMaxColumns = 8;       // GPUs side by side on a board; more wrap to a second row

QPolygonF polygon(const QRectF& r)
{
    return QPolygonF({r.topLeft(), r.topRight(), r.bottomRight(), r.bottomLeft()});
}

// A flat box: its rectangle is the face the painter fills in the plain colour.
LayoutDiagramBoxFaces flatFaces(const QRectF& r)
{
    LayoutDiagramBoxFaces f;
    f.front = polygon(r);
    f.hull = f.front;
    return f;
}

struct NodeLabel {
    QString title;   // "Stage 1 · node 0"
    QString detail;  // "TP 8 · layers 1–20 + embedding"
    QColor detailColor;
    QString stage;   // the title over two lines, "Stage 1" above "node 0"
    QString node;
};

// A node's label: its title with the detail under it, the title over two lines, or the title.
enum class LabelForm { Detailed, Stacked, Single };

}  // namespace

std::optional<LayoutDiagramFlatGrid::Layout> LayoutDiagramFlatGrid::build(const LayoutDiagramModel& model, const LayoutDiagramStyle& style,
                                                                          const QRectF& area)
{
    using F = LayoutDiagramText::Font;
    using R = LayoutDiagramText::Role;
    const auto& map = model.rankMap();
    const auto& front = model.frontNodes();
    const int count = int(front.size());
    const int gpus = map.gpusPerNode();
    const int world = map.worldSize();
    const int stages = model.stages();
    const int tp = map.size(ParallelDim::Tp), cp = map.size(ParallelDim::Cp);
    if (count == 0 || gpus <= 0 || area.width() <= 0 || area.height() <= 0)
        return std::nullopt;
    const int behind = model.replicasBehind();
    const int ghosts = std::min(kMaxGhosts, behind);

    const QFontMetricsF title(style.titleFont), label(style.labelFont);
    const double titleH = std::ceil(title.height()), labelH = std::ceil(label.height());
    const auto advance = [&style](const QFont& font, const QString& text) { return std::ceil(style.advance(font, text)) + 2; };

    std::vector<NodeLabel> labels(static_cast<size_t>(count));
    for (int f = 0; f < count; ++f) {
        const auto& n = front[size_t(f)];
        QString parallel = n.tpCrossesNodes ? QStringLiteral("TP %1 spans nodes ⚠").arg(tp) : QStringLiteral("TP %1").arg(tp);
        if (cp > 1)
            parallel += QStringLiteral(" · CP %1").arg(cp);
        const QString stage = model.stageText(n.firstStage, n.lastStage), node = model.nodeName(n.node);
        labels[size_t(f)] = {stage + QStringLiteral(" · ") + node,
            parallel + QStringLiteral(" · ") + model.layersText(n.firstStage, n.lastStage),
            n.tpCrossesNodes ? style.warning() : style.mutedText, stage, node};
    }
    // Each label's widths in each form, measured once: the search below tries every count of
    // rows shown and nine arrangements of each, and measuring text inside it (count² x 9 times)
    // took 300 ms a slider tick on a plan whose replica spans 128 nodes (bench_window).
    // labelWidth[form][f]: the widest line node f's label needs in that form; then the running
    // maximum over the first f nodes, since a drawing of `shown` rows holds nodes 0..shown-2.
    constexpr int kForms = 3;
    const auto formIndex = [](LabelForm form) { return form == LabelForm::Detailed ? 0 : form == LabelForm::Stacked ? 1 : 2; };
    std::array<std::vector<double>, kForms> labelWidth, widestBefore;
    for (int k = 0; k < kForms; ++k) {
        labelWidth[size_t(k)].resize(size_t(count));
        widestBefore[size_t(k)].assign(size_t(count) + 1, 0.0);
    }
    for (int f = 0; f < count; ++f) {
        const NodeLabel& l = labels[size_t(f)];
        const double titleW = advance(style.titleFont, l.title);
        labelWidth[0][size_t(f)] = std::max(titleW, advance(style.labelFont, l.detail));
        labelWidth[1][size_t(f)] = std::max(advance(style.titleFont, l.stage), advance(style.labelFont, l.node));
        labelWidth[2][size_t(f)] = titleW;
        for (int k = 0; k < kForms; ++k)
            widestBefore[size_t(k)][size_t(f) + 1] = std::max(widestBefore[size_t(k)][size_t(f)], labelWidth[size_t(k)][size_t(f)]);
    }
    const QString countText = behind > 0 ? QStringLiteral("× %1").arg(behind) : QString();
    const double countW = behind > 0 ? advance(style.labelFont, countText) : 0;

    // Which front-row nodes a drawing of `shown` rows holds: all, or the first shown - 1 and
    // the last (a replica's ends: the embedding and the LM head).
    const auto shownNodes = [&](int shown) {
        std::vector<int> out;
        for (int i = 0; i < shown - 1; ++i)
            out.push_back(i);
        out.push_back(count - 1);
        return out;
    };
    const auto ellipsisText = [&](const std::vector<int>& nodes, bool withStages) {
        const int hidden = count - int(nodes.size());
        const QString unit = model.racks() ? QStringLiteral("tray") : QStringLiteral("node");
        QString text = QStringLiteral("⋯ %1 more %2%3").arg(hidden).arg(unit, hidden == 1 ? QString() : QStringLiteral("s"));
        if (withStages) {
            const int first = front[size_t(nodes[nodes.size() - 2] + 1)].firstStage, last = front[size_t(count - 2)].lastStage;
            text += QStringLiteral(" · ") + model.stageText(first, last);
        }
        return text;
    };

    for (int shown = count; shown >= std::min(count, 2); --shown) {
        // An ellipsis line in place of a single node saves nothing: it leaves out two or more.
        if (shown == count - 1)
            continue;
        const std::vector<int> nodes = shownNodes(shown);
        const bool elided = shown < count;
        // Gaps after each drawn row but the last.
        std::vector<double> gaps;
        for (size_t j = 0; j + 1 < nodes.size(); ++j) {
            const int a = nodes[j], b = nodes[j + 1];
            if (b != a + 1)
                gaps.push_back(labelH + 2 + 2 * kSameStageGap);  // the ellipsis line
            else
                gaps.push_back(front[size_t(b)].firstStage > front[size_t(a)].lastStage ? kFlowGap : kSameStageGap);
        }
        double gapSum = 0, minGap = std::numeric_limits<double>::infinity();
        for (double g : gaps) {
            gapSum += g;
            minGap = std::min(minGap, g);
        }
        // Each arrangement of a board's GPUs (one row of up to eight, or two or four rows),
        // with each form of label: the one with the largest GPUs wins, the fuller label first.
        struct Choice {
            int columns = 1, cellRows = 1;
            LabelForm form = LabelForm::Single;
            double cell = 0, labelW = 0, blockH = 0, rowH = 0, boardW = 0, ghostW = 0, pileW = 0, totalW = 0;
            QString ellipsis;
        };
        // The ellipsis line of an elided drawing, with its stages and without, measured once per count.
        QString ellipsisFull, ellipsisShort;
        double ellipsisFullW = 0, ellipsisShortW = 0;
        if (elided) {
            ellipsisFull = ellipsisText(nodes, true);
            ellipsisShort = ellipsisText(nodes, false);
            ellipsisFullW = advance(style.labelFont, ellipsisFull);
            ellipsisShortW = advance(style.labelFont, ellipsisShort);
        }
        std::optional<Choice> best;
        std::vector<int> columnChoices;
        for (int c : {std::min(gpus, kMaxColumns), (gpus + 1) / 2, (gpus + 3) / 4})
            if (c >= 1 && std::find(columnChoices.begin(), columnChoices.end(), c) == columnChoices.end())
                columnChoices.push_back(c);
        for (const int columns : columnChoices) {
            const int cellRows = (gpus + columns - 1) / columns;
            for (const LabelForm form : {LabelForm::Detailed, LabelForm::Stacked, LabelForm::Single}) {
                Choice c;
                c.columns = columns;
                c.cellRows = cellRows;
                c.form = form;
                // nodes: 0 .. shown-2 and count-1 (shownNodes).
                const size_t k = size_t(formIndex(form));
                c.labelW = std::max(widestBefore[k][size_t(shown) - 1], labelWidth[k][size_t(count) - 1]);
                c.blockH = form == LabelForm::Single ? titleH : titleH + 1 + labelH;
                const double pileExtra = behind > 0 ? kDpGap + (ghosts - 1) * kGhostStep + kCountGap + countW : 0;
                const double cellW =
                    (area.width() - c.labelW - kLabelGap - 2 * kPad - pileExtra) / (columns + (behind > 0 ? kGhostWidth : 0));
                double cellH = (area.height() - gapSum - shown * 2 * kPad) / (shown * cellRows);
                c.cell = std::floor(std::min({cellW, cellH, kMaxCell}));
                // Labels taller than their row spill evenly above the first and below the last.
                const double spill = std::max(0.0, c.blockH - (2 * kPad + cellRows * c.cell));
                if (spill > 0) {
                    cellH = (area.height() - gapSum - spill - shown * 2 * kPad) / (shown * cellRows);
                    c.cell = std::floor(std::min({cellW, cellH, kMaxCell}));
                }
                if (c.cell < kMinCell)
                    continue;
                c.rowH = 2 * kPad + cellRows * c.cell;
                if (shown > 1 && c.rowH + minGap < c.blockH + 1)  // neighbouring labels would touch
                    continue;
                c.boardW = 2 * kPad + columns * c.cell;
                c.ghostW = std::max(10.0, std::round(kGhostWidth * c.cell));
                c.pileW = behind > 0 ? c.ghostW + (ghosts - 1) * kGhostStep : 0;
                c.totalW = c.labelW + kLabelGap + c.boardW + (behind > 0 ? kDpGap + c.pileW + kCountGap + countW : 0);
                if (c.totalW > area.width() || c.rowH + std::max(0.0, c.blockH - c.rowH) > area.height())
                    continue;
                if (elided) {
                    const double room = area.right() - (area.left() + (area.width() - c.totalW) / 2 + c.labelW + kLabelGap);
                    if (ellipsisFullW <= room)
                        c.ellipsis = ellipsisFull;
                    else if (ellipsisShortW <= room)
                        c.ellipsis = ellipsisShort;
                    else
                        continue;
                }
                // GPUs past a comfortable size gain less than a label that says more.
                if (!best || std::min(c.cell, kComfortableCell) > std::min(best->cell, kComfortableCell))
                    best = c;
            }
        }
        if (best) {
            const int columns = best->columns;
            const LabelForm form = best->form;
            const double cell = best->cell, labelW = best->labelW, blockH = best->blockH, rowH = best->rowH, boardW = best->boardW,
                         ghostW = best->ghostW, pileW = best->pileW, totalW = best->totalW;
            const QString ellipsis = best->ellipsis;
            // It fits: lay it out, centred in the area.
            const double rowsH = shown * rowH + gapSum;
            const double spillNow = std::max(0.0, blockH - rowH);
            const double left = std::round(area.left() + (area.width() - totalW) / 2);
            const double boardX = left + labelW + kLabelGap;
            const double pileX = boardX + boardW + kDpGap;
            double y = std::round(area.top() + (area.height() - rowsH - spillNow) / 2 + spillNow / 2);

            Layout out;
            out.cell = cell;
            out.hiddenNodes = count - shown;
            out.unitOfFront.assign(size_t(count), -1);
            std::vector<QRectF> boards;
            for (size_t j = 0; j < nodes.size(); ++j) {
                const int f = nodes[j];
                const auto& n = front[size_t(f)];
                LayoutDiagramUnit u;
                u.firstFront = u.lastFront = f;
                u.firstStage = n.firstStage;
                u.lastStage = n.lastStage;
                u.detailed = true;
                u.tpCrossesNodes = n.tpCrossesNodes;
                u.representativeRank = map.rankOn({n.node, 0});
                for (int g = 0; g < gpus; ++g) {
                    const int rank = map.rankOn({n.node, g});
                    if (rank < world && model.inReplicaOne(rank)) {
                        u.representativeRank = rank;
                        break;
                    }
                }
                const QRectF board(boardX, y, boardW, rowH);
                boards.push_back(board);
                u.plates.push_back(flatFaces(board));
                u.cellOfLocalGpu.assign(size_t(gpus), -1);
                const auto cellRect = [&](int g) {
                    return QRectF(boardX + kPad + (g % columns) * cell, y + kPad + (g / columns) * cell, cell, cell);
                };
                for (int g = 0; g < gpus; ++g) {
                    LayoutDiagramCell c;
                    c.localGpu = g;
                    const QRectF r = cellRect(g).adjusted(1, 1, -1, -1);
                    const int rank = map.rankOn({n.node, g});
                    if (rank < world) {
                        c.rank = rank;
                        c.otherReplica = !model.inReplicaOne(rank);
                        const QColor base = LayoutDiagramStyle::stageColor(map.coordinate(rank, ParallelDim::Pp), stages);
                        c.color = c.otherReplica ? LayoutDiagramStyle::otherReplicaColor(base) : base;
                        c.faces = flatFaces(r);
                        ++out.drawnGpus;
                    } else {
                        c.faces.top = polygon(r);  // an empty socket: drawn dotted
                        c.faces.hull = c.faces.top;
                    }
                    c.topCenter = r.center();
                    u.cellOfLocalGpu[size_t(g)] = int(u.cells.size());
                    u.cells.push_back(std::move(c));
                }
                // TP groups: one outline per run of a group's GPUs along a row of the board.
                if (tp > 1) {
                    for (int g = 0; g < gpus;) {
                        const int rank = map.rankOn({n.node, g});
                        if (rank >= world)
                            break;
                        const auto group = map.tpGroup(rank);
                        int end = g;
                        while (end + 1 < gpus && (end + 1) / columns == g / columns && map.rankOn({n.node, end + 1}) < world &&
                               group.contains(map.rankOn({n.node, end + 1})))
                            ++end;
                        const QRectF outline = cellRect(g).united(cellRect(end)).adjusted(0.5, 0.5, -0.5, -0.5);
                        u.tpOutlines.push_back({polygon(outline), map.crossesNodes(group)});
                        g = end + 1;
                    }
                }
                const double cy = board.center().y();
                if (ghosts > 0) {
                    // Back-most first; each one up and to the right of the one before it.
                    const double ghostH = rowH - (ghosts - 1) * kGhostStep;
                    for (int k = ghosts - 1; k >= 0; --k)
                        u.ghosts.push_back(flatFaces(QRectF(pileX + k * kGhostStep, y + (ghosts - 1 - k) * kGhostStep, ghostW, ghostH)));
                    if (u.firstStage == u.lastStage)
                        u.ghostColor = LayoutDiagramStyle::otherReplicaColor(LayoutDiagramStyle::stageColor(u.firstStage, stages));
                    const QRectF pile(pileX, y, pileW, rowH);
                    u.stackHull = polygon(pile);
                    u.stackTop = QRectF(pileX, y + (ghosts - 1) * kGhostStep, ghostW, ghostH).center();
                    u.dpOut = QPointF(board.right(), cy);
                    u.dpIn = QPointF(pileX, cy);
                    u.stackLabelAnchor = QPointF(pile.right(), cy);
                    u.stackBackCorner = pile.topRight();
                    out.texts.push_back({countText, QRectF(pile.right() + kCountGap, cy - labelH / 2, countW, labelH), F::Label,
                        style.mutedText, R::StackLabel});
                }
                u.hull = polygon(board);
                u.topCenter = board.center();
                u.flowOut = QPointF(board.right() - kPad - cell / 2, board.bottom());
                u.flowIn = QPointF(board.right() - kPad - cell / 2, board.top());
                u.labelAnchor = QPointF(board.left(), cy);

                // Its label, right-aligned against the board and centred on it.
                const NodeLabel& text = labels[size_t(f)];
                const double right = board.left() - kLabelGap;
                const double top = cy - blockH / 2;
                const QString first = form == LabelForm::Stacked ? text.stage : text.title;
                const double tw = advance(style.titleFont, first);
                out.texts.push_back({first, QRectF(right - tw, top, tw, titleH), F::Title, style.text, R::NodeLabel, Qt::AlignRight});
                if (form != LabelForm::Single) {
                    const QString second = form == LabelForm::Stacked ? text.node : text.detail;
                    const QColor color = form == LabelForm::Stacked ? style.mutedText : text.detailColor;
                    const double dw = advance(style.labelFont, second);
                    out.texts.push_back(
                        {second, QRectF(right - dw, top + titleH + 1, dw, labelH), F::Label, color, R::NodeLabel, Qt::AlignRight});
                }
                out.unitOfFront[size_t(f)] = int(out.units.size());
                out.units.push_back(std::move(u));
                if (j + 1 < nodes.size()) {
                    if (nodes[j + 1] != f + 1) {
                        const double ew = advance(style.labelFont, ellipsis);
                        out.texts.push_back({ellipsis, QRectF(boardX, board.bottom() + kSameStageGap + 1, ew, labelH), F::Label,
                            style.mutedText, R::NodeLabel});
                    }
                    y = board.bottom() + gaps[j];
                }
            }
            // Between neighbouring nodes: the activations to the next stage, and a TP group
            // that runs on from one node into the next (the rule broken).
            for (size_t j = 0; j + 1 < nodes.size(); ++j) {
                const int a = nodes[j], b = nodes[j + 1];
                if (b != a + 1)
                    continue;
                const QRectF& ra = boards[j];
                const QRectF& rb = boards[j + 1];
                if (front[size_t(b)].firstStage > front[size_t(a)].lastStage) {
                    const double x = ra.right() - kPad - cell / 2;
                    out.flowArrows.emplace_back(QPointF(x, ra.bottom() + 1), QPointF(x, rb.top() - 1));
                }
                const int last = map.rankOn({front[size_t(a)].node, gpus - 1});
                const int first = map.rankOn({front[size_t(b)].node, 0});
                if (last < world && first < world && map.tpGroup(last).contains(first)) {
                    const double x = ra.left() + kPad + cell / 2;
                    out.tpBridges.emplace_back(QPointF(x, ra.bottom() - kPad), QPointF(x, rb.top() + kPad));
                }
            }
            return out;
        }
    }
    return std::nullopt;
}
