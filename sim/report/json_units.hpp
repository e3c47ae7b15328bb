#pragma once
// Quantities in JSON: the SI value, under a key whose suffix names the unit (step_time_s,
// weights_bytes). The only place a typed quantity becomes a bare JSON number.

#include <nlohmann/json.hpp>

#include "core/units.hpp"

namespace nlohmann {

template <typename Tag>
struct adl_serializer<decodesim::core::Quantity<Tag>> {
    static void to_json(json& target, const decodesim::core::Quantity<Tag>& quantity) { target = quantity.value; }
};

}  // namespace nlohmann

namespace decodesim::report {

// The one way a JSON document becomes text: indented, and with any byte that is not UTF-8 (a file
// name from a foreign file system) replaced by U+FFFD instead of failing (docs/robustness.md, "Escaping").
inline std::string json_text(const nlohmann::json& document) {
    return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace decodesim::report
