#include "core/plan/PlanFieldsListing.h"

#include <algorithm>

namespace trainplan {

namespace {

const char* typeName(PlanFieldType type)
{
    switch (type) {
    case PlanFieldType::Text: return "text";
    case PlanFieldType::Integer: return "integer";
    case PlanFieldType::Number: return "number";
    case PlanFieldType::Boolean: return "boolean";
    case PlanFieldType::Choice: return "choice";
    case PlanFieldType::IntegerList: return "integer list";
    case PlanFieldType::IntegerOrAuto: return "integer or auto";
    case PlanFieldType::ObjectList: return "object list";
    }
    return "";
}

}  // namespace

std::string defaultInWords(const PlanField& f)
{
    std::string def;
    if (f.required)
        def = "required";
    else if (!f.defaultValue.empty())
        def = "`" + std::string(f.defaultValue) + "`";
    if (!f.defaultNote.empty())
        def += (def.empty() ? "" : "; ") + std::string(f.defaultNote);
    if (!f.alternative.empty())
        def += (def.empty() ? "" : "; ") + std::string("or `") + std::string(f.alternative) + "`";
    return def;
}

std::string planFieldsText()
{
    // The path column as wide as the longest path, so the meanings line up.
    size_t width = 0;
    for (const auto& f : planFields())
        width = std::max(width, f.path.size());
    std::string out;
    for (const auto& f : planFields()) {
        std::string def = defaultInWords(f);
        def.erase(std::remove(def.begin(), def.end(), '`'), def.end());
        if (!def.empty() && def.rfind("required", 0) != 0)
            def = "default " + def;
        out += std::string(f.path) + std::string(width + 2 - f.path.size(), ' ') + std::string(f.label) + " ("
            + (f.unit.empty() ? "" : std::string(f.unit) + "; ") + describeRange(f) + (def.empty() ? "" : "; " + def) + ")\n";
    }
    return out;
}

nlohmann::json planFieldsJson()
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : planFields()) {
        nlohmann::json row = {{"path", f.path},
            {"type", typeName(f.type)},
            {"unit", f.unit},
            {"allowed", describeRange(f)},
            {"required", f.required},
            {"meaning", f.label},
            {"title", f.title}};
        if (f.type == PlanFieldType::Integer || f.type == PlanFieldType::Number || f.type == PlanFieldType::IntegerList
            || f.type == PlanFieldType::IntegerOrAuto) {
            row["min"] = f.min;
            row["max"] = f.max;
        }
        if (f.type == PlanFieldType::Choice)
            row["choices"] = std::vector<std::string>(f.choices.begin(), f.choices.end());
        if (!f.defaultValue.empty()) {
            nlohmann::json value = nlohmann::json::parse(f.defaultValue, nullptr, false);
            row["default"] = value.is_discarded() ? nlohmann::json(std::string(f.defaultValue)) : value;
        }
        if (!f.defaultNote.empty())
            row["default_note"] = f.defaultNote;
        out.push_back(std::move(row));
    }
    return out;
}

}  // namespace trainplan
