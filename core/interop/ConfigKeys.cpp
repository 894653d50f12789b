#include "core/interop/ConfigKeys.h"

#include <climits>
#include <cmath>

#include "core/base/PlanError.h"

namespace trainplan {

std::optional<int> ConfigKeys::integer(const std::string& key)
{
    read_.insert(key);
    if (!has(key))
        return std::nullopt;
    const auto& v = object_.at(key);
    if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && d >= INT_MIN && d <= INT_MAX)
            return int(d);
        throw PlanError({PlanProblem{name(key), "must be a whole number that fits 32 bits, got " + v.dump()}});
    }
    throw PlanError({PlanProblem{name(key), "must be a whole number, got " + v.dump()}});
}

std::optional<double> ConfigKeys::number(const std::string& key)
{
    read_.insert(key);
    if (!has(key))
        return std::nullopt;
    const auto& v = object_.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        throw PlanError({PlanProblem{name(key), "must be a finite number, got " + v.dump()}});
    return v.get<double>();
}

std::optional<bool> ConfigKeys::boolean(const std::string& key)
{
    read_.insert(key);
    if (!has(key))
        return std::nullopt;
    const auto& v = object_.at(key);
    if (!v.is_boolean())
        throw PlanError({PlanProblem{name(key), "must be true or false, got " + v.dump()}});
    return v.get<bool>();
}

std::optional<std::string> ConfigKeys::text(const std::string& key)
{
    read_.insert(key);
    if (!has(key))
        return std::nullopt;
    const auto& v = object_.at(key);
    if (!v.is_string())
        throw PlanError({PlanProblem{name(key), "must be a string, got " + v.dump()}});
    return v.get<std::string>();
}

const nlohmann::json* ConfigKeys::raw(const std::string& key)
{
    read_.insert(key);
    return has(key) ? &object_.at(key) : nullptr;
}

std::vector<std::string> ConfigKeys::unread() const
{
    std::vector<std::string> out;
    for (auto it = object_.begin(); it != object_.end(); ++it)
        if (!read_.count(it.key()))
            out.push_back(it.key());
    return out;
}

}  // namespace trainplan
