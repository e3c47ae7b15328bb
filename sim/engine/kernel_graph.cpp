#include "engine/kernel_graph.hpp"

#include <algorithm>

namespace decodesim::engine {

KernelGraph kernel_graph(Runtime runtime, KernelGraphGeneration generation) {
    switch (runtime) {
        case Runtime::llama_cpp:
            if (generation == KernelGraphGeneration::unfused) {
                // The graph of the builds of 2023 to the summer of 2025, one kernel per node
                // (llm_build_llama and llm_build_moe_ffn; each matrix product quantized its own
                // input): attention norm, its weight, q, k, v, rope q, rope k, k and v cache
                // copies, attention, output, residual add; MLP norm, its weight, gate, up,
                // activation, product, down, residual add; MoE norm, its weight, router, softmax,
                // top-k, the picked weights' gather, their renormalisation (sum, divide), gate, up,
                // activation, product, down, weighting, the sum of two experts, residual add; plus
                // the conversions: 4 in attention, 3 in either MLP. The fusions that followed
                // (CUDA: norm and its weight, PR #14800, 2025-07-21; adds and add+norm, #15631,
                // 2025-08-28; GEMV with gate, activation and bias, #16715, 2025-10) cut a dense
                // layer from 27 kernels to 18; a build between them runs between the two counts.
                return KernelGraph{12.0 + 4.0, 8.0 + 3.0, 16.0 + 3.0};
            }
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
