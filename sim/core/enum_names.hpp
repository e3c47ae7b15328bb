#pragma once
// One name table per enum: the spelling a value has on the command line, in CSV and JSON, and in
// text is one row of one table, beside the enum. Flags check against `names_of(table)`, parsers use
// `named_or_throw(table, ...).value` (core/registry.hpp), and writers `name_of(table, value)`.

#include <string_view>

namespace decodesim::core {

template <typename Enum>
struct NamedValue {
    Enum value;
    std::string_view name;
};

// The name of `value` in `table`; "?" for a value the table lacks (a table missing a row is a bug
// that tests/test_statistics.cpp's table checks catch).
template <typename Table, typename Enum>
constexpr std::string_view name_of(const Table& table, Enum value) {
    for (const auto& row : table) {
        if (row.value == value) return row.name;
    }
    return "?";
}

}  // namespace decodesim::core
