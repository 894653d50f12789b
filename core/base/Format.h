// Number formatting shared by the derivation, warnings, the CLI text and the UI.
// GB is 1e9 bytes; GiB is 2^30 and appears only where a caller asks for it.
#pragma once

#include <string>

namespace trainplan {

std::string formatBytes(double bytes);            // "8.82 GB", "67.1 MB", "1.13 TB"
std::string formatSeconds(double seconds);        // "2.36 s", "260 µs", "21.7 min", "9.11 days"
std::string formatSci(double value, int digits = 3);  // "5.93e23"
std::string formatCount(double value);            // "70.55 billion", "334 thousand"
std::string formatNumber(double value, int significant = 3);  // "0.0158", "1,024", "8.47"
std::string formatInteger(double value);          // "333,786"
std::string formatPercent(double fraction, int decimals = 1);  // "15.8 %"

// The noun for a count: singular for exactly one, plural otherwise (0, 2, 1.5); the plural
// defaults to singular + "s" ("micro-batch" needs "micro-batches").
std::string pluralNoun(double count, const std::string& singular, const std::string& plural = {});
// The count and its noun: "1 micro-batch", "16 micro-batches", "1.38 micro-batches", "0 errors".
std::string countOf(double count, const std::string& singular, const std::string& plural = {});

}  // namespace trainplan
