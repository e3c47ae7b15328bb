#include "engine/runtime.hpp"

namespace decodesim::engine {

namespace {

RuntimeFactors defaults() { return RuntimeFactors{}; }

}  // namespace

const char* memory_family_name(MemoryFamily family) {
    switch (family) {
        case MemoryFamily::hbm: return "hbm";
        case MemoryFamily::gddr: return "gddr";
        case MemoryFamily::unified: return "unified";
    }
    return "?";
}

const std::vector<RuntimePreset>& runtime_presets() {
    // vllm: no vLLM measurements are in validation/, so it keeps the measured hardware defaults
    // (docs/model.md). llama.cpp and tensorrt-llm: fitted on the training split of
    // validation/measurements.csv by `decodesim accuracy --fit` (docs/validation.md).
    static const std::vector<RuntimePreset> presets{
        {"vllm", "vLLM-class stack: CUDA graphs, cuBLAS/hipBLASLt, paged attention; the measured hardware defaults",
         false, {defaults(), defaults(), defaults()}},
        // Fitted by `decodesim accuracy --fit` (docs/validation.md), one set for discrete GPUs (HBM and
        // GDDR: the CUDA/ROCm backends) and one for unified memory. Order: kernel overhead, quantized
        // weight bandwidth, quantized compute, attention bandwidth, compute.
        {"llama.cpp", "llama.cpp (CUDA, ROCm, Metal, Vulkan): GGUF block formats dequantized in the kernels",
         false,
         {RuntimeFactors{4e-6, 0.88, 0.65, 1.00, 0.45}, RuntimeFactors{4e-6, 0.88, 0.65, 1.00, 0.45},
          RuntimeFactors{6e-6, 1.00, 0.95, 0.80, 0.85}}},
        {"tensorrt-llm", "TensorRT-LLM: fused kernels, in-flight batching", false,
         {RuntimeFactors{20e-6, 1.0, 1.0, 1.0, 0.68}, RuntimeFactors{20e-6, 1.0, 1.0, 1.0, 0.68}, defaults()}},
        {"ideal", "datasheet peaks, no overheads: the roofline bound", true,
         {RuntimeFactors{0.0, 1, 1, 1, 1}, RuntimeFactors{0.0, 1, 1, 1, 1}, RuntimeFactors{0.0, 1, 1, 1, 1}}},
    };
    return presets;
}

const RuntimePreset* find_runtime(std::string_view name) {
    for (const auto& preset : runtime_presets()) {
        if (preset.name == name) return &preset;
    }
    return nullptr;
}

std::vector<std::string> runtime_names() {
    std::vector<std::string> names;
    for (const auto& preset : runtime_presets()) names.emplace_back(preset.name);
    return names;
}

const RuntimePreset& default_runtime() { return runtime_presets().front(); }

}  // namespace decodesim::engine
