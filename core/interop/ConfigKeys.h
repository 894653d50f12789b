// Reading the keys of a JSON object one by one while remembering which were read, so an import
// can list every key it did not use. Type errors name the key as the source spells it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainplan {

class ConfigKeys {
public:
    // prefix: how the source names the object ("" for the top, "text_config." inside it).
    ConfigKeys(const nlohmann::json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {}

    bool has(const std::string& key) const { return object_.contains(key) && !object_.at(key).is_null(); }
    // A whole number that fits an int (1e3 and 1000.0 are read as 1000); absent or null: nothing.
    std::optional<int> integer(const std::string& key);
    std::optional<double> number(const std::string& key);
    std::optional<bool> boolean(const std::string& key);
    std::optional<std::string> text(const std::string& key);
    const nlohmann::json* raw(const std::string& key);  // any value, marked read
    void markRead(const std::string& key) { read_.insert(key); }

    std::string name(const std::string& key) const { return prefix_ + key; }
    const nlohmann::json& object() const { return object_; }
    // Keys present and not read, in the object's order.
    std::vector<std::string> unread() const;

private:
    const nlohmann::json& object_;
    std::string prefix_;
    std::set<std::string> read_;
};

}  // namespace trainplan
