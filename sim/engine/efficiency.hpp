#pragma once
// What fraction of the datasheet a real software stack achieves, and the fixed costs it adds.
// Every default here is documented with its provenance in docs/model.md.

#include "engine/runtime.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

struct Efficiency {
    double memory_bandwidth = 1.0;   // achieved / peak memory bandwidth, (0, 1]
    double compute = 1.0;            // achieved / peak matrix rate, (0, 1]
    double kernel_overhead_s = 0.0;  // fixed time per kernel launch
    double link_bandwidth = 1.0;     // achieved / peak interconnect bandwidth, (0, 1]
    // Runtime factors, multiplying the above for some operators (1 = no change):
    double quantized_weight_bandwidth = 1.0;  // weight-only quantized matmuls (dequantization in the kernel)
    double quantized_compute = 1.0;
    double attention_bandwidth = 1.0;         // KV-cache reads and writes
};

// Datasheet peaks, no overheads: the physical ceiling.
Efficiency ideal_efficiency();

// The engine's defaults for this device (by memory technology), with the profile's overrides
// applied, under a runtime preset (default: vllm, which leaves them unchanged).
Efficiency default_efficiency(const profiles::HardwareProfile& hardware,
                              const RuntimePreset& runtime = default_runtime());

// The plausible range of an efficiency: the low and high ends of the measurements the defaults
// were taken from (docs/model.md, "Uncertainty band"), applied to `nominal`.
struct EfficiencyBand {
    Efficiency low;   // everything at the slow end of its measured range
    Efficiency high;  // everything at the fast end (never above the datasheet)
};
EfficiencyBand efficiency_band(const profiles::HardwareProfile& hardware, const Efficiency& nominal);

// Which family of memory a profile's memory.type belongs to.
MemoryFamily memory_family(const profiles::HardwareProfile& hardware);

// Fraction of capacity a runtime can fill with weights and KV cache (the rest is the reserve for
// activations, the runtime and, on unified memory, the operating system).
double usable_memory_fraction(const profiles::HardwareProfile& hardware);

}  // namespace decodesim::engine
