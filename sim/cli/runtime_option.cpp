#include "cli/runtime_option.hpp"

#include <vector>

#include "core/registry.hpp"
#include "engine/custom_runtime.hpp"
#include "profiles/input_file.hpp"
#include "profiles/runtime_file.hpp"

namespace decodesim::cli {

std::shared_ptr<const engine::RuntimePreset> load_runtime_preset(const std::string& path) {
    std::vector<profiles::RuntimeFactorKey> keys;
    for (const engine::RuntimeFactorField& field : engine::kRuntimeFactorFields) {
        keys.push_back({field.key, field.unit, field.maximum});
    }
    // A file refines a measured stack; `ideal` is the datasheet and has nothing to refine.
    std::vector<std::string_view> bases;
    for (const engine::RuntimePreset& preset : engine::kRuntimePresets) {
        if (!preset.ideal) bases.push_back(preset.name);
    }
    const profiles::RuntimeFile file = profiles::load_runtime_file(path, keys, bases);
    const engine::RuntimePreset& base = *core::find_named(engine::kRuntimePresets, file.base);
    auto by_family = base.by_family;
    for (const profiles::RuntimeFileFamily& stated : file.families) {
        engine::RuntimeFactors& factors = by_family[static_cast<std::size_t>(stated.family)];
        for (std::size_t i = 0; i < engine::kRuntimeFactorFields.size(); ++i) {
            if (stated.values[i]) engine::kRuntimeFactorFields[i].value(factors) = *stated.values[i];
        }
    }
    return engine::make_custom_runtime(file.name, file.source, base.runtime, by_family);
}

RuntimeChoice runtime_choice(const std::string& name) {
    if (const auto* preset = core::find_named(engine::kRuntimePresets, name)) return {preset->runtime, nullptr};
    const bool yaml_name = name.ends_with(".yaml") || name.ends_with(".yml");
    if (yaml_name || profiles::path_kind(name) == profiles::PathKind::regular_file) {
        auto file = load_runtime_preset(name);
        return {file->runtime, file};
    }
    // The built-in names' usage error, with its suggestion.
    return {core::named_or_throw(engine::kRuntimePresets, name, "--runtime", "runtime").runtime, nullptr};
}

}  // namespace decodesim::cli
