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
