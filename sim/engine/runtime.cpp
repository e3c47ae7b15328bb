#include "engine/runtime.hpp"

namespace decodesim::engine {

const std::vector<RuntimePreset>& runtime_presets() {
    // Fitted values: docs/validation.md shows the fit and the command that reproduces it.
    static const std::vector<RuntimePreset> presets{
        {"vllm", "vLLM-class stack: CUDA graphs, cuBLAS/hipBLASLt, paged attention; the measured hardware defaults",
         false, 4e-6, 1.0, 1.0, 1.0, 1.0},
        {"llama.cpp", "llama.cpp (CUDA, Metal, ROCm, Vulkan): GGUF block formats dequantized in the kernels",
         false, 4e-6, 1.0, 1.0, 1.0, 1.0},
        {"tensorrt-llm", "TensorRT-LLM: fused kernels, in-flight batching", false, 4e-6, 1.0, 1.0, 1.0, 1.0},
        {"ideal", "datasheet peaks, no overheads: the roofline bound", true, 0.0, 1.0, 1.0, 1.0, 1.0},
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
