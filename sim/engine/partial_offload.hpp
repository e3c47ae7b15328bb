#pragma once
// Partial offload to the CPU, as llama.cpp's `-ngl N` runs it (docs/model.md, "Partial offload"):
// the last N repeating layers on the GPU, the others, the input embeddings and (unless every layer
// is on the GPU and one more is asked for) the output layer in host memory, where the CPU reads
// them each decode step. Layers run one after the other, so a step is the GPU's share plus the
// host's. A prompt of 32 tokens or more runs every matrix product on the GPU, the host layers'
// weights crossing the host link once per physical batch (llama.cpp's CUDA backend offloads an op
// on host-resident weights at batch 32 and more: ggml-cuda's offload_op).

#include <optional>
#include <string>

#include "core/units.hpp"
#include "engine/prediction.hpp"

namespace decodesim::engine {

// The host's memory system: DDR channels and their transfer rate (a DIMM's 64 data bits a
// channel), and what a CPU reading weights achieves of it.
struct HostMemory {
    std::string name;            // as given: "ddr5-6000x2"
    std::string generation;      // "ddr4", "ddr5"
    double megatransfers = 0.0;  // MT/s
    int channels = 0;            // 64-bit channels
    std::optional<core::Bytes> capacity;  // installed memory, when stated
    double efficiency = 0.0;     // achieved / peak bandwidth of a CPU streaming the weights

    // channels x MT/s x 8 bytes: the vendors' figure (JEDEC).
    core::Bandwidth peak_bandwidth() const { return core::Bandwidth(channels * megatransfers * 1e6 * 8.0); }
    core::Bandwidth achieved_bandwidth() const { return peak_bandwidth() * efficiency; }
};

// Where the layers sit: llama.cpp's `-ngl N` with N from 0 to layers + 1.
struct LayerPlacement {
    int gpu_layers = 0;          // repeating layers on the GPU (the last ones)
    int layers = 0;              // repeating layers in the model
    bool output_on_gpu = false;  // the output layer (norm and lm_head): N > layers
    int ngl() const { return gpu_layers + (output_on_gpu ? 1 : 0); }
    double gpu_share() const { return layers > 0 ? static_cast<double>(gpu_layers) / layers : 0.0; }
};

// The placement `-ngl N` gives a model of `layers` repeating layers (N above layers + 1 is all).
LayerPlacement placement_for(int ngl, int layers);

struct PartialOffload {
    LayerPlacement placement;
    core::Bytes gpu_weights;          // held and read on the GPU
    core::Bytes host_weights;         // held in host memory (the input embeddings included)
    core::Bytes host_weights_read;    // of them read by a decode step (one embedding row, not the table)
    core::Bytes gpu_kv;               // the batch's cache of the GPU layers
    core::Bytes host_kv;              // and of the host layers
    core::Bytes gpu_usable;           // what the runtime lets weights and cache fill on the GPU
    bool fits_gpu = false;
    bool fits_host = true;            // the host holds its share (true when its capacity is not stated)
    double offloaded_share = 0.0;     // host weight bytes read a step over all read
    core::Seconds gpu_step;           // the GPU layers' part of a decode step
    core::Seconds host_step;          // the host layers' part: their weights and cache at the host's bandwidth
    core::Seconds step;               // the two in turn
    double tokens_per_s = 0.0;        // one stream
    core::Seconds prefill;            // the prompt's pass: the GPU's prefill and the host weights' crossings
    core::Seconds prefill_transfer;   // of it, the host layers' weights over the host link
    double physical_batches = 0.0;    // the prompt's passes of up to kPhysicalBatchTokens (llama.cpp's n_ubatch)
    core::Seconds all_on_gpu_step;    // the same step with every layer on the GPU (if it fit)
};

// Below this many tokens in a pass, llama.cpp's CUDA backend computes host-resident weights on the
// CPU; from it on it copies them to the GPU (ggml-cuda offload_op, min_batch_size 32).
inline constexpr double kOffloadOpMinimumBatch = 32.0;

// One stream of `context` tokens (decode) after a prompt of `prompt` tokens, with the layers
// placed as `placement`. Throws core::InputError when the deployment is one this model does not
// cover (tensor or pipeline parallelism, speculation, KV offload) or the device has no host link.
PartialOffload predict_partial_offload(const Evaluator& gpu, const HostMemory& host, LayerPlacement placement,
                                       double prompt, double context);

// The most layers whose weights and cache fit the GPU beside the runtime's reserve (`-ngl auto`):
// every layer and the output layer when all fit, else the largest N whose share fits.
LayerPlacement most_layers_that_fit(const Evaluator& gpu, double context);

}  // namespace decodesim::engine
