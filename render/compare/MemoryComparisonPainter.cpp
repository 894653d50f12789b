#include "render/compare/MemoryComparisonPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "render/charts/ChartFrame.h"
#include "render/charts/MemoryChartPainter.h"
#include "render/compare/ComparisonSet.h"
#include "render/style/Theme.h"

namespace {

constexpr double kGB = trainplan::units::GB;  // the chart's unit: GB = 1e9 bytes

QString gb(double bytes)
{
    return QString::fromStdString(trainplan::formatBytes(bytes));
}

}  // namespace

void MemoryComparisonPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    if (!set_ || set_->size() == 0)
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);

    int stages = 0;
    double top = 0;
    std::map<double, QString> capacities;  // bytes -> the letters of the plans on that GPU
    for (int i = 0; i < set_->size(); ++i) {
        const MemoryChartPainter& m = set_->plan(i).memoryChart();
        stages = std::max(stages, m.stageCount());
        for (int s = 0; s < m.stageCount(); ++s)
            top = std::max(top, m.totalBytes(s));
        top = std::max(top, m.capacityBytes());
        QString& letters = capacities[m.capacityBytes()];
        letters += (letters.isEmpty() ? QString() : QStringLiteral(", ")) + set_->letter(i);
    }
    std::vector<LegendEntry> legend;
    for (int part = 0; part < MemoryChartPainter::PartCount; ++part) {
        bool present = false;
        for (int i = 0; i < set_->size(); ++i) {
            const MemoryChartPainter& m = set_->plan(i).memoryChart();
            for (int s = 0; s < m.stageCount(); ++s)
                present = present || m.valueBytes(part, s) > 0;
        }
        if (present)
            legend.push_back({MemoryChartPainter::partName(part), MemoryChartPainter::partColor(part)});
    }
    for (const auto& [bytes, letters] : capacities)
        legend.push_back({capacities.size() == 1 ? QStringLiteral("Capacity %1").arg(gb(bytes))
                                                 : QStringLiteral("Capacity %1 (%2)").arg(gb(bytes), letters),
            theme::capacity(), true});

    QRectF area = rect.adjusted(4 * scale, 4 * scale, -4 * scale, -4 * scale);
    area.setTop(area.top() + paintLegend(p, area, legend, scale) + 6 * scale);
    const double end = axisEnd(top * 1.06 / kGB, 5), step = tickStep(top * 1.06 / kGB, 5);
    const QFont label = labelFont(scale);
    const QFontMetricsF fm(label, p.device());
    const double lineH = fm.height();
    double tickWidth = 0;
    for (double v = 0; v <= end + 1e-9; v += step)
        tickWidth = std::max(tickWidth, fm.horizontalAdvance(tickLabel(v, step)));
    // Bottom: each bar's letter, the stage numbers, the axis title.
    const QRectF plot = area.adjusted(lineH + tickWidth + 10 * scale, lineH + 2 * scale, -6 * scale, -(3 * lineH + 10 * scale));
    if (plot.width() < 20 || plot.height() < 20 || stages == 0 || !(end > 0)) {
        p.restore();
        return;
    }
    const auto yOf = [&](double bytes) { return plot.bottom() - bytes / kGB / end * plot.height(); };
    p.setFont(label);
    paintVerticalAxis(p, plot, end, step, tickWidth, area.left(), QStringLiteral("GB per GPU"), scale);

    const double group = plot.width() / stages;
    // Bars of a group touch their neighbours' letters only when the group is wide enough to label.
    const double barW = std::min(group * 0.8 / set_->size(), 48.0 * scale);
    const double letterW = fm.horizontalAdvance(QStringLiteral("W"));
    const double stageLabelW = fm.horizontalAdvance(QStringLiteral("888"));
    const int stageEvery = std::max(1, int(std::ceil(stageLabelW / group)));
    for (int s = 0; s < stages; ++s) {
        const double left = plot.left() + s * group + (group - barW * set_->size()) / 2;
        for (int i = 0; i < set_->size(); ++i) {
            const MemoryChartPainter& m = set_->plan(i).memoryChart();
            if (s >= m.stageCount())
                continue;
            const bool fits = m.stageFits(s);
            const double x = left + i * barW;
            double base = 0;
            for (int part = 0; part < MemoryChartPainter::PartCount; ++part) {
                const double v = m.valueBytes(part, s);
                if (v <= 0)
                    continue;
                const QColor c = MemoryChartPainter::partColor(part);
                p.setPen(Qt::NoPen);
                p.setBrush(fits ? c : c.darker(160));
                p.drawRect(QRectF(x + 1 * scale, yOf(base + v), barW - 2 * scale, yOf(base) - yOf(base + v)));  // a gap between neighbours
                base += v;
            }
            if (barW >= letterW) {
                p.setFont(label);
                p.setPen(fits ? theme::inkSoft() : theme::capacity());
                p.drawText(QRectF(x, plot.bottom() + 2 * scale, barW, lineH), Qt::AlignCenter, set_->letter(i));
            }
        }
        if (s % stageEvery == 0 || s == stages - 1) {
            p.setFont(label);
            p.setPen(theme::muted());
            p.drawText(QRectF(plot.left() + s * group - group * (stageEvery - 1) / 2.0, plot.bottom() + lineH + 3 * scale, group * stageEvery, lineH),
                Qt::AlignCenter, QString::number(s + 1));
        }
    }
    p.setPen(theme::muted());
    p.drawText(QRectF(plot.left(), plot.bottom() + 2 * lineH + 6 * scale, plot.width(), lineH), Qt::AlignCenter,
        QStringLiteral("Pipeline stage (bars: plan letters)"));

    const QFont valueF = valueFont(scale);
    const QFontMetricsF vfm(valueF, p.device());
    for (auto it = capacities.begin(); it != capacities.end(); ++it) {
        const auto& [bytes, letters] = *it;
        const double y = yOf(bytes);
        p.setPen(QPen(theme::capacity(), 2 * scale, Qt::DashLine));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        const QString text = capacities.size() == 1 ? QStringLiteral("capacity %1").arg(gb(bytes))
                                                    : QStringLiteral("%1: capacity %2").arg(letters, gb(bytes));
        const double w = vfm.horizontalAdvance(text) + 6 * scale;
        // A label sits above its line, or below it when the next capacity up is too close to
        // leave it room (80 GB under 85 GB).
        const auto next = std::next(it);
        const bool crowded = next != capacities.end() && y - yOf(next->first) < vfm.height() + 4 * scale;
        const double boxTop = crowded ? y + 2 * scale : y - vfm.height() - 2 * scale;
        const QRectF box(plot.right() - w, boxTop, w, vfm.height());
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(255, 255, 255, 220));
        p.drawRect(box);
        p.setFont(valueF);
        p.setPen(theme::capacity());
        p.drawText(box, Qt::AlignCenter, text);
    }
    p.restore();
}
