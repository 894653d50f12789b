#include "render/charts/SearchScatterPainter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "core/plan/EnumNames.h"
#include "render/charts/ChartFrame.h"
#include "render/style/Theme.h"

namespace {

constexpr double kGB = trainplan::units::GB;  // bytes
constexpr double kSecondsPerDay = trainplan::units::secondsPerDay;

// Marker sizes in logical pixels (diameter or edge).
constexpr double kCrowd = 7, kPareto = 10, kSimplest = 14, kCurrent = 13, kSelected = 18;

QColor crowdColor() { return theme::memoryBound(); }  // light blue: the crowd
QColor paretoColor() { return theme::optimizer(); }   // amber: stands out from the crowd

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

std::vector<chartframe::LegendEntry> legendEntries()
{
    return {{QStringLiteral("Layouts that fit"), crowdColor()},
            {QStringLiteral("Pareto front"), paretoColor()},
            {QStringLiteral("Simplest"), theme::ok()},
            {QStringLiteral("Current plan"), theme::ink()},
            {QStringLiteral("Selected"), theme::capacity()}};
}

QRectF square(QPointF centre, double edge)
{
    return {centre.x() - edge / 2, centre.y() - edge / 2, edge, edge};
}

QPolygonF triangle(QPointF centre, double edge)
{
    const double h = edge * std::sqrt(3.0) / 2;
    return QPolygonF({QPointF(centre.x(), centre.y() - h * 2 / 3), QPointF(centre.x() + edge / 2, centre.y() + h / 3),
                      QPointF(centre.x() - edge / 2, centre.y() + h / 3)});
}

}  // namespace

QPointF SearchScatterPainter::pointOf(const trainplan::SearchRow& row) const
{
    return {xIsDays_ ? row.totalSeconds / kSecondsPerDay : row.stepSeconds, row.memoryBytes / kGB};
}

void SearchScatterPainter::setResult(const trainplan::SearchResult& result)
{
    result_ = result;
    selected_ = -1;
    xIsDays_ = false;
    for (const auto& r : result_.rows)
        if (r.layout.globalBatch != result_.rows.front().layout.globalBatch)
            xIsDays_ = true;
    fitRange();
}

void SearchScatterPainter::setCurrentPoint(const std::optional<QPointF>& point)
{
    current_ = point;
    fitRange();
}

void SearchScatterPainter::setSelectedRow(int row)
{
    selected_ = row >= 0 && row < int(result_.rows.size()) ? row : -1;
}

void SearchScatterPainter::setStale(bool stale)
{
    stale_ = stale;
}

QList<QPointF> SearchScatterPainter::allPoints() const
{
    QList<QPointF> all;
    for (const auto& r : result_.rows)
        all.append(pointOf(r));
    return all;
}

QList<QPointF> SearchScatterPainter::paretoPoints() const
{
    QList<QPointF> front;
    for (const auto& r : result_.rows)
        if (r.pareto)
            front.append(pointOf(r));
    // The front as a staircase read left to right: faster costs memory.
    std::sort(front.begin(), front.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    return front;
}

QList<QPointF> SearchScatterPainter::selectedPoints() const
{
    if (selected_ < 0)
        return {};
    return {pointOf(result_.rows[size_t(selected_)])};
}

QString SearchScatterPainter::xAxisTitle() const
{
    return xIsDays_ ? QStringLiteral("Predicted training days (no failures)") : QStringLiteral("Predicted step time (s)");
}

std::vector<SearchScatterPainter::Note> SearchScatterPainter::notes() const
{
    std::vector<Note> lines;
    if (stale_)
        lines.push_back({QStringLiteral("Results are for an earlier plan: search again"), theme::severity(trainplan::Severity::Warning)});
    if (result_.rows.empty() && !stale_)
        lines.push_back({QStringLiteral("Search to compare every layout; the square is the plan's own"), theme::faint()});
    if (offChart_ > 0)
        lines.push_back({QStringLiteral("%1 slower %2 beyond %3 %4 not drawn (in the table)")
                             .arg(offChart_)
                             .arg(offChart_ == 1 ? QStringLiteral("layout") : QStringLiteral("layouts"))
                             .arg(xTo_, 0, 'g', 3)
                             .arg(xIsDays_ ? QStringLiteral("days") : QStringLiteral("s")),
                         theme::faint()});
    return lines;
}

void SearchScatterPainter::fitRange()
{
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y1 = 0;
    for (const auto& r : result_.rows)
        x0 = std::min(x0, pointOf(r).x());
    // The far end of the Pareto front (deep pipelines, full sharding) can be tens of times
    // slower than the useful layouts and would squash them into one column: draw up to 2.5x
    // the fastest, and always the plan's own layout and the simplest one.
    const double limit = x0 * 2.5;
    offChart_ = 0;
    auto take = [&](const QPointF& p, bool always) {
        if (!always && p.x() > limit) {
            ++offChart_;
            return;
        }
        x0 = std::min(x0, p.x());
        x1 = std::max(x1, p.x());
        y1 = std::max(y1, p.y());
    };
    for (const auto& r : result_.rows)
        take(pointOf(r), r.simplest);
    if (current_)
        take(*current_, true);
    if (!std::isfinite(x0) || !std::isfinite(x1) || !(x1 > 0) || !std::isfinite(y1)) {
        xFrom_ = 0;
        xTo_ = 1;
        yTop_ = 80;
        return;
    }
    // Zero-based memory (GB are compared with the capacity); time padded so edge markers show.
    // A lone point (before a search: only the plan) gets +-20 % around it, not a sliver.
    const double dx = x1 - x0;
    xFrom_ = dx < 0.1 * x1 ? x0 * 0.8 : std::max(0.0, x0 - dx * 0.06);
    xTo_ = dx < 0.1 * x1 ? x1 * 1.2 : x1 + dx * 0.06;
    yTop_ = y1 > 0 ? y1 * 1.1 : 80;
}

SearchScatterPainter::Geometry SearchScatterPainter::geometryFor(const QRectF& rect, double scale) const
{
    using namespace chartframe;
    Geometry g;
    const QRectF area = rect.adjusted(6 * scale, 4 * scale, -10 * scale, -4 * scale);
    const QFontMetricsF fm(labelFont(scale));
    const double lineH = fm.height();

    double notesH = 0;
    for (const Note& n : notes())
        notesH += fm.boundingRect(QRectF(0, 0, area.width(), 1e6), Qt::TextWordWrap, n.text).height();
    g.notes = QRectF(area.left(), area.top(), area.width(), notesH);
    const double legendH = legendHeight(legendEntries(), area.width(), scale);
    g.legend = QRectF(area.left(), g.notes.bottom() + (notesH > 0 ? 4 * scale : 0), area.width(), legendH);

    const double top = g.legend.bottom() + 8 * scale;
    const double bottom = area.bottom() - (2 * lineH + 6 * scale);  // tick labels, then the axis title
    const double plotH = bottom - top;
    // Round ticks, about one per 45 pixels up and one per 90 across.
    const int yTicks = std::max(2, int(plotH / (45 * scale)));
    g.yStep = tickStep(yTop_, yTicks);
    g.yEnd = axisEnd(yTop_, yTicks);
    double labelW = 0;
    for (double v = 0; v <= g.yEnd + g.yStep * 1e-6; v += g.yStep)
        labelW = std::max(labelW, fm.horizontalAdvance(tickLabel(v, g.yStep)));
    const double left = area.left() + lineH + 4 * scale + labelW + 6 * scale;  // the rotated title, the labels
    g.plot = QRectF(left, top, area.right() - left, plotH);
    g.xStep = tickStep(xTo_ - xFrom_, std::max(2, int(g.plot.width() / (90 * scale))));
    return g;
}

QRectF SearchScatterPainter::plotArea(const QRectF& rect, double scale) const
{
    return geometryFor(rect, scale).plot;
}

QPointF SearchScatterPainter::toPosition(const Geometry& g, const QPointF& value) const
{
    const QRectF& plot = g.plot;
    return {plot.left() + (value.x() - xFrom_) / (xTo_ - xFrom_) * plot.width(), plot.bottom() - value.y() / g.yEnd * plot.height()};
}

QPointF SearchScatterPainter::positionOf(const QPointF& value, const QRectF& rect, double scale) const
{
    return toPosition(geometryFor(rect, scale), value);
}

int SearchScatterPainter::rowAt(QPointF position, double radius, const QRectF& rect, double scale) const
{
    const Geometry g = geometryFor(rect, scale);
    if (g.plot.width() <= 0 || g.plot.height() <= 0)
        return -1;
    // Picked by screen distance among the drawn points: markers drawn on top (current,
    // selected) must not hide the layouts under them.
    int best = -1;
    double bestDistance = radius;
    for (size_t i = 0; i < result_.rows.size(); ++i) {
        const QPointF v = pointOf(result_.rows[i]);
        if (v.x() > xTo_)
            continue;  // beyond the drawn range
        const QPointF p = toPosition(g, v);
        const double d = std::hypot(p.x() - position.x(), p.y() - position.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = int(i);
        }
    }
    return best;
}

QString SearchScatterPainter::toolTipAt(QPointF position, const QRectF& rect, double scale) const
{
    const int row = rowAt(position, 8 * scale, rect, scale);
    if (row >= 0) {
        const auto& r = result_.rows[size_t(row)];
        const auto& l = r.layout;
        QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(trainplan::parallelSizesText(l, " · ")));
        text += QStringLiteral("<br>%1 schedule, %2 virtual stage(s), micro-batch %3, ZeRO %4, recompute %5, SP %6")
                    .arg(QString::fromLatin1(trainplan::nameOf(trainplan::kScheduleNames, l.schedule)))
                    .arg(l.virtualStages)
                    .arg(l.microBatch)
                    .arg(l.zeroStage)
                    .arg(QString::fromLatin1(trainplan::nameOf(trainplan::kRecomputeNames, l.recompute)))
                    .arg(l.sequenceParallel ? QStringLiteral("on") : QStringLiteral("off"));
        const QString mfu = fromStd(trainplan::formatPercent(r.mfu)) + (mfuBasisNote_.isEmpty() ? QString() : QLatin1Char(' ') + mfuBasisNote_);
        text += QStringLiteral("<br>step %1 · MFU %2 · %3 per GPU (%4 free)")
                    .arg(fromStd(trainplan::formatSeconds(r.stepSeconds)), mfu,
                         fromStd(trainplan::formatBytes(r.memoryBytes)), fromStd(trainplan::formatBytes(r.headroomBytes)));
        text += QStringLiteral("<br>global batch %1 sequences · run %2 (no failures)")
                    .arg(fromStd(trainplan::formatInteger(double(l.globalBatch))), fromStd(trainplan::formatSeconds(r.totalSeconds)));
        QStringList flags;
        if (r.pareto)
            flags << QStringLiteral("on the Pareto front");
        if (r.simplest)
            flags << QStringLiteral("the simplest layout");
        // The memory verdict (MemoryFit.h) and the layout's red flags, as the table words them.
        if (r.memoryFit != trainplan::MemoryFit::Fits)
            flags << QString::fromLatin1(trainplan::memoryFitName(r.memoryFit));
        for (int code = 0; code < trainplan::kWarningCodeCount; ++code)
            if (r.redFlags & trainplan::warningBit(trainplan::WarningCode(code)))
                flags << QString::fromLatin1(trainplan::codeName(trainplan::WarningCode(code)));
        if (!flags.isEmpty())
            text += QStringLiteral("<br>") + flags.join(QStringLiteral(", "));
        return text + QStringLiteral("<br><i>Click to select; Apply puts it on the plan.</i>");
    }
    if (current_) {
        const QPointF p = positionOf(*current_, rect, scale);
        if (std::hypot(p.x() - position.x(), p.y() - position.y()) <= kCurrent * scale / 2 + 2 * scale)
            return QStringLiteral("<b>Current plan</b>: %1 %2, %3 GB per GPU")
                .arg(current_->x(), 0, 'g', 3)
                .arg(xIsDays_ ? QStringLiteral("days") : QStringLiteral("s per step"))
                .arg(current_->y(), 0, 'f', 1);
    }
    return {};
}

void SearchScatterPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    const Geometry g = geometryFor(rect, scale);
    if (g.plot.width() < 40 * scale || g.plot.height() < 20 * scale || !(xTo_ > xFrom_))
        return;
    p.save();
    const QFont label = labelFont(scale);
    p.setFont(label);
    const QFontMetricsF fm(label);
    const double lineH = fm.height();

    double y = g.notes.top();
    for (const Note& n : notes()) {
        const QRectF box = fm.boundingRect(QRectF(g.notes.left(), y, g.notes.width(), 1e6), Qt::TextWordWrap, n.text);
        p.setPen(n.color);
        p.drawText(QRectF(g.notes.left(), y, g.notes.width(), box.height()), Qt::AlignHCenter | Qt::TextWordWrap, n.text);
        y += box.height();
    }
    paintLegend(p, g.legend, legendEntries(), scale);

    const QRectF& plot = g.plot;
    const auto toPosition = [&](const QPointF& v) { return this->toPosition(g, v); };

    // Grid and axes: memory from zero, time over the drawn range.
    for (double v = 0; v <= g.yEnd + g.yStep * 1e-6; v += g.yStep) {
        const double py = toPosition({xFrom_, v}).y();
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
        p.setPen(theme::muted());
        p.drawText(QRectF(plot.left() - 200 * scale - 6 * scale, py - lineH / 2, 200 * scale, lineH), Qt::AlignRight | Qt::AlignVCenter,
                   tickLabel(v, g.yStep));
    }
    for (double v = std::ceil(xFrom_ / g.xStep - 1e-9) * g.xStep; v <= xTo_ + g.xStep * 1e-6; v += g.xStep) {
        const double px = toPosition({v, 0}).x();
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
        p.setPen(theme::muted());
        p.drawText(QRectF(px - 45 * scale, plot.bottom() + 2 * scale, 90 * scale, lineH), Qt::AlignCenter, tickLabel(v, g.xStep));
    }
    p.setPen(QPen(theme::border(), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    p.setPen(theme::inkSoft());
    p.drawText(QRectF(plot.left(), plot.bottom() + lineH + 4 * scale, plot.width(), lineH), Qt::AlignCenter, xAxisTitle());
    p.save();
    p.translate(rect.left() + 6 * scale, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, 0, plot.height(), lineH), Qt::AlignCenter, QStringLiteral("GB per GPU"));
    p.restore();

    // Points: the crowd under the front, markers on top; beyond the range nothing is drawn.
    p.setRenderHint(QPainter::Antialiasing, true);  // round markers; a few hundred points at most
    p.setClipRect(plot.adjusted(-kSelected * scale / 2, -kSelected * scale / 2, kSelected * scale / 2, kSelected * scale / 2));
    const auto drawn = [&](const QPointF& v) { return v.x() >= xFrom_ && v.x() <= xTo_; };
    p.setPen(QPen(crowdColor().darker(130), 1));
    p.setBrush(crowdColor());
    for (const auto& r : result_.rows)
        if (!r.pareto && drawn(pointOf(r)))
            p.drawEllipse(toPosition(pointOf(r)), kCrowd * scale / 2, kCrowd * scale / 2);
    const QList<QPointF> front = paretoPoints();
    QPolygonF line;
    for (const QPointF& v : front)
        line << toPosition(v);
    p.save();
    p.setClipRect(plot);  // the line to slower layouts stops at the plot's edge
    p.setPen(QPen(paretoColor().darker(120), 1.5 * scale));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
    p.restore();
    p.setPen(QPen(paretoColor().darker(150), 1));
    p.setBrush(paretoColor());
    for (const QPointF& v : front)
        if (drawn(v))
            p.drawEllipse(toPosition(v), kPareto * scale / 2, kPareto * scale / 2);
    p.setPen(QPen(theme::ok().darker(150), 1));
    p.setBrush(theme::ok());
    for (const auto& r : result_.rows)
        if (r.simplest)
            p.drawPolygon(triangle(toPosition(pointOf(r)), kSimplest * scale));
    p.setBrush(Qt::NoBrush);
    if (current_) {
        p.setPen(QPen(theme::ink(), 2.5 * scale));
        p.drawRect(square(toPosition(*current_), kCurrent * scale));
    }
    if (selected_ >= 0) {
        p.setPen(QPen(theme::capacity(), 2.5 * scale));
        p.drawEllipse(toPosition(pointOf(result_.rows[size_t(selected_)])), kSelected * scale / 2, kSelected * scale / 2);
    }
    p.restore();
}
