#pragma once
// "What should we buy?": for each candidate device, the cheapest deployment (formats, tensor
// parallelism, replicas) that serves a workload within its latency targets, from the analytic
// steady state (steady_state.hpp) on the engine's step model.

#include <optional>
#include <string>
#include <vector>

#include "engine/prediction.hpp"
#include "scenarios/steady_state.hpp"

namespace decodesim::scenarios {

struct PlanWorkload {
    // Open loop: requests per second. Closed loop: `users`, each thinking `think_time_s` between a
    // response and its next request (then the rate follows from the latency).
    std::optional<double> rate_per_s;
    std::optional<double> users;
    double think_time_s = 0.0;
    double prompt_tokens = 1000.0;   // mean
    double output_tokens = 200.0;    // mean
    double arrival_cv2 = 1.0;
};

struct PlanSpace {
    std::vector<const core::WeightFormat*> weights;  // formats to consider
    std::vector<const core::KvFormat*> kv;           // nullptr: the activation datatype
    std::vector<int> tensor_parallel{1, 2, 4, 8};
    engine::Runtime runtime = engine::kDefaultRuntime;
    engine::ClockChoice clocks;  // the same condition on every device (power limits differ per device)
    SchedulerLimits limits;
};

enum class PlanOrder { cost, devices, power };

struct PlanOption {
    std::string hardware;
    engine::Deployment deployment;
    int replicas = 0;
    int devices = 0;
    std::optional<double> cost_per_hour;               // USD, all devices
    std::optional<double> cost_per_million_output_tokens;
    std::optional<double> joules_per_output_token;     // at board power
    double rate_per_s = 0.0;                           // the workload's rate (closed loop: solved)
    double max_rate_at_targets_per_s = 0.0;            // all replicas: the headroom
    std::string binding;                               // what caps one replica's rate at the targets
    SteadyState per_replica;                           // at the workload's rate
    int devices_low = 0, devices_high = 0;             // across the efficiency band (docs/model.md)
};

struct PlanRejection {
    std::string hardware;
    std::string reason;
};

struct Plan {
    std::vector<PlanOption> options;  // the best deployment of each device that can serve, best first
    std::vector<PlanRejection> rejected;
};

// Throws core::InputError when the workload or the targets are malformed.
Plan plan_deployments(const profiles::ModelProfile& model, const std::vector<profiles::HardwareProfile>& candidates,
                      const PlanWorkload& workload, const ServiceTargets& targets, const PlanSpace& space,
                      PlanOrder order);

}  // namespace decodesim::scenarios
