// Unit constants: the one place a power of ten or two, or a count of seconds, is written as a
// number. GB is 1e9 bytes and GiB is 2^30 bytes; the two are never mixed.
#pragma once

#include <cstddef>

namespace trainplan::units {

// SI prefixes, for counts (tokens, parameters, layouts per second, dollars) and for datasheet
// figures written in their unit (989 * tera FLOP/s).
inline constexpr double kilo = 1e3;
inline constexpr double mega = 1e6;
inline constexpr double giga = 1e9;
inline constexpr double tera = 1e12;
inline constexpr double peta = 1e15;
inline constexpr double exa = 1e18;
inline constexpr double milli = 1e-3;
inline constexpr double micro = 1e-6;
inline constexpr double nano = 1e-9;

// Bytes.
inline constexpr double kB = kilo;
inline constexpr double MB = mega;
inline constexpr double GB = giga;
inline constexpr double TB = tera;
inline constexpr double PB = peta;
inline constexpr double KiB = 1024.0;     // 2^10
inline constexpr double MiB = KiB * KiB;  // 2^20
inline constexpr double GiB = MiB * KiB;  // 2^30
inline constexpr std::size_t mebibyte = 1024 * 1024;  // whole bytes, for size limits on files and buffers

// Rates.
inline constexpr double TFLOPS = tera;  // FLOP/s

// Time, in seconds.
inline constexpr double secondsPerMinute = 60.0;
inline constexpr double secondsPerHour = 60.0 * secondsPerMinute;
inline constexpr double hoursPerDay = 24.0;
inline constexpr double secondsPerDay = hoursPerDay * secondsPerHour;
inline constexpr double millisecondsPerSecond = kilo;
inline constexpr double microsecondsPerSecond = mega;
inline constexpr double nanosecondsPerMillisecond = mega;  // QElapsedTimer::nsecsElapsed() to ms

// Energy and mass: a megawatt-hour in joules (10^6 W x 3,600 s), a tonne in kilograms.
inline constexpr double MWh = mega * secondsPerHour;
inline constexpr double kgPerTonne = kilo;

}  // namespace trainplan::units
