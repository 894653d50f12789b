// The layout diagram's level of detail for small targets: replica 1 drawn flat, one row of
// GPUs per node (a node's board with its GPUs in their stage colours, TP groups outlined),
// its label to the left, the pile of the other replicas to the right, activations running
// down from stage to stage. Where the isometric drawing would shrink to a thumbnail without
// GPUs, this still shows every GPU of the nodes it draws; when even rows of the smallest
// legible GPUs do not fit every node, it draws the first nodes and the last one, with a
// line that says how many are left out between them.
#pragma once

#include <QLineF>
#include <QRectF>

#include <optional>
#include <vector>

#include "render/layoutdiagram/LayoutDiagramGeometry.h"

class LayoutDiagramModel;
class LayoutDiagramStyle;

class LayoutDiagramFlatGrid {
public:
    // A GPU is drawn at least this many pixels wide: enough to see its colour and hover it.
    static constexpr double kMinCell = 9;
    static constexpr double kMaxCell = 26;
    // The activation arrows between stages run in a narrow gap: a small head.
    static constexpr double kFlowArrowHead = 5;

    struct Layout {
        std::vector<LayoutDiagramUnit> units;     // one per drawn node, in front-row order
        std::vector<LayoutDiagramText> texts;     // node labels, pile counts, the ellipsis line
        std::vector<QLineF> tpBridges;            // a TP group running on to the next node
        std::vector<QLineF> flowArrows;           // activations to the next stage
        std::vector<int> unitOfFront;             // front-row node -> unit, -1 when left out
        int drawnGpus = 0;
        int hiddenNodes = 0;                      // front-row nodes under the ellipsis
        double cell = 0;                          // a GPU's edge, pixels
    };

    // The largest legible flat drawing of the model's front row inside `area`; nothing when
    // not even two rows (the first and last node) of kMinCell GPUs fit.
    static std::optional<Layout> build(const LayoutDiagramModel& model, const LayoutDiagramStyle& style, const QRectF& area);
};
