#include "core/backend.hpp"

#include "core/registry.hpp"

namespace decodesim::core {

std::optional<Backend> backend_of(std::string_view name) {
    if (const BackendInfo* info = find_named(kBackends, name)) return info->backend;
    return std::nullopt;
}

Backend native_backend(std::string_view hardware_name) {
    const auto starts = [&](std::string_view vendor) {
        return hardware_name.substr(0, vendor.size()) == vendor &&
               (hardware_name.size() == vendor.size() || hardware_name[vendor.size()] == ' ');
    };
    if (starts("NVIDIA")) return Backend::cuda;
    if (starts("AMD")) return Backend::rocm;
    if (starts("Apple")) return Backend::metal;
    // Gaudi accelerators run Intel's SynapseAI, not oneAPI's SYCL.
    if (starts("Intel")) return hardware_name.find("Gaudi") == std::string_view::npos ? Backend::sycl : Backend::other;
    return Backend::other;
}

}  // namespace decodesim::core
