// Unit constants. GB is 1e9 bytes and GiB is 2^30 bytes; the two are never mixed.
#pragma once

namespace trainplan::units {

inline constexpr double kB = 1e3;
inline constexpr double MB = 1e6;
inline constexpr double GB = 1e9;
inline constexpr double TB = 1e12;
inline constexpr double GiB = 1073741824.0;  // 2^30
inline constexpr double MiB = 1048576.0;     // 2^20
inline constexpr double TFLOPS = 1e12;       // FLOP/s
inline constexpr double secondsPerMinute = 60.0;
inline constexpr double secondsPerHour = 3600.0;
inline constexpr double secondsPerDay = 86400.0;

}  // namespace trainplan::units
