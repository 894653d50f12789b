// An enum's spellings as a table of (value, name) pairs, looked up both ways: the plan's tables
// (plan/EnumNames.h) and any other enum a file or a message spells.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace trainplan {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <typename E, size_t N>
constexpr std::string_view nameOf(const NameTable<E, N>& table, E value)
{
    for (const auto& [e, name] : table)
        if (e == value)
            return name;
    return table[0].second;
}

template <typename E, size_t N>
constexpr std::optional<E> valueOf(const NameTable<E, N>& table, std::string_view name)
{
    for (const auto& [e, n] : table)
        if (n == name)
            return e;
    return std::nullopt;
}

}  // namespace trainplan
