#include "core/base/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/base/Units.h"

namespace trainplan {

namespace {

std::string printf3(double v, const char* unit)
{
    char buf[64];
    const double a = std::fabs(v);
    const char* fmt = a >= 100 ? "%.0f %s" : a >= 10 ? "%.1f %s" : "%.2f %s";
    std::snprintf(buf, sizeof buf, fmt, v, unit);
    return buf;
}

}  // namespace

std::string formatBytes(double bytes)
{
    if (!std::isfinite(bytes))
        return "n/a";
    const double a = std::fabs(bytes);
    if (a >= units::PB)
        return printf3(bytes / units::PB, "PB");
    if (a >= units::TB)
        return printf3(bytes / units::TB, "TB");
    if (a >= units::GB)
        return printf3(bytes / units::GB, "GB");
    if (a >= units::MB)
        return printf3(bytes / units::MB, "MB");
    if (a >= units::kB)
        return printf3(bytes / units::kB, "kB");
    return bytes == 0.0 ? "0 B" : printf3(bytes, "B");
}

std::string formatSeconds(double s)
{
    if (!std::isfinite(s))
        return "n/a";
    const double a = std::fabs(s);
    if (a < 1e-12)
        return "0 s";  // rounding noise, not a duration
    if (a >= 2 * units::secondsPerDay)
        return printf3(s / units::secondsPerDay, "days");
    if (a >= 2 * units::secondsPerHour)
        return printf3(s / units::secondsPerHour, "h");
    if (a >= 2 * units::secondsPerMinute)
        return printf3(s / units::secondsPerMinute, "min");
    if (a >= 1.0 || a == 0.0)
        return printf3(s, "s");
    if (a >= units::milli)
        return printf3(s * units::millisecondsPerSecond, "ms");
    return printf3(s * units::microsecondsPerSecond, "\xC2\xB5s");
}

std::string formatSci(double v, int digits)
{
    if (!std::isfinite(v))
        return "n/a";
    if (v == 0.0)
        return "0";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    // 5.93e+23 -> 5.93e23, 1.40e-05 -> 1.40e-5
    std::string s(buf);
    const auto e = s.find('e');
    std::string mant = s.substr(0, e);
    std::string exp = s.substr(e + 1);
    const bool neg = exp[0] == '-';
    size_t i = 1;
    while (i < exp.size() - 1 && exp[i] == '0')
        ++i;
    return mant + "e" + (neg ? "-" : "") + exp.substr(i);
}

std::string formatInteger(double v)
{
    if (!std::isfinite(v))
        return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", std::fabs(std::round(v)));
    std::string digits(buf), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return (v < 0 ? "-" : "") + out;
}

std::string formatNumber(double v, int significant)
{
    if (!std::isfinite(v))
        return "n/a";
    const double a = std::fabs(v);
    if (a == 0.0)
        return "0";
    if (a >= 1e7 || a < 1e-3)
        return formatSci(v, significant);
    if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, a))
        return formatInteger(v);
    const int magnitude = int(std::floor(std::log10(a)));
    const int decimals = std::max(0, significant - 1 - magnitude);
    if (decimals == 0)
        return formatInteger(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string formatCount(double v)
{
    if (!std::isfinite(v))
        return "n/a";
    const double a = std::fabs(v);
    char buf[64];
    if (a >= units::tera)
        std::snprintf(buf, sizeof buf, "%.3g trillion", v / units::tera);
    else if (a >= units::giga)
        std::snprintf(buf, sizeof buf, "%.2f billion", v / units::giga);
    else if (a >= units::mega)
        std::snprintf(buf, sizeof buf, "%.1f million", v / units::mega);
    else
        return formatInteger(v);
    return buf;
}

std::string formatPercent(double fraction, int decimals)
{
    if (!std::isfinite(fraction))
        return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %%", decimals, fraction * 100.0);
    return buf;
}

std::string pluralNoun(double count, const std::string& singular, const std::string& plural)
{
    if (count == 1.0)
        return singular;
    return plural.empty() ? singular + "s" : plural;
}

std::string countOf(double count, const std::string& singular, const std::string& plural)
{
    return formatNumber(count) + " " + pluralNoun(count, singular, plural);
}

}  // namespace trainplan
