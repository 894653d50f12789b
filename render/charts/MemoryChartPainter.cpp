#include "render/charts/MemoryChartPainter.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "core/analysis/MemoryFitSentence.h"
#include "core/analysis/Thresholds.h"
#include "core/base/Format.h"
#include "core/base/Units.h"
#include "render/charts/ChartFrame.h"
#include "render/style/Markup.h"
#include "render/style/Theme.h"

namespace {

constexpr double kGB = trainplan::units::GB;  // the chart's unit: GB = 1e9 bytes

QString gb(double bytes)
{
    return QString::fromStdString(trainplan::formatBytes(bytes));
}

// A segment's value in the chart's unit, short enough to sit on a bar: "4.5", "11".
QString shortGb(double bytes)
{
    const double v = bytes / kGB;
    return QString::number(v, 'f', v >= 10 ? 0 : 1);
}

}  // namespace

QString MemoryChartPainter::partName(int part)
{
    static const char* names[PartCount] = {"Weights",    "Gradients",    "Optimizer",     "Activations", "ZeRO-3 gathered",
                                           "CUDA context", "Workspaces", "NCCL buffers", "Fragmentation", "Allowance"};
    return QString::fromLatin1(names[part]);
}

QColor MemoryChartPainter::partColor(int part)
{
    switch (part) {
    case Weights: return theme::weights();
    case Gradients: return theme::gradients();
    case Optimizer: return theme::optimizer();
    case Activations: return theme::activations();
    case ShardingBuffers: return theme::shardingBuffers();
    case CudaContext: return theme::cudaContext();
    case Workspace: return theme::workspace();
    case NcclBuffers: return theme::ncclBuffers();
    case Fragmentation: return theme::fragmentation();
    default: return theme::buffers();
    }
}

double MemoryChartPainter::partBytes(const trainplan::MemoryBreakdown& m, int part)
{
    switch (part) {
    case Weights: return m.weights;
    case Gradients: return m.gradients;
    case Optimizer: return m.optimizer;
    case Activations: return m.activations;
    case ShardingBuffers: return m.shardingBuffers;
    case CudaContext: return m.cudaContext;
    case Workspace: return m.workspace;
    case NcclBuffers: return m.ncclBuffers;
    case Fragmentation: return m.fragmentation;
    default: return m.extraAllowance;
    }
}

void MemoryChartPainter::setEstimate(const trainplan::Estimate& est)
{
    stages_.clear();
    allFit_ = true;
    for (const auto& st : est.stages) {
        Stage s;
        for (int i = 0; i < PartCount; ++i)
            s.parts[i] = partBytes(st.memory, i);
        s.total = st.memory.total;
        s.layers = st.layers;
        s.hasEmbedding = st.hasEmbedding;
        s.hasLmHead = st.hasLmHead;
        s.fits = st.fits;
        allFit_ = allFit_ && st.fits;
        stages_.push_back(s);
    }
    capacity_ = est.capacityBytes;
    fullest_ = est.fullestStage;
    range_ = trainplan::MemoryRange{};
}

void MemoryChartPainter::setRange(const trainplan::MemoryRange& range)
{
    range_ = range;
}

double MemoryChartPainter::valueBytes(int part, int stage) const
{
    return stages_[size_t(stage)].parts[part];
}

double MemoryChartPainter::totalBytes(int stage) const
{
    return stages_[size_t(stage)].total;
}

QStringList MemoryChartPainter::stageLabels() const
{
    QStringList labels;
    for (size_t i = 0; i < stages_.size(); ++i)
        labels << QString::number(i + 1) + (stages_[i].fits ? QString() : QStringLiteral(" \u2716"));
    return labels;
}

QString MemoryChartPainter::warningTitle() const
{
    if (allFit_) {
        // Every stage's point figure fits; the range's verdict may still say otherwise.
        switch (range_.fit) {
        case trainplan::MemoryFit::Fits: return {};
        case trainplan::MemoryFit::MayNotFit:
            return QStringLiteral("May not fit: up to %1").arg(gb(range_.highBytes));
        case trainplan::MemoryFit::DoesNotFit:
            return QStringLiteral("Does not fit: from %1, %2 usable").arg(gb(range_.lowBytes), gb(range_.usableBytes));
        }
    }
    int over = 0;
    for (const auto& s : stages_)
        over += s.fits ? 0 : 1;
    return over == 1 ? QStringLiteral("A stage does not fit in %1").arg(gb(capacity_))
                     : QStringLiteral("%1 stages do not fit in %2").arg(over).arg(gb(capacity_));
}

void MemoryChartPainter::paint(QPainter& p, const QRectF& rect, double scale) const
{
    using namespace chartframe;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    const int n = stageCount();
    std::vector<LegendEntry> legend;
    for (int i = 0; i < PartCount; ++i) {
        bool present = false;
        for (const auto& st : stages_)
            present = present || st.parts[i] > 0;
        if (present)
            legend.push_back({partName(i), partColor(i)});
    }
    legend.push_back({QStringLiteral("Capacity %1").arg(gb(capacity_)), theme::capacity(), true});
    const bool ranged = range_.highBytes > range_.lowBytes && range_.lowBytes > 0 && fullest_ < n;
    // The range's verdict colours its whisker and names it in the legend (analysis/Thresholds.h).
    const QColor rangeColor = theme::verdict(trainplan::memoryVerdict(range_), theme::range());
    if (ranged)
        legend.push_back(
            {QStringLiteral("Range, stage %1: %2").arg(fullest_ + 1).arg(QString::fromLatin1(trainplan::memoryFitName(range_.fit))),
                rangeColor, true});

    QRectF area = rect.adjusted(4 * scale, 4 * scale, -4 * scale, -4 * scale);
    if (const QString title = warningTitle(); !title.isEmpty()) {
        p.setFont(titleFont(scale));
        p.setPen(allFit_ && range_.fit == trainplan::MemoryFit::MayNotFit ? rangeColor : theme::capacity());
        const double h = QFontMetricsF(p.font(), p.device()).height();
        // A narrow chart elides the title rather than clipping it mid-figure (the tooltip has it whole).
        p.drawText(QRectF(area.left(), area.top(), area.width(), h), Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(p.font(), p.device()).elidedText(title, Qt::ElideRight, area.width()));
        area.setTop(area.top() + h + 4 * scale);
    }
    area.setTop(area.top() + paintLegend(p, area, legend, scale) + 6 * scale);

    double top = std::max(capacity_, ranged ? range_.highBytes : 0.0);
    for (const auto& s : stages_)
        top = std::max(top, s.total);
    const double end = axisEnd(top * 1.06 / kGB, 5);
    const double step = tickStep(top * 1.06 / kGB, 5);

    const QFont label = labelFont(scale);
    const QFontMetricsF fm(label, p.device());
    const double lineH = fm.height();
    double tickWidth = 0;
    for (double v = 0; v <= end + 1e-9; v += step)
        tickWidth = std::max(tickWidth, fm.horizontalAdvance(tickLabel(v, step)));
    // Left: rotated axis title and tick labels; bottom: stage numbers and the axis title.
    QRectF plot = area.adjusted(lineH + tickWidth + 10 * scale, lineH + 2 * scale, -6 * scale, -(2 * lineH + 8 * scale));
    if (plot.width() < 20 || plot.height() < 20 || n == 0) {
        p.restore();
        plot_ = QRectF();
        return;
    }
    plot_ = plot;
    const auto yOf = [&](double bytes) { return plot.bottom() - bytes / kGB / end * plot.height(); };

    // Grid, ticks and the axis title.
    p.setFont(label);
    paintVerticalAxis(p, plot, end, step, tickWidth, area.left(), QStringLiteral("GB per GPU"), scale);

    // Bars.
    slot_ = plot.width() / n;
    const double barW = std::min(slot_ * 0.62, 90.0 * scale);
    const QFont valueF = valueFont(scale);
    const QFontMetricsF vfm(valueF, p.device());
    // Stage labels: skip some when they would touch.
    const double labelW = fm.horizontalAdvance(QStringLiteral("88 \u2716")) + 4 * scale;
    const int labelEvery = std::max(1, int(std::ceil(labelW / slot_)));
    for (int s = 0; s < n; ++s) {
        const Stage& st = stages_[size_t(s)];
        const double cx = plot.left() + (s + 0.5) * slot_;
        double base = 0;
        for (int i = 0; i < PartCount; ++i) {
            const double v = st.parts[i];
            if (v <= 0)
                continue;
            const QRectF seg(cx - barW / 2, yOf(base + v), barW, yOf(base) - yOf(base + v));
            const QColor c = st.fits ? partColor(i) : partColor(i).darker(160);
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            p.drawRect(seg);
            const QString text = shortGb(v);
            if (seg.height() >= vfm.height() + 1 && vfm.horizontalAdvance(text) + 4 * scale <= seg.width()) {
                p.setFont(valueF);
                p.setPen(c.lightnessF() > 0.6 ? theme::ink() : Qt::white);
                p.drawText(seg, Qt::AlignCenter, text);
            }
            base += v;
        }
        // Total above the bar, when the slot is wide enough for it.
        const QString total = shortGb(st.total);
        p.setFont(valueF);
        if (vfm.horizontalAdvance(total) + 2 * scale <= slot_) {
            p.setPen(st.fits ? theme::ink() : theme::capacity());
            p.drawText(QRectF(cx - slot_ / 2, yOf(st.total) - vfm.height() - 1 * scale, slot_, vfm.height()), Qt::AlignCenter, total);
        }
        if (s % labelEvery == 0 || s == n - 1) {
            p.setFont(label);
            p.setPen(st.fits ? theme::inkSoft() : theme::capacity());
            p.drawText(QRectF(cx - slot_ * labelEvery / 2.0, plot.bottom() + 2 * scale, slot_ * labelEvery, lineH), Qt::AlignCenter,
                       QString::number(s + 1) + (st.fits ? QString() : QStringLiteral(" \u2716")));
        }
    }
    if (ranged) {
        // The fullest stage's range: a whisker just right of its bar, from the light to the heavy end.
        const double x = plot.left() + (fullest_ + 0.5) * slot_ + barW / 2 + 4 * scale;
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(rangeColor, 1.5 * scale));
        p.drawLine(QPointF(x, yOf(range_.lowBytes)), QPointF(x, yOf(range_.highBytes)));
        p.drawLine(QPointF(x - 3 * scale, yOf(range_.lowBytes)), QPointF(x + 3 * scale, yOf(range_.lowBytes)));
        p.drawLine(QPointF(x - 3 * scale, yOf(range_.highBytes)), QPointF(x + 3 * scale, yOf(range_.highBytes)));
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    p.setFont(label);
    p.setPen(theme::muted());
    p.drawText(
        QRectF(plot.left(), plot.bottom() + lineH + 4 * scale, plot.width(), lineH), Qt::AlignCenter, QStringLiteral("Pipeline stage"));

    // Capacity line, labelled with its value at the right end.
    const double capY = yOf(capacity_);
    p.setPen(QPen(theme::capacity(), 2 * scale, Qt::DashLine));
    p.drawLine(QPointF(plot.left(), capY), QPointF(plot.right(), capY));
    p.setFont(valueF);
    const QString capText = QStringLiteral("capacity %1").arg(gb(capacity_));
    const double capW = vfm.horizontalAdvance(capText) + 6 * scale;
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(255, 255, 255, 220));
    const QRectF capBox(plot.right() - capW, capY - vfm.height() - 2 * scale, capW, vfm.height());
    p.drawRect(capBox);
    p.setPen(theme::capacity());
    p.drawText(capBox, Qt::AlignCenter, capText);
    p.restore();
}

int MemoryChartPainter::stageAt(QPointF point) const
{
    if (plot_.isNull() || !plot_.adjusted(0, -plot_.height() * 0.1, 0, 0).contains(point) || slot_ <= 0)
        return -1;
    const int s = int((point.x() - plot_.left()) / slot_);
    return s >= 0 && s < stageCount() ? s : -1;
}

QString MemoryChartPainter::toolTip(int stage) const
{
    if (stage < 0 || stage >= stageCount())
        return {};
    const Stage& st = stages_[size_t(stage)];
    QString extras;
    if (st.hasEmbedding)
        extras += QStringLiteral(", embedding");
    if (st.hasLmHead)
        extras += QStringLiteral(", LM head");
    QString text = QStringLiteral("<b>Stage %1</b> (%2 %3%4)<table>")
                       .arg(stage + 1)
                       .arg(st.layers)
                       .arg(st.layers == 1 ? QStringLiteral("layer") : QStringLiteral("layers"), extras);
    for (int i = PartCount - 1; i >= 0; --i)
        if (st.parts[i] > 0 || i <= Activations)
            text += QStringLiteral("<tr><td>%1%2</td><td align='right'>%3</td></tr>")
                        .arg(i >= CudaContext ? QStringLiteral("reserve: ") : QString(), partName(i), gb(st.parts[i]));
    text += QStringLiteral("<tr><td><b>Total</b></td><td align='right'><b>%1</b></td></tr></table>").arg(gb(st.total));
    const double headroom = capacity_ - st.total;
    text += headroom >= 0
        ? QStringLiteral("%1 free of %2").arg(gb(headroom), gb(capacity_))
        : QStringLiteral("<font color='%1'>%2 over %3</font>").arg(theme::capacity().name(), gb(-headroom), gb(capacity_));
    if (stage == fullest_ && range_.highBytes > range_.lowBytes && range_.lowBytes > 0)
        text += QStringLiteral("<br>Range %1 to %2: what the plan leaves unknown at either value, no fragmentation at the low end, "
                               "the memory model's error at the high end.<br>%3")
                    .arg(gb(range_.lowBytes), gb(range_.highBytes),
                        markup::escaped(QString::fromStdString(trainplan::memoryFitSentence(range_))));
    return text;
}
