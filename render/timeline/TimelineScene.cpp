#include "render/timeline/TimelineScene.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace {

// Zooming in stops at a millionth of the step: past that a block is all there is to see.
constexpr double kMaxZoom = 1e6;
constexpr double kFitMargin = 0.01;
// Share of the height the in-flight strip takes, between these limits. The timeline comes
// first: the strip is left out when, with it, rows would be thinner than the legible pitch.
constexpr double kInFlightShare = 0.26;
constexpr double kInFlightMaxHeight = 300;

}  // namespace

TimelineScene::TimelineScene()
{
    timeline_.setModel(&model_);
    inFlight_.setModel(&model_);
}

void TimelineScene::setAnalysis(const trainplan::Analysis& analysis)
{
    model_.setAnalysis(analysis);
    timeline_.setHighlight(std::nullopt);  // its event index means another event now
    refit();
}

void TimelineScene::setComparison(bool on)
{
    model_.setMode(on ? TimelineModel::Mode::Comparison : TimelineModel::Mode::PlanSchedule);
}

void TimelineScene::refit()
{
    if (fitted_)
        fit();
    else
        setWindow(t0_, t1_);
}

// The whole step with 1 % of air on each side, so its first and last blocks do not touch
// the plot's edges.
std::pair<double, double> TimelineScene::fullWindow() const
{
    const double full = model_.fullSeconds();
    if (!(full > 0))
        return {0.0, 1.0};
    return {-kFitMargin * full, (1 + kFitMargin) * full};
}

void TimelineScene::fit()
{
    std::tie(t0_, t1_) = fullWindow();
    fitted_ = true;
}

void TimelineScene::setWindow(double t0, double t1)
{
    const auto [lo, hi] = fullWindow();
    const double span = std::clamp(t1 - t0, (hi - lo) / kMaxZoom, hi - lo);
    // Keep the window over the step: never scroll far before its start or after its end.
    t0_ = std::clamp(t0, lo, hi - span);
    t1_ = t0_ + span;
    fitted_ = t0_ <= lo && t1_ >= hi;
}

void TimelineScene::zoomAt(double x, double factor)
{
    const TimelineAxis& axis = timeline_.axis();
    if (!(factor > 0) || !axis.isValid())
        return;
    const double anchor = axis.seconds(std::clamp(x, axis.left(), axis.right()));
    const double share = (anchor - t0_) / (t1_ - t0_);
    const double span = (t1_ - t0_) / factor;
    setWindow(anchor - share * span, anchor + (1 - share) * span);
}

void TimelineScene::panBy(double dx)
{
    const TimelineAxis& axis = timeline_.axis();
    if (!axis.isValid())
        return;
    const double dt = dx / axis.pixelsPerSecond();
    setWindow(t0_ - dt, t1_ - dt);
}

double TimelineScene::scrollRange(const QSizeF& size) const
{
    if (!scrollable_)
        return 0;
    return std::max(0.0, std::ceil(timeline_.heightForRowPitch(size.width(), timeline_.legibleRowPitch()) - size.height()));
}

void TimelineScene::paint(QPainter& painter, const QRectF& target)
{
    timeline_.setTimeWindow(t0_, t1_);
    const double legible = timeline_.heightForRowPitch(target.width(), timeline_.legibleRowPitch());
    // Too low for legible rows: the rows alone, at the legible pitch, scrolled (whole pixels,
    // so the level-of-detail image stays on the pixel grid).
    const double range = scrollRange(target.size());
    if (range > 0) {
        scroll_ = std::min(scroll_, range);
        paintedScroll_ = std::round(scroll_);
        inFlightRect_ = QRectF();
        painter.save();
        painter.setClipRect(target, Qt::IntersectClip);
        painter.translate(0, -paintedScroll_);
        timeline_.paint(painter, QRectF(target.left(), target.top(), target.width(), std::ceil(legible)));
        painter.restore();
        return;
    }
    paintedScroll_ = 0;
    // The timeline takes what its rows want, the strip the rest up to its maximum, and
    // whatever is left stays background at the bottom. The strip only comes with rows at
    // least at the legible pitch, and never takes their height from them.
    double stripHeight = 0;
    double timelineHeight = target.height();
    const double minimumStrip = InFlightChartPainter::minimumHeight();
    if (showInFlight_ && model_.fullSeconds() > 0 && target.height() - minimumStrip >= legible) {
        stripHeight = std::clamp(target.height() * kInFlightShare, minimumStrip, kInFlightMaxHeight);
        timelineHeight = std::clamp(target.height() - stripHeight, legible, timeline_.preferredHeight(target.width()));
        timelineHeight = std::min(timelineHeight, target.height() - minimumStrip);
        stripHeight = std::min(kInFlightMaxHeight, target.height() - timelineHeight);
    }
    const QRectF timelineRect(target.left(), target.top(), target.width(), timelineHeight);
    timeline_.paint(painter, timelineRect);
    inFlightRect_ = stripHeight > 0 ? QRectF(target.left(), timelineRect.bottom(), target.width(), stripHeight) : QRectF();
    if (!inFlightRect_.isEmpty())
        inFlight_.paint(painter, inFlightRect_, timeline_.axis());
    // What neither part used stays background.
    const double used = timelineRect.height() + stripHeight;
    if (used < target.height())
        painter.fillRect(QRectF(target.left(), target.top() + used, target.width(), target.height() - used), timeline_.style().background);
}

QString TimelineScene::toolTipAt(QPointF point) const
{
    if (inFlightRect_.contains(point))
        return inFlight_.toolTipAt(point);
    return timeline_.toolTipAt(point + QPointF(0, paintedScroll_));
}
