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
        // Fitted (docs/validation.md). Order: kernel overhead, quantized weight bandwidth, quantized
        // compute, attention bandwidth, compute; per family hbm, gddr, unified. HBM has too few
        // llama.cpp rows to fit and keeps the defaults.
        {"llama.cpp", "llama.cpp (CUDA, ROCm, Metal, Vulkan): GGUF block formats dequantized in the kernels",
         false,
         {defaults(), RuntimeFactors{4e-6, 0.88, 0.55, 0.90, 0.50}, RuntimeFactors{6e-6, 1.00, 0.95, 0.80, 0.85}}},
        {"tensorrt-llm", "TensorRT-LLM: fused kernels, in-flight batching", false,
         {RuntimeFactors{12e-6, 1.0, 1.0, 1.0, 0.70}, RuntimeFactors{30e-6, 1.0, 1.0, 1.0, 0.50}, defaults()}},
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
