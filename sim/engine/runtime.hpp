#pragma once
// Software stacks: what a runtime achieves on top of what the hardware can do. Each preset's
// numbers and their provenance are in docs/model.md ("Runtime presets") and docs/validation.md.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace decodesim::engine {

// Families of device memory; runtimes use different backends on each (CUDA/ROCm on HBM and GDDR
// GPUs, Metal and Vulkan on unified-memory machines).
enum class MemoryFamily { hbm, gddr, unified };
inline constexpr std::array kMemoryFamilies{MemoryFamily::hbm, MemoryFamily::gddr, MemoryFamily::unified};
const char* memory_family_name(MemoryFamily family);

struct RuntimeFactors {
    double kernel_overhead_s = 4e-6;          // fixed time per kernel launch
    double quantized_weight_bandwidth = 1.0;  // bandwidth multiplier for weight-only quantized matmuls (dequantization)
    double quantized_compute = 1.0;           // compute multiplier for weight-only quantized matmuls
    double attention_bandwidth = 1.0;         // bandwidth multiplier for KV-cache reads and writes
    double compute = 1.0;                     // multiplier on the hardware's achievable compute fraction
};

struct RuntimePreset {
    std::string_view name;
    std::string_view description;
    bool ideal = false;  // datasheet peaks, no overheads (the roofline)
    std::array<RuntimeFactors, 3> by_family{};  // indexed by MemoryFamily

    const RuntimeFactors& factors(MemoryFamily family) const { return by_family[static_cast<std::size_t>(family)]; }
};

const std::vector<RuntimePreset>& runtime_presets();
const RuntimePreset* find_runtime(std::string_view name);
std::vector<std::string> runtime_names();

// The preset used when none is named: "vllm", the hardware defaults unchanged.
const RuntimePreset& default_runtime();

}  // namespace decodesim::engine
