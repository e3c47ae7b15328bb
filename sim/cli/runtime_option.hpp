#pragma once
// What `--runtime` names: a built-in preset (engine/runtime.hpp) or a preset file that refines one
// (docs/cli.md, "Runtime preset files").

#include <memory>
#include <string>

#include "engine/runtime.hpp"

namespace decodesim::cli {

struct RuntimeChoice {
    engine::Runtime runtime = engine::kDefaultRuntime;  // a file's base
    std::shared_ptr<const engine::RuntimePreset> file;  // null: the built-in preset
};

// A built-in preset's name; else, when `name` ends in .yaml or .yml or names an existing file, that
// file loaded; else the usage error for an unknown runtime, with a suggestion. A bad file is an
// InputError naming the file, line and key.
RuntimeChoice runtime_choice(const std::string& name);

// Loads a preset file: its families' stated factors over its base's, the rest the base's.
std::shared_ptr<const engine::RuntimePreset> load_runtime_preset(const std::string& path);

}  // namespace decodesim::cli
