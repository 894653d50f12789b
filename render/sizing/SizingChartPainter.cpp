#include "render/sizing/SizingChartPainter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/Format.h"
#include "render/charts/ChartFrame.h"
#include "render/style/Theme.h"

namespace {

double costOf(const trainplan::SizingResult& r, const trainplan::SizingPoint& p)
{
    return r.costInDollars ? p.usd.value_or(0) : p.gpuHours;
}

// Ticks of a logarithmic axis: 1, 2, 5 times powers of ten within [lo, hi]; every integer
// multiple when that leaves fewer than three (a narrow range, as the cost axis often is).
std::vector<double> logTicks(double lo, double hi)
{
    std::vector<double> ticks;
    for (const auto& multiples : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}}) {
        ticks.clear();
        for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10)
            for (double m : multiples)
                if (m * decade >= lo && m * decade <= hi)
                    ticks.push_back(m * decade);
        if (ticks.size() >= 3)
            break;
    }
    return ticks;
}

QString costLabel(const trainplan::SizingResult& r, double v)
{
    return QString::fromStdString(r.costInDollars ? "$" + trainplan::formatCount(v) : trainplan::formatCount(v));
}

}  // namespace

QColor SizingChartPainter::acceleratorColor(int index)
{
    return theme::series(index);
}

void SizingChartPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    drawn_.clear();
    if (!result_)
        return;
    const trainplan::SizingResult& r = *result_;
    drawn_.assign(r.points.size(), QPointF(std::numeric_limits<double>::quiet_NaN(), 0));
    std::vector<std::string> accelerators;
    double dLo = r.deadlineDays, dHi = r.deadlineDays, cLo = std::numeric_limits<double>::max(), cHi = 0;
    for (const auto& pt : r.points) {
        if (std::find(accelerators.begin(), accelerators.end(), pt.accelerator) == accelerators.end())
            accelerators.push_back(pt.accelerator);
        if (!pt.usable || !(costOf(r, pt) > 0))
            continue;
        dLo = std::min(dLo, pt.daysLow);
        dHi = std::max(dHi, pt.daysHigh);
        cLo = std::min(cLo, costOf(r, pt));
        cHi = std::max(cHi, costOf(r, pt));
    }
    if (r.budgetUsd && r.costInDollars) {
        cLo = std::min(cLo, *r.budgetUsd);
        cHi = std::max(cHi, *r.budgetUsd);
    }
    if (!(cHi > 0) || !(dLo > 0)) {
        return;
    }
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    std::vector<LegendEntry> legend;
    for (size_t i = 0; i < accelerators.size(); ++i)
        legend.push_back({QString::fromStdString(accelerators[i]), acceleratorColor(int(i))});
    legend.push_back({QStringLiteral("Deadline %1 days").arg(QString::fromStdString(trainplan::formatNumber(r.deadlineDays))), theme::capacity(), true});
    if (r.budgetUsd && r.costInDollars)
        legend.push_back({QStringLiteral("Budget %1").arg(costLabel(r, *r.budgetUsd)), theme::severity(trainplan::Severity::Warning), true});
    QRectF area = rect.adjusted(4 * scale, 4 * scale, -4 * scale, -4 * scale);
    area.setTop(area.top() + paintLegend(p, area, legend, scale) + 6 * scale);

    // Log axes with a little room around the data.
    const double xLo = dLo / 1.15, xHi = dHi * 1.15, yLo = cLo / 1.15, yHi = cHi * 1.15;
    const QFont label = labelFont(scale);
    p.setFont(label);
    const QFontMetricsF fm(label, p.device());
    const double lineH = fm.height();
    const std::vector<double> yTicks = logTicks(yLo, yHi), xTicks = logTicks(xLo, xHi);
    double tickW = 0;
    for (double t : yTicks)
        tickW = std::max(tickW, fm.horizontalAdvance(costLabel(r, t)));
    const QRectF plot = area.adjusted(lineH + tickW + 10 * scale, 2 * scale, -8 * scale, -(2 * lineH + 8 * scale));
    if (plot.width() < 40 || plot.height() < 40) {
        p.restore();
        return;
    }
    const auto xOf = [&](double d) { return plot.left() + std::log(d / xLo) / std::log(xHi / xLo) * plot.width(); };
    const auto yOf = [&](double c) { return plot.bottom() - std::log(c / yLo) / std::log(yHi / yLo) * plot.height(); };
    for (double t : yTicks) {
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(plot.left(), yOf(t)), QPointF(plot.right(), yOf(t)));
        p.setPen(theme::muted());
        p.drawText(QRectF(plot.left() - tickW - 6 * scale, yOf(t) - lineH / 2, tickW, lineH), Qt::AlignRight | Qt::AlignVCenter, costLabel(r, t));
    }
    for (double t : xTicks) {
        p.setPen(QPen(theme::gridLine(), 1));
        p.drawLine(QPointF(xOf(t), plot.top()), QPointF(xOf(t), plot.bottom()));
        p.setPen(theme::muted());
        p.drawText(QRectF(xOf(t) - 30 * scale, plot.bottom() + 2 * scale, 60 * scale, lineH), Qt::AlignCenter,
            QString::fromStdString(trainplan::formatNumber(t)));
    }
    p.setPen(theme::muted());
    p.drawText(QRectF(plot.left(), plot.bottom() + lineH + 4 * scale, plot.width(), lineH), Qt::AlignCenter,
        QStringLiteral("days, predicted, with failures (log scale)"));
    p.save();
    p.translate(area.left() + lineH / 2, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -lineH / 2, plot.height(), lineH), Qt::AlignCenter,
        r.costInDollars ? QStringLiteral("cost with failures, USD (log)") : QStringLiteral("GPU-hours with failures (log)"));
    p.restore();

    // Deadline and budget.
    p.setPen(QPen(theme::capacity(), 1.5 * scale, Qt::DashLine));
    p.drawLine(QPointF(xOf(r.deadlineDays), plot.top()), QPointF(xOf(r.deadlineDays), plot.bottom()));
    if (r.budgetUsd && r.costInDollars) {
        p.setPen(QPen(theme::severity(trainplan::Severity::Warning), 1.5 * scale, Qt::DashLine));
        p.drawLine(QPointF(plot.left(), yOf(*r.budgetUsd)), QPointF(plot.right(), yOf(*r.budgetUsd)));
    }

    const QFont valueF = valueFont(scale);
    const QFontMetricsF vfm(valueF, p.device());
    for (size_t a = 0; a < accelerators.size(); ++a) {
        const QColor color = acceleratorColor(int(a));
        // The front, joined in order of days.
        std::vector<const trainplan::SizingPoint*> front;
        for (const auto& pt : r.points)
            if (pt.accelerator == accelerators[a] && pt.pareto)
                front.push_back(&pt);
        std::sort(front.begin(), front.end(), [](auto* x, auto* y) { return x->days < y->days; });
        if (front.size() > 1) {
            QPainterPath path(QPointF(xOf(front.front()->days), yOf(costOf(r, *front.front()))));
            for (size_t i = 1; i < front.size(); ++i)
                path.lineTo(QPointF(xOf(front[i]->days), yOf(costOf(r, *front[i]))));
            p.setPen(QPen(color, 1.5 * scale));
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
        }
        for (size_t i = 0; i < r.points.size(); ++i) {
            const auto& pt = r.points[i];
            if (pt.accelerator != accelerators[a] || !pt.usable || !(costOf(r, pt) > 0))
                continue;
            const QPointF c(xOf(pt.days), yOf(costOf(r, pt)));
            drawn_[i] = c;
            // The day range as a faint whisker.
            p.setPen(QPen(QColor(color.red(), color.green(), color.blue(), 90), 1 * scale));
            p.drawLine(QPointF(xOf(pt.daysLow), c.y()), QPointF(xOf(pt.daysHigh), c.y()));
            const double radius = (pt.pareto ? 4.0 : 3.0) * scale;
            p.setPen(QPen(color.darker(120), 1 * scale));
            p.setBrush(pt.pareto ? color : QColor(255, 255, 255));
            p.drawEllipse(c, radius, radius);
            if (pt.pareto) {
                // Label the front with GPU counts where there is room.
                p.setFont(valueF);
                p.setPen(theme::inkSoft());
                p.drawText(QRectF(c.x() + radius + 2 * scale, c.y() - vfm.height(), 60 * scale, vfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                    QString::fromStdString(trainplan::formatInteger(pt.gpus)));
            }
            if (pt.knee) {
                p.setPen(QPen(theme::ink(), 1.2 * scale));
                p.setBrush(Qt::NoBrush);
                p.drawRect(QRectF(c.x() - radius - 3 * scale, c.y() - radius - 3 * scale, 2 * radius + 6 * scale, 2 * radius + 6 * scale));
            }
        }
    }
    if (r.cheapest) {
        const auto& pt = r.points[*r.cheapest];
        const QPointF c = drawn_[*r.cheapest];
        if (std::isfinite(c.x())) {
            p.setPen(QPen(theme::ok(), 2.5 * scale));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(c, 9 * scale, 9 * scale);
            const QString text = QStringLiteral("cheapest on time: %1 %2").arg(QString::fromStdString(trainplan::formatInteger(pt.gpus)),
                QString::fromStdString(pt.accelerator));
            p.setFont(valueF);
            const double w = vfm.horizontalAdvance(text) + 8 * scale;
            QRectF box(c.x() - w / 2, c.y() + 12 * scale, w, vfm.height() + 2 * scale);
            box.moveLeft(std::clamp(box.left(), plot.left(), plot.right() - w));
            p.setPen(Qt::NoPen);
            p.setBrush(QColor(255, 255, 255, 225));
            p.drawRect(box);
            p.setPen(theme::ok().darker(130));
            p.drawText(box, Qt::AlignCenter, text);
        }
    }
    p.restore();
}

QPointF SizingChartPainter::pointPosition(int index) const
{
    if (index < 0 || index >= int(drawn_.size()))
        return QPointF(std::numeric_limits<double>::quiet_NaN(), 0);
    return drawn_[size_t(index)];
}

int SizingChartPainter::pointAt(QPointF position) const
{
    int best = -1;
    double bestDistance = 8.0 * 8.0;
    for (size_t i = 0; i < drawn_.size(); ++i) {
        if (!std::isfinite(drawn_[i].x()))
            continue;
        const QPointF d = drawn_[i] - position;
        const double distance = d.x() * d.x() + d.y() * d.y();
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = int(i);
        }
    }
    return best;
}
