// Where everything of the layout diagram goes inside one target rectangle: the front row
// of nodes (one replica), the stacks of other replicas behind it, every label, the legend
// and the strips above and below. Chooses the level of detail: one isometric box per node
// with its GPUs drawn one by one while they stay readable; else, in a small target, the
// flat grid (LayoutDiagramFlatGrid), which still draws GPUs; blocks of nodes with counts
// for a replica of many nodes in a large target, or when nothing else fits. Built when the
// plan or the target size changes; painting only walks what is stored here.
#pragma once

#include <QColor>
#include <QLineF>
#include <QFont>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "render/layoutdiagram/LayoutDiagramProjection.h"

class LayoutDiagramModel;
class LayoutDiagramStyle;

// One line of text with its font, colour and the rectangle reserved for it.
struct LayoutDiagramText {
    enum class Font { Caption, Title, Label, Small };
    enum class Role { Caption, Panel, NodeLabel, StackLabel, BackCaption, Legend, Warning, LinkTag };
    QString text;
    QRectF rect;
    Font font = Font::Label;
    QColor color;
    Role role = Role::NodeLabel;
    Qt::Alignment align = Qt::AlignLeft;
};

// One GPU drawn as a block on its node.
struct LayoutDiagramCell {
    int rank = -1;          // -1: an empty socket (the layout does not fill the last node)
    int localGpu = 0;
    QColor color;
    bool otherReplica = false;  // belongs to another DP replica than the front row's
    LayoutDiagramBoxFaces faces;
    QPointF topCenter;
};

// A TP group's outline on a node's top, one per row of GPUs it covers.
struct LayoutDiagramTpOutline {
    QPolygonF polygon;
    bool crossesNodes = false;
};

// A flat coloured patch on a box's top: a pipeline stage's share of a block of nodes.
struct LayoutDiagramStripe {
    QPolygonF polygon;
    QColor color;
};

// One box of the front row: a node, or at coarse detail a run of nodes.
struct LayoutDiagramUnit {
    int firstFront = 0;        // range of LayoutDiagramModel::frontNodes()
    int lastFront = 0;
    int firstStage = 0;
    int lastStage = 0;
    bool detailed = false;     // GPUs drawn one by one
    bool tpCrossesNodes = false;
    int representativeRank = 0;  // what hovering a block reports: its first replica-1 rank
    std::vector<LayoutDiagramBoxFaces> plates;  // the node board; several for a block of nodes, bottom first
    std::vector<LayoutDiagramStripe> stripes;   // stage colours on the top plate of a block
    std::vector<LayoutDiagramTpOutline> tpOutlines;
    std::vector<LayoutDiagramCell> cells;       // in drawing order (back row first)
    std::vector<int> cellOfLocalGpu;            // local GPU -> index into cells
    std::vector<LayoutDiagramBoxFaces> ghosts;  // other replicas behind it, back-most first
    QColor ghostColor;
    QPolygonF hull;            // around the boards and GPUs
    QPolygonF stackHull;       // around the ghosts
    QPointF topCenter;         // middle of its top, for arrows ending on a block
    QPointF stackTop;          // middle of the front ghost's top
    QPointF flowOut;           // where the activation arrow leaves (right end, mid depth)
    QPointF flowIn;            // where it arrives (left end, mid depth)
    QPointF dpOut, dpIn;       // the short gradient link from the board to its ghosts
    QPointF labelAnchor;       // left corner: the node label ends here
    QPointF stackLabelAnchor;  // right corner of the back ghost: the stack label starts here
    QPointF stackBackCorner;   // top corner of the back ghost

    int nodes() const { return lastFront - firstFront + 1; }
};

// The floor of one rack (NVLink domain) under the front-row boxes it holds: boxes of one rack
// stand on one outline, so a run's rack boundaries show where NVLink ends.
struct LayoutDiagramRackOutline {
    QPolygonF polygon;
    int rack = 0;
    int firstUnit = 0;  // range of units()
    int lastUnit = 0;
};

// A legend entry: a swatch then its text.
struct LayoutDiagramLegendItem {
    enum class Swatch { Block, Faded, Outline, WarningOutline, Arrow, DashedArrow, Ramp, Rack };
    Swatch swatch = Swatch::Block;
    QColor color;
    QRectF swatchRect;
    int stages = 0;            // Ramp: how many stages it spans
};

// Where an item of the model is drawn.
struct LayoutDiagramPlace {
    enum class Kind { None, Cell, Unit, Stack };
    Kind kind = Kind::None;
    int unit = -1;
    int cell = -1;
};

class LayoutDiagramGeometry {
public:
    LayoutDiagramGeometry() = default;
    LayoutDiagramGeometry(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, const QRectF& target);

    QRectF target() const { return target_; }
    const std::vector<LayoutDiagramUnit>& units() const { return units_; }
    const std::vector<LayoutDiagramText>& texts() const { return texts_; }
    const std::vector<LayoutDiagramLegendItem>& legend() const { return legend_; }
    // Where a TP group continues on the next box of the front row: the rule broken.
    const std::vector<QLineF>& tpBridges() const { return tpBridges_; }
    // Activations from one stage's box to the next.
    const std::vector<QLineF>& flowArrows() const { return flowArrows_; }
    // Rack-scale parts: one outline per rack under its boxes; none for plain nodes, or when a
    // block of nodes spans two racks (its label counts trays; the caption counts racks).
    const std::vector<LayoutDiagramRackOutline>& rackOutlines() const { return rackOutlines_; }
    QRectF panelRect() const { return panelRect_; }  // the selection details, top right
    bool panelOverlaysDrawing() const { return panelOverlays_; }  // a short, narrow target: over the drawing
    QRectF diagramRect() const { return diagramRect_; }
    LayoutDiagramProjection projection() const { return projection_; }

    bool nodesAggregated() const { return aggregated_; }
    bool flat() const { return flat_; }                // the flat grid, not the isometric drawing
    int hiddenNodes() const { return hiddenNodes_; }   // front-row nodes under the flat grid's ellipsis
    int individuallyDrawnGpus() const { return drawnGpus_; }
    int droppedLabels() const { return droppedLabels_; }
    // Texts shown shortened (with "…") because their room was too narrow; 0 when every
    // caption, label and legend entry is whole.
    int elidedTexts() const { return elidedTexts_; }
    // The "hover a GPU" hint for the panel while nothing is selected: what hovering and
    // clicking can do at this level of detail, in words that fit the panel; empty when none.
    const QStringList& hintLines() const { return hint_; }

    LayoutDiagramPlace placeOf(const LayoutDiagramModel& model, int rank) const;
    int unitAt(QPointF point) const;   // front-row box under a point, -1 if none
    int stackAt(QPointF point) const;  // front-row box whose stack is under a point, -1 if none
    std::optional<int> rankAt(QPointF point) const;
    std::optional<QPointF> gpuCenter(const LayoutDiagramModel& model, int rank) const;
    QPointF anchorOf(const LayoutDiagramPlace& place) const;  // where links attach

    static QFont font(const LayoutDiagramStyle& style, LayoutDiagramText::Font font);

private:
    struct Range {
        int first;
        int last;
    };
    struct Dimensions;
    struct LabelBlock;

    std::vector<std::vector<Range>> partitions(const LayoutDiagramModel& model) const;
    // What buildUnits() makes: only what sceneBounds() and anchorLabels() read (each unit's hull,
    // stack hull and label anchors), for the scale search's many trial builds, or everything drawn.
    enum class UnitParts { Bounds, Everything };
    void buildUnits(const LayoutDiagramModel& model, const std::vector<Range>& ranges, const Dimensions& d,
                    const LayoutDiagramProjection& projection, bool detailed, UnitParts parts = UnitParts::Everything);
    std::vector<LabelBlock> fixedLabels(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, bool compact) const;
    void anchorLabels(std::vector<LabelBlock>& blocks) const;
    QRectF sceneBounds(const std::vector<LabelBlock>& blocks) const;
    bool placeFixedLabels(const std::vector<LabelBlock>& blocks, bool dropWhatDoesNotFit);
    double layoutTopStrip(const LayoutDiagramModel& model, const LayoutDiagramStyle& style);  // returns its height
    // briefFlag: the red flag in a line; flatRows: the flat grid, whose row labels name the stages.
    double layoutBottomStrip(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, bool tpOutlines, bool rackOutlines,
                             bool briefFlag = false, bool flatRows = false);
    void outlineRacks(const LayoutDiagramModel& model, const Dimensions& d, const LayoutDiagramProjection& projection);
    void outlineFlatRacks(const LayoutDiagramModel& model);
    bool adoptFlatGrid(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, size_t stripTexts);
    void chooseHint(const LayoutDiagramStyle& style, bool epGroups);

    QRectF target_;
    QRectF diagramRect_;
    QRectF panelRect_;
    LayoutDiagramProjection projection_;
    std::vector<LayoutDiagramUnit> units_;
    std::vector<LayoutDiagramText> texts_;
    std::vector<LayoutDiagramLegendItem> legend_;
    std::vector<LayoutDiagramText> bottomTexts_;  // legend and red flag, added to texts_ last
    std::vector<QLineF> tpBridges_;
    std::vector<QLineF> flowArrows_;
    std::vector<LayoutDiagramRackOutline> rackOutlines_;
    std::vector<int> unitOfFront_;
    bool aggregated_ = false;
    bool flat_ = false;
    int hiddenNodes_ = 0;
    int drawnGpus_ = 0;
    int droppedLabels_ = 0;
    int elidedTexts_ = 0;
    int bottomElided_ = 0;  // of elidedTexts_, in the bottom strip as last laid out
    QStringList hint_;
    double panelBand_ = 0;   // the band the selection panel takes below the caption (narrow targets)
    bool panelOverlays_ = false;  // too little height for that band: the panel overlays the drawing's top
};
