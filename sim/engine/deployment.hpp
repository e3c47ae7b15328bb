#pragma once
// How a model is deployed: storage formats, the activation datatype, the software stack and the
// parallelism. Resolved once (operating_point.hpp); the engine never sees a name.

#include <memory>
#include <string_view>

#include "core/datatype.hpp"
#include "core/quantization.hpp"
#include "engine/clocks.hpp"
#include "engine/runtime.hpp"

namespace decodesim::engine {

// How one model instance is spread over devices (docs/model.md, "Parallelism"). Devices are
// placed tensor-innermost: a tensor group fills a scale-up domain first, then the attention
// replicas of a stage, then the pipeline stages, so the groups that talk every layer are the ones
// most likely to share a domain.
struct Parallelism {
    int tensor = 1;          // devices splitting every layer's attention heads and dense MLP
    int pipeline = 1;        // stages, each a contiguous block of layers; one micro-batch per stage
    int expert = 1;          // devices the routed experts of a stage are spread over (divides stage_devices)
    int attention_data = 1;  // attention replicas in a stage, each with its own share of the batch (MLA: DP attention)

    int stage_devices() const { return tensor * attention_data; }
    int devices() const { return stage_devices() * pipeline; }
    bool any() const { return devices() > 1; }
};

// Speculative decoding: a cheap drafter proposes `length` tokens, the model verifies them in one
// forward pass, and keeps the accepted prefix plus one token of its own (docs/model.md,
// "Speculative decoding").
struct Speculation {
    int length = 0;            // draft tokens per verification step; 0: no speculation
    double acceptance = 0.0;   // chance each draft token is accepted, given the ones before it were
    bool multi_token_heads = false;  // the model's own multi-token-prediction module drafts (no draft model)

    bool enabled() const { return length > 0; }
};

// How the runtime's attention kernels treat the score matrix (docs/model.md, "Unfused attention").
// fused: one flash-attention kernel keeps the scores on chip; unfused: Q.K writes them to device
// memory, a softmax kernel reads and rewrites them, and the value product reads them back
// (llama.cpp with flash attention off, which llama-bench defaulted to; eager PyTorch attention).
enum class AttentionKernels { fused, unfused };

// How llama.cpp's CUDA backend multiplies a block format's weights (q4_0, q4_k_m, ...) by a pass
// of more than kBlockMatmulMaxTokens tokens (a prompt chunk, a large decode batch; docs/model.md,
// "Dequantized block matmuls"). quantized: its MMQ kernels multiply the blocks as stored, every
// build since llama.cpp PR #8075 (June 2024); dequantized: each matrix is first dequantized into a
// 16-bit copy that cuBLAS multiplies, the default of the builds before it (and
// GGML_CUDA_FORCE_CUBLAS after). Passes of fewer tokens use the quantized kernels either way.
enum class BlockMatmul { quantized, dequantized };

// Which generation of a runtime's kernel graph a build launches (engine/kernel_graph.hpp;
// docs/model.md, "Kernel graphs"). fused: llama.cpp's graph after its 2025 CUDA and Metal
// fusions (norm and its weight, rotary and the cache write, gate, up and activation, the
// residual adds), every build since late 2025; unfused: the graph of the builds of 2023 to the
// summer of 2025, one kernel per graph node. Only llama.cpp's graph has two generations.
enum class KernelGraphGeneration { fused, unfused };

struct Deployment {
    const core::WeightFormat* weights = nullptr;  // never null once resolved
    const core::KvFormat* kv = nullptr;           // never null once resolved
    core::Datatype activation = core::Datatype::bf16;
    Runtime runtime = kDefaultRuntime;
    core::Backend backend = core::Backend::cuda;  // the interface the runtime's kernels run on
    Parallelism parallelism;
    ClockState clocks;  // the shares of the listed peaks it runs at
    bool kv_offload = false;  // KV beyond device memory lives in CPU memory, read over the host link
    Speculation speculation;
    // A preset loaded from a file (`--runtime path.yaml`, profiles/runtime_file.hpp) that refines
    // `runtime`, its base; null: the built-in preset of `runtime`.
    std::shared_ptr<const RuntimePreset> runtime_file;
    AttentionKernels attention = AttentionKernels::fused;
    BlockMatmul block_matmul = BlockMatmul::quantized;
    KernelGraphGeneration kernel_graph = KernelGraphGeneration::fused;
};

// What a user chose; unset members take the documented defaults when resolved.
struct DeploymentChoice {
    const core::WeightFormat* weights = nullptr;  // null: bf16
    const core::KvFormat* kv = nullptr;           // null: the activation datatype
    std::optional<core::Datatype> activation;     // unset: bf16, or fp16 where the device or the weights need it
    Runtime runtime = kDefaultRuntime;
    std::optional<core::Backend> backend;  // unset: the device's native backend (core::native_backend)
    Parallelism parallelism;
    ClockChoice clocks;  // default: sustained clocks at the default board power
    bool kv_offload = false;
    Speculation speculation;
    std::shared_ptr<const RuntimePreset> runtime_file;  // null: the built-in preset of `runtime`
    AttentionKernels attention = AttentionKernels::fused;
    BlockMatmul block_matmul = BlockMatmul::quantized;
    KernelGraphGeneration kernel_graph = KernelGraphGeneration::fused;
};

// The preset a deployment runs under: its file's, else the built-in one. Every efficiency and
// every runtime name shown comes through these two (and deployment_efficiency, efficiency.hpp).
inline const RuntimePreset& deployment_runtime_preset(const Deployment& deployment) {
    return deployment.runtime_file ? *deployment.runtime_file : runtime_preset(deployment.runtime);
}
inline std::string_view runtime_label(const Deployment& deployment) { return deployment_runtime_preset(deployment).name; }

}  // namespace decodesim::engine
