#pragma once
// `decodesim profiles list runtimes` and `profiles show RUNTIME`: runtime profiles as text.

#include <string>
#include <vector>

#include "engine/runtime.hpp"

namespace decodesim::report {

// One line a build: id, whether measured, its fit group, its source.
std::string runtime_list_to_text(const std::vector<engine::RuntimeProfile>& runtimes);

// Every field of one profile, resolved through its bases.
std::string runtime_to_text(const engine::RuntimeProfile& runtime, const std::string& path);

}  // namespace decodesim::report
