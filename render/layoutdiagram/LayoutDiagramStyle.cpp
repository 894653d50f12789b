#include "render/layoutdiagram/LayoutDiagramStyle.h"

#include <QtGlobal>

#include <algorithm>
#include <array>

#include "render/style/Fonts.h"
#include "render/style/Theme.h"

namespace {


// Hues picked to stay apart from each other and from the warning amber and red.
constexpr std::array<QRgb, LayoutDiagramStyle::kCategoricalStages> kStageColors{
    0x2563eb,  // blue
    0x059669,  // emerald
    0x7c3aed,  // violet
    0xdb2777,  // pink
    0x0891b2,  // cyan
    0x65a30d,  // lime
    0x475569,  // slate
    0x9333ea,  // purple
};

// Viridis, stopped short of its yellow end so the last stages never read as a warning.
constexpr std::array<QRgb, 6> kRamp{0x440154, 0x414487, 0x2a788e, 0x22a884, 0x7ad151, 0xa8db34};

QColor mix(QColor a, QColor b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

}  // namespace

LayoutDiagramStyle::LayoutDiagramStyle()
    : captionFont(fonts::pixels(13, QFont::Bold))
    , titleFont(fonts::pixels(12, QFont::DemiBold))
    , labelFont(fonts::pixels(11, QFont::Normal))
    , smallFont(fonts::pixels(10, QFont::Normal))
{
}

QColor LayoutDiagramStyle::stageColor(int stage, int stages)
{
    if (!stagesUseRamp(stages))
        return QColor(kStageColors[size_t(std::clamp(stage, 0, kCategoricalStages - 1))]);
    const double t = std::clamp(double(stage) / double(std::max(1, stages - 1)), 0.0, 1.0) * double(kRamp.size() - 1);
    const int i = std::min(int(t), int(kRamp.size()) - 2);
    return mix(QColor(kRamp[size_t(i)]), QColor(kRamp[size_t(i + 1)]), t - i);
}

QColor LayoutDiagramStyle::otherReplicaColor(QColor stageColor)
{
    return mix(stageColor, Qt::white, 0.62);
}

QColor LayoutDiagramStyle::warningSlab() const
{
    return mix(warning(), Qt::white, 0.72);
}

QColor LayoutDiagramStyle::severityColor(trainplan::Severity severity)
{
    return theme::severity(severity);
}
