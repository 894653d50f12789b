#include "search/SearchScatter.h"

#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/ChartStyle.h"
#include "style/Fonts.h"
#include "style/Theme.h"

namespace {

constexpr double kGB = 1e9;

double niceStep(double span, int ticks)
{
    const double raw = std::max(span, 1e-12) / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10 * magnitude;
}

// Range and tick interval together. Qt Charts makes a graphics item per tick at once: a new
// range under the old interval (seconds to days, or back) can mean thousands of items and
// seconds of work, so the coarser of the two intervals holds while the range changes.
void setAxis(QValueAxis* axis, double from, double to, double interval)
{
    axis->setTickInterval(std::max(axis->tickInterval(), interval));
    axis->setRange(from, to);
    axis->setTickInterval(interval);
}

QColor others() { return theme::memoryBound(); }  // light blue: the crowd
QColor paretoColor() { return theme::optimizer(); }  // amber: stands out from the crowd

}  // namespace

SearchScatter::SearchScatter(QWidget* parent)
    : QChartView(parent)
    , others_(new QScatterSeries)
    , pareto_(new QScatterSeries)
    , paretoLine_(new QLineSeries)
    , simplest_(new QScatterSeries)
    , current_(new QScatterSeries)
    , selected_(new QScatterSeries)
    , xAxis_(new QValueAxis)
    , yAxis_(new QValueAxis)
{
    others_->setName(tr("Layouts that fit"));
    others_->setMarkerSize(7);
    others_->setColor(others());
    others_->setBorderColor(others().darker(130));
    pareto_->setName(tr("Pareto front"));
    pareto_->setMarkerSize(10);
    pareto_->setColor(paretoColor());
    pareto_->setBorderColor(paretoColor().darker(150));
    paretoLine_->setPen(QPen(paretoColor().darker(120), 1.5));
    simplest_->setName(tr("Simplest"));
    simplest_->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    simplest_->setMarkerSize(14);
    simplest_->setColor(theme::ok());
    simplest_->setBorderColor(theme::ok().darker(150));
    current_->setName(tr("Current plan"));
    current_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    current_->setMarkerSize(13);
    current_->setColor(Qt::transparent);
    current_->setPen(QPen(theme::ink(), 2.5));
    selected_->setName(tr("Selected"));
    selected_->setMarkerSize(18);
    selected_->setColor(Qt::transparent);
    selected_->setPen(QPen(theme::capacity(), 2.5));

    auto* chart = new QChart;
    // Drawn in this order: the crowd under the front, markers on top.
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{others_, paretoLine_, pareto_, simplest_, current_, selected_})
        chart->addSeries(s);
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    // The joining line explains itself through the Pareto markers; keep it out of the legend.
    chart->legend()->markers(paretoLine_).first()->setVisible(false);
    yAxis_->setTitleText(tr("GB per GPU"));
    for (QValueAxis* axis : {xAxis_, yAxis_}) {
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0);
        axis->setLabelFormat("%g");
    }
    xAxis_->setTitleText(tr("Predicted step time (s)"));
    chartstyle::apply(chart, this);
    chart->setTitleFont(fonts::pixels(11));
    setRenderHint(QPainter::Antialiasing, true);  // round markers; a few hundred points at most
    setMinimumSize(320, 240);

    fitAxes();
}

QPointF SearchScatter::pointOf(const trainplan::SearchRow& row) const
{
    return {xIsDays_ ? row.totalSeconds / 86400.0 : row.stepSeconds, row.memoryBytes / kGB};
}

void SearchScatter::setResult(const trainplan::SearchResult& result)
{
    result_ = result;
    xIsDays_ = false;
    for (const auto& r : result_.rows)
        if (r.layout.globalBatch != result_.rows.front().layout.globalBatch)
            xIsDays_ = true;
    xAxis_->setTitleText(xIsDays_ ? tr("Predicted training days (no failures)") : tr("Predicted step time (s)"));

    QList<QPointF> crowd, front, simplest;
    for (const auto& r : result_.rows) {
        (r.pareto ? front : crowd).append(pointOf(r));
        if (r.simplest)
            simplest.append(pointOf(r));
    }
    // The front as a staircase read left to right: faster costs memory.
    std::sort(front.begin(), front.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    others_->replace(crowd);
    pareto_->replace(front);
    paretoLine_->replace(front);
    simplest_->replace(simplest);
    selected_->clear();
    fitAxes();
}

void SearchScatter::setCurrentPoint(const std::optional<QPointF>& point)
{
    if (point)
        current_->replace(QList<QPointF>{*point});
    else
        current_->clear();
    fitAxes();
}

void SearchScatter::setSelectedRow(int row)
{
    if (row < 0 || row >= int(result_.rows.size()))
        selected_->clear();
    else
        selected_->replace(QList<QPointF>{pointOf(result_.rows[size_t(row)])});
}

void SearchScatter::setStale(bool stale)
{
    stale_ = stale;
    updateTitle();
}

void SearchScatter::updateTitle()
{
    QStringList lines;
    if (stale_)
        lines << tr("<font color='%1'>Results are for an earlier plan: search again</font>").arg(theme::severity(trainplan::Severity::Warning).name());
    if (result_.rows.empty() && !stale_)
        lines << tr("<font color='@faint'>Search to compare every layout; the square is the plan's own</font>");
    if (offChart_ > 0)
        lines << tr("<font color='@faint'>%n slower layout(s) beyond %1 %2 not drawn (in the table)</font>", nullptr, offChart_)
                     .arg(xAxis_->max(), 0, 'g', 3)
                     .arg(xIsDays_ ? tr("days") : tr("s"));
    chart()->setTitle(theme::styled(lines.join(QStringLiteral("<br>"))));
}

void SearchScatter::fitAxes()
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
    if (current_->count() > 0)
        take(current_->at(0), true);
    if (!std::isfinite(x0) || !(x1 > 0)) {
        setAxis(xAxis_, 0, 1, 0.2);
        setAxis(yAxis_, 0, 80, 20);
        updateTitle();
        return;
    }
    // Zero-based memory (GB are compared with the capacity); time padded so edge markers show.
    const double dx = x1 - x0;
    // A lone point (before a search: only the plan) gets +-20 % around it, not a sliver.
    const double xFrom = dx < 0.1 * x1 ? x0 * 0.8 : std::max(0.0, x0 - dx * 0.06);
    const double xTo = dx < 0.1 * x1 ? x1 * 1.2 : x1 + dx * 0.06;
    const double yTo = y1 * 1.1;
    // Dynamic ticks at round values, about one per 90 pixels. The plot's size is estimated from
    // the view's (plotArea() lags a resize until the next layout).
    const bool legendRight = chart()->legend()->alignment() == Qt::AlignRight;
    const double plotWidth = width() - 90 - (legendRight ? 150 : 0);
    const double plotHeight = height() - 90 - (legendRight ? 0 : 30);
    setAxis(xAxis_, xFrom, xTo, niceStep(xTo - xFrom, std::max(2, int(plotWidth / 90))));
    setAxis(yAxis_, 0, yTo, niceStep(yTo, std::max(2, int(plotHeight / 45))));
    updateTitle();
}

QList<QPointF> SearchScatter::allPoints() const
{
    QList<QPointF> all;
    for (const auto& r : result_.rows)
        all.append(pointOf(r));
    return all;
}

QList<QPointF> SearchScatter::paretoPoints() const
{
    return pareto_->points();
}

QList<QPointF> SearchScatter::selectedPoints() const
{
    return selected_->points();
}

std::optional<QPointF> SearchScatter::currentPoint() const
{
    if (current_->count() == 0)
        return std::nullopt;
    return current_->at(0);
}

QPointF SearchScatter::positionOf(const QPointF& value) const
{
    return mapFromScene(chart()->mapToScene(chart()->mapToPosition(value, others_)));
}

int SearchScatter::rowAt(const QPoint& position, double radius) const
{
    // Picked by screen distance, not through the series' own clicked signals: the marker
    // series drawn on top (current, selected) would swallow clicks on the points under them.
    int best = -1;
    double bestDistance = radius;
    for (size_t i = 0; i < result_.rows.size(); ++i) {
        const QPointF p = positionOf(pointOf(result_.rows[i]));
        const double d = std::hypot(p.x() - position.x(), p.y() - position.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = int(i);
        }
    }
    return best;
}

void SearchScatter::mouseReleaseEvent(QMouseEvent* event)
{
    QChartView::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton)
        return;
    const int row = rowAt(event->position().toPoint(), 10);
    if (row >= 0)
        emit rowClicked(row);
}

void SearchScatter::resizeEvent(QResizeEvent* event)
{
    // Wide and flat (stacked under the table): the legend beside the plot leaves it its height;
    // otherwise under it, leaving the plot its width.
    chart()->legend()->setAlignment(width() > 2.2 * height() ? Qt::AlignRight : Qt::AlignBottom);
    QChartView::resizeEvent(event);
    fitAxes();  // tick spacing follows the plot's size
}
