#include "render/timeline/InFlightChartPainter.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

#include "render/timeline/TimelineModel.h"

namespace {

constexpr double kPadding = 8;

// "4", "5.5", "79.8", "1,024": micro-batch counts, no trailing zeros, no exponents.
QString number(double value)
{
    const int decimals = value == std::round(value) ? 0 : std::abs(value) < 10 ? 2 : 1;
    QString text = QLocale(QLocale::English).toString(value, 'f', decimals);
    if (decimals > 0) {
        while (text.endsWith('0'))
            text.chop(1);
        if (text.endsWith('.'))
            text.chop(1);
    }
    return text;
}

}  // namespace

void InFlightChartPainter::chooseCurves()
{
    curves_.clear();
    if (!model_)
        return;
    if (model_->laneCount() > 1) {
        for (int i = 0; i < model_->laneCount(); ++i) {
            const TimelineLane& lane = model_->lane(i);
            if (lane.simulated() && lane.inFlight.stageCount() > 0)
                curves_.push_back(
                    {i, 0, style_.kindColor(lane.kind), TimelineModel::kindShortTitle(lane.kind, lane.v), lane.inFlight.peak(0)});
        }
        return;
    }
    if (model_->laneCount() == 0 || !model_->lane(0).simulated())
        return;
    const TimelineLane& lane = model_->lane(0);
    const int p = lane.inFlight.stageCount();
    // At most kMaxStageLines stages, spread evenly, always the first and the last.
    const int shown = std::min(p, kMaxStageLines);
    for (int k = 0; k < shown; ++k) {
        const int stage = shown > 1 ? int(std::lround(double(k) * (p - 1) / (shown - 1))) : 0;
        curves_.push_back(
            {0, stage, TimelineStyle::stageColor(stage, p), QStringLiteral("Stage %1").arg(stage + 1), lane.inFlight.peak(stage)});
    }
}

double InFlightChartPainter::yFor(double value) const
{
    return plot_.bottom() - value / yMax_ * plot_.height();
}

void InFlightChartPainter::paint(QPainter& p, const QRectF& target, const TimelineAxis& axis)
{
    axis_ = axis;
    chooseCurves();
    p.save();
    p.fillRect(target, style_.background);
    const QFontMetricsF titleMetrics(style_.titleFont), labelMetrics(style_.labelFont);
    const bool comparing = model_ && model_->laneCount() > 1;
    title_ = comparing ? QStringLiteral("Activations in flight on stage 1, in micro-batches (peak)")
                       : QStringLiteral("Activations in flight per stage, in micro-batches (peak)");
    if (!comparing && model_ && model_->laneCount() == 1 && int(curves_.size()) < model_->lane(0).inFlight.stageCount())
        title_ += QStringLiteral(" · %1 of %2 stages").arg(curves_.size()).arg(model_->lane(0).inFlight.stageCount());
    const double titleTop = target.top() + 2;
    p.setFont(style_.titleFont);
    p.setPen(style_.text);
    const double titleWidth = titleMetrics.horizontalAdvance(title_);
    p.drawText(QRectF(target.left() + kPadding, titleTop, titleWidth + 2, titleMetrics.height()), Qt::AlignLeft | Qt::AlignVCenter, title_);

    // Legend after the title, one entry per curve with its peak. Short of room, entries go
    // from the middle out, so the first and the last stage stay named.
    p.setFont(style_.labelFont);
    const double swatch = 14;
    const auto entryText = [](const Curve& c) { return QStringLiteral("%1: %2").arg(c.name, number(c.peak)); };
    std::vector<size_t> entries(curves_.size());
    for (size_t i = 0; i < entries.size(); ++i)
        entries[i] = i;
    const auto entryWidth = [&](size_t i) { return swatch + 4 + labelMetrics.horizontalAdvance(entryText(curves_[i])) + 14; };
    const double legendLeft = target.left() + kPadding + titleWidth + 18;
    const auto legendWidth = [&] {
        double w = 0;
        for (size_t i : entries)
            w += entryWidth(i);
        return w;
    };
    while (!entries.empty() && legendLeft + legendWidth() > target.right() - kPadding)
        entries.erase(entries.begin() + std::ptrdiff_t(entries.size() / 2));
    double x = legendLeft;
    for (size_t i : entries) {
        const Curve& c = curves_[i];
        const double y = titleTop + titleMetrics.height() / 2;
        p.setPen(QPen(c.color, 2));
        p.drawLine(QLineF(x, y, x + swatch, y));
        p.setPen(style_.text);
        p.drawText(QRectF(x + swatch + 4, titleTop, entryWidth(i), titleMetrics.height()), Qt::AlignLeft | Qt::AlignVCenter, entryText(c));
        x += entryWidth(i);
    }

    plot_ = QRectF(QPointF(axis.left(), titleTop + titleMetrics.height() + 8), QPointF(axis.right(), target.bottom() - kPadding));
    if (curves_.empty() || plot_.height() < 10 || !axis.isValid()) {
        p.restore();
        return;
    }
    double top = 0;
    for (const Curve& c : curves_)
        top = std::max(top, c.peak);
    // The y range's top: a round number whose half is round too, so a peak of 5.5 gets 6
    // (ticks 0, 3, 6) rather than 10.
    yMax_ = TimelineAxis::roundUp(top, {1.0, 1.2, 1.6, 2.0, 2.4, 3.0, 4.0, 5.0, 6.0, 8.0});
    // Counts of whole micro-batches (no interleaving) get whole ticks: the top is a whole
    // number, even above 1 so that its half is whole too (0, 3, 6; a peak of 1 gets 0 and 1).
    bool whole = true;
    for (const Curve& c : curves_)
        whole = whole && model_->lane(c.lane).v <= 1;
    if (whole) {
        yMax_ = std::max(1.0, std::ceil(yMax_ - 1e-9));
        if (yMax_ > 1 && std::fmod(yMax_, 2.0) != 0)
            yMax_ += 1;
    }
    yTicks_ = whole && yMax_ == 1 ? std::vector<double>{0.0, 1.0} : std::vector<double>{0.0, yMax_ / 2, yMax_};

    // Grid: the timeline's ticks across, 0, half and the top of the range up.
    p.setPen(style_.grid);
    for (double t : axis.ticks())
        p.drawLine(QLineF(axis.x(t), plot_.top(), axis.x(t), plot_.bottom()));
    for (double value : yTicks_) {
        const double y = yFor(value);
        p.setPen(value == 0 ? style_.axis : style_.grid);
        p.drawLine(QLineF(plot_.left(), y, plot_.right(), y));
        p.setPen(style_.mutedText);
        p.drawText(QRectF(target.left(), y - labelMetrics.height() / 2, plot_.left() - 6 - target.left(), labelMetrics.height()),
                   Qt::AlignRight | Qt::AlignVCenter, number(value));
    }

    // One point per pixel column: a column's lowest and highest value as a vertical run,
    // so a million steps cost a few thousand points and no step is lost.
    // A flat stretch of many columns becomes one segment: the count is a step function, flat
    // almost everywhere, and the antialiased line costs per point.
    const int count = std::max(1, int(std::ceil(plot_.width())));
    const double columnWidth = plot_.width() / count;
    QPolygonF line;
    const auto append = [&line](QPointF point) {
        const qsizetype n = line.size();
        if (n >= 1 && line[n - 1] == point)
            return;
        if (n >= 2 && line[n - 1].y() == point.y() && line[n - 2].y() == point.y())
            line[n - 1] = point;  // the same level continues: stretch the last segment
        else
            line << point;
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const Curve& c : curves_) {
        model_->lane(c.lane).inFlight.columns(c.stage, axis.t0(), axis.t1(), count, columns_);
        line.clear();
        for (int i = 0; i < count; ++i) {
            const auto& col = columns_[size_t(i)];
            const double cx = plot_.left() + i * columnWidth;
            append(QPointF(cx, yFor(col.first)));
            if (col.high != col.low) {
                append(QPointF(cx + columnWidth / 2, yFor(col.high)));
                append(QPointF(cx + columnWidth / 2, yFor(col.low)));
            }
            append(QPointF(cx + columnWidth, yFor(col.last)));
        }
        // Width 1: the raster engine's cosmetic line path. A wider pen goes through the
        // general stroker and cost 50 ms for eight curves of a p = 64, m = 1,024 step.
        p.setPen(QPen(c.color, 1));
        p.drawPolyline(line);
    }
    p.restore();
}

QString InFlightChartPainter::toolTipAt(QPointF point) const
{
    if (!model_ || curves_.empty() || !plot_.contains(point))
        return {};
    const double t = axis_.seconds(point.x());
    QStringList lines{
        QStringLiteral("At %1, micro-batches of activations held:").arg(TimelineAxis::milliseconds(t, (axis_.t1() - axis_.t0()) / 1000))};
    for (const Curve& c : curves_) {
        const auto& series = model_->lane(c.lane).inFlight;
        lines << QStringLiteral("%1: %2 (peak %3)").arg(c.name, number(series.valueAt(c.stage, t)), number(c.peak));
    }
    lines << QStringLiteral("+1/v when a chunk's forward starts, −1/v when its backward (ZB-H1: W) ends");
    return lines.join('\n');
}
