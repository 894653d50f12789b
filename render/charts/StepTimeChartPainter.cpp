#include "render/charts/StepTimeChartPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

#include "core/base/Format.h"
#include "render/charts/ChartFrame.h"
#include "render/style/Theme.h"

namespace {

QString seconds(double s)
{
    return QString::fromStdString(trainplan::formatSeconds(s));
}

}  // namespace

QString StepTimeChartPainter::partName(int part)
{
    static const char* names[PartCount] = {"Compute", "Memory-bound", "Recompute", "TP/CP/ZeRO comm.", "EP all-to-all",
                                           "Expert imbalance", "PP sends", "Bubble", "DP tail", "Kernel overhead"};
    return QString::fromLatin1(names[part]);
}

QColor StepTimeChartPainter::partColor(int part)
{
    switch (part) {
    case Compute: return theme::compute();
    case MemoryBound: return theme::memoryBound();
    case Recompute: return theme::recompute();
    case Collectives: return theme::tpComm();
    case EpAllToAll: return theme::epComm();
    case ExpertImbalance: return theme::expertImbalance();
    case PpSend: return theme::ppComm();
    case Bubble: return theme::bubble();
    case DpExposed: return theme::dpExposed();
    default: return theme::kernelOverhead();
    }
}

void StepTimeChartPainter::setAnalysis(const trainplan::Analysis& a)
{
    const double step = a.estimate.time.stepSeconds;
    const double bubble = step * a.estimate.pipeline.bubbleFraction;
    const double assumed[PartCount] = {step - bubble, 0, 0, 0, 0, 0, 0, bubble, 0, 0};
    const auto& c = a.predicted.components;
    const double predicted[PartCount] = {c.forwardCompute + c.backwardCompute,
                                         c.memoryBound + c.optimizer,
                                         c.recompute,
                                         c.tpCommunication + c.cpCommunication + c.zeroCommunication,
                                         c.epCommunication,
                                         c.expertImbalance,
                                         c.ppSend,
                                         c.pipelineBubble,
                                         c.dpCommunication,
                                         c.kernelOverhead};
    std::copy(std::begin(assumed), std::end(assumed), values_[AssumedRow]);
    std::copy(std::begin(predicted), std::end(predicted), values_[PredictedRow]);
    mfu_[AssumedRow] = a.plan.training.mfu;
    mfu_[PredictedRow] = a.predicted.mfu;
    rangeLow_ = a.predicted.range.high.stepSeconds;   // the optimistic end: the shortest step
    rangeHigh_ = a.predicted.range.low.stepSeconds;   // the pessimistic end: the longest
    rangeCoverage_ = a.predicted.range.coverage;
}

double StepTimeChartPainter::total(int row) const
{
    double t = 0;
    for (double v : values_[row])
        t += v;
    return t;
}

QString StepTimeChartPainter::rowLabel(int row) const
{
    const auto basis = row == AssumedRow ? trainplan::TimeBasis::AssumedMfu : trainplan::TimeBasis::Predicted;
    QString label = QString::fromLatin1(trainplan::timeBasisLabel(basis));
    label[0] = label[0].toUpper();
    return label;
}

void StepTimeChartPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    p.save();
    std::vector<LegendEntry> legend;
    for (int i = 0; i < PartCount; ++i) {
        // The MoE parts only where a row has them: a dense plan's legend stays as it was.
        const bool moePart = i == EpAllToAll || i == ExpertImbalance;
        if (!moePart || values_[AssumedRow][i] > 0 || values_[PredictedRow][i] > 0)
            legend.push_back({partName(i), partColor(i)});
    }
    QRectF area = rect.adjusted(4 * scale, 4 * scale, -4 * scale, -4 * scale);
    area.setTop(area.top() + paintLegend(p, area, legend, scale) + 6 * scale);

    const QFont label = labelFont(scale);
    const QFontMetricsF fm(label, p.device());
    const double lineH = fm.height();
    QString rowTexts[RowCount];
    double labelW = 0;
    for (int r = 0; r < RowCount; ++r) {
        rowTexts[r] = rowLabel(r);
        labelW = std::max(labelW, fm.horizontalAdvance(rowTexts[r]));
        labelW = std::max(labelW, fm.horizontalAdvance(QStringLiteral("MFU 100.0 %")));
    }
    const double top = std::max({total(AssumedRow), total(PredictedRow), rangeHigh_}) * 1.18;  // room for the totals
    const double end = axisEnd(top, 5), step = tickStep(top, 5);
    QRectF plot = area.adjusted(labelW + 10 * scale, 0, -6 * scale, -(2 * lineH + 8 * scale));
    if (plot.width() < 40 || plot.height() < 20 || !(end > 0)) {
        plot_ = QRectF();
        rangeLabel_ = QRectF();
        p.restore();
        return;
    }
    plot_ = plot;
    rangeLabel_ = QRectF();
    secondsPerPixel_ = end / plot.width();
    rowPitch_ = plot.height() / static_cast<int>(RowCount);
    const QFont valueF = valueFont(scale);
    const QFontMetricsF vfm(valueF, p.device());
    const bool hasRange = rangeHigh_ > rangeLow_ && rangeLow_ > 0;
    barH_ = std::min(rowPitch_ * 0.6, 46.0 * scale);
    if (hasRange)
        // The range's line sits under the predicted (last) bar: the bar gives up height so the
        // line stays above the axis's tick labels when the pane is short (1280x720).
        barH_ = std::max(std::min(barH_, rowPitch_ - 12 * scale - 2 * vfm.height()), std::min(barH_, vfm.height() + 4 * scale));
    const auto xOf = [&](double s) { return plot.left() + s / end * plot.width(); };

    p.setFont(label);
    paintHorizontalAxis(p, plot, end, step, rect.right(), scale);
    p.drawText(
        QRectF(plot.left(), plot.bottom() + lineH + 4 * scale, plot.width(), lineH), Qt::AlignCenter, QStringLiteral("seconds per step"));

    for (int r = 0; r < RowCount; ++r) {
        const double cy = plot.top() + (r + 0.5) * rowPitch_;
        p.setFont(label);
        p.setPen(theme::inkSoft());
        p.drawText(QRectF(area.left(), cy - lineH, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, rowTexts[r]);
        p.setPen(theme::faint());
        p.drawText(QRectF(area.left(), cy, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("MFU %1").arg(QString::fromStdString(trainplan::formatPercent(mfu_[r]))));
        double x0 = 0;
        for (int i = 0; i < PartCount; ++i) {
            const double v = values_[r][i];
            if (v <= 0)
                continue;
            const QRectF seg(xOf(x0), cy - barH_ / 2, xOf(x0 + v) - xOf(x0), barH_);
            p.setPen(Qt::NoPen);
            p.setBrush(partColor(i));
            p.drawRect(seg);
            const QString text = seconds(v);
            if (vfm.horizontalAdvance(text) + 4 * scale <= seg.width() && vfm.height() <= seg.height()) {
                p.setFont(valueF);
                p.setPen(partColor(i).lightnessF() > 0.6 ? theme::ink() : Qt::white);
                p.drawText(seg, Qt::AlignCenter, text);
            }
            x0 += v;
        }
        double textX = xOf(x0) + 4 * scale;
        if (r == PredictedRow && hasRange) {
            // The honest range: a whisker from the optimistic to the pessimistic step.
            const double y = cy + barH_ / 2 + 4 * scale;
            p.setPen(QPen(theme::range(), 1.5 * scale));
            p.drawLine(QPointF(xOf(rangeLow_), y), QPointF(xOf(rangeHigh_), y));
            p.drawLine(QPointF(xOf(rangeLow_), y - 3 * scale), QPointF(xOf(rangeLow_), y + 3 * scale));
            p.drawLine(QPointF(xOf(rangeHigh_), y - 3 * scale), QPointF(xOf(rangeHigh_), y + 3 * scale));
            textX = xOf(rangeHigh_) + 4 * scale;
        }
        p.setFont(valueF);
        p.setPen(theme::ink());
        p.drawText(
            QRectF(xOf(x0) + 4 * scale, cy - barH_ / 2, plot.right() - xOf(x0), barH_), Qt::AlignLeft | Qt::AlignVCenter, seconds(x0));
        if (textX > xOf(x0) + 4 * scale || (r == PredictedRow && hasRange)) {
            // The range's ends, under the whisker's right end.
            const QString range = QStringLiteral("range %1 – %2").arg(seconds(rangeLow_), seconds(rangeHigh_));
            // Never over the axis's tick labels (they start 2 px under the plot), even in a pane
            // too short for the bar to make room.
            const double y = std::min(cy + barH_ / 2 + 6 * scale, plot.bottom() + 2 * scale - vfm.height());
            const double w = vfm.horizontalAdvance(range) + 4 * scale;
            const double x = std::clamp(xOf(rangeHigh_) - w, plot.left(), std::max(plot.left(), plot.right() - w));
            p.setPen(theme::faint());
            rangeLabel_ = QRectF(x, y, w, vfm.height());
            p.drawText(rangeLabel_, Qt::AlignRight | Qt::AlignTop, range);
        }
    }
    p.restore();
}

std::pair<int, int> StepTimeChartPainter::segmentAt(QPointF point) const
{
    if (plot_.isNull() || rowPitch_ <= 0)
        return {-1, -1};
    const int r = int((point.y() - plot_.top()) / rowPitch_);
    if (r < 0 || r >= RowCount)
        return {-1, -1};
    const double cy = plot_.top() + (r + 0.5) * rowPitch_;
    if (std::abs(point.y() - cy) > barH_ / 2)
        return {r, -1};
    const double s = (point.x() - plot_.left()) * secondsPerPixel_;
    double x0 = 0;
    for (int i = 0; i < PartCount; ++i) {
        if (values_[r][i] > 0 && s >= x0 && s < x0 + values_[r][i])
            return {r, i};
        x0 += values_[r][i];
    }
    return {r, -1};
}

QString StepTimeChartPainter::toolTip(int row, int part) const
{
    if (row < 0 || row >= RowCount)
        return {};
    const double t = total(row);
    QString text = QStringLiteral("<b>%1</b>: %2 per step").arg(rowLabel(row), seconds(t));
    if (row == PredictedRow && rangeHigh_ > rangeLow_ && rangeLow_ > 0)
        text += QStringLiteral("<br>range %1 to %2 (what the plan leaves unknown, then a %3 % band of the model's error on published "
                               "runs it was not fitted on)")
                    .arg(seconds(rangeLow_), seconds(rangeHigh_))
                    .arg(rangeCoverage_ * 100, 0, 'f', 0);
    if (part >= 0 && part < PartCount && t > 0)
        text += QStringLiteral("<br>%1: %2 (%3 of the step)")
                    .arg(partName(part), seconds(values_[row][part]),
                         QString::fromStdString(trainplan::formatPercent(values_[row][part] / t)));
    return text;
}
