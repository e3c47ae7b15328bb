#include "engine/custom_runtime.hpp"

namespace decodesim::engine {
namespace {

// The strings and the preset whose views point into them, kept together behind one pointer.
struct OwnedRuntimePreset {
    std::string name;
    std::string description;
    RuntimePreset preset{};
};

}  // namespace

std::shared_ptr<const RuntimePreset> make_custom_runtime(
    std::string name, std::string description, Runtime base,
    const std::array<RuntimeFactors, core::kMemoryFamilies.size()>& by_family) {
    auto owned = std::make_shared<OwnedRuntimePreset>();
    owned->name = std::move(name);
    owned->description = std::move(description);
    owned->preset = RuntimePreset{base, owned->name, owned->description, runtime_preset(base).ideal, by_family,
                                  runtime_preset(base).kv_sizing};
    // The aliasing constructor: the pointer shows the preset and keeps the whole struct alive.
    return std::shared_ptr<const RuntimePreset>(owned, &owned->preset);
}

}  // namespace decodesim::engine
