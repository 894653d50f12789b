// --set PATH=VALUE on a plan document, before the reader checks it. Hostile bytes stop here
// with the field named: not UTF-8, numbers outside double range, unbounded nesting, a key
// given twice, free text longer than its field allows.
#include <nlohmann/json.hpp>

#include "core/base/BoundedJson.h"
#include "core/plan/PlanFields.h"
#include "core/plan/PlanIO.h"

namespace trainplan {

using nlohmann::json;

namespace {

// No plan field is more than two keys deep; a longer path is a typo, and an unbounded one
// would build an unboundedly deep document.
constexpr size_t kMaxPathKeys = 4;

// The path as printable text for a message: bytes that are not UTF-8 become '?'.
std::string printable(const std::string& bytes)
{
    if (isValidUtf8(bytes))
        return bytes;
    std::string out;
    for (unsigned char c : bytes)
        out += (c >= 0x20 && c < 0x7F) ? char(c) : '?';
    return out;
}

json overrideValue(const std::string& path, const std::string& text)
{
    using Status = BoundedJsonResult::Status;
    const PlanField* field = findPlanField(path);
    BoundedJsonResult parsed = tryParseJsonBounded(text, "the value", kMaxJsonDepth);
    if (field && field->type == PlanFieldType::Text) {
        // Free text is taken as given, unless it is a JSON string or null.
        if (parsed.status == Status::Ok && (parsed.value.is_string() || parsed.value.is_null()))
            return std::move(parsed.value);
        return text;
    }
    // A choice is spelled as the file spells it, even when the spelling reads as a number
    // (framework.flash_attention=2 is the string "2").
    if (field && field->type == PlanFieldType::Choice && parsed.status == Status::Ok && !parsed.value.is_string())
        for (std::string_view choice : field->choices)
            if (choice == text)
                return text;
    switch (parsed.status) {
    case Status::Ok: return std::move(parsed.value);
    case Status::SyntaxError: return text;  // a bare word such as auto or interleaved
    case Status::NumberOutOfRange:
    case Status::TooDeep:
    case Status::DuplicateKey: break;
    }
    throw PlanError({{path, parsed.message}});
}

}  // namespace

void applyOverride(json& doc, const std::string& assignment)
{
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        throw PlanError({{printable(assignment), "--set needs PATH=VALUE, e.g. layout.tp=4"}});
    const std::string path = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    if (!isValidUtf8(path))
        throw PlanError({{printable(path), "the field path is not valid UTF-8"}});
    if (!isValidUtf8(text))
        throw PlanError({{path, "the value is not valid UTF-8 text"}});
    // Version 1's layout.flash_attention is framework.flash_attention since version 2. Its "true"
    // meant "the kernel the stack has", which no value of the new field says, so rather than
    // translate half of it the old path is refused, naming the new one (docs/plan-format.md).
    if (path == "layout.flash_attention")
        throw PlanError({{path,
            "was replaced by framework.flash_attention in plan format version 2: use --set framework.flash_attention=none to "
            "turn FlashAttention off, or =2 or =3 for its version"}});
    const json value = overrideValue(path, text);
    // Free text within its field's bound, as the reader requires (PlanFields.h).
    if (const PlanField* field = findPlanField(path); field && value.is_string())
        if (std::string tooLong = textLengthProblem(*field, value.get_ref<const std::string&>()); !tooLong.empty())
            throw PlanError({{path, tooLong}});
    json* node = &doc;
    size_t start = 0;
    for (size_t keys = 1;; ++keys) {
        const auto dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (key.empty() || keys > kMaxPathKeys)
            throw PlanError({{path, "is not a valid field path"}});
        if (!node->is_object())
            throw PlanError({{path.substr(0, start ? start - 1 : 0), "is not an object, so " + path + " cannot be set"}});
        if (dot == std::string::npos) {
            (*node)[key] = value;
            // A name given on the command line is the person's, as one typed in the window
            // (PlanName.h); a blank one returns to the generated name.
            if (path == "name" && node == &doc)
                doc["name_user_set"] = value.is_string() && value.get<std::string>().find_first_not_of(" \t\r\n") != std::string::npos;
            return;
        }
        node = &(*node)[key];
        if (node->is_null())
            *node = json::object();
        start = dot + 1;
    }
}

}  // namespace trainplan
