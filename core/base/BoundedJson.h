// JSON text to a document, safe on hostile input: nesting is bounded (a deep document would
// otherwise exhaust the stack in anything that walks it recursively), a key given twice in one
// object is refused (rather than silently keeping the last value), and every error names its
// line and column and, where there is one, the JSON path of the offending value.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace trainplan {

// A plan is four levels deep; 64 leaves room for any reasonable nesting in free-text fields.
inline constexpr size_t kMaxJsonDepth = 64;

struct BoundedJsonResult {
    enum class Status { Ok, SyntaxError, NumberOutOfRange, TooDeep, DuplicateKey };
    Status status = Status::Ok;
    nlohmann::json value;   // the document when Ok
    std::string path;       // where the problem is ("training.tokens", the key given twice), "" at the top
    std::string message;    // why, with line and column; names `what`
};
BoundedJsonResult tryParseJsonBounded(const std::string& text, const std::string& what, size_t maxDepth = kMaxJsonDepth);

// Throws PlanError naming the path of the problem ("training.tokens" for a number outside
// double range or a key given twice, "model" for a key in it that is not UTF-8) with the line
// and column. `what` names the source in messages ("plan.json").
nlohmann::json parseJsonBounded(const std::string& text, const std::string& what, size_t maxDepth = kMaxJsonDepth);

// True when the bytes are well-formed UTF-8 (no overlong forms, surrogates or code points
// past U+10FFFF), as the JSON reader and writer require of every string.
bool isValidUtf8(const std::string& bytes);

}  // namespace trainplan
