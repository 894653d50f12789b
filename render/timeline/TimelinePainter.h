// The pipeline timeline : draws the lanes of a TimelineModel (one simulated step
// each) into any QPainter, so the window and the PNG, SVG and PDF exports share one drawing.
// No QWidget involved. Rows are the stages of one pipeline replica, time runs left to right
// over a visible window; forward, backward and W blocks carry their micro-batch (and chunk)
// when there is room, idle time is shaded as bubble, each stage's DP gradient sync sits at
// the bottom of its row (hidden part and exposed part told apart), with a header line, a
// legend and a time axis in ms. Hit-testing maps a point of the last paint back to an event.
//
//   TimelineModel model;
//   model.setAnalysis(analysis);
//   TimelinePainter timeline;
//   timeline.setModel(&model);
//   timeline.setTimeWindow(0, model.fullSeconds());
//   timeline.paint(painter, QRectF(0, 0, 1400, 600));
//
// Level of detail: blocks narrower than kMinBlockWidth are summed per pixel column
// (TimelineDensityImage), so a paint costs O(events in the window) arithmetic plus
// O(pixels) at most, never a rectangle per event.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

#include "render/timeline/TimelineAxis.h"
#include "render/timeline/TimelineDensityImage.h"
#include "render/timeline/TimelineStyle.h"
#include "render/timeline/TimelineTrack.h"

class QFontMetricsF;
class QPainter;
class TimelineModel;
struct TimelineLane;

// One event of one lane: an index into lane(lane).result().events.
struct TimelineEventRef {
    int lane = -1;
    std::uint32_t event = 0;
    friend bool operator==(const TimelineEventRef&, const TimelineEventRef&) = default;
};

class TimelinePainter {
public:
    // Blocks narrower than this (logical pixels) go to the per-column level of detail; at
    // 3 px a block still shows its colour and a 1 px outline would swallow it.
    static constexpr double kMinBlockWidth = 3.0;
    // Rows taller than this read no better and push the in-flight strip off the pane.
    static constexpr double kMaxRowPitch = 56.0;

    TimelinePainter();

    void setModel(const TimelineModel* model);  // not owned; repaint after it changes
    void setStyle(const TimelineStyle& style)
    {
        style_ = style;
        details_.clear();  // drawn in the old colours
    }
    const TimelineStyle& style() const { return style_; }

    // The visible time window, seconds from the step's first forward.
    void setTimeWindow(double t0Seconds, double t1Seconds);
    double windowStart() const { return t0_; }
    double windowEnd() const { return t1_; }

    void setHighlight(std::optional<TimelineEventRef> ref) { highlight_ = ref; }
    std::optional<TimelineEventRef> highlight() const { return highlight_; }

    // Height at which every row gets `pitch` from row to row; at kMaxRowPitch, the most
    // the drawing uses.
    double heightForRowPitch(double width, double pitch) const;
    double preferredHeight(double width) const { return heightForRowPitch(width, kMaxRowPitch); }
    // Row to row, the least at which every stage keeps its label and blocks their numbers.
    double legibleRowPitch() const;
    void paint(QPainter& painter, const QRectF& target);

    // Against the last paint.
    const TimelineAxis& axis() const { return axis_; }
    std::optional<TimelineEventRef> eventAt(QPointF point) const;
    std::optional<QRectF> eventRect(TimelineEventRef ref) const;  // where the event is drawn
    QString describe(TimelineEventRef ref) const;                 // tooltip text of an event
    QString toolTipAt(QPointF point) const;                       // an event's details, or a stage's idle time

    // What the last paint drew, for tests, benchmarks and exports.
    struct Stats {
        int rectangles = 0;         // rectangles drawn one by one: blocks, DP syncs, bubble rows
        int aggregatedColumns = 0;  // row pixel columns drawn by the level of detail
        int labels = 0;             // block labels
        int rows = 0;               // stage rows over all lanes
        int elidedTexts = 0;        // header or lane titles shortened to fit the width
    };
    const Stats& stats() const { return stats_; }
    const QString& headerText() const { return header_; }
    const QStringList& laneTitles() const { return laneTitles_; }  // one per lane, with its problem
    int rowCount(int lane) const;
    double rowPitch(int lane) const;  // row to row in the last paint, pixels; 0 without rows

private:
    struct LaneGeometry {
        QRectF title;            // the lane's title line (empty when the header names the lane)
        QRectF body;             // rows, or the problem text
        double pitch = 0;        // row to row
        double blockHeight = 0;  // a block's height within its row
        int stages = 0;
    };
    struct LegendItem {
        QColor color;
        QString text;
    };

    void layout(const QRectF& target);
    double laneTitleHeight() const;
    double problemHeight() const;
    QString headerFor(const QFontMetricsF& metrics, double width) const;
    QString laneTitleFor(const TimelineLane& lane) const;
    std::vector<LegendItem> legendItems() const;
    double legendHeight(double width) const;
    double gutterWidth() const;
    void drawHeader(QPainter& p) const;
    void drawLegend(QPainter& p) const;
    void drawLane(QPainter& p, int index);
    void drawRows(QPainter& p, int index, const TimelineLane& lane, const LaneGeometry& g);
    void drawDpSync(QPainter& p, const TimelineLane& lane, const LaneGeometry& g);
    void drawRowLabels(QPainter& p, const LaneGeometry& g) const;
    void drawAxis(QPainter& p) const;
    void drawHighlight(QPainter& p) const;
    QRectF rowRect(const LaneGeometry& g, int stage) const;
    // The lane's stages whose rows the painter's clip shows, first to last (empty when first >
    // last): a lane scrolled at the legible pitch has most of its 64 rows out of view, and
    // filling those cost as much as the rest of the tick's timeline.
    std::pair<int, int> visibleStages(const LaneGeometry& g) const;
    std::optional<std::pair<int, int>> laneAndStageAt(QPointF point) const;

    const TimelineModel* model_ = nullptr;
    TimelineStyle style_;
    double t0_ = 0, t1_ = 1;
    std::optional<TimelineEventRef> highlight_;

    // The last layout.
    QRectF target_;
    QRectF visible_;  // the painter's clip in the last paint (its target when it had none)
    QRectF headerRect_, legendRect_, axisRect_;
    TimelineAxis axis_;
    std::vector<LaneGeometry> lanes_;
    QString header_;
    QStringList laneTitles_;
    Stats stats_;
    double devicePixelRatio_ = 1;

    // What drawing a lane's rows worked out (the level-of-detail image and the blocks wide
    // enough to draw one by one), kept while the lanes, the window and the geometry stay the
    // same: a hover or expose repaint then skips the walk over the events.
    struct WideBlock {
        int stage;
        TimelineTrack::Op op;
    };
    struct LaneDetail {
        std::uint64_t revision = 0;
        double t0 = 0, t1 = 0, pitch = 0, blockHeight = 0, ratio = 0;
        QRectF body;
        std::pair<int, int> stages;  // the visible ones it holds
        bool valid = false;
        TimelineDensityImage density;
        std::vector<WideBlock> wide;
    };
    LaneDetail& laneDetail(int index, const TimelineLane& lane, const LaneGeometry& g);
    std::vector<LaneDetail> details_;
    std::vector<QColor> blockColors_;  // per (kind, chunk) of the lane being drawn
    std::vector<QColor> blockOutlines_;  // the same, darker, for the blocks' outlines
};
