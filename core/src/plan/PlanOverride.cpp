#include <nlohmann/json.hpp>

#include "plan/PlanIO.h"

namespace trainplan {

using nlohmann::json;

void applyOverride(json& doc, const std::string& assignment)
{
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        throw PlanError({{assignment, "--set needs PATH=VALUE, e.g. layout.tp=4"}});
    const std::string path = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    json value;
    try {
        value = json::parse(text);
    } catch (const json::parse_error&) {
        value = text;  // a bare word such as auto or interleaved
    }
    json* node = &doc;
    size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (key.empty())
            throw PlanError({{path, "is not a valid field path"}});
        if (!node->is_object())
            throw PlanError({{path.substr(0, start ? start - 1 : 0), "is not an object, so " + path + " cannot be set"}});
        if (dot == std::string::npos) {
            (*node)[key] = value;
            return;
        }
        node = &(*node)[key];
        if (node->is_null())
            *node = json::object();
        start = dot + 1;
    }
}

}  // namespace trainplan
