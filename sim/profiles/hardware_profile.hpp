#pragma once
// A device as its datasheet describes it: plain data, loaded by hardware_loader.

#include <array>
#include <optional>
#include <string>

#include "core/datatype.hpp"
#include "core/memory_family.hpp"
#include "core/units.hpp"

namespace decodesim::profiles {

// Per-device scale-up link used by tensor parallelism.
struct Interconnect {
    core::Bandwidth bandwidth;  // per direction
    core::Seconds latency;      // per message hop
};

// Optional per-device overrides of the engine's default efficiency model (docs/model.md).
struct EfficiencyOverrides {
    std::optional<double> memory_bandwidth;       // fraction of peak, (0, 1]
    std::optional<double> compute;                // fraction of peak, (0, 1]
    std::optional<core::Seconds> kernel_overhead; // fixed time per kernel
};

struct HardwareProfile {
    std::string id;              // file stem, e.g. "h100-sxm"
    std::string name;
    std::string source;
    std::string memory_type;     // "HBM3", "GDDR6X", "LPDDR5", ... (for display)
    core::MemoryFamily memory_family = core::MemoryFamily::hbm;  // resolved from memory_type by the loader
    core::Bytes memory_capacity;
    core::Bandwidth memory_bandwidth;
    // Dense peak per datatype, indexed by core::Datatype; 0 where the device lists none.
    std::array<core::FlopRate, core::kAllDatatypes.size()> peak_ops_per_s{};
    std::optional<Interconnect> interconnect;
    std::optional<core::Watts> power;
    std::optional<double> price_per_hour;  // USD per device-hour
    EfficiencyOverrides efficiency;

    core::FlopRate listed_peak(core::Datatype datatype) const {
        return peak_ops_per_s[static_cast<std::size_t>(datatype)];
    }
};

}  // namespace decodesim::profiles
