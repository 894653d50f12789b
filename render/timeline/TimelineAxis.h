// The timeline's horizontal scale: a visible window of the step's time drawn across a span
// of x, with tick positions at "nice" round milliseconds.
#pragma once

#include <QString>

#include <initializer_list>
#include <vector>

class TimelineAxis {
public:
    // Tick spacing that leaves room for a label like "12,500" and air around it.
    static constexpr double kMinTickSpacing = 90;

    TimelineAxis() = default;
    TimelineAxis(double left, double right, double t0Seconds, double t1Seconds);

    double left() const { return left_; }
    double right() const { return right_; }
    double width() const { return right_ - left_; }
    double t0() const { return t0_; }
    double t1() const { return t1_; }
    bool isValid() const { return right_ > left_ && t1_ > t0_; }

    double x(double seconds) const { return left_ + (seconds - t0_) * scale_; }
    double seconds(double x) const { return t0_ + (x - left_) / scale_; }
    double pixelsPerSecond() const { return scale_; }

    // Ticks at least minSpacing apart, on a 1-2-5 progression of milliseconds (Heckbert,
    // "Nice numbers for graph labels", Graphics Gems, 1990), in seconds.
    std::vector<double> ticks(double minSpacing = kMinTickSpacing) const;
    double tickStepSeconds(double minSpacing = kMinTickSpacing) const;
    // The smallest m x 10^k at or above value, m from mantissas (ascending, within [1, 10]).
    static double roundUp(double value, std::initializer_list<double> mantissas);
    // "1,250" for a tick at 1.25 s with steps of 250 ms: milliseconds with just the
    // decimals the step needs.
    static QString tickLabel(double seconds, double stepSeconds);
    // "123.45 ms": a time in milliseconds, with decimals down to resolutionSeconds.
    static QString milliseconds(double seconds, double resolutionSeconds);

private:
    double left_ = 0, right_ = 1;
    double t0_ = 0, t1_ = 1;
    double scale_ = 1;  // pixels per second
};
