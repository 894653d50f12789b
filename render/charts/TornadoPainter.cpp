#include "render/charts/TornadoPainter.h"

#include "core/analysis/Analysis.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/base/Format.h"
#include "core/base/Units.h"
#include "render/style/Fonts.h"
#include "render/style/Markup.h"

namespace {

constexpr double kTitleHeight = 22;
constexpr double kBaseLabelHeight = 16;
constexpr double kAxisHeight = 36;
constexpr double kMaxRowHeight = 36;
constexpr double kGap = 6;

const QColor kText(0x11, 0x18, 0x27);
const QColor kMuted(0x6b, 0x72, 0x80);
const QColor kGrid(0xe5, 0xe7, 0xeb);

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

// 1, 2, 2.5 or 5 times a power of ten near span / n.
double niceStep(double span, int n)
{
    const double raw = span / std::max(1, n);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10 * magnitude;
}

}  // namespace

void TornadoPainter::setResult(const trainplan::SensitivityResult& result)
{
    result_ = result;
    setMeasure(measure_);
}

void TornadoPainter::setMeasure(Measure measure)
{
    measure_ = measure;
    // The core sorts by days; step time has its own order. Stable: ties keep the core's order.
    order_.resize(result_.bars.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [this](int a, int b) { return swing(result_.bars[size_t(a)]) > swing(result_.bars[size_t(b)]); });
}

double TornadoPainter::outcomeLow(const trainplan::SensitivityBar& bar) const
{
    return measure_ == Measure::PaddedDays ? bar.daysLow : bar.stepSecondsLow;
}

double TornadoPainter::outcomeHigh(const trainplan::SensitivityBar& bar) const
{
    return measure_ == Measure::PaddedDays ? bar.daysHigh : bar.stepSecondsHigh;
}

double TornadoPainter::base() const
{
    return measure_ == Measure::PaddedDays ? result_.baseDays : result_.baseStepSeconds;
}

double TornadoPainter::swing(const trainplan::SensitivityBar& bar) const
{
    return measure_ == Measure::PaddedDays ? bar.swingDays : bar.swingStepSeconds;
}

QString TornadoPainter::unit() const
{
    return measure_ == Measure::PaddedDays ? tr("days") : tr("s");
}

QString TornadoPainter::titleHead() const
{
    return measure_ == Measure::PaddedDays ? tr("Days with failures") : tr("Step time");
}

QString TornadoPainter::titleDetail() const
{
    // The basis in the words every view uses for it (timeBasisLabel).
    const QString basis = QString::fromLatin1(trainplan::timeBasisLabel(
        result_.basis == trainplan::SensitivityBasis::Predicted ? trainplan::TimeBasis::Predicted : trainplan::TimeBasis::AssumedMfu));
    const bool unknowns = std::any_of(result_.bars.begin(), result_.bars.end(),
                                      [](const trainplan::SensitivityBar& b) { return b.kind == trainplan::SensitivityKind::Unknown; });
    const QString step = QString::fromStdString(trainplan::formatPercent(result_.fraction, 0));  // as the core moved them
    return unknowns ? tr(" · basis: %1 · inputs ±%2 or one valid step; unknowns to either value").arg(basis, step)
                    : tr(" · basis: %1 · inputs ±%2 or one valid step").arg(basis, step);
}

QString TornadoPainter::title() const
{
    return titleHead() + titleDetail();
}

QString TornadoPainter::outcomeText(double value) const
{
    return fromStd(trainplan::formatNumber(value, 3));
}

QString TornadoPainter::inputValueText(const trainplan::SensitivityBar& bar, double v)
{
    if (bar.kind == trainplan::SensitivityKind::Unknown)
        return fromStd(v < bar.baseValue ? bar.lowText : v > bar.baseValue ? bar.highText : bar.baseText);
    const QString f = QString::fromStdString(bar.field);
    auto num = [](double x, int significant = 3) { return fromStd(trainplan::formatNumber(x, significant)); };
    if (f.contains("tflops"))
        return tr("%1 TFLOP/s").arg(num(v / trainplan::units::TFLOPS));
    if (f.contains("bandwidth"))
        return tr("%1 GB/s").arg(num(v / trainplan::units::GB));
    if (f.contains("efficiency") || f == "training.mfu")
        return QStringLiteral("%1 %").arg(v * 100, 0, 'f', 1);
    if (f.contains("global_batch"))
        return tr("%1 seq").arg(fromStd(trainplan::formatInteger(v)));
    if (f.contains("micro_batch"))
        return tr("%1 seq").arg(fromStd(trainplan::formatInteger(v)));
    if (f.contains("sequence_length"))
        return tr("%1 tokens").arg(fromStd(trainplan::formatInteger(v)));
    if (f.contains("mtbf"))
        return tr("%1 h").arg(num(v / trainplan::units::secondsPerHour));
    if (f.endsWith("_seconds"))
        return tr("%1 s").arg(num(v));
    return num(v);
}

TornadoPainter::Geometry TornadoPainter::layout(const QRectF& rect) const
{
    Geometry g;
    const QFontMetricsF nameMetrics(fonts::pixels(12));
    const QFontMetricsF valueMetrics(fonts::pixels(11));
    g.title = QRectF(rect.left(), rect.top(), rect.width(), kTitleHeight);
    const double top = rect.top() + kTitleHeight + kBaseLabelHeight;
    const double bottom = rect.bottom() - kAxisHeight;
    const int n = int(order_.size());
    g.rowHeight = n > 0 ? std::min(kMaxRowHeight, std::max(8.0, (bottom - top) / n)) : kMaxRowHeight;
    g.barHeight = std::max(4.0, g.rowHeight * 0.62);

    // Left column: as wide as the longest name or base value, at most 38 % of the width.
    double labelWidth = 0;
    double endWidth = 0;
    for (const auto& bar : result_.bars) {
        labelWidth = std::max({labelWidth, nameMetrics.horizontalAdvance(fromStd(bar.input)),
                               valueMetrics.horizontalAdvance(inputValueText(bar, bar.baseValue))});
        endWidth = std::max({endWidth, valueMetrics.horizontalAdvance(inputValueText(bar, bar.lowValue)),
                             valueMetrics.horizontalAdvance(inputValueText(bar, bar.highValue))});
    }
    labelWidth = std::min(labelWidth + 2 * kGap, rect.width() * 0.38);
    // Room either side of the bars for the input values at their ends.
    endWidth = std::min(endWidth + kGap, (rect.width() - labelWidth) * 0.22);
    g.labels = QRectF(rect.left(), top, labelWidth, g.rowHeight * n);
    g.plot =
        QRectF(rect.left() + labelWidth + endWidth, top, std::max(10.0, rect.width() - labelWidth - 2 * endWidth - kGap), g.rowHeight * n);
    g.axis = QRectF(g.plot.left(), g.plot.bottom(), g.plot.width(), kAxisHeight);

    // Symmetric about the base value, so the base line sits in the middle and left/right read
    // as "better/worse" at a glance.
    const double b = base();
    double reach = 0;
    for (const auto& bar : result_.bars)
        reach = std::max({reach, std::abs(outcomeLow(bar) - b), std::abs(outcomeHigh(bar) - b)});
    if (!(reach > 0))
        reach = std::max(1e-9, std::abs(b) * 0.01);
    g.from = b - reach * 1.04;
    g.to = b + reach * 1.04;
    return g;
}

QList<QRectF> TornadoPainter::barRects(const QRectF& rect) const
{
    const Geometry g = layout(rect);
    QList<QRectF> out;
    const double b = base();
    for (size_t k = 0; k < order_.size(); ++k) {
        const auto& bar = result_.bars[size_t(order_[k])];
        const double lo = std::min({b, outcomeLow(bar), outcomeHigh(bar)});
        const double hi = std::max({b, outcomeLow(bar), outcomeHigh(bar)});
        const double y = g.plot.top() + k * g.rowHeight + (g.rowHeight - g.barHeight) / 2;
        out.append(QRectF(QPointF(g.x(lo), y), QPointF(g.x(hi), y + g.barHeight)));
    }
    return out;
}

QRectF TornadoPainter::baseLine(const QRectF& rect) const
{
    const Geometry g = layout(rect);
    const double x = g.x(base());
    return QRectF(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
}

int TornadoPainter::barAt(const QRectF& rect, QPointF point) const
{
    const Geometry g = layout(rect);
    if (point.y() < g.plot.top() || point.y() >= g.plot.bottom() || point.x() < rect.left() || point.x() > rect.right())
        return -1;
    const int k = int((point.y() - g.plot.top()) / g.rowHeight);
    return k >= 0 && k < int(order_.size()) ? k : -1;
}

QString TornadoPainter::toolTip(int k) const
{
    if (k < 0 || k >= int(order_.size()))
        return {};
    const auto& bar = result_.bars[size_t(order_[size_t(k)])];
    auto end = [&](const char* sign, double input, double inputBase, double outcome) {
        if (input == inputBase)
            return tr("%1: cannot move (already at its limit)").arg(QString::fromUtf8(sign));
        return tr("%1 %2: %3 %4").arg(QString::fromUtf8(sign), inputValueText(bar, input), outcomeText(outcome), unit());
    };
    return tr("<b>%1</b>, now %2<br>%3<br>%4<br>Base %5 %6, swing %7 %6")
        .arg(markup::escaped(fromStd(bar.input)), inputValueText(bar, bar.baseValue))
        .arg(end("Lower", bar.lowValue, bar.baseValue, outcomeLow(bar)))
        .arg(end("Higher", bar.highValue, bar.baseValue, outcomeHigh(bar)))
        .arg(outcomeText(base()), unit(), outcomeText(swing(bar)));
}

void TornadoPainter::paint(QPainter& p, const QRectF& rect) const
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);  // axis-aligned rectangles and lines
    p.setRenderHint(QPainter::TextAntialiasing, true);
    const Geometry g = layout(rect);
    const QFont titleFont = fonts::pixels(13, QFont::DemiBold);
    const QFont nameFont = fonts::pixels(12);
    const QFont valueFont = fonts::pixels(11);
    const QFontMetricsF valueMetrics(valueFont);

    // Title left, legend right.
    // An unknown input's low end is its slower value, its high end its faster one.
    const bool unknowns = std::any_of(result_.bars.begin(), result_.bars.end(),
                                      [](const trainplan::SensitivityBar& b) { return b.kind == trainplan::SensitivityKind::Unknown; });
    const QString moved = QString::fromStdString(trainplan::formatPercent(result_.fraction, 0));
    const QString legendLow = unknowns ? tr("input −%1 / slower").arg(moved) : tr("input −%1").arg(moved);
    const QString legendHigh = unknowns ? tr("input +%1 / faster").arg(moved) : tr("input +%1").arg(moved);
    const double swatch = 10;
    const double legendWidth =
        2 * (swatch + 4) + valueMetrics.horizontalAdvance(legendLow) + valueMetrics.horizontalAdvance(legendHigh) + 14;
    // The measure in bold, then what varies and the basis, muted: elided from the end, so a
    // narrow pane keeps what the bars measure.
    const QRectF titleRect = g.title.adjusted(0, 0, -legendWidth - kGap, 0);
    const QFontMetricsF titleMetrics(titleFont);
    const QString head = titleHead();
    const QString headShown = titleMetrics.elidedText(head, Qt::ElideRight, titleRect.width());
    p.setFont(titleFont);
    p.setPen(kText);
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, headShown);
    const double headWidth = titleMetrics.horizontalAdvance(headShown);
    if (headShown == head && headWidth + 20 < titleRect.width()) {
        const QRectF rest = titleRect.adjusted(headWidth, 0, 0, 0);
        p.setFont(fonts::pixels(12));
        p.setPen(kMuted);
        p.drawText(rest, Qt::AlignLeft | Qt::AlignVCenter,
            QFontMetricsF(fonts::pixels(12)).elidedText(titleDetail(), Qt::ElideRight, rest.width()));
    }
    p.setFont(valueFont);
    double lx = g.title.right() - legendWidth;
    for (auto [text, color] : {std::pair{legendLow, lowColor()}, std::pair{legendHigh, highColor()}}) {
        p.fillRect(QRectF(lx, g.title.center().y() - swatch / 2, swatch, swatch), color);
        lx += swatch + 4;
        p.setPen(kText);
        p.drawText(QRectF(lx, g.title.top(), 200, g.title.height()), Qt::AlignLeft | Qt::AlignVCenter, text);
        lx += valueMetrics.horizontalAdvance(text) + 14;
    }

    if (order_.empty()) {
        p.setPen(kMuted);
        p.drawText(rect, Qt::AlignCenter, tr("No inputs to vary"));
        p.restore();
        return;
    }

    // Grid and axis: nice ticks across the outcome range.
    const double step = niceStep(g.to - g.from, std::max(3, int(g.plot.width() / 90)));
    const int decimals = std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6);  // 9.5, 10.0, 10.5: one format per axis
    p.setFont(valueFont);
    for (double t = std::ceil(g.from / step) * step; t <= g.to + step * 1e-6; t += step) {
        const double x = g.x(t);
        p.setPen(kGrid);
        p.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
        p.setPen(kMuted);
        p.drawLine(QPointF(x, g.plot.bottom()), QPointF(x, g.plot.bottom() + 4));
        p.drawText(QRectF(x - 40, g.plot.bottom() + 4, 80, 14), Qt::AlignHCenter | Qt::AlignTop, QString::number(t, 'f', decimals));
    }
    p.setPen(kMuted);
    p.drawLine(g.plot.bottomLeft(), g.plot.bottomRight());
    // Centred under the bars but free to use the whole width, so a narrow plot does not clip it.
    const QString axisTitle = measure_ == Measure::PaddedDays ? tr("days, with failures and restarts") : tr("seconds per step");
    const double half = std::min(g.axis.center().x() - rect.left(), rect.right() - g.axis.center().x());
    p.drawText(QRectF(g.axis.center().x() - half, g.axis.bottom() - 16, 2 * half, 16), Qt::AlignHCenter | Qt::AlignBottom,
               valueMetrics.elidedText(axisTitle, Qt::ElideRight, 2 * half));

    const double b = base();
    const double xb = g.x(b);
    const bool twoLines = g.rowHeight >= 2 * QFontMetricsF(nameFont).height();
    for (size_t k = 0; k < order_.size(); ++k) {
        const auto& bar = result_.bars[size_t(order_[k])];
        const double rowTop = g.plot.top() + k * g.rowHeight;
        const double y = rowTop + (g.rowHeight - g.barHeight) / 2;
        const double lo = outcomeLow(bar), hi = outcomeHigh(bar);

        // Name (and the input's present value) on the left.
        const QRectF label(g.labels.left(), rowTop, g.labels.width() - kGap, g.rowHeight);
        const QFontMetricsF nameMetrics(nameFont);
        p.setPen(kText);
        p.setFont(nameFont);
        if (twoLines) {
            const double h = g.rowHeight / 2;
            p.drawText(QRectF(label.left(), rowTop + h - nameMetrics.height() + 1, label.width(), nameMetrics.height()),
                Qt::AlignRight | Qt::AlignBottom, nameMetrics.elidedText(fromStd(bar.input), Qt::ElideRight, label.width()));
            p.setFont(valueFont);
            p.setPen(kMuted);
            p.drawText(QRectF(label.left(), rowTop + h, label.width(), valueMetrics.height()), Qt::AlignRight | Qt::AlignTop,
                       valueMetrics.elidedText(inputValueText(bar, bar.baseValue), Qt::ElideRight, label.width()));
        } else {
            p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, nameMetrics.elidedText(fromStd(bar.input), Qt::ElideRight, label.width()));
        }

        // The two halves from the base line; if both ends fall on one side, the longer
        // half underneath and the shorter one narrower on top, so both stay visible.
        struct Half {
            double outcome;
            QColor color;
            double input;
        };
        Half halves[2] = {{lo, lowColor(), bar.lowValue}, {hi, highColor(), bar.highValue}};
        const bool sameSide = (lo - b) * (hi - b) > 0;
        if (std::abs(halves[0].outcome - b) < std::abs(halves[1].outcome - b))
            std::swap(halves[0], halves[1]);
        for (int i = 0; i < 2; ++i) {
            const Half& h = halves[i];
            if (h.outcome == b)
                continue;
            const double inset = sameSide && i == 1 ? g.barHeight * 0.22 : 0;
            QRectF r(QPointF(std::min(xb, g.x(h.outcome)), y + inset), QPointF(std::max(xb, g.x(h.outcome)), y + g.barHeight - inset));
            p.fillRect(r, h.color);
            p.setPen(h.color.darker(130));
            p.drawRect(r);
        }

        // The input's value at each end, outside the bar; "no effect" for a bar of zero width.
        p.setFont(valueFont);
        const QRectF row(g.plot.left(), rowTop, g.plot.width(), g.rowHeight);
        auto endLabel = [&](double outcome, const QString& text, const QColor& color) {
            const double x = g.x(outcome);
            p.setPen(color.darker(150));
            if (outcome >= b)
                p.drawText(QRectF(x + 4, row.top(), 400, row.height()), Qt::AlignLeft | Qt::AlignVCenter, text);
            else
                p.drawText(QRectF(x - 404, row.top(), 400, row.height()), Qt::AlignRight | Qt::AlignVCenter, text);
        };
        const bool lowMoved = bar.lowValue != bar.baseValue, highMoved = bar.highValue != bar.baseValue;
        if (lo == b && hi == b) {
            p.setPen(kMuted);
            p.drawText(QRectF(xb + 6, row.top(), 400, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       lowMoved || highMoved ? tr("no effect") : tr("cannot move"));
        } else if (sameSide) {
            // Both ends on one side: one label at the far end, low value first.
            const double far = std::abs(lo - b) > std::abs(hi - b) ? lo : hi;
            endLabel(far, inputValueText(bar, bar.lowValue) + QStringLiteral(" / ") + inputValueText(bar, bar.highValue), kText);
        } else {
            if (lo != b && lowMoved)
                endLabel(lo, inputValueText(bar, bar.lowValue), lowColor());
            if (hi != b && highMoved)
                endLabel(hi, inputValueText(bar, bar.highValue), highColor());
        }
    }

    // The base value: a line through every bar, labelled above them.
    p.setPen(QPen(kText, 1.5));
    p.drawLine(QPointF(xb, g.plot.top() - 2), QPointF(xb, g.plot.bottom()));
    p.setFont(valueFont);
    const QString baseText = tr("base %1 %2").arg(outcomeText(b), unit());
    p.drawText(QRectF(xb - 150, g.plot.top() - kBaseLabelHeight, 300, kBaseLabelHeight - 2), Qt::AlignHCenter | Qt::AlignBottom, baseText);
    p.restore();
}
