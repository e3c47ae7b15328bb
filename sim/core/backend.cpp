#include "core/backend.hpp"

#include "core/registry.hpp"

namespace decodesim::core {

std::optional<Backend> backend_of(std::string_view name) {
    if (const BackendInfo* info = find_named(kBackends, name)) return info->backend;
    return std::nullopt;
}

}  // namespace decodesim::core
