#pragma once
// Reads hardware_profiles/<id>.yaml strictly into a HardwareProfile.

#include <string>

#include "profiles/hardware_profile.hpp"

namespace decodesim::profiles {

// Throws core::InputError listing every problem in the file.
HardwareProfile load_hardware_profile(const std::string& path);

// The same from text already in memory; `name` is the file name used in messages (fuzzing, tests).
HardwareProfile parse_hardware_profile(const std::string& text, const std::string& name);

}  // namespace decodesim::profiles
