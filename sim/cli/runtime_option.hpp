#pragma once
// What `--runtime` names: a runtime build of runtime_profiles/ ("vllm", "llama.cpp@2024-06"), or a
// runtime profile file (docs/profiles.md, "Runtime profiles").

#include <memory>
#include <optional>
#include <string>

#include "engine/runtime.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

// The runtime used when none is named: the current vLLM build, except on a device whose kernels
// run on Metal (Apple silicon), where vLLM has no GPU backend: there the current llama.cpp build,
// the runtime of nearly every published Apple measurement (docs/decisions.md, "The runtime a
// device gets by default").
inline constexpr const char* kDefaultRuntime = "vllm";
inline constexpr const char* kDefaultMetalRuntime = "llama.cpp";
std::string default_runtime_name(const profiles::HardwareProfile& hardware);

// The profile `name` resolves to in the catalog. An unknown name is a usage error with its
// suggestion; a bad file an InputError naming the file, line and key.
std::shared_ptr<const engine::RuntimeProfile> runtime_named(const profiles::Catalog& catalog, const std::string& name);

// `name`'s runtime where one is given, else `hardware`'s default (default_runtime_name).
std::shared_ptr<const engine::RuntimeProfile> runtime_for(const profiles::Catalog& catalog,
                                                          const std::optional<std::string>& name,
                                                          const profiles::HardwareProfile& hardware);

// The runtime each candidate device runs in a command over several (compare, sweep, plan): the
// named one for all, or each device's default.
engine::RuntimeChooser runtime_chooser(const profiles::Catalog& catalog, const std::optional<std::string>& name);

}  // namespace decodesim::cli
