#pragma once
// Imports a Hugging Face config.json directly, so a new model needs no hand-written profile.
// Supported model_type values are listed by supported_model_types(); docs/cli.md maps their
// spellings onto the profile keys.

#include <string>
#include <vector>

#include "profiles/model_profile.hpp"

namespace decodesim::profiles {

const std::vector<std::string>& supported_model_types();

// Throws core::InputError naming the file, line and key of every problem.
ModelProfile load_hf_config(const std::string& path);
ModelProfile parse_hf_config(const std::string& text, const std::string& name);

}  // namespace decodesim::profiles
