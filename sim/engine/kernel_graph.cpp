#include "engine/kernel_graph.hpp"

#include <algorithm>

namespace decodesim::engine {

KernelGraph kernel_graph(Runtime runtime) {
    switch (runtime) {
        case Runtime::llama_cpp:
            // ggml-org/llama.cpp's graphs (src/models/llama.cpp, openai-moe.cpp, qwen3moe.cpp) after
            // the CUDA backend's fusions of late 2025 (ggml-cuda.cu): attention norm+mul, q, k, v,
            // rope q, rope k (+ its cache write), v cache write, flash attention, output (+ residual);
            // MLP norm+mul, gate+up+activation, down (+ residual); MoE norm+mul, router, top-k
            // selection, gate/up+activation, down, weighted sum, residual. Each matrix product
            // first converts its input in a kernel of its own (mmvq.cu and mmq.cu quantize it to
            // q8_1; the f16 path converts it to f16): q, k, v, output; gate/up, down; the experts'
            // gate/up and down (the router stays in float in a GGUF file). docs/model.md,
            // "Kernel graphs".
            return KernelGraph{9.0 + 4.0, 3.0 + 2.0, 7.0 + 2.0};
        case Runtime::vllm:
        case Runtime::tensorrt_llm:
        case Runtime::ideal:
            return KernelGraph{};  // not counted: fused engines, the structural kernels
    }
    return KernelGraph{};
}

double extra_kernels(double graph_block, double structural) {
    if (graph_block <= 0.0) return 0.0;
    return std::max(0.0, graph_block - structural);
}

}  // namespace decodesim::engine
