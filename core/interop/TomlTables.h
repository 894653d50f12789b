// A TOML document's tables as JSON, for the torchtitan importer (TorchtitanImport.h):
// {"training": {"seq_len": 8192}, "parallelism": {...}}, keys before any header under "".
// The subset torchtitan's configs use (TOML 1.0, toml.io): [table] and [a.b] headers (the name
// kept whole, "a.b"), bare and quoted keys, basic strings (with \" \\ \n \t \uXXXX escapes) and
// literal strings, integers (with _ separators, and 0x/0o/0b), floats (inf, nan), booleans,
// arrays of these over several lines, comments. Not: inline tables, dates, multi-line strings,
// arrays of tables. Throws PlanError with path "line N" and the reason.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace trainplan {

nlohmann::json parseTomlTables(std::string_view text);

}  // namespace trainplan
