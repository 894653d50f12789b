// Colours and fonts of the pipeline timeline and its activations-in-flight strip, in one
// place so the window and the PNG, SVG and PDF exports draw the same picture. Sizes are in
// the painter's logical units (pixels at 96 dpi).
#pragma once

#include <QColor>
#include <QFont>

#include "core/schedule/Schedule.h"

class TimelineStyle {
public:
    TimelineStyle();

    // F, B and W blocks. Under interleaving, chunk 0 has the full colour and later chunks
    // fade towards white, as Narayanan et al. 2021 (Fig. 4) shade model chunks.
    QColor blockColor(trainplan::ScheduleEventKind kind, int chunk = 0, int chunks = 1) const;
    // Label colour that stays readable on a block's fill.
    static QColor textOn(QColor fill);
    // One line per schedule kind in the comparison's in-flight chart.
    QColor kindColor(trainplan::ScheduleKind kind) const;
    // One line per stage in the in-flight chart: dark for stage 1, light for the last.
    static QColor stageColor(int stage, int stages);

    QColor forward{0x3b, 0x82, 0xf6};     // blue
    QColor backward{0x10, 0xb9, 0x81};    // emerald
    QColor weightGrad{0xf5, 0x9e, 0x0b};  // amber: ZB-H1's deferred W
    QColor bubble;                        // idle time; the step-time chart's bubble colour
    QColor dpHidden;                      // DP sync under other stages' compute
    QColor dpExposed;                     // DP sync after the last backward: lengthens the step
    QColor allToAll;                      // an MoE block's all-to-all share; the step chart's EP colour
    QColor background{Qt::white};
    QColor text{0x1f, 0x29, 0x37};
    QColor mutedText{0x6b, 0x72, 0x80};
    QColor problemText{0xb9, 0x1c, 0x1c};
    QColor grid{0xe5, 0xe7, 0xeb};
    QColor axis{0x9c, 0xa3, 0xaf};
    QColor computeEnd{0x37, 0x41, 0x51};  // the dashed line where the last backward ends
    QColor highlight{0x11, 0x18, 0x27};   // outline of the hovered block

    QFont headerFont;  // the step time and bubble line
    QFont titleFont;   // one comparison lane's title
    QFont labelFont;   // stage names, axis ticks, legend
    QFont blockFont;   // micro-batch numbers inside blocks
};
