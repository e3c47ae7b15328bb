#pragma once
// Software stacks: what a runtime achieves on top of what the hardware can do. Each preset's
// numbers and their provenance are in docs/model.md ("Runtime presets") and docs/validation.md.

#include <array>
#include <string_view>

#include "core/backend.hpp"
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
    // Host-side time each decode step spends per sequence in the batch (scheduling, sampling,
    // detokenization, batch bookkeeping): the overhead of a serving runtime that grows with the
    // batch, which a per-kernel launch cost cannot express (docs/model.md, "Runtime presets").
    core::Seconds sequence_overhead{0.0};
    // Multiplier on `compute` for the kernels a backend compiles, indexed by core::Backend: the
    // same runtime's matrix kernels reach different fractions of the matrix peak on CUDA, ROCm,
    // Metal, Vulkan and SYCL (docs/model.md, "Backends"). Only the product with `compute` is
    // fitted meaningfully; 1 where a backend had too few measurements to fit.
    std::array<double, core::kBackends.size()> backend_compute{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    // Multiplier on the attention arithmetic (Q.K, softmax.V) for a backend's attention kernels,
    // on top of its compute: at depth, llama.cpp's prompt processing on ROCm falls off faster than
    // its matrix rate explains, on CUDA and Vulkan it does not (docs/model.md, "Backends").
    std::array<double, core::kBackends.size()> backend_attention{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    // Extra fixed time per kernel for each die beyond the first on a multi-die package
    // (profiles::HardwareProfile::dies): a kernel spans every die and finishes when the slowest
    // has, over the die-to-die bridge. 0 where a runtime has no multi-die rows to fit it on.
    core::Seconds cross_die_kernel_overhead{0.0};
    // What staging a weight tile costs a tiled matrix kernel, in rows of its multiply-adds: each
    // tile is loaded and converted (dequantized) once per block of rows that reuses it, so a
    // product over m rows per weight takes (m + tile_setup_rows) / m of its arithmetic time.
    // Invisible at a prompt's hundreds of rows; it matters where a routed expert sees a few
    // (docs/model.md, "Expert tiles"). 0 where a runtime has too few MoE prefill rows to fit it.
    double tile_setup_rows = 0.0;

    constexpr double compute_on(core::Backend backend) const {
        return compute * backend_compute[static_cast<std::size_t>(backend)];
    }
    constexpr double attention_on(core::Backend backend) const {
        return backend_attention[static_cast<std::size_t>(backend)];
    }
};

// How a runtime sizes its KV cache on one device: the rule each runtime applies at start-up
// (docs/model.md, "Memory"). The KV cache gets
//     (capacity x capacity_share - workspace - weights) x free_share,
// capacity_share at most the operating system's limit on unified memory.
struct KvCacheSizing {
    // Of the capacity, what the weights, the workspace and the KV cache together may fill: vLLM's
    // `gpu_memory_utilization` (default 0.9, of the total).
    double capacity_share = 0.90;
    // Held before the cache is sized and not counted in capacity_share's reserve: activation
    // buffers, decoder and runtime buffers, the CUDA context.
    core::Bytes workspace{0.0};
    // Of what is free after the weights and the workspace, the share the KV cache takes:
    // TensorRT-LLM's `free_gpu_memory_fraction` (default 0.9, of the free memory).
    double free_share = 1.0;
};

struct RuntimePreset {
    Runtime runtime;
    std::string_view name;
    std::string_view description;
    bool ideal = false;  // datasheet peaks, no overheads (the roofline)
    std::array<RuntimeFactors, core::kMemoryFamilies.size()> by_family{};  // indexed by core::MemoryFamily
    KvCacheSizing kv_sizing{};

    constexpr const RuntimeFactors& factors(core::MemoryFamily family) const {
        return by_family[static_cast<std::size_t>(family)];
    }
};

namespace runtime_detail {
inline constexpr RuntimeFactors kMeasuredDefaults{};
inline constexpr std::array<double, core::kBackends.size()> kSameOnEveryBackend{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
inline constexpr RuntimeFactors kNoOverheads{core::Seconds(0.0), 1.0, 1.0, 1.0, 1.0, core::Seconds(0.0), kSameOnEveryBackend, kSameOnEveryBackend, core::Seconds(0.0)};
// vLLM's rule, and the one for runtimes that state none (llama.cpp sizes its cache from -c; the
// 10% covers its compute buffers and the CUDA context): 90% of the capacity.
inline constexpr KvCacheSizing kTotalShare{0.90, core::Bytes(0.0), 1.0};
// TensorRT-LLM: 90% of what is free once the weights, the activation buffers and the CUDA context
// are allocated (KvCacheConfig.free_gpu_memory_fraction, default 0.9; trtllm-bench's
// --kv_cache_free_gpu_mem_fraction). Workspace: TensorRT-LLM's memory guide's log of a 6,695 MiB
// engine on an H100 (79.10 GiB total, 70.48 GiB available) holds 8.62 - 6.54 = 2.08 GiB beside
// the engine before the cache is sized (docs/model.md, "Memory").
inline constexpr KvCacheSizing kFreeShare{1.0, core::Bytes(2.08 * 1073741824.0), 0.90};
}  // namespace runtime_detail

// One row per runtime, in Runtime order. vllm: its per-kernel cost and quantized-weight bandwidth
// on discrete GPUs are fitted on the single-stream rows of the vLLM-class engines (vLLM, SGLang,
// LMDeploy, gpt-fast, torchao, MLC, ExLlamaV2); its attention bandwidth keeps the default (fewer
// than 10 long-context rows to read it off); its compute and per-sequence cost keep the
// measured hardware defaults, because fits on its prefill and batched rows (a mixture of engines)
// ran to the edges of their grids (docs/validation.md, "The vllm preset"). llama.cpp and
// tensorrt-llm: fitted on the training split of validation/measurements.csv by
// `decodesim accuracy --fit` (docs/validation.md), one set for discrete GPUs (HBM and GDDR: the
// CUDA/ROCm backends) and one for unified memory.
// Factor order: kernel overhead, quantized weight bandwidth, quantized compute, attention bandwidth, compute,
// sequence overhead, multipliers on compute by backend (core::kBackends order; the backend with
// the most prefill rows in the fit keeps 1), multipliers on attention arithmetic by backend
// (docs/model.md, "Backends"), extra per-kernel cost per die beyond the first (docs/model.md,
// "Multi-die packages"), a weight tile's staging in rows (docs/model.md, "Expert tiles").
inline constexpr std::array kRuntimePresets{
    RuntimePreset{Runtime::vllm, "vllm",
                  "vLLM-class stack: CUDA graphs, cuBLAS/hipBLASLt, paged attention; the measured hardware defaults",
                  false,
                  {RuntimeFactors{core::Seconds(7e-6), 0.90, 1.0, 1.0, 1.0, core::Seconds(0.0),
                                  runtime_detail::kSameOnEveryBackend, runtime_detail::kSameOnEveryBackend, core::Seconds(0.0)},
                   RuntimeFactors{core::Seconds(7e-6), 0.90, 1.0, 1.0, 1.0, core::Seconds(0.0),
                                  runtime_detail::kSameOnEveryBackend, runtime_detail::kSameOnEveryBackend, core::Seconds(0.0)},
                   runtime_detail::kMeasuredDefaults},
                  runtime_detail::kTotalShare},
    RuntimePreset{Runtime::llama_cpp, "llama.cpp",
                  "llama.cpp (CUDA, ROCm, Metal, Vulkan): GGUF block formats dequantized in the kernels", false,
                  {RuntimeFactors{core::Seconds(2e-6), 0.90, 0.45, 1.00, 0.70, core::Seconds(0.0),
                                  // cuda (the reference), then rocm, metal, vulkan shared from unified
                                  // memory's measured fractions, sycl and other (measured nowhere) at
                                  // the typical measured backend's (scenarios::share_backend_kernels)
                                  {1.0, 2.262, 2.594, 1.078, 1.468, 1.468}, runtime_detail::kSameOnEveryBackend,
                                  // per die; a weight tile's staging, in rows, read off unified
                                  // memory's MoE prompts (share_backend_kernels)
                                  core::Seconds(0.0), 124.0},
                   RuntimeFactors{core::Seconds(2e-6), 0.90, 0.45, 1.00, 0.70, core::Seconds(0.0),
                                  {1.0, 2.262, 2.594, 1.078, 1.468, 1.468}, runtime_detail::kSameOnEveryBackend,
                                  // per die; a weight tile's staging, in rows, read off unified
                                  // memory's MoE prompts (share_backend_kernels)
                                  core::Seconds(0.0), 124.0},
                   RuntimeFactors{core::Seconds(2e-6), 1.00, 0.95, 0.65, 0.75, core::Seconds(0.0),
                                  // cuda (DGX Spark), rocm (the reference), metal, vulkan; sycl and
                                  // other (measured nowhere) at the typical measured backend's
                                  {0.476, 1.0, 1.147, 0.476, 0.649, 0.649},
                                  // attention kernels, same order
                                  {0.739, 0.279, 1.0, 0.134, 1.0, 1.0},
                                  // each die beyond the first, per kernel (Apple's Ultra); a weight
                                  // tile's staging, in rows (docs/model.md, "Expert tiles")
                                  core::Seconds(4e-6), 124.0}},
                  runtime_detail::kTotalShare},
    RuntimePreset{Runtime::tensorrt_llm, "tensorrt-llm", "TensorRT-LLM: fused kernels, in-flight batching", false,
                  {RuntimeFactors{core::Seconds(4e-6), 1.0, 1.0, 1.0, 0.80, core::Seconds(37e-6), runtime_detail::kSameOnEveryBackend, runtime_detail::kSameOnEveryBackend, core::Seconds(0.0)},
                   RuntimeFactors{core::Seconds(4e-6), 1.0, 1.0, 1.0, 0.80, core::Seconds(37e-6), runtime_detail::kSameOnEveryBackend, runtime_detail::kSameOnEveryBackend, core::Seconds(0.0)}, runtime_detail::kMeasuredDefaults},
                  runtime_detail::kFreeShare},
    RuntimePreset{Runtime::ideal, "ideal", "datasheet peaks, no overheads: the roofline bound", true,
                  {runtime_detail::kNoOverheads, runtime_detail::kNoOverheads, runtime_detail::kNoOverheads},
                  runtime_detail::kTotalShare},
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
