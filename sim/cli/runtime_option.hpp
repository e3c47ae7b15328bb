#pragma once
// What `--runtime` names: a runtime build of runtime_profiles/ ("vllm", "llama.cpp@2024-06"), or a
// runtime profile file (docs/profiles.md, "Runtime profiles").

#include <memory>
#include <string>

#include "engine/runtime.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

// The runtime used when none is named: the current vLLM build.
inline constexpr const char* kDefaultRuntime = "vllm";

// The profile `name` resolves to in the catalog. An unknown name is a usage error with its
// suggestion; a bad file an InputError naming the file, line and key.
std::shared_ptr<const engine::RuntimeProfile> runtime_named(const profiles::Catalog& catalog, const std::string& name);

}  // namespace decodesim::cli
