#include "core/text/PlanComparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/base/Format.h"
#include "core/plan/PlanIO.h"
#include "core/text/EstimateJson.h"

namespace trainplan {

namespace {

using nlohmann::json;

// The headline figures, by their estimate --json keys: what the window's cards show, on the
// predicted basis first and then at the assumed MFU, each labelled as the cards label it.
struct FigureRow {
    const char* key;
    const char* label;
    const char* unit;
};
constexpr FigureRow kFigures[] = {
    {"parameters.total", "Parameters", "count"},
    {"parameters.active", "Active parameters", "count"},
    {"flops.total", "Training FLOPs", "flops"},
    {"memory.per_gpu_bytes.total", "Memory per GPU (fullest)", "bytes"},
    {"memory.verdict", "Memory verdict", "text"},
    {"pipeline.bubble_fraction", "Pipeline bubble", "fraction"},
    {"predicted.step_seconds", "Step time, predicted", "seconds"},
    {"predicted.mfu", "MFU vs BF16 peak, predicted", "fraction"},  // MfuBasis.h: every GEMM format
    {"predicted.tokens_per_second_per_gpu", "Tokens/s per GPU, predicted", "number"},
    {"predicted.days", "Wall time, predicted", "days"},
    {"predicted.padded_days", "Wall time with failures, predicted", "days"},
    {"predicted.gpu_hours", "GPU-hours, predicted", "count"},
    {"time.step_seconds", "Step time, assumed MFU", "seconds"},
    {"time.days", "Wall time, assumed MFU", "days"},
    {"time.gpu_hours", "GPU-hours, assumed MFU", "count"},
    // Money, energy and carbon with the failure allowance, as the cards and the "ask" quote them;
    // a plan without a price (or power, or grid intensity) shows "—" (CostEnergyModel.h).
    {"cost.predicted.usd_with_failures", "Cost with failures, predicted", "usd"},
    {"cost.usd_with_failures", "Cost with failures, assumed MFU", "usd"},
    {"energy.predicted.mwh_with_failures", "Energy with failures, predicted", "mwh"},
    {"carbon.predicted.tonnes_co2e_with_failures", "Carbon with failures, predicted", "tonnes"},
};

const json* at(const json& document, const std::string& path)
{
    const json* node = &document;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!node->is_object() || !node->contains(key))
            return nullptr;
        node = &node->at(key);
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return node;
}

// A plan document's leaves by dotted path; arrays are leaves (a stage split is one value).
void flatten(const json& node, const std::string& path, std::map<std::string, json>& out)
{
    if (node.is_object()) {
        for (auto it = node.begin(); it != node.end(); ++it)
            flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
        return;
    }
    out[path] = node;
}

}  // namespace

std::string comparisonValueText(const json& value, const std::string& unit)
{
    if (value.is_null())
        return "—";
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (!value.is_number())
        return value.dump();
    const double v = value.get<double>();
    if (unit == "count")
        return formatCount(v);
    if (unit == "flops")
        return formatSci(v);
    if (unit == "bytes")
        return formatBytes(v);
    if (unit == "seconds")
        return formatSeconds(v);
    if (unit == "days")
        return formatNumber(v) + " days";
    if (unit == "fraction")
        return formatPercent(v);
    if (unit == "usd")
        return "$" + formatCount(v);
    if (unit == "mwh")
        return formatNumber(v) + " MWh";
    if (unit == "tonnes")
        return formatNumber(v) + " t CO₂e";
    return formatNumber(v);
}

std::string comparisonDifferenceText(const json& a, const json& b, const std::string& unit)
{
    if (a.is_null() || b.is_null())
        return "—";  // a figure one plan cannot give (no price, no power) has no difference
    if (!a.is_number() || !b.is_number())
        return a == b ? "same" : "differs";
    const double x = a.get<double>(), y = b.get<double>();
    if (x == y)
        return "same";
    const double d = y - x;
    const std::string sign = d > 0 ? "+" : "−";
    if (unit == "fraction")
        return sign + formatNumber(std::fabs(d) * 100, 3) + " pts";
    std::string out = sign + comparisonValueText(std::fabs(d), unit);
    if (x != 0)
        out += " (" + std::string(d > 0 ? "+" : "−") + formatPercent(std::fabs(d / x)) + ")";
    return out;
}

std::string comparisonLetter(size_t index)
{
    return index < 26 ? std::string(1, char('A' + index)) : std::to_string(index + 1);
}

namespace {

std::string pad(const std::string& text, size_t width)
{
    // Width in characters, not bytes: the text holds "—" and "×".
    size_t chars = 0;
    for (unsigned char c : text)
        chars += (c & 0xC0) != 0x80;
    return text + std::string(width > chars ? width - chars : 1, ' ');
}

}  // namespace

PlanComparison comparePlans(const std::vector<const Analysis*>& analyses, const std::vector<std::string>& sources)
{
    PlanComparison c;
    c.sources = sources;
    std::vector<json> estimates, plans;
    for (const Analysis* a : analyses) {
        c.names.push_back(a->plan.name);
        estimates.push_back(estimateToJson(*a));
        plans.push_back(planToJson(a->plan));
        c.errorFlags.push_back(int(std::count_if(a->estimate.warnings.begin(), a->estimate.warnings.end(),
                                                 [](const Warning& w) { return w.severity == Severity::Error; })));
    }
    for (const FigureRow& row : kFigures) {
        ComparedFigure f{row.key, row.label, row.unit, {}};
        bool any = false;
        for (const json& e : estimates) {
            const json* v = at(e, row.key);
            f.values.push_back(v ? *v : json(nullptr));
            any |= v != nullptr;
        }
        if (any)
            c.figures.push_back(std::move(f));
    }
    // The input fields that differ: every leaf of every plan, the name and notes aside.
    std::vector<std::map<std::string, json>> leaves(plans.size());
    std::map<std::string, bool> paths;
    for (size_t i = 0; i < plans.size(); ++i) {
        flatten(plans[i], "", leaves[i]);
        for (const auto& [path, value] : leaves[i])
            paths[path] = true;
    }
    for (const auto& [path, unused] : paths) {
        (void)unused;
        if (path == "name" || path == "name_user_set" || path == "notes" || path == "model.name")
            continue;
        ChangedField field{path, {}};
        bool differs = false;
        for (const auto& l : leaves) {
            const auto it = l.find(path);
            field.values.push_back(it == l.end() ? json(nullptr) : it->second);
            differs |= field.values.back() != field.values.front();
        }
        if (differs)
            c.changedFields.push_back(std::move(field));
    }
    return c;
}

json comparisonToJson(const PlanComparison& c)
{
    json plans = json::array();
    for (size_t i = 0; i < c.names.size(); ++i)
        plans.push_back({{"name", c.names[i]}, {"source", i < c.sources.size() ? c.sources[i] : ""}, {"error_flags", c.errorFlags[i]}});
    json figures = json::array();
    for (const auto& f : c.figures) {
        json diffs = json::array();
        for (size_t i = 1; i < f.values.size(); ++i) {
            const json& a = f.values[0];
            const json& b = f.values[i];
            if (a.is_number() && b.is_number())
                diffs.push_back({{"difference", b.get<double>() - a.get<double>()},
                                 {"ratio", a.get<double>() != 0 ? json(b.get<double>() / a.get<double>()) : json(nullptr)}});
            else
                diffs.push_back({{"same", a == b}});
        }
        figures.push_back({{"key", f.key}, {"label", f.label}, {"unit", f.unit}, {"values", f.values}, {"against_first", diffs}});
    }
    json changed = json::array();
    for (const auto& f : c.changedFields)
        changed.push_back({{"path", f.path}, {"values", f.values}});
    return {{"plans", plans}, {"figures", figures}, {"changed_fields", changed}};
}

std::string comparisonToText(const PlanComparison& c)
{
    std::ostringstream out;
    const auto letter = comparisonLetter;
    out << "Comparing\n";
    for (size_t i = 0; i < c.names.size(); ++i) {
        out << "  " << letter(i) << "  " << c.names[i];
        if (i < c.sources.size() && !c.sources[i].empty())
            out << "  (" << c.sources[i] << ")";
        if (c.errorFlags[i] > 0)
            out << "  [" << countOf(c.errorFlags[i], "error-level red flag") << "]";
        out << "\n";
    }
    out << "\n";
    constexpr size_t kLabel = 38, kValue = 18;
    out << pad("", kLabel);
    for (size_t i = 0; i < c.names.size(); ++i)
        out << pad(letter(i), kValue);
    for (size_t i = 1; i < c.names.size(); ++i)
        out << pad(letter(i) + " against A", kValue + 8);
    out << "\n";
    for (const auto& f : c.figures) {
        out << pad(f.label, kLabel);
        for (const auto& v : f.values)
            out << pad(comparisonValueText(v, f.unit), kValue);
        for (size_t i = 1; i < f.values.size(); ++i)
            out << pad(comparisonDifferenceText(f.values[0], f.values[i], f.unit), kValue + 8);
        out << "\n";
    }
    out << "\nWhat changed (input fields that differ)\n";
    if (c.changedFields.empty())
        out << "  nothing: the plans have the same inputs\n";
    for (const auto& f : c.changedFields) {
        out << "  " << pad(f.path, kLabel - 2);
        for (size_t i = 0; i < f.values.size(); ++i)
            out << (i ? " → " : "") << (f.values[i].is_null() ? std::string("(absent)") : f.values[i].dump());
        out << "\n";
    }
    return out.str();
}

}  // namespace trainplan
