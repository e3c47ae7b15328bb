#pragma once
// A runtime preset file (`--runtime path.yaml`, docs/cli.md "Runtime preset files") read into
// plain data. The keys of the factors come from the caller (engine::kRuntimeFactorFields, through
// cli/runtime_option.cpp), so this reader knows the file's shape and nothing of the engine.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/factor_unit.hpp"
#include "core/memory_family.hpp"

namespace decodesim::profiles {

// One factor key: a time with a unit (at least 0 s, at most kMaxRuntimeOverheadSeconds), a
// multiplier in (0, maximum], or a count of rows in [0, maximum].
struct RuntimeFactorKey {
    std::string_view key;
    core::FactorUnit unit;
    double maximum;  // for a multiplier or a count of rows
};

inline constexpr double kMaxRuntimeOverheadSeconds = 1e-3;  // a millisecond per kernel is a typo (ms for us)

struct RuntimeFileFamily {
    core::MemoryFamily family;
    std::vector<std::optional<double>> values;  // parallel to the keys given; SI units; unset: the base's
};

struct RuntimeFile {
    std::string path;
    std::string name;    // shown in reports
    std::string base;    // one of the built-in runtime names given
    std::string source;  // how the factors were obtained
    std::vector<RuntimeFileFamily> families;  // those the file states, in kMemoryFamilies order
};

// Reads and checks the file: name, base and source required; `factors:` a mapping of memory
// family (hbm, gddr, unified) to a mapping of `keys`. Unknown keys and families, an unknown base,
// a multiplier out of range and a negative overhead are errors naming the file, line and key
// (core::InputError, every problem found).
RuntimeFile load_runtime_file(const std::string& path, std::span<const RuntimeFactorKey> keys,
                              std::span<const std::string_view> bases);
RuntimeFile parse_runtime_file(const std::string& text, const std::string& path,
                               std::span<const RuntimeFactorKey> keys, std::span<const std::string_view> bases);

}  // namespace decodesim::profiles
