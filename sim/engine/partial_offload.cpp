#include "engine/partial_offload.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "engine/memory.hpp"

namespace decodesim::engine {
namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw core::InputError(core::unlocated("gpu-layers", message));
}

// Operators outside the repeating layers: the input embeddings, the output layer, and the
// transfers a single-GPU deployment does not make.
bool per_layer(OperatorKind kind) {
    switch (kind) {
        case OperatorKind::embedding:
        case OperatorKind::lm_head:
        case OperatorKind::all_reduce:
        case OperatorKind::all_to_all:
        case OperatorKind::pipeline_send:
        case OperatorKind::kv_offload: return false;
        default: return true;
    }
}

// The weights of the repeating layers on one device: all but the input embeddings and the output layer.
core::Bytes repeating_layer_weights(const CostModel& cost) {
    return cost.weight_bytes() - cost.lm_head.bytes - cost.embedding_table_bytes;
}

void check_deployment(const Evaluator& gpu) {
    const Deployment& deployment = gpu.deployment();
    if (deployment.parallelism.any()) {
        refuse(fmt::format("partial offload is modelled on one GPU; this deployment spans {} devices (tp, pp, "
                           "dp-attention)",
                           deployment.parallelism.devices()));
    }
    if (deployment.speculation.enabled()) refuse("partial offload is not modelled with speculative decoding");
    if (deployment.kv_offload) refuse("--gpu-layers places the KV cache with its layers: drop --kv-offload");
    if (!gpu.hardware().host_link) {
        refuse(fmt::format("{} states no host_link: a prompt's pass copies the host layers' weights over it",
                           gpu.hardware().id));
    }
}

}  // namespace

LayerPlacement placement_for(int ngl, int layers) {
    LayerPlacement placement;
    placement.layers = layers;
    placement.gpu_layers = std::clamp(ngl, 0, layers);
    placement.output_on_gpu = ngl > layers;
    return placement;
}

PartialOffload predict_partial_offload(const Evaluator& gpu, const HostMemory& host, LayerPlacement placement,
                                       double prompt, double context) {
    check_deployment(gpu);
    const CostModel& cost = gpu.cost_model();
    const double on_gpu = placement.gpu_share();
    const double on_host = 1.0 - on_gpu;
    PartialOffload result;
    result.placement = placement;

    // Weights: the repeating layers split by count; llama.cpp keeps the input embeddings on the
    // CPU always, and the output layer there unless asked for one layer more than the model has.
    // Tied embeddings (no table of their own) are read by the output layer on the GPU from a copy.
    const core::Bytes output = cost.lm_head.bytes;
    const core::Bytes input_table = cost.embedding_table_bytes.value > 0.0 ? cost.embedding_table_bytes : output;
    const core::Bytes layer_weights = repeating_layer_weights(cost);
    result.gpu_weights = layer_weights * on_gpu + (placement.output_on_gpu ? output : core::Bytes());
    result.host_weights = layer_weights * on_host + (placement.output_on_gpu ? core::Bytes() : output);
    if (cost.embedding_table_bytes.value > 0.0 || placement.output_on_gpu) result.host_weights += input_table;
    result.host_weights_read = layer_weights * on_host + (placement.output_on_gpu ? core::Bytes() : output) +
                               cost.embedding_row_bytes;

    // Each layer's cache lives with the layer.
    const core::Bytes kv = cost.kv_bytes_per_sequence(context);
    result.gpu_kv = kv * on_gpu;
    result.host_kv = kv * on_host;
    const MemoryFootprint footprint = gpu.memory(1.0, context);
    result.gpu_usable = usable_beside(footprint.pool, result.gpu_weights, footprint.kv_free_share);
    result.fits_gpu = result.gpu_weights + result.gpu_kv <= result.gpu_usable;
    if (host.capacity) result.fits_host = result.host_weights + result.host_kv <= *host.capacity;

    // Decode: the GPU runs its layers' operators at its rates; the CPU reads the host layers'
    // weights and cache at the host's achieved bandwidth (one stream: matrix-vector products,
    // bound by the reads; the CPU's arithmetic is not modelled).
    const StepCosts costs = decode_step_costs(cost, 1.0, context);
    const StepTime on_device = time_step(costs, gpu.rates());
    const core::Bandwidth host_bandwidth = host.achieved_bandwidth();
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        const OperatorKind kind = kOperators[i].kind;
        const OperatorTime& time = on_device.operators[i];
        if (per_layer(kind)) {
            result.gpu_step += time.time * on_gpu;
            result.host_step += costs.operators[i].bytes * on_host / host_bandwidth;
        } else if (kind == OperatorKind::lm_head) {
            if (placement.output_on_gpu) {
                result.gpu_step += time.time;
            } else {
                result.host_step += costs.operators[i].bytes / host_bandwidth;
            }
        } else if (kind == OperatorKind::embedding) {
            result.host_step += costs.operators[i].bytes / host_bandwidth;
        }
    }
    result.step = result.gpu_step + result.host_step;
    result.tokens_per_s = result.step.value > 0.0 ? 1.0 / result.step.value : 0.0;
    result.all_on_gpu_step = on_device.totals.time;
    const core::Bytes read = result.host_weights_read + result.gpu_weights;  // every weight a step reads
    result.offloaded_share = read.value > 0.0 ? result.host_weights_read.value / read.value : 0.0;

    // The prompt: at 32 tokens and more every product runs on the GPU, the host layers' weights
    // copied over the host link for each physical batch; below, the CPU reads them once.
    const core::Seconds device_prefill = gpu.prefill(1.0, prompt).time;
    const core::Bytes host_layer_weights = layer_weights * on_host + (placement.output_on_gpu ? core::Bytes() : output);
    if (prompt >= kOffloadOpMinimumBatch) {
        result.physical_batches = std::ceil(prompt / kPhysicalBatchTokens);
        result.prefill_transfer = host_layer_weights * result.physical_batches / gpu.rates().host_bandwidth;
        result.prefill = device_prefill + result.prefill_transfer;
    } else {
        result.physical_batches = 1.0;
        result.prefill = device_prefill * on_gpu + host_layer_weights / host_bandwidth;
    }
    return result;
}

LayerPlacement most_layers_that_fit(const Evaluator& gpu, double context) {
    const int layers = static_cast<int>(std::lround(gpu.cost_model().layers));
    const MemoryFootprint footprint = gpu.memory(1.0, context);
    // Every layer and the output layer, when the whole model fits.
    if (footprint.fits) return placement_for(layers + 1, layers);
    const CostModel& cost = gpu.cost_model();
    const core::Bytes layer_weights = repeating_layer_weights(cost);
    const core::Bytes per_layer_bytes = (layer_weights + cost.kv_bytes_per_sequence(context)) / std::max(layers, 1);
    int fitting = 0;
    for (int n = layers; n >= 0; --n) {
        const core::Bytes held = per_layer_bytes * static_cast<double>(n);
        if (held <= usable_beside(footprint.pool, layer_weights * (static_cast<double>(n) / std::max(layers, 1)),
                                  footprint.kv_free_share)) {
            fitting = n;
            break;
        }
    }
    return placement_for(fitting, layers);
}

}  // namespace decodesim::engine
