#include "render/timeline/TimelinePainter.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPaintDevice>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "render/timeline/TimelineModel.h"

using trainplan::ScheduleEvent;
using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;

namespace {

const std::vector<double> kNoShares;  // blocks of a kind without an all-to-all share

constexpr double kPadding = 8;        // around the whole drawing
constexpr double kLineGap = 4;        // between text lines and what follows them
constexpr double kLaneGap = 10;       // between stacked lanes
constexpr double kTickLength = 4;
constexpr double kDpBandShare = 0.45;   // of a row: the DP sync band at its bottom
constexpr double kHitTolerance = 3;     // pixels beside a block that still hover it
constexpr int kEventKinds = 3;          // F, B, W: the block kinds drawn

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString percent(double fraction)
{
    return qs(trainplan::formatPercent(fraction, 1));
}

int kindSlot(ScheduleEventKind kind)
{
    switch (kind) {
    case ScheduleEventKind::Forward: return 0;
    case ScheduleEventKind::Backward: return 1;
    case ScheduleEventKind::WeightGrad: return 2;
    default: return -1;
    }
}

TimelineDensityImage::Part densityPart(ScheduleEventKind kind)
{
    switch (kind) {
    case ScheduleEventKind::Backward: return TimelineDensityImage::Backward;
    case ScheduleEventKind::WeightGrad: return TimelineDensityImage::WeightGrad;
    default: return TimelineDensityImage::Forward;
    }
}

// The closed form each kind's bubble is compared with (ScheduleResult::closedFormBubbleFraction).
QString closedFormName(ScheduleKind kind)
{
    switch (kind) {
    case ScheduleKind::GPipe:
    case ScheduleKind::OneFOneB: return QStringLiteral("(p−1)/(m+p−1)");
    case ScheduleKind::Interleaved: return QStringLiteral("(p−1)/(vm+p−1)");
    case ScheduleKind::ZeroBubbleH1: return QStringLiteral("(Qi et al. 2023, Sec. 3.1)");
    case ScheduleKind::DualPipe: return QStringLiteral("(p/2−1)(F&B+B−3W)");
    }
    return {};
}

QString kindName(ScheduleEventKind kind, ScheduleKind schedule)
{
    switch (kind) {
    case ScheduleEventKind::Forward: return QStringLiteral("Forward");
    case ScheduleEventKind::Backward:
        return schedule == ScheduleKind::ZeroBubbleH1 ? QStringLiteral("Backward, input gradient (B)")
               : schedule == ScheduleKind::DualPipe   ? QStringLiteral("Backward (or its input gradient, when a W follows)")
                                                      : QStringLiteral("Backward");
    case ScheduleEventKind::WeightGrad: return QStringLiteral("Weight gradient (W)");
    case ScheduleEventKind::Send: return QStringLiteral("Send");
    case ScheduleEventKind::DpSync: return QStringLiteral("DP gradient sync");
    }
    return {};
}

// Resolution for the times of a tooltip: four significant digits of the block's duration.
double resolutionFor(double durationSeconds)
{
    return durationSeconds > 0 ? std::pow(10.0, std::floor(std::log10(durationSeconds)) - 3) : trainplan::units::micro;
}

}  // namespace

TimelinePainter::TimelinePainter() = default;

void TimelinePainter::setModel(const TimelineModel* model)
{
    model_ = model;
    highlight_.reset();
}

void TimelinePainter::setTimeWindow(double t0Seconds, double t1Seconds)
{
    t0_ = t0Seconds;
    t1_ = t1Seconds > t0Seconds ? t1Seconds : t0Seconds + 1e-9;
}

int TimelinePainter::rowCount(int lane) const
{
    return lane >= 0 && lane < int(lanes_.size()) ? lanes_[size_t(lane)].stages : 0;
}

double TimelinePainter::rowPitch(int lane) const
{
    return lane >= 0 && lane < int(lanes_.size()) ? lanes_[size_t(lane)].pitch : 0.0;
}

double TimelinePainter::legibleRowPitch() const
{
    // A stage label needs its line (drawRowLabels labels every row from one line height up);
    // four pixels more leave a block room for its micro-batch number under the row gap.
    return std::ceil(QFontMetricsF(style_.labelFont).height()) + 4;
}

// ---- layout -------------------------------------------------------------------------------

double TimelinePainter::laneTitleHeight() const
{
    return QFontMetricsF(style_.titleFont).height() + kLineGap;
}

double TimelinePainter::problemHeight() const
{
    return 2 * QFontMetricsF(style_.labelFont).lineSpacing() + kLineGap;  // the reason may wrap once
}

double TimelinePainter::gutterWidth() const
{
    int stages = 1;
    if (model_)
        for (int i = 0; i < model_->laneCount(); ++i)
            stages = std::max(stages, model_->lane(i).track.stageCount());
    const QFontMetricsF metrics(style_.labelFont);
    return std::ceil(metrics.horizontalAdvance(QStringLiteral("Stage %1").arg(stages))) + 12;
}

double TimelinePainter::heightForRowPitch(double width, double pitch) const
{
    const QFontMetricsF header(style_.headerFont), label(style_.labelFont);
    double h = 2 * kPadding + header.height() + kLineGap + legendHeight(width - 2 * kPadding) + kLineGap;
    const bool titled = model_ && model_->laneCount() > 1;
    if (model_) {
        for (int i = 0; i < model_->laneCount(); ++i) {
            const TimelineLane& lane = model_->lane(i);
            h += (titled ? laneTitleHeight() : 0) + (i ? kLaneGap : 0);
            h += lane.simulated() ? lane.track.stageCount() * pitch : problemHeight();
        }
    }
    return h + kTickLength + label.height() + kLineGap;
}

void TimelinePainter::layout(const QRectF& target)
{
    target_ = target;
    const QRectF inner = target.adjusted(kPadding, kPadding, -kPadding, -kPadding);
    const QFontMetricsF header(style_.headerFont), label(style_.labelFont);
    headerRect_ = QRectF(inner.left(), inner.top(), inner.width(), header.height());
    legendRect_ = QRectF(inner.left(), headerRect_.bottom() + kLineGap, inner.width(), legendHeight(inner.width()));
    const double axisHeight = kTickLength + label.height();
    const double gutter = gutterWidth();
    // Whole pixels for the plot's edges, so the level-of-detail image lands on the grid.
    const double left = std::round(inner.left() + gutter);
    const double right = std::round(inner.right());
    axis_ = TimelineAxis(left, right, t0_, t1_);

    const int count = model_ ? model_->laneCount() : 0;
    lanes_.assign(size_t(count), LaneGeometry{});
    const bool titled = count > 1;
    double top = legendRect_.bottom() + kLineGap;
    const double bottom = inner.bottom() - axisHeight;
    // Lanes that could not be simulated take a fixed two lines; the rest share what is left
    // in proportion to their stages, up to kMaxRowPitch per row.
    double fixed = 0;
    int rows = 0;
    for (int i = 0; i < count; ++i) {
        const TimelineLane& lane = model_->lane(i);
        fixed += (titled ? laneTitleHeight() : 0) + (i ? kLaneGap : 0);
        if (lane.simulated())
            rows += lane.track.stageCount();
        else
            fixed += problemHeight();
    }
    const double pitch = rows > 0 ? std::clamp((bottom - top - fixed) / rows, 0.25, kMaxRowPitch) : 0.0;
    for (int i = 0; i < count; ++i) {
        const TimelineLane& lane = model_->lane(i);
        LaneGeometry& g = lanes_[size_t(i)];
        top += i ? kLaneGap : 0;
        if (titled) {
            g.title = QRectF(inner.left(), top, inner.width(), laneTitleHeight() - kLineGap);
            top += laneTitleHeight();
        }
        if (!lane.simulated()) {
            g.body = QRectF(left, top, right - left, problemHeight() - kLineGap);
            top += problemHeight();
            continue;
        }
        g.stages = lane.track.stageCount();
        g.pitch = pitch;
        // A gap between rows while rows are tall enough to spare one.
        const double gap = pitch >= 10 ? std::clamp(std::round(pitch * 0.15), 2.0, 6.0) : pitch >= 4 ? 1.0 : 0.0;
        g.blockHeight = std::max(pitch - gap, std::min(pitch, 1.0));
        g.body = QRectF(left, top, right - left, pitch * g.stages);
        top += g.body.height();
    }
    axisRect_ = QRectF(left, top + 2, right - left, axisHeight);
}

QRectF TimelinePainter::rowRect(const LaneGeometry& g, int stage) const
{
    return QRectF(g.body.left(), g.body.top() + stage * g.pitch, g.body.width(), g.blockHeight);
}

std::pair<int, int> TimelinePainter::visibleStages(const LaneGeometry& g) const
{
    if (g.stages <= 0 || !(g.pitch > 0))
        return {0, g.stages - 1};
    // Row s spans [top + s pitch, top + s pitch + blockHeight).
    const double top = g.body.top();
    const int first = int(std::floor((visible_.top() - top - g.blockHeight) / g.pitch)) + 1;
    const int last = int(std::ceil((visible_.bottom() - top) / g.pitch)) - 1;
    return {std::clamp(first, 0, g.stages), std::clamp(last, -1, g.stages - 1)};
}

// ---- text ---------------------------------------------------------------------------------

QString TimelinePainter::laneTitleFor(const TimelineLane& lane) const
{
    const QString name = TimelineModel::kindTitle(lane.kind, lane.v);
    if (!lane.simulated())
        return QStringLiteral("%1 — cannot run this plan: %2").arg(name, lane.problem);
    const auto& r = lane.result();
    return QStringLiteral("%1 — step %2 · bubble %3 (closed form %4)")
        .arg(name, qs(trainplan::formatSeconds(r.stepSeconds)), percent(r.bubbleFraction), percent(r.closedFormBubbleFraction));
}

QString TimelinePainter::headerFor(const QFontMetricsF& metrics, double width) const
{
    if (!model_ || model_->laneCount() == 0)
        return QStringLiteral("No schedule to show");
    // Longest first; the first that fits is drawn.
    QStringList candidates;
    if (model_->laneCount() > 1) {
        const TimelineLane* any = nullptr;
        for (int i = 0; i < model_->laneCount() && !any; ++i)
            if (model_->lane(i).simulated())
                any = &model_->lane(i);
        const QString shape = any ? QStringLiteral("p = %1 %2 · m = %3 %4")
                                        .arg(any->result().p)
                                        .arg(any->result().p == 1 ? QStringLiteral("stage") : QStringLiteral("stages"))
                                        .arg(any->result().m)
                                        .arg(any->result().m == 1 ? QStringLiteral("micro-batch") : QStringLiteral("micro-batches"))
                                  : QString();
        candidates << QStringLiteral("%1 schedules of the same plan · %2 · bubble = idle share of the compute time, "
                                     "simulated (closed form)")
                          .arg(model_->laneCount())
                          .arg(shape)
                   << QStringLiteral("%1 schedules of the same plan · %2").arg(model_->laneCount()).arg(shape)
                   << QStringLiteral("Schedules compared");
    } else {
        const TimelineLane& lane = model_->lane(0);
        const QString name = TimelineModel::kindTitle(lane.kind, lane.v);
        if (!lane.simulated())
            return QStringLiteral("%1: cannot simulate this plan").arg(name);
        const auto& r = lane.result();
        const QString shape = QStringLiteral("p = %1 · m = %2").arg(r.p).arg(r.m);
        // The predicted step, the figure every other view quotes: the simulated pipeline and DP
        // tail, then the optimizer and any exposed parameter gather.
        const QString step = QStringLiteral("step %1").arg(qs(trainplan::formatSeconds(r.stepSeconds + lane.afterStepSeconds)));
        QString parts = QStringLiteral(" (compute %1 + exposed DP sync %2")
                            .arg(qs(trainplan::formatSeconds(r.computeSeconds)), qs(trainplan::formatSeconds(r.dpSyncExposedSeconds)));
        if (lane.afterStepSeconds > 0)
            parts += QStringLiteral(" + optimizer and gather %1").arg(qs(trainplan::formatSeconds(lane.afterStepSeconds)));
        parts += QStringLiteral(")");
        const QString bubble =
            QStringLiteral("bubble %1 simulated, %2 closed form").arg(percent(r.bubbleFraction), percent(r.closedFormBubbleFraction));
        const QString formula = QStringLiteral(" %1").arg(closedFormName(lane.kind));
        candidates << QStringLiteral("%1 · %2 · %3%4 · %5%6").arg(name, shape, step, parts, bubble, formula)
                   << QStringLiteral("%1 · %2 · %3%4 · %5").arg(name, shape, step, parts, bubble)
                   << QStringLiteral("%1 · %2 · %3 · %4").arg(name, shape, step, bubble)
                   << QStringLiteral("%1 · %2 · bubble %3 simulated").arg(name, step, percent(r.bubbleFraction));
    }
    for (const QString& text : candidates)
        if (metrics.horizontalAdvance(text) <= width)
            return text;
    return metrics.elidedText(candidates.back(), Qt::ElideRight, width);
}

std::vector<TimelinePainter::LegendItem> TimelinePainter::legendItems() const
{
    bool zeroBubble = false, interleaved = false, allToAll = false, dualPipe = false;
    if (model_)
        for (int i = 0; i < model_->laneCount(); ++i) {
            zeroBubble |= model_->lane(i).simulated() && model_->lane(i).kind == ScheduleKind::ZeroBubbleH1;
            dualPipe |= model_->lane(i).simulated() && model_->lane(i).kind == ScheduleKind::DualPipe;
            interleaved |= model_->lane(i).simulated() && model_->lane(i).result().v > 1;
            allToAll |= !model_->lane(i).forwardAllToAllShare.empty();
        }
    std::vector<LegendItem> items;
    items.push_back({style_.forward, QStringLiteral("Forward")});
    items.push_back({style_.backward, zeroBubble ? QStringLiteral("Backward (B: input gradient)") : QStringLiteral("Backward")});
    if (zeroBubble || dualPipe)
        items.push_back({style_.weightGrad, QStringLiteral("W: weight gradient")});
    if (dualPipe)
        items.push_back({style_.blockColor(ScheduleEventKind::Forward, 1, 2), QStringLiteral("Reverse direction lighter")});
    if (interleaved)
        items.push_back({style_.blockColor(ScheduleEventKind::Forward, 1, 2), QStringLiteral("Later chunks lighter")});
    if (allToAll)
        items.push_back({style_.allToAll, QStringLiteral("EP all-to-all (share of each block)")});
    items.push_back({style_.bubble, QStringLiteral("Bubble (idle)")});
    items.push_back({style_.dpHidden, QStringLiteral("DP sync, hidden")});
    items.push_back({style_.dpExposed, QStringLiteral("DP sync, exposed")});
    items.push_back({QColor(), interleaved ? QStringLiteral("Labels: micro-batch, c = chunk") : QStringLiteral("Labels: micro-batch")});
    return items;
}

// The legend flows over as many lines as the width needs.
double TimelinePainter::legendHeight(double width) const
{
    const QFontMetricsF metrics(style_.labelFont);
    const double swatch = metrics.height() * 0.8;
    double x = 0;
    int lines = 1;
    for (const auto& item : legendItems()) {
        const double w = (item.color.isValid() ? swatch + 5 : 0) + metrics.horizontalAdvance(item.text) + 16;
        if (x > 0 && x + w > width) {
            ++lines;
            x = 0;
        }
        x += w;
    }
    return lines * metrics.lineSpacing();
}

// ---- painting -----------------------------------------------------------------------------

void TimelinePainter::paint(QPainter& p, const QRectF& target)
{
    stats_ = {};
    devicePixelRatio_ = p.device() ? p.device()->devicePixelRatioF() : 1.0;
    visible_ = p.hasClipping() ? p.clipBoundingRect().intersected(target) : target;
    layout(target);
    const QFontMetricsF headerMetrics(style_.headerFont);
    header_ = headerFor(headerMetrics, headerRect_.width());
    stats_.elidedTexts += header_.endsWith(QChar(0x2026));  // none of the wordings fitted: shortened
    laneTitles_.clear();

    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);  // axis-aligned blocks: crisp and fast
    p.fillRect(target, style_.background);
    drawHeader(p);
    const int count = model_ ? model_->laneCount() : 0;
    for (int i = 0; i < count; ++i)
        drawLane(p, i);
    drawLegend(p);  // after the lanes: it says whether any blocks were summed per column
    if (model_ && model_->fullSeconds() > 0)  // no time to show when nothing could be simulated
        drawAxis(p);
    drawHighlight(p);
    p.restore();
}

void TimelinePainter::drawHeader(QPainter& p) const
{
    p.setFont(style_.headerFont);
    p.setPen(style_.text);
    p.drawText(headerRect_, Qt::AlignLeft | Qt::AlignVCenter, header_);
}

void TimelinePainter::drawLegend(QPainter& p) const
{
    const QFontMetricsF metrics(style_.labelFont);
    const double swatch = metrics.height() * 0.8;
    p.setFont(style_.labelFont);
    double x = legendRect_.left(), y = legendRect_.top();
    for (const auto& item : legendItems()) {
        const double textWidth = metrics.horizontalAdvance(item.text);
        const double w = (item.color.isValid() ? swatch + 5 : 0) + textWidth + 16;
        if (x > legendRect_.left() && x + w > legendRect_.right()) {
            x = legendRect_.left();
            y += metrics.lineSpacing();
        }
        double textX = x;
        if (item.color.isValid()) {
            const QRectF box(x, y + (metrics.height() - swatch) / 2, swatch, swatch);
            p.fillRect(box, item.color);
            textX += swatch + 5;
        }
        p.setPen(item.color.isValid() ? style_.text : style_.mutedText);
        p.drawText(QRectF(textX, y, textWidth + 2, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter, item.text);
        x += w;
    }
    // The level of detail at work: say so where the last line has room.
    if (stats_.aggregatedColumns > 0) {
        const QString note = QStringLiteral("Blocks under %1 px: shares per pixel column").arg(kMinBlockWidth);
        const double w = metrics.horizontalAdvance(note);
        if (x + w <= legendRect_.right()) {
            p.setPen(style_.mutedText);
            p.drawText(QRectF(legendRect_.right() - w - 1, y, w + 1, metrics.height()), Qt::AlignRight | Qt::AlignVCenter, note);
        }
    }
}

void TimelinePainter::drawLane(QPainter& p, int index)
{
    const TimelineLane& lane = model_->lane(index);
    const LaneGeometry& g = lanes_[size_t(index)];
    const QString title = laneTitleFor(lane);
    laneTitles_ << title;
    if (!g.title.isEmpty()) {
        const QFontMetricsF metrics(style_.titleFont);
        p.setFont(style_.titleFont);
        p.setPen(lane.simulated() ? style_.text : style_.problemText);
        // A lane that cannot run names its kind here and the reason in its body.
        const QString shown =
            lane.simulated() ? metrics.elidedText(title, Qt::ElideRight, g.title.width()) : TimelineModel::kindTitle(lane.kind, lane.v);
        stats_.elidedTexts += lane.simulated() && shown != title;
        p.drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter, shown);
    }
    if (!lane.simulated()) {
        p.setFont(style_.labelFont);
        p.setPen(style_.problemText);
        const QString text = g.title.isEmpty() ? lane.problem : QStringLiteral("Cannot run this plan: %1").arg(lane.problem);
        p.drawText(g.body, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
        return;
    }
    stats_.rows += g.stages;
    drawRows(p, index, lane, g);
    drawDpSync(p, lane, g);
    drawRowLabels(p, g);
}

void TimelinePainter::drawRows(QPainter& p, int index, const TimelineLane& lane, const LaneGeometry& g)
{
    const auto& r = lane.result();
    const double plotLeft = axis_.left(), plotRight = axis_.right();
    const auto clampX = [&](double x) { return std::clamp(x, plotLeft, plotRight); };

    // Bubble: every stage is idle wherever it runs no block up to the end of the compute
    // part (ScheduleResult::bubbleFraction counts idle time up to computeSeconds).
    const double bubbleLeft = clampX(axis_.x(0)), bubbleRight = clampX(axis_.x(r.computeSeconds));
    if (bubbleRight > bubbleLeft) {
        if (g.pitch > g.blockHeight) {
            const auto [first, last] = visibleStages(g);
            for (int s = first; s <= last; ++s) {
                const QRectF row = rowRect(g, s);
                p.fillRect(QRectF(bubbleLeft, row.top(), bubbleRight - bubbleLeft, row.height()), style_.bubble);
            }
            stats_.rectangles += g.stages;
        } else {
            p.fillRect(QRectF(bubbleLeft, g.body.top(), bubbleRight - bubbleLeft, g.body.height()), style_.bubble);
            ++stats_.rectangles;
        }
    }
    // Grid lines at the axis ticks, over the bubble and under the blocks.
    p.setPen(style_.grid);
    for (double t : axis_.ticks())
        p.drawLine(QLineF(axis_.x(t), g.body.top(), axis_.x(t), g.body.bottom()));

    // Colours per (kind, chunk), once per lane; DualPipe shades its two directions like chunks.
    const int v = r.kind == ScheduleKind::DualPipe ? 2 : std::max(1, r.v);
    blockColors_.resize(size_t(kEventKinds * v));
    blockOutlines_.resize(blockColors_.size());
    for (int k = 0; k < kEventKinds; ++k)
        for (int c = 0; c < v; ++c) {
            blockColors_[size_t(k * v + c)] = style_.blockColor(ScheduleEventKind(k), c, v);
            blockOutlines_[size_t(k * v + c)] = blockColors_[size_t(k * v + c)].darker(135);
        }

    LaneDetail& detail = laneDetail(index, lane, g);
    detail.density.draw(p);
    stats_.aggregatedColumns += detail.density.columnsFilled();
    const double pixelsPerSecond = axis_.pixelsPerSecond();

    // Blocks wide enough to draw one by one, outlined so neighbours stay apart, labelled
    // when the label fits.
    const QFontMetricsF metrics(style_.blockFont);
    const double digitWidth = metrics.horizontalAdvance(QLatin1Char('0'));
    const bool labelRows = g.blockHeight >= metrics.height() - 2;
    // The chunk joins the labels only when every block in view has room for it: a mix of
    // "5" and "5 c2" reads as two kinds of label.
    bool chunkLabels = r.v > 1 && labelRows && !detail.wide.empty();
    if (chunkLabels) {
        double narrowest = std::numeric_limits<double>::max();
        for (const auto& [stage, op] : detail.wide)
            narrowest = std::min(narrowest, (op.endSeconds - op.startSeconds) * pixelsPerSecond);
        const QString longest = QStringLiteral("%1 c%2").arg(r.m).arg(v);
        chunkLabels = metrics.horizontalAdvance(longest) + 4 <= narrowest;
    }
    p.setFont(style_.blockFont);
    for (const auto& [stage, op] : detail.wide) {
        const int slot = kindSlot(op.kind);
        const size_t colorIndex = size_t(slot * v + std::clamp(int(op.chunk), 0, v - 1));
        const QColor& fill = blockColors_[colorIndex];
        const double x0 = clampX(axis_.x(op.startSeconds)), x1 = clampX(axis_.x(op.endSeconds));
        const QRectF rect(x0, g.body.top() + stage * g.pitch, x1 - x0, g.blockHeight);
        if (rect.width() >= 4 && g.blockHeight >= 4) {
            // A one-pixel outline as two fills, the pixels a pen would cover: a solid fill is
            // a memset, a pen goes through the rasterizer (a quarter of the lane's cost).
            const QRect pixels = rect.toRect();
            p.fillRect(pixels, blockOutlines_[colorIndex]);
            p.fillRect(pixels.adjusted(1, 1, -1, -1), fill);
        } else {
            p.fillRect(rect, fill);
        }
        ++stats_.rectangles;
        // An MoE block: a strip along its foot as long as the all-to-all's share of it.
        const auto& shares = op.kind == ScheduleEventKind::Forward ? lane.forwardAllToAllShare
                             : op.kind == ScheduleEventKind::Backward ? lane.backwardAllToAllShare
                                                                       : kNoShares;
        if (size_t(stage) < shares.size() && shares[size_t(stage)] > 0 && g.blockHeight >= 6) {
            const double strip = std::max(2.0, std::floor(g.blockHeight / 5));
            p.fillRect(QRectF(rect.left() + 1, rect.bottom() - strip - 1, (rect.width() - 2) * shares[size_t(stage)], strip), style_.allToAll);
        }
        if (!labelRows)
            continue;
        // Micro-batches and chunks count from 1 on screen, like the stages.
        const int microbatch = lane.track.event(op.event).microbatch;
        const QString number = QString::number(microbatch + 1);
        // Digits are equally wide in DejaVu Sans, so the number's width needs no measuring;
        // the longer label with the chunk is measured only where the number fits.
        if (number.size() * digitWidth + 4 > rect.width())
            continue;
        QString text = number;
        if (chunkLabels) {
            const QString withChunk = QStringLiteral("%1 c%2").arg(number).arg(op.chunk + 1);
            if (metrics.horizontalAdvance(withChunk) + 4 <= rect.width())  // a block cut by the window's edge may not fit it
                text = withChunk;
        }
        p.setPen(TimelineStyle::textOn(fill));
        p.drawText(rect, Qt::AlignCenter, text);
        ++stats_.labels;
    }
    p.setBrush(Qt::NoBrush);

    // Where the compute part ends: what is right of it is the exposed DP tail.
    const double endX = axis_.x(r.computeSeconds);
    if (endX >= plotLeft && endX <= plotRight) {
        // Dashed, 4 px on and 2 off from the lane's top, as fills: a dashed pen restarts its
        // pattern at the clip, so the dashes would crawl as the rows scroll.
        const double x = std::floor(endX), bottom = g.body.bottom() + 2;
        for (double y = g.body.top() - 2; y < bottom; y += 6)
            p.fillRect(QRectF(x, y, 1, std::min(4.0, bottom - y)), style_.computeEnd);
    }
}

TimelinePainter::LaneDetail& TimelinePainter::laneDetail(int index, const TimelineLane& lane, const LaneGeometry& g)
{
    if (details_.size() < size_t(index) + 1)
        details_.resize(size_t(index) + 1);
    LaneDetail& d = details_[size_t(index)];
    const std::pair<int, int> stages = visibleStages(g);
    if (d.valid && d.revision == model_->revision() && d.t0 == t0_ && d.t1 == t1_ && d.body == g.body && d.pitch == g.pitch
        && d.blockHeight == g.blockHeight && d.ratio == devicePixelRatio_ && d.stages == stages)
        return d;
    d.revision = model_->revision();
    d.t0 = t0_;
    d.t1 = t1_;
    d.body = g.body;
    d.pitch = g.pitch;
    d.blockHeight = g.blockHeight;
    d.ratio = devicePixelRatio_;
    d.stages = stages;
    d.valid = true;
    // The image spans the visible rows only. Its top is a whole number of device pixels below
    // the body's, so every row lands on the pixels it has in an image of the whole body.
    const auto [first, last] = stages;
    QRectF band(g.body.left(), g.body.top(), g.body.width(), 0);
    if (first <= last) {
        band.setTop(g.body.top() + std::floor((rowRect(g, first).top() - g.body.top()) * devicePixelRatio_) / devicePixelRatio_);
        band.setBottom(rowRect(g, last).bottom());
    }
    // The rows in view fit in the view: an image of its size serves every later lane.
    const QSize expected(int(std::ceil(visible_.width() * devicePixelRatio_)), int(std::ceil(visible_.height() * devicePixelRatio_)));
    d.density.begin(band, devicePixelRatio_, {style_.forward, style_.backward, style_.weightGrad}, expected);
    d.wide.clear();
    const double pixelsPerSecond = axis_.pixelsPerSecond();
    for (int s = first; s <= last; ++s) {
        const QRectF row = rowRect(g, s);
        d.density.beginRow(row.top(), row.bottom());
        const auto ops = lane.track.ops(s);
        for (size_t k = lane.track.firstOpEndingAfter(s, t0_); k < ops.size(); ++k) {
            const TimelineTrack::Op& op = ops[k];
            if (op.startSeconds >= t1_)
                break;
            if ((op.endSeconds - op.startSeconds) * pixelsPerSecond < kMinBlockWidth)
                d.density.add(densityPart(op.kind), axis_.x(op.startSeconds), axis_.x(op.endSeconds));
            else
                d.wide.push_back({s, op});
        }
        d.density.endRow();
    }
    return d;
}

void TimelinePainter::drawDpSync(QPainter& p, const TimelineLane& lane, const LaneGeometry& g)
{
    // Each stage's gradient reduction starts after its last backward and runs beside the
    // other stages' compute: the part before computeSeconds is hidden, the rest is exposed
    // (StageScheduleStats::dpSyncHiddenSeconds). Drawn in the bottom of the row, so the
    // bubble it overlaps stays visible above it.
    const auto& r = lane.result();
    const auto clampX = [&](double x) { return std::clamp(x, axis_.left(), axis_.right()); };
    const auto [first, last] = visibleStages(g);
    for (int s = first; s <= last; ++s) {
        const std::int64_t i = lane.track.dpSync(s);
        if (i < 0)
            continue;
        const ScheduleEvent& e = lane.track.event(std::uint32_t(i));
        if (!(e.endSeconds > e.startSeconds))
            continue;
        const QRectF row = rowRect(g, s);
        const double bandTop = row.bottom() - std::max(1.0, std::round(row.height() * kDpBandShare));
        const double split = std::clamp(r.computeSeconds, e.startSeconds, e.endSeconds);
        const double x0 = clampX(axis_.x(e.startSeconds)), xs = clampX(axis_.x(split)), x1 = clampX(axis_.x(e.endSeconds));
        if (xs > x0) {
            p.fillRect(QRectF(x0, bandTop, xs - x0, row.bottom() - bandTop), style_.dpHidden);
            ++stats_.rectangles;
        }
        if (x1 > xs) {
            p.fillRect(QRectF(xs, bandTop, x1 - xs, row.bottom() - bandTop), style_.dpExposed);
            ++stats_.rectangles;
        }
    }
}

void TimelinePainter::drawRowLabels(QPainter& p, const LaneGeometry& g) const
{
    const QFontMetricsF metrics(style_.labelFont);
    // Label every k-th stage so labels never overlap; k from 1, 2, 5, 10, ...
    int every = 1;
    for (int k : {1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 256, 512, 1024, 4096, 32768}) {
        every = k;
        if (g.pitch * k >= metrics.height())
            break;
    }
    p.setFont(style_.labelFont);
    p.setPen(style_.text);
    const double right = g.body.left() - 6;
    double freeFrom = -std::numeric_limits<double>::infinity();  // below the last label drawn
    // From one label above the visible rows (its text may reach into view) to the last visible.
    const auto [first, last] = visibleStages(g);
    for (int s = std::max(0, (first / every - 1) * every); s <= last; s += every) {
        const QRectF row = rowRect(g, s);
        // Centred on the row, but never above or below the lane, nor over the previous label.
        const double top = std::clamp(row.center().y() - metrics.height() / 2, g.body.top(), g.body.bottom() - metrics.height());
        if (top < freeFrom)
            continue;
        p.drawText(QRectF(target_.left(), top, right - target_.left(), metrics.height()), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("Stage %1").arg(s + 1));
        freeFrom = top + metrics.height();
    }
}

void TimelinePainter::drawAxis(QPainter& p) const
{
    if (!axis_.isValid())
        return;
    const QFontMetricsF metrics(style_.labelFont);
    p.setPen(style_.axis);
    p.drawLine(QLineF(axisRect_.left(), axisRect_.top(), axisRect_.right(), axisRect_.top()));
    p.setFont(style_.labelFont);
    const double step = axis_.tickStepSeconds();
    const QString unit = QStringLiteral("ms");
    const double unitWidth = metrics.horizontalAdvance(unit) + 6;
    for (double t : axis_.ticks()) {
        const double x = axis_.x(t);
        p.setPen(style_.axis);
        p.drawLine(QLineF(x, axisRect_.top(), x, axisRect_.top() + kTickLength));
        const QString label = TimelineAxis::tickLabel(t, step);
        const double w = metrics.horizontalAdvance(label);
        // Keep labels inside the plot and clear of the unit at its right end.
        const double left = std::clamp(x - w / 2, axisRect_.left(), axisRect_.right() - w);
        if (left + w > axisRect_.right() - unitWidth)
            continue;
        p.setPen(style_.mutedText);
        p.drawText(QRectF(left, axisRect_.top() + kTickLength, w + 1, metrics.height()), Qt::AlignLeft | Qt::AlignTop, label);
    }
    p.setPen(style_.mutedText);
    p.drawText(QRectF(axisRect_.right() - unitWidth, axisRect_.top() + kTickLength, unitWidth, metrics.height()),
               Qt::AlignRight | Qt::AlignTop, unit);
}

void TimelinePainter::drawHighlight(QPainter& p) const
{
    if (!highlight_)
        return;
    const auto rect = eventRect(*highlight_);
    if (!rect)
        return;
    QRectF r = rect->intersected(QRectF(axis_.left() - 2, rect->top(), axis_.width() + 4, rect->height()));
    if (r.width() < 3)  // a sub-pixel block still gets an outline to point at
        r = QRectF(r.center().x() - 1.5, r.top(), 3, r.height());
    QPen pen(style_.highlight, 2);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(-1, -1, 1, 1));
}

// ---- hit-testing --------------------------------------------------------------------------

std::optional<std::pair<int, int>> TimelinePainter::laneAndStageAt(QPointF point) const
{
    if (!model_ || point.x() < axis_.left() || point.x() > axis_.right())
        return std::nullopt;
    for (int i = 0; i < int(lanes_.size()) && i < model_->laneCount(); ++i) {
        const LaneGeometry& g = lanes_[size_t(i)];
        if (g.stages == 0 || point.y() < g.body.top() || point.y() >= g.body.bottom())
            continue;
        const int stage = std::clamp(int((point.y() - g.body.top()) / g.pitch), 0, g.stages - 1);
        // The lanes may have changed since the last paint laid them out.
        if (stage >= model_->lane(i).track.stageCount())
            return std::nullopt;
        return std::make_pair(i, stage);
    }
    return std::nullopt;
}

std::optional<TimelineEventRef> TimelinePainter::eventAt(QPointF point) const
{
    const auto at = laneAndStageAt(point);
    if (!at)
        return std::nullopt;
    const auto [laneIndex, stage] = *at;
    const TimelineLane& lane = model_->lane(laneIndex);
    const double t = axis_.seconds(point.x());
    // The DP band at the bottom of the row first: it is drawn over the bubble.
    const std::int64_t sync = lane.track.dpSync(stage);
    if (sync >= 0) {
        const auto rect = eventRect({laneIndex, std::uint32_t(sync)});
        if (rect && rect->adjusted(-kHitTolerance, 0, kHitTolerance, 0).contains(point))
            return TimelineEventRef{laneIndex, std::uint32_t(sync)};
    }
    const std::int64_t op = lane.track.opNear(stage, t, kHitTolerance / axis_.pixelsPerSecond());
    if (op < 0)
        return std::nullopt;
    return TimelineEventRef{laneIndex, std::uint32_t(op)};
}

std::optional<QRectF> TimelinePainter::eventRect(TimelineEventRef ref) const
{
    if (!model_ || ref.lane < 0 || ref.lane >= model_->laneCount() || ref.lane >= int(lanes_.size()))
        return std::nullopt;
    const TimelineLane& lane = model_->lane(ref.lane);
    const LaneGeometry& g = lanes_[size_t(ref.lane)];
    if (ref.event >= lane.result().events.size() || g.stages == 0)
        return std::nullopt;
    const ScheduleEvent& e = lane.track.event(ref.event);
    if (e.stage < 0 || e.stage >= g.stages || e.kind == ScheduleEventKind::Send)
        return std::nullopt;
    const QRectF row = rowRect(g, e.stage);
    const double x0 = axis_.x(e.startSeconds), x1 = axis_.x(e.endSeconds);
    if (e.kind == ScheduleEventKind::DpSync) {
        const double bandTop = row.bottom() - std::max(1.0, std::round(row.height() * kDpBandShare));
        return QRectF(x0, bandTop, x1 - x0, row.bottom() - bandTop);
    }
    return QRectF(x0, row.top(), x1 - x0, row.height());
}

QString TimelinePainter::describe(TimelineEventRef ref) const
{
    if (!eventRect(ref))
        return {};
    const TimelineLane& lane = model_->lane(ref.lane);
    const auto& r = lane.result();
    const ScheduleEvent& e = lane.track.event(ref.event);
    const double duration = e.endSeconds - e.startSeconds;
    const double resolution = resolutionFor(duration);
    const QString span = QStringLiteral("%1 → %2 (%3)")
                             .arg(TimelineAxis::milliseconds(e.startSeconds, resolution),
                                 TimelineAxis::milliseconds(e.endSeconds, resolution), TimelineAxis::milliseconds(duration, resolution));
    const QString where = QStringLiteral("Stage %1 of %2 · %3").arg(e.stage + 1).arg(r.p).arg(TimelineModel::kindTitle(lane.kind, r.v));
    if (e.kind == ScheduleEventKind::DpSync) {
        const double hidden = r.stages[size_t(e.stage)].dpSyncHiddenSeconds;
        return QStringLiteral(
            "DP gradient sync of stage %1\n%2\n%3\nhidden under other stages' compute %4 · exposed (lengthens the step) %5")
            .arg(e.stage + 1)
            .arg(where, span, TimelineAxis::milliseconds(hidden, resolution), TimelineAxis::milliseconds(duration - hidden, resolution));
    }
    QString what = QStringLiteral("%1 · micro-batch %2").arg(kindName(e.kind, lane.kind)).arg(e.microbatch + 1);
    if (r.v > 1)
        what += QStringLiteral(" · chunk %1 of %2").arg(e.chunk + 1).arg(r.v);
    if (lane.kind == ScheduleKind::DualPipe)
        what += e.chunk == 0 ? QStringLiteral(" · enters at stage 1") : QStringLiteral(" · reverse direction, enters at stage %1").arg(r.p);
    return QStringLiteral("%1\n%2\n%3").arg(what, where, span);
}

QString TimelinePainter::toolTipAt(QPointF point) const
{
    if (const auto ref = eventAt(point))
        return describe(*ref);
    const auto at = laneAndStageAt(point);
    if (!at)
        return {};
    const auto& r = model_->lane(at->first).result();
    const double t = axis_.seconds(point.x());
    if (t < 0 || t > r.computeSeconds || r.computeSeconds <= 0)
        return {};
    const auto& stats = r.stages[size_t(at->second)];
    return QStringLiteral("Stage %1 idle (bubble) at %2\nidle %3 of the %4 compute part: %5")
        .arg(at->second + 1)
        .arg(TimelineAxis::milliseconds(t, resolutionFor(axis_.t1() - axis_.t0())))
        .arg(qs(trainplan::formatSeconds(stats.idleSeconds)), qs(trainplan::formatSeconds(r.computeSeconds)),
             percent(stats.idleSeconds / r.computeSeconds));
}
