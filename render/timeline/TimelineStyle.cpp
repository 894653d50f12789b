#include "render/timeline/TimelineStyle.h"

#include <algorithm>

#include "render/style/Fonts.h"
#include "render/style/Theme.h"

using trainplan::ScheduleEventKind;
using trainplan::ScheduleKind;

namespace {


QColor mix(QColor a, QColor b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

TimelineStyle::TimelineStyle()
    : bubble(theme::bubble())
    , dpHidden(theme::dpHidden())
    , dpExposed(theme::dpExposed())
    , allToAll(theme::epComm().darker(140))
    , headerFont(fonts::pixels(13, QFont::DemiBold))
    , titleFont(fonts::pixels(12, QFont::DemiBold))
    , labelFont(fonts::pixels(11, QFont::Normal))
    , blockFont(fonts::pixels(10, QFont::Normal))
{
}

QColor TimelineStyle::blockColor(ScheduleEventKind kind, int chunk, int chunks) const
{
    QColor base = forward;
    switch (kind) {
    case ScheduleEventKind::Forward: base = forward; break;
    case ScheduleEventKind::Backward: base = backward; break;
    case ScheduleEventKind::WeightGrad: base = weightGrad; break;
    case ScheduleEventKind::Send: base = mutedText; break;
    case ScheduleEventKind::DpSync: base = dpHidden; break;
    }
    if (chunks <= 1 || chunk <= 0)
        return base;
    // Up to 55 % towards white for the last chunk: still clearly its kind's hue.
    return mix(base, Qt::white, 0.55 * std::min(chunk, chunks - 1) / double(chunks - 1));
}

QColor TimelineStyle::textOn(QColor fill)
{
    // Relative luminance with the Rec. 709 weights; 0.6 keeps white on the blue and emerald.
    const double y = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return y > 0.6 ? theme::ink() : QColor(Qt::white);
}

QColor TimelineStyle::kindColor(ScheduleKind kind) const
{
    switch (kind) {
    case ScheduleKind::GPipe: return theme::capacity();         // red: holds every micro-batch
    case ScheduleKind::OneFOneB: return theme::compute();      // blue
    case ScheduleKind::Interleaved: return theme::accent();   // violet
    case ScheduleKind::ZeroBubbleH1: return theme::severity(trainplan::Severity::Warning);  // amber, like its W blocks
    case ScheduleKind::DualPipe: return theme::compute().darker(140);                           // deep blue, two ways
    }
    return text;
}

QColor TimelineStyle::stageColor(int stage, int stages)
{
    // Slate blue for stage 1 fading to light sky blue for the last: order reads at a glance.
    const QColor first(0x1e, 0x3a, 0x8a), last(0x7d, 0xd3, 0xfc);
    return mix(first, last, stages > 1 ? std::clamp(double(stage) / (stages - 1), 0.0, 1.0) : 0.0);
}
