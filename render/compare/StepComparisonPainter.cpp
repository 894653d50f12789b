#include "render/compare/StepComparisonPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

#include "core/base/Format.h"
#include "core/text/MfuBasis.h"
#include "render/charts/ChartFrame.h"
#include "render/charts/StepTimeChartPainter.h"
#include "render/compare/ComparisonSet.h"
#include "render/style/Theme.h"

namespace {

std::vector<chartframe::LegendEntry> legendOf(const ComparisonSet& set)
{
    std::vector<chartframe::LegendEntry> legend;
    for (int part = 0; part < StepTimeChartPainter::PartCount; ++part) {
        bool present = false;
        for (int i = 0; i < set.size(); ++i)
            present = present || set.plan(i).timeChart().value(part, StepTimeChartPainter::PredictedRow) > 0;
        if (present)
            legend.push_back({StepTimeChartPainter::partName(part), StepTimeChartPainter::partColor(part)});
    }
    legend.push_back({QStringLiteral("Predicted range"), theme::range(), true});
    return legend;
}

constexpr double kRowHeight = 34;  // px at scale 1: a bar and its label, two lines

}  // namespace

double StepComparisonPainter::preferredHeight(double width, double scale) const
{
    if (!set_)
        return 0;
    const double lineH = QFontMetricsF(chartframe::labelFont(scale)).height();
    return 8 * scale + chartframe::legendHeight(legendOf(*set_), width - 8 * scale, scale) + 6 * scale + set_->size() * kRowHeight * scale
        + 2 * lineH + 12 * scale;
}

void StepComparisonPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    if (!set_ || set_->size() == 0)
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    QRectF area = rect.adjusted(4 * scale, 4 * scale, -4 * scale, -4 * scale);
    area.setTop(area.top() + paintLegend(p, area, legendOf(*set_), scale) + 6 * scale);

    const QFont label = labelFont(scale);
    const QFontMetricsF fm(label, p.device());
    const double lineH = fm.height();
    double labelW = fm.horizontalAdvance(QStringLiteral("MFU 100.0 %"));
    double top = 0;
    for (int i = 0; i < set_->size(); ++i) {
        const trainplan::Analysis& a = set_->plan(i).analysis();
        top = std::max({top, set_->plan(i).timeChart().total(StepTimeChartPainter::PredictedRow), a.predicted.range.low.stepSeconds});
        labelW = std::max(labelW, fm.horizontalAdvance(set_->letter(i)));
    }
    // FP8 or FP4 GEMMs: each such plan's MFU says it is against the BF16 peak, on a line of its own
    // below the MFU when the rows have room, else after it (so the label column widens).
    const double rowPitch = (area.height() - (2 * lineH + 8 * scale)) / set_->size();
    const bool roomForBasisLine = rowPitch >= 3.2 * lineH;
    for (int i = 0; i < set_->size(); ++i) {
        const QString basis = QString::fromStdString(trainplan::mfuBasisNote(set_->plan(i).plan()));
        if (!basis.isEmpty())
            labelW = std::max(labelW, fm.horizontalAdvance(roomForBasisLine ? basis : QStringLiteral("MFU 100.0 % ") + basis));
    }
    top *= 1.15;  // room for each row's total after its bar
    const double end = axisEnd(top, 5), step = tickStep(top, 5);
    const QRectF plot = area.adjusted(labelW + 10 * scale, 0, -6 * scale, -(2 * lineH + 8 * scale));
    if (plot.width() < 40 || plot.height() < 10 || !(end > 0)) {
        p.restore();
        return;
    }
    const auto xOf = [&](double s) { return plot.left() + s / end * plot.width(); };
    p.setFont(label);
    paintHorizontalAxis(p, plot, end, step, rect.right(), scale);
    p.drawText(QRectF(plot.left(), plot.bottom() + lineH + 4 * scale, plot.width(), lineH), Qt::AlignCenter,
        QStringLiteral("seconds per optimizer step, predicted from each layout"));

    const double pitch = plot.height() / set_->size();
    const double barH = std::min(pitch * 0.55, 26.0 * scale);
    const QFont valueF = valueFont(scale);
    const QFontMetricsF vfm(valueF, p.device());
    for (int i = 0; i < set_->size(); ++i) {
        const ReportContext& plan = set_->plan(i);
        const StepTimeChartPainter& chart = plan.timeChart();
        const double cy = plot.top() + (i + 0.5) * pitch;
        p.setFont(titleFont(scale));
        p.setPen(theme::ink());
        p.drawText(QRectF(area.left(), cy - lineH, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, set_->letter(i));
        p.setFont(label);
        p.setPen(theme::muted());
        const QString mfu = QStringLiteral("MFU %1").arg(QString::fromStdString(trainplan::formatPercent(plan.analysis().predicted.mfu)));
        const QString basis = QString::fromStdString(trainplan::mfuBasisNote(plan.plan()));
        if (basis.isEmpty() || roomForBasisLine) {
            p.drawText(QRectF(area.left(), cy, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, mfu);
            if (!basis.isEmpty())
                p.drawText(QRectF(area.left(), cy + lineH, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, basis);
        } else {
            p.drawText(QRectF(area.left(), cy, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, mfu + QLatin1Char(' ') + basis);
        }
        double base = 0;
        for (int part = 0; part < StepTimeChartPainter::PartCount; ++part) {
            const double v = chart.value(part, StepTimeChartPainter::PredictedRow);
            if (v <= 0)
                continue;
            const QRectF seg(xOf(base), cy - barH / 2, xOf(base + v) - xOf(base), barH);
            p.setPen(Qt::NoPen);
            p.setBrush(StepTimeChartPainter::partColor(part));
            p.drawRect(seg);
            base += v;
        }
        const trainplan::PredictedRange& range = plan.analysis().predicted.range;
        const double lo = range.high.stepSeconds, hi = range.low.stepSeconds;  // optimistic and pessimistic ends
        if (hi > lo && lo > 0) {
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(theme::range(), 1.5 * scale));
            const double y = cy + barH / 2 + 3 * scale;
            p.drawLine(QPointF(xOf(lo), y), QPointF(xOf(hi), y));
            p.drawLine(QPointF(xOf(lo), y - 3 * scale), QPointF(xOf(lo), y + 3 * scale));
            p.drawLine(QPointF(xOf(hi), y - 3 * scale), QPointF(xOf(hi), y + 3 * scale));
            p.setRenderHint(QPainter::Antialiasing, false);
        }
        p.setFont(valueF);
        p.setPen(theme::ink());
        const QString total = QString::fromStdString(trainplan::formatSeconds(base));
        p.drawText(QRectF(xOf(std::max(base, hi)) + 4 * scale, cy - vfm.height() / 2, vfm.horizontalAdvance(total) + 4 * scale, vfm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, total);
    }
    p.restore();
}
