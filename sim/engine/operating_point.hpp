#pragma once
// The one operating point every question is asked about: a model on a device, deployed in some
// way, under a workload. Every command, test and benchmark builds it with resolve_operating_point.

#include <optional>

#include "engine/deployment.hpp"
#include "engine/workload.hpp"
#include "profiles/hardware_profile.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

struct OperatingPoint {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    Deployment deployment;
    Workload workload;
    std::optional<profiles::ModelProfile> draft;  // the draft model of speculative decoding, when one is named
};

// Fills the defaults of `choice` for this device and model: weights bf16; activations bf16, or
// fp16 for fp16 weights, for GGUF formats (llama.cpp computes in fp16) and on devices without
// bf16, or fp32 for fp32 weights; KV in the activation datatype. Throws core::InputError when
// the device cannot run the deployment (tensor parallelism without an interconnect, heads that
// tp does not divide, no compute rate for the datatypes).
Deployment resolve_deployment(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                              const DeploymentChoice& choice);

OperatingPoint resolve_operating_point(profiles::HardwareProfile hardware, profiles::ModelProfile model,
                                       const DeploymentChoice& choice, const Workload& workload,
                                       std::optional<profiles::ModelProfile> draft = std::nullopt);

}  // namespace decodesim::engine
