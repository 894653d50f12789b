// The whole timeline pane without a widget: the simulated lanes (TimelineModel), the
// visible time window with its zoom and pan, the timeline and, under it, the activations in
// flight on the same time axis. The window's view and the exports both paint through it.
//
//   TimelineScene scene;
//   scene.setAnalysis(analysis);  // trainplan::analyse(plan), the document's, the report's
//   scene.paint(painter, QRectF(0, 0, 1400, 600));
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>

#include <algorithm>
#include <optional>
#include <utility>

#include "render/timeline/InFlightChartPainter.h"
#include "render/timeline/TimelineModel.h"
#include "render/timeline/TimelinePainter.h"

class QPainter;

class TimelineScene {
public:
    TimelineScene();

    // The lanes of the analysis (TimelineModel). A view fitted to the step stays fitted; a
    // zoomed one keeps its window (clamped to the new step) so a slider tick does not lose the
    // place.
    void setAnalysis(const trainplan::Analysis& analysis);
    // The plan's own schedule or all four kinds; takes effect at the next setAnalysis().
    void setComparison(bool on);
    bool comparison() const { return model_.mode() == TimelineModel::Mode::Comparison; }
    void setShowInFlight(bool on) { showInFlight_ = on; }
    bool showInFlight() const { return showInFlight_; }

    const TimelineModel& model() const { return model_; }
    TimelineModel& model() { return model_; }  // setResults(); call fit() after
    TimelinePainter& timeline() { return timeline_; }
    const TimelinePainter& timeline() const { return timeline_; }
    const InFlightChartPainter& inFlight() const { return inFlight_; }

    // The visible time window, seconds.
    double windowStart() const { return t0_; }
    double windowEnd() const { return t1_; }
    double fullSeconds() const { return model_.fullSeconds(); }
    void setWindow(double t0, double t1);          // clamped to the step and the zoom limits
    std::pair<double, double> fullWindow() const;  // what fit() shows
    void fit();
    bool isFitted() const { return fitted_; }
    // factor > 1 zooms in, keeping the time at x where it is (x in the last paint's units).
    void zoomAt(double x, double factor);
    void panBy(double dx);  // drag by dx pixels: the content follows the pointer

    // Rows in the window never get thinner than the timeline's legible pitch: when the target
    // is too low for that, the drawing is taller than the target and scrolls vertically. Off
    // by default, so an export shows every row in its picture.
    void setScrollable(bool on) { scrollable_ = on; }
    bool scrollable() const { return scrollable_; }
    // How far the drawing can scroll in a target of this size (0: it fits), and where it is.
    double scrollRange(const QSizeF& size) const;
    double scroll() const { return scroll_; }
    void setScroll(double pixels) { scroll_ = std::max(0.0, pixels); }

    void paint(QPainter& painter, const QRectF& target);
    // Points are in the target's coordinates, as the last paint drew it (scrolled).
    QString toolTipAt(QPointF point) const;
    std::optional<TimelineEventRef> eventAt(QPointF point) const { return timeline_.eventAt(point + QPointF(0, paintedScroll_)); }
    double paintedScroll() const { return paintedScroll_; }  // the scroll of the last paint
    QRectF inFlightRect() const { return inFlightRect_; }    // where the strip went, last paint

private:
    void refit();

    TimelineModel model_;
    TimelinePainter timeline_;
    InFlightChartPainter inFlight_;
    double t0_ = 0, t1_ = 1;
    bool fitted_ = true;
    bool showInFlight_ = true;
    bool scrollable_ = false;
    double scroll_ = 0;
    double paintedScroll_ = 0;
    QRectF inFlightRect_;
};
