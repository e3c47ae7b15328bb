#include "engine/operating_point.hpp"

#include <stdexcept>

#include "core/registry.hpp"
#include "engine/prediction.hpp"
#include "engine/speculative.hpp"

namespace decodesim::engine {

using core::Datatype;

Deployment resolve_deployment(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                              const DeploymentChoice& choice) {
    // Every caller names its runtime: the engine has none of its own to fall back on.
    if (!choice.runtime) throw std::invalid_argument("resolve_deployment: the deployment choice names no runtime profile");
    Deployment deployment;
    deployment.runtime = choice.runtime;
    deployment.backend = choice.backend.value_or(hardware.native_backend);
    deployment.hardware_family = hardware.family();
    deployment.hardware_memory = hardware.memory_family;
    deployment.parallelism = choice.parallelism;
    deployment.clocks = resolve_clocks(hardware, choice.clocks);
    deployment.kv_offload = choice.kv_offload;
    deployment.speculation = choice.speculation;
    deployment.attention = choice.attention.value_or(choice.runtime->attention);
    deployment.in_process = choice.in_process;
    deployment.api_servers = std::max(1, choice.api_servers);
    const EagerPasses& eager = choice.runtime->eager;
    deployment.eager = {eager.prefill || choice.cuda_graphs_off, eager.decode || choice.cuda_graphs_off};
    const CapturedGraphs& graphs = choice.runtime->captured_graphs;
    // The degree a runtime's tiers name is its own tensor-parallel size: SGLang's --tp counts every
    // device of a stage, its attention replicas included.
    deployment.captured_batches = graphs.on_device(hardware.memory_capacity, choice.parallelism.stage_devices());
    deployment.graph_padding = graphs.padding;
    // Unstated weights follow the checkpoint (config.json's quantization_config), else bf16.
    deployment.weights = choice.weights != nullptr       ? choice.weights
                         : model.checkpoint_weights != nullptr ? model.checkpoint_weights
                                                               : core::find_named(core::weight_formats(), "bf16");
    const core::WeightFormat& weights = *deployment.weights;
    if (choice.activation) {
        deployment.activation = *choice.activation;
    } else if (weights.native_matmul == Datatype::fp32) {
        deployment.activation = Datatype::fp32;
    } else if (weights.native_matmul == Datatype::fp16 || weights.coverage == core::FormatCoverage::gguf_mixture ||
               (hardware.listed_peak(Datatype::bf16).value <= 0.0 && hardware.listed_peak(Datatype::fp16).value > 0.0)) {
        // llama.cpp computes in fp16, and so does a device without bf16.
        deployment.activation = Datatype::fp16;
    } else {
        deployment.activation = Datatype::bf16;
    }
    deployment.kv = choice.kv != nullptr ? choice.kv
                                         : core::find_named(core::kv_formats(), core::datatype_name(deployment.activation));
    validate_deployment(hardware, model, deployment);
    return deployment;
}

OperatingPoint resolve_operating_point(profiles::HardwareProfile hardware, profiles::ModelProfile model,
                                       const DeploymentChoice& choice, const Workload& workload,
                                       std::optional<profiles::ModelProfile> draft) {
    const Deployment deployment = resolve_deployment(hardware, model, choice);
    OperatingPoint point{std::move(hardware), std::move(model), deployment, workload, std::move(draft)};
    validate_speculation(point);
    return point;
}

}  // namespace decodesim::engine
