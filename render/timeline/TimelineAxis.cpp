#include "render/timeline/TimelineAxis.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

#include "core/base/Units.h"

namespace {

constexpr double kMillisecondsPerSecond = trainplan::units::millisecondsPerSecond;  // the axis is labelled in ms

int decimalsFor(double resolutionMs)
{
    if (!(resolutionMs > 0))
        return 0;
    return std::clamp(int(-std::floor(std::log10(resolutionMs) + 1e-9)), 0, 6);
}

}  // namespace

TimelineAxis::TimelineAxis(double left, double right, double t0Seconds, double t1Seconds)
    : left_(left)
    , right_(right)
    , t0_(t0Seconds)
    , t1_(t1Seconds)
    , scale_(t1Seconds > t0Seconds && right > left ? (right - left) / (t1Seconds - t0Seconds) : 1.0)
{
}

double TimelineAxis::roundUp(double value, std::initializer_list<double> mantissas)
{
    if (!(value > 0) || !std::isfinite(value))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double m : mantissas)
        if (m * magnitude >= value * (1 - 1e-9))
            return m * magnitude;
    return 10 * magnitude;
}

double TimelineAxis::tickStepSeconds(double minSpacing) const
{
    return isValid() ? roundUp(minSpacing / scale_, {1.0, 2.0, 5.0}) : 0.0;
}

std::vector<double> TimelineAxis::ticks(double minSpacing) const
{
    std::vector<double> out;
    const double step = tickStepSeconds(minSpacing);
    if (!(step > 0))
        return out;
    for (double k = std::ceil(t0_ / step - 1e-9); k * step <= t1_ + step * 1e-9; k += 1)
        out.push_back(k * step);
    return out;
}

QString TimelineAxis::tickLabel(double seconds, double stepSeconds)
{
    const double ms = seconds * kMillisecondsPerSecond;
    return QLocale(QLocale::English).toString(std::abs(ms) < 1e-9 ? 0.0 : ms, 'f', decimalsFor(stepSeconds * kMillisecondsPerSecond));
}

QString TimelineAxis::milliseconds(double seconds, double resolutionSeconds)
{
    const int decimals = decimalsFor(resolutionSeconds * kMillisecondsPerSecond);
    return QLocale(QLocale::English).toString(seconds * kMillisecondsPerSecond, 'f', decimals) + QStringLiteral(" ms");
}
