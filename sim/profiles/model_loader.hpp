#pragma once
// Reads model_profiles/<id>.yaml strictly into a ModelProfile and checks it for consistency.

#include <functional>
#include <string>

#include "core/error.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::profiles {

// Throws core::InputError listing every problem in the file.
ModelProfile load_model_profile(const std::string& path);

// The same from text already in memory; `name` is the file name used in messages (fuzzing, tests).
ModelProfile parse_model_profile(const std::string& text, const std::string& name);

// Cross-field checks shared by YAML profiles and config.json imports (heads divisible by KV
// heads, MoE and MLA fields complete, dense layers with an intermediate size, ...).
// Appends problems to `diagnostics`; `locate` gives the position of a key.
void check_model_consistency(const ModelProfile& model,
                             const std::function<core::SourceLocation(const std::string&)>& locate,
                             std::vector<core::Diagnostic>& diagnostics);

}  // namespace decodesim::profiles
