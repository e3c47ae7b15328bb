#pragma once
// The cross product of deployments and operating points, streamed one point at a time in
// constant memory.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/prediction.hpp"

namespace decodesim::explore {

struct SweepGrid {
    std::vector<profiles::HardwareProfile> hardware;
    std::vector<profiles::ModelProfile> models;
    std::vector<const core::WeightFormat*> weights;
    std::vector<const core::KvFormat*> kv;   // nullptr: the activation type
    std::vector<std::optional<core::Datatype>> activations{std::nullopt};  // unset: the resolver's default
    // The runtimes swept on every device; empty: each device's own default (default_runtime).
    std::vector<std::shared_ptr<const engine::RuntimeProfile>> runtimes;
    engine::RuntimeChooser default_runtime;  // required when `runtimes` is empty
    std::vector<long long> tensor_parallel;
    std::vector<engine::ClockChoice> clocks{engine::ClockChoice{}};
    std::vector<long long> batch;
    std::vector<long long> context;          // step mode
    std::vector<long long> prompt;           // request mode when non-empty
    std::vector<long long> output;

    bool request_mode() const { return !prompt.empty(); }
    // Operating points per deployment (batch x context, or batch x prompt x output), as a double so
    // that absurd grids are counted, not overflowed.
    double points_per_deployment() const;
    // Runtimes swept per device: those listed, else one (the device's default).
    std::size_t runtimes_per_device() const { return runtimes.empty() ? 1 : runtimes.size(); }
    // Every operating point of the grid with `hardware` devices and `models` models (given apart,
    // so that a sweep is counted, and refused, before its profiles are loaded).
    double points(std::size_t hardware, std::size_t models) const;
    // The longest context any point holds: the largest context, or the largest prompt plus output.
    double longest_context() const;
};

struct SweepPoint {
    std::size_t deployment_index;  // counts the deployments swept so far: what changes the constant columns
    const profiles::HardwareProfile* hardware;
    const profiles::ModelProfile* model;
    const engine::Deployment* deployment;
    double batch;
    double context;   // step mode
    double prompt;    // request mode
    double output;
    // Which point of the per-deployment axis (the context, or the prompt x output pair) this is:
    // the columns that depend on it alone (one request's prefill, the context) are the same for
    // every batch, so a writer may format them once per deployment.
    std::size_t axis_index;
    const engine::Prediction* prediction;
};

// A deployment that cannot run (tensor parallelism that does not divide the heads, no link):
// its points are skipped and reported once.
struct SweepSkip {
    std::string hardware;
    std::string model;
    std::string runtime;
    long long tensor_parallel;
    std::string reason;
    double points;
};

void run_sweep(const SweepGrid& grid, const std::function<void(const SweepPoint&)>& on_point,
               const std::function<void(const SweepSkip&)>& on_skip);

}  // namespace decodesim::explore
