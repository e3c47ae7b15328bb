#include "core/memory_family.hpp"

#include "core/registry.hpp"

namespace decodesim::core {

std::optional<MemoryFamily> memory_family_of(std::string_view memory_type) {
    if (const MemoryType* type = find_named(kMemoryTypes, memory_type)) return type->family;
    return std::nullopt;
}

}  // namespace decodesim::core
