#pragma once
// Lookup by name in the project's tables (weight and KV formats, runtimes, memory types,
// operators): one implementation of "find it, or say what exists and what was probably meant".

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace decodesim::core {

// The names of a table's rows, in table order.
template <typename Table>
std::vector<std::string> names_of(const Table& table) {
    std::vector<std::string> names;
    for (const auto& row : table) names.emplace_back(row.name);
    return names;
}

// The row named `name`, or nullptr.
template <typename Table>
const auto* find_named(const Table& table, std::string_view name) {
    using Row = std::remove_cvref_t<decltype(*std::begin(table))>;
    for (const Row& row : table) {
        if (row.name == name) return &row;
    }
    return static_cast<const Row*>(nullptr);
}

// The row named `name`; otherwise a UsageError such as
// "--weights: unknown format 'q4km' (did you mean 'q4_k_m'?); expected one of bf16 fp16 ...".
template <typename Table>
const auto& named_or_throw(const Table& table, std::string_view name, std::string_view flag, std::string_view noun) {
    if (const auto* row = find_named(table, name)) return *row;
    const auto names = names_of(table);
    throw UsageError(fmt::format("{}: unknown {} '{}'{}; expected one of {}", flag, noun, name,
                                 suggestion_note(name, names), fmt::join(names, " ")));
}

}  // namespace decodesim::core
