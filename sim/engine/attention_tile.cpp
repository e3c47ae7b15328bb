#include "engine/attention_tile.hpp"

namespace decodesim::engine {

double attention_tile_rows(Runtime runtime, core::Backend backend) {
    using core::Backend;
    switch (runtime) {
        case Runtime::ideal: return 0.0;
        case Runtime::llama_cpp:
            switch (backend) {
                case Backend::cuda: return 64.0;    // mma kernel: 64 columns, a group's heads among them
                case Backend::rocm: return 64.0;    // tile and mma kernels on RDNA: 64 rows, heads packed
                case Backend::metal: return 8.0;    // flash_attn_ext: 8 queries of one head per threadgroup
                case Backend::vulkan: return 16.0;  // coopmat1: 16 rows of one head (groups only for N <= 8)
                case Backend::sycl: return 32.0;    // tile kernel: at most 32 rows
                case Backend::other: return 16.0;   // no llama.cpp kernel of its own: Vulkan's
            }
            break;
        case Runtime::vllm:
        case Runtime::tensorrt_llm:
            // FlashAttention-2/3 and TensorRT-LLM's context kernels: 128-row query blocks; MLX's
            // steel attention on Metal (the vLLM-class engine there): 32.
            return backend == Backend::metal ? 32.0 : 128.0;
    }
    return 0.0;
}

double rows_per_memory_load(double tile_rows) { return tile_rows >= kOnChipTileRows ? 0.0 : tile_rows; }

}  // namespace decodesim::engine
