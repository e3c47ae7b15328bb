#pragma once
// Quantities in JSON: the SI value, under a key whose suffix names the unit (step_time_s,
// weights_bytes). The only place a typed quantity becomes a bare JSON number.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/units.hpp"

namespace nlohmann {

template <typename Tag>
struct adl_serializer<decodesim::core::Quantity<Tag>> {
    static void to_json(json& target, const decodesim::core::Quantity<Tag>& quantity) { target = quantity.value; }
};

}  // namespace nlohmann

namespace decodesim::report {

// Every whole number held as a double (a batch, a byte count, a token count) as an integer, so
// that a batch reads 10 and not 10.0; numbers beyond 2^53, where doubles skip integers, stay as
// they are.
inline void write_whole_numbers_as_integers(nlohmann::json& node) {
    if (node.is_number_float()) {
        const double value = node.get<double>();
        constexpr double kExactLimit = 9007199254740992.0;  // 2^53
        if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) <= kExactLimit) {
            node = static_cast<std::int64_t>(value);
        }
    } else if (node.is_structured()) {
        for (auto& child : node) write_whole_numbers_as_integers(child);
    }
}

// A number as json_text writes it, for writers that stream what a document would hold too much
// of: a whole number within 2^53 as an integer, otherwise the shortest text that reads back to
// the same double (as nlohmann's dump), and null where the value is not finite.
inline std::string json_number_text(double value) {
    if (!std::isfinite(value)) return "null";
    constexpr double kExactLimit = 9007199254740992.0;  // 2^53
    if (std::trunc(value) == value && std::fabs(value) <= kExactLimit) return fmt::format("{}", static_cast<std::int64_t>(value));
    return fmt::format("{}", value);
}

// The one way a JSON document becomes text: indented, whole numbers as integers, and with any
// byte that is not UTF-8 (a file name from a foreign file system) replaced by U+FFFD instead of
// failing (docs/robustness.md, "Escaping").
inline std::string json_text(nlohmann::json document) {
    write_whole_numbers_as_integers(document);
    return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace decodesim::report
