// The isometric layout diagram : draws which rank sits on which node and GPU for a
// plan into any QPainter, so the window, PNG, SVG and PDF exports share one drawing. No
// QWidget involved. Hit-testing maps a point of the last target back to a rank.
//
//   LayoutDiagramPainter diagram;
//   diagram.setPlan(plan, trainplan::estimate(plan));
//   diagram.paint(painter, QRectF(0, 0, 1600, 900));
//
// Coordinates and font sizes are the painter's logical units (pixels at 96 dpi); a printer
// or PDF export scales the painter to its resolution first.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "render/layoutdiagram/LayoutDiagramGeometry.h"
#include "render/layoutdiagram/LayoutDiagramModel.h"
#include "render/layoutdiagram/LayoutDiagramSelection.h"
#include "render/layoutdiagram/LayoutDiagramStyle.h"

class QPainter;

class LayoutDiagramPainter {
public:
    // What a drawn item lights up for, as bits: a GPU can be in several groups of the selection.
    enum Mark : unsigned { Selected = 1, TpGroup = 2, PpNeighbour = 4, DpGroup = 8, EpGroup = 16 };

    LayoutDiagramPainter();
    ~LayoutDiagramPainter();

    // Rebuilds the diagram's facts (O(world)). Keeps the selected rank while it exists.
    void setPlan(const trainplan::Plan& plan, const trainplan::Estimate& estimate);
    bool hasPlan() const { return model_ != nullptr; }
    QString problem() const { return problem_; }  // why there is nothing to draw

    void setStyle(const LayoutDiagramStyle& style);
    const LayoutDiagramStyle& style() const { return style_; }

    // Lays out for a target (done by paint() too; cached while plan and size stay the same).
    void layout(const QRectF& target);
    void paint(QPainter& painter, const QRectF& target);

    // Hit-testing against the last layout: the GPU drawn at a point (for a block of nodes,
    // the block's first replica-1 rank), and where a GPU is drawn if drawn on its own.
    std::optional<int> rankAt(QPointF point) const;
    std::optional<QPointF> gpuCenter(int rank) const;
    QString describeRank(int rank) const;  // rank, node, local GPU, TP/CP/DP/PP coordinates
    QString toolTipAt(QPointF point) const;  // the GPU, block of nodes or stack under a point

    void setSelectedRank(std::optional<int> rank);
    std::optional<int> selectedRank() const;
    const LayoutDiagramSelection& selection() const { return selection_; }

    // What the last layout drew, for tests and exports.
    const LayoutDiagramModel* model() const { return model_.get(); }
    const LayoutDiagramGeometry* geometry() const { return geometry_.get(); }
    int individuallyDrawnGpus() const { return geometry_ ? geometry_->individuallyDrawnGpus() : 0; }
    bool nodesAggregated() const { return geometry_ && geometry_->nodesAggregated(); }
    std::vector<int> highlightedRanks(Mark mark) const;  // GPUs drawn one by one that carry the mark
    std::vector<int> highlightedBlocks(Mark mark) const; // front-row boxes (blocks of nodes) with it
    std::vector<int> highlightedStacks(Mark mark) const; // stacks of other replicas, by front-row box
    std::vector<LayoutDiagramText> texts() const;        // every line of text drawn, with its rectangle

private:
    void updateHighlights();
    void drawBox(QPainter& p, const LayoutDiagramBoxFaces& faces, QColor color) const;
    void drawScene(QPainter& p, bool onlyHighlighted) const;
    void drawSelection(QPainter& p) const;
    void drawTags(QPainter& p) const;
    void drawTexts(QPainter& p, const std::vector<LayoutDiagramText>& texts) const;
    void drawLegend(QPainter& p) const;
    void drawPanel(QPainter& p) const;
    QColor markColor(unsigned marks) const;

    LayoutDiagramStyle style_;
    std::unique_ptr<LayoutDiagramModel> model_;
    std::unique_ptr<LayoutDiagramGeometry> geometry_;
    QString problem_;
    LayoutDiagramSelection selection_;
    // Per drawn item: the Mark bits of the selection (cells by unit, then boxes, then stacks).
    std::vector<std::vector<unsigned>> cellMarks_;
    std::vector<unsigned> unitMarks_;
    std::vector<unsigned> stackMarks_;
    std::vector<LayoutDiagramText> selectionTags_;  // link tags placed clear of every label
};
