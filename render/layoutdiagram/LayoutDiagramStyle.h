// Colours and fonts of the layout diagram, in one place so the window and the PNG, SVG and
// PDF exports draw the same picture. Sizes are in the painter's logical units (pixels at
// 96 dpi); an export to a high-resolution device scales the painter, not these numbers.
#pragma once

#include <QColor>
#include <QFont>

#include "core/estimate/Warning.h"
#include "render/style/TextWidths.h"

class LayoutDiagramStyle {
public:
    LayoutDiagramStyle();

    // Pipeline stage colours: distinct hues while a legend can name each stage (up to
    // kCategoricalStages), then an ordered ramp so neighbouring stages stay tellable apart
    // and the legend can show the ramp instead of a hundred swatches.
    static constexpr int kCategoricalStages = 8;
    static QColor stageColor(int stage, int stages);
    static bool stagesUseRamp(int stages) { return stages > kCategoricalStages; }
    // A GPU on a drawn node that belongs to another DP replica: its stage's colour, faded.
    static QColor otherReplicaColor(QColor stageColor);

    // The three faces of an isometric box: the lit top, the front (left) and side (right).
    static QColor topFace(QColor c) { return c.lighter(118); }
    static QColor frontFace(QColor c) { return c; }
    static QColor sideFace(QColor c) { return c.darker(130); }

    // "Hover a GPU..." hints belong on screen, not in a PDF or on a slide.
    bool interactiveHints = true;
    QColor background{Qt::white};
    QColor text{0x1f, 0x29, 0x37};
    QColor mutedText{0x6b, 0x72, 0x80};
    QColor slab{0xcb, 0xd5, 0xe1};          // a node's board
    QColor ghostSlab{0xe2, 0xe8, 0xf0};     // the other replicas, stacked behind
    QColor ghostEdge{0x94, 0xa3, 0xb8};
    QColor tpOutline{0x11, 0x18, 0x27};
    QColor emptySocket{0xf1, 0xf5, 0xf9};
    QColor rackOutline{0x64, 0x74, 0x8b};   // a rack's (NVLink domain's) floor: its dashed edge
    QColor rackFloor{0xe8, 0xed, 0xf4};
    // Selection: the picked GPU, and the groups that light up with it.
    QColor selected{0x11, 0x18, 0x27};
    QColor tpLink{0x06, 0xb6, 0xd4};
    QColor ppLink{0xa8, 0x55, 0xf7};
    QColor dpLink{0xea, 0x58, 0x0c};
    QColor epLink{0x0d, 0x94, 0x88};  // the EP group (an MoE layer's all-to-all), as theme::epComm
    // A rule broken (TP across nodes): the warnings panel's colour for the red flag.
    QColor warning() const { return severityColor(trainplan::Severity::Warning); }
    QColor warningSlab() const;  // the board of a node whose TP group leaves it
    static QColor severityColor(trainplan::Severity severity);

    QFont captionFont;    // "REPLICA 1 OF 64 · 4 NODES · 32 GPUS"
    QFont titleFont;      // a node's first label line
    QFont labelFont;      // the rest
    QFont smallFont;      // link tags, legend

    // A label's width in one of the fonts above, remembered across paints (TextWidths.h).
    double advance(const QFont& font, const QString& text) const { return widths_.advance(font, text); }

private:
    mutable TextWidths widths_;
};
