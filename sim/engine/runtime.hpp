#pragma once
// Software stacks: what a runtime achieves on top of what the hardware can do. Each preset's
// numbers and their provenance are in docs/model.md ("Runtime presets") and docs/validation.md.

#include <array>
#include <string_view>

#include "core/memory_family.hpp"
#include "core/units.hpp"

namespace decodesim::engine {

enum class Runtime { vllm, llama_cpp, tensorrt_llm, ideal };

struct RuntimeFactors {
    core::Seconds kernel_overhead{4e-6};      // fixed time per kernel launch
    double quantized_weight_bandwidth = 1.0;  // bandwidth multiplier for weight-only quantized matmuls (dequantization)
    double quantized_compute = 1.0;           // compute multiplier for weight-only quantized matmuls
    double attention_bandwidth = 1.0;         // bandwidth multiplier for KV-cache reads and writes
    double compute = 1.0;                     // multiplier on the hardware's achievable compute fraction
};

struct RuntimePreset {
    Runtime runtime;
    std::string_view name;
    std::string_view description;
    bool ideal = false;  // datasheet peaks, no overheads (the roofline)
    std::array<RuntimeFactors, core::kMemoryFamilies.size()> by_family{};  // indexed by core::MemoryFamily

    constexpr const RuntimeFactors& factors(core::MemoryFamily family) const {
        return by_family[static_cast<std::size_t>(family)];
    }
};

namespace runtime_detail {
inline constexpr RuntimeFactors kMeasuredDefaults{};
inline constexpr RuntimeFactors kNoOverheads{core::Seconds(0.0), 1.0, 1.0, 1.0, 1.0};
}  // namespace runtime_detail

// One row per runtime, in Runtime order. vllm: no vLLM measurements are in validation/, so it
// keeps the measured hardware defaults (docs/model.md). llama.cpp and tensorrt-llm: fitted on the
// training split of validation/measurements.csv by `decodesim accuracy --fit` (docs/validation.md),
// one set for discrete GPUs (HBM and GDDR: the CUDA/ROCm backends) and one for unified memory.
// Factor order: kernel overhead, quantized weight bandwidth, quantized compute, attention bandwidth, compute.
inline constexpr std::array kRuntimePresets{
    RuntimePreset{Runtime::vllm, "vllm",
                  "vLLM-class stack: CUDA graphs, cuBLAS/hipBLASLt, paged attention; the measured hardware defaults",
                  false,
                  {runtime_detail::kMeasuredDefaults, runtime_detail::kMeasuredDefaults,
                   runtime_detail::kMeasuredDefaults}},
    RuntimePreset{Runtime::llama_cpp, "llama.cpp",
                  "llama.cpp (CUDA, ROCm, Metal, Vulkan): GGUF block formats dequantized in the kernels", false,
                  {RuntimeFactors{core::Seconds(4e-6), 0.88, 0.65, 1.00, 0.45},
                   RuntimeFactors{core::Seconds(4e-6), 0.88, 0.65, 1.00, 0.45},
                   RuntimeFactors{core::Seconds(6e-6), 1.00, 0.95, 0.80, 0.85}}},
    RuntimePreset{Runtime::tensorrt_llm, "tensorrt-llm", "TensorRT-LLM: fused kernels, in-flight batching", false,
                  {RuntimeFactors{core::Seconds(20e-6), 1.0, 1.0, 1.0, 0.68},
                   RuntimeFactors{core::Seconds(20e-6), 1.0, 1.0, 1.0, 0.68}, runtime_detail::kMeasuredDefaults}},
    RuntimePreset{Runtime::ideal, "ideal", "datasheet peaks, no overheads: the roofline bound", true,
                  {runtime_detail::kNoOverheads, runtime_detail::kNoOverheads, runtime_detail::kNoOverheads}},
};

constexpr const RuntimePreset& runtime_preset(Runtime runtime) {
    return kRuntimePresets[static_cast<std::size_t>(runtime)];
}
constexpr std::string_view runtime_name(Runtime runtime) { return runtime_preset(runtime).name; }

consteval bool runtime_rows_in_enum_order() {
    for (std::size_t i = 0; i < kRuntimePresets.size(); ++i) {
        if (static_cast<std::size_t>(kRuntimePresets[i].runtime) != i) return false;
    }
    return true;
}
static_assert(runtime_rows_in_enum_order(), "kRuntimePresets must list Runtime in declaration order");

// The preset used when none is named: vllm, the measured hardware defaults unchanged.
inline constexpr Runtime kDefaultRuntime = Runtime::vllm;

}  // namespace decodesim::engine
