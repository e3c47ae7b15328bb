#pragma once
// Device memory technologies and the families the efficiency model distinguishes: HBM stacks,
// GDDR chips on discrete boards, and the unified LPDDR/DDR memory that CPUs and GPUs share.

#include <array>
#include <optional>
#include <string_view>

#include "core/enum_names.hpp"

namespace decodesim::core {

enum class MemoryFamily { hbm, gddr, unified };
inline constexpr std::array kMemoryFamilies{MemoryFamily::hbm, MemoryFamily::gddr, MemoryFamily::unified};

inline constexpr std::array<NamedValue<MemoryFamily>, 3> kMemoryFamilyNames{
    {{MemoryFamily::hbm, "hbm"}, {MemoryFamily::gddr, "gddr"}, {MemoryFamily::unified, "unified"}}};

inline std::string_view memory_family_name(MemoryFamily family) { return name_of(kMemoryFamilyNames, family); }

// One row per memory technology a profile may name in memory.type.
struct MemoryType {
    std::string_view name;
    MemoryFamily family;
};

inline constexpr std::array kMemoryTypes{
    MemoryType{"HBM2", MemoryFamily::hbm},        MemoryType{"HBM2e", MemoryFamily::hbm},
    MemoryType{"HBM3", MemoryFamily::hbm},        MemoryType{"HBM3e", MemoryFamily::hbm},
    MemoryType{"GDDR5", MemoryFamily::gddr},      MemoryType{"GDDR5X", MemoryFamily::gddr},
    MemoryType{"GDDR6", MemoryFamily::gddr},      MemoryType{"GDDR6X", MemoryFamily::gddr},
    MemoryType{"GDDR7", MemoryFamily::gddr},      MemoryType{"LPDDR4X", MemoryFamily::unified},
    MemoryType{"LPDDR5", MemoryFamily::unified},  MemoryType{"LPDDR5X", MemoryFamily::unified},
    MemoryType{"DDR5", MemoryFamily::unified},
};

// The family of a memory.type name; nullopt when the name is not in kMemoryTypes.
std::optional<MemoryFamily> memory_family_of(std::string_view memory_type);

}  // namespace decodesim::core
