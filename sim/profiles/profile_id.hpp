#pragma once

#include <string>

namespace decodesim::profiles {

// "hardware_profiles/h100-sxm.yaml" -> "h100-sxm".
std::string id_from_path(const std::string& path);

}  // namespace decodesim::profiles
