#pragma once
// Shared by the fuzz targets: evaluate what loaded, and abort on any non-finite figure, so that a
// NaN anywhere in the engine is a crash the fuzzer reports.

#include <cmath>
#include <cstdlib>

#include "engine/prediction.hpp"

namespace decodesim::fuzz {

inline void require_finite(double value) {
    if (!std::isfinite(value)) std::abort();
}
template <typename Tag>
void require_finite(core::Quantity<Tag> value) {
    require_finite(value.value);
}

// Predicts one small operating point for `model` on a fixed, valid device.
inline void evaluate(const profiles::ModelProfile& model) {
    profiles::HardwareProfile hardware;
    hardware.id = "fuzz";
    hardware.name = "fuzz device";
    hardware.memory_type = "HBM3";
    hardware.memory_family = core::MemoryFamily::hbm;
    hardware.memory_capacity = core::Bytes(80e9);
    hardware.memory_bandwidth = core::Bandwidth(3.35e12);
    hardware.peak_ops_per_s[static_cast<std::size_t>(core::Datatype::bf16)] = core::FlopRate(989.4e12);
    try {
        engine::DeploymentChoice choice;
        choice.runtime = std::make_shared<const engine::RuntimeProfile>(engine::structural_runtime());
        const auto deployment = engine::resolve_deployment(hardware, model, choice);
        const engine::Evaluator evaluator(model, hardware, deployment);
        const auto prediction = evaluator.predict(engine::Workload::request(4.0, 100.0, 20.0));
        require_finite(prediction.decode.step_time);
        require_finite(prediction.ttft);
        require_finite(prediction.memory.kv);
        require_finite(prediction.memory.weights);
        for (const auto& op : prediction.decode.operators) require_finite(op.time);
    } catch (const core::InputError&) {
        // A shape the deployment refuses (e.g. heads tensor parallelism cannot split) is fine.
    }
}

}  // namespace decodesim::fuzz
