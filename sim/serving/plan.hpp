#pragma once
// "What should we buy?": for each candidate device, the cheapest deployment (formats, tensor
// parallelism, replicas) that serves a workload within its latency targets. The analytic steady
// state (steady_state.hpp) searches; the request-level simulation verifies every option at its
// planned load and has the last word (plan_verification.hpp).

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/prediction.hpp"
#include "serving/plan_verification.hpp"
#include "serving/steady_state.hpp"
#include "core/enum_names.hpp"

namespace decodesim::serving {

struct PlanWorkload {
    // Open loop: requests per second. Closed loop: `users`, each thinking `think_time_s` between a
    // response and its next request (then the rate follows from the latency).
    std::optional<double> rate_per_s;
    std::optional<double> users;
    double think_time_s = 0.0;
    double prompt_tokens = 1000.0;   // mean
    double output_tokens = 200.0;    // mean
    double arrival_cv2 = 1.0;
    double output_cv2 = 0.0;  // of the output lengths (LoadShape::output_cv2)
    double prompt_cv2 = 0.0;  // of the prompt lengths
    // The distributions behind the means, for the request-level verification; unset: fixed
    // lengths at the means, Poisson arrivals.
    std::optional<workload::ResolvedWorkload> lengths;
    // Set: a recorded trace (its rows sorted by arrival, the first at 0) whose mean rate, lengths
    // and arrival burstiness are the load, and which the verification replays as recorded.
    std::shared_ptr<const std::vector<workload::Request>> trace;
    // Set: the requests are the turns of conversations (serve --turns), generated so for the
    // verification; `prompt_tokens` is then the mean prompt as sent and `cached_prompt_tokens` the
    // mean of it the prefix cache holds from the turn before.
    std::optional<workload::Conversations> conversations;
    double cached_prompt_tokens = 0.0;
};

// Whether plan considers disaggregated prefill and decode pools beside colocated replicas.
enum class PlanDisaggregation {
    automatic,  // both; a device's disaggregated option is kept when it ranks better
    off,        // colocated replicas only
    only,       // disaggregated pools only
};
inline constexpr std::array<core::NamedValue<PlanDisaggregation>, 3> kPlanDisaggregationNames{
    {{PlanDisaggregation::automatic, "auto"}, {PlanDisaggregation::off, "off"}, {PlanDisaggregation::only, "only"}}};

// The two stages of a plan, for progress reports: every device's layouts searched with the steady
// state, then the ranked options run request by request.
enum class PlanStage { search, verify };

struct PlanSpace {
    std::vector<const core::WeightFormat*> weights;  // formats to consider
    std::vector<const core::KvFormat*> kv;           // nullptr: the activation datatype
    std::vector<int> tensor_parallel{1, 2, 4, 8};
    std::vector<int> pipeline_parallel{1, 2};  // stages; MoE models also try experts spread over the tp devices
    engine::RuntimeChooser runtime;  // required: the runtime each candidate device runs
    engine::ClockChoice clocks;  // the same condition on every device (power limits differ per device)
    bool in_process = false;     // the clients run in the engine's process: no request path (DeploymentChoice)
    // The front-end processes every instance runs (plan --api-servers); unset: plan chooses them.
    std::optional<int> api_servers;
    bool cuda_graphs_off = false;  // every pass dispatched op by op (DeploymentChoice::cuda_graphs_off)
    SchedulerChoice scheduler;  // the limits the user set; the rest are the runtime's defaults on each device
    PlanDisaggregation disaggregation = PlanDisaggregation::automatic;
    // Not empty: every option is disaggregated, its prefill pool on one of these devices (the same
    // formats and layout, that device's runtime) and its decode pool on the candidate; each
    // candidate's option is its best over them (plan --prefill-hardware a,b).
    std::vector<profiles::HardwareProfile> prefill_hardware;
    // Set: every option is simulated request by request at its planned load (plan = serve);
    // unset: the analytic steady state alone decides.
    std::optional<VerifySettings> verify;
    // Called as the work advances, for a person waiting at a terminal: `done` of `total` devices
    // searched, then options verified. Unset: nothing is reported.
    std::function<void(PlanStage stage, std::size_t done, std::size_t total)> progress;
};

// A plan bounds the time to first token even when no target does: a queue that grows without end
// (or a closed loop whose users wait hours) is not a deployment. Without a TTFT or an end-to-end
// target, the TTFT p99 limit is 60 s, the default read timeout of nginx's proxy (proxy_read_timeout)
// and of most HTTP load balancers, past which a client sees a failed request.
inline constexpr double kDefaultTtftLimitS = 60.0;

// `targets`, with kDefaultTtftLimitS as the TTFT target when neither a TTFT nor an end-to-end
// target is given.
ServiceTargets bounded_targets(const ServiceTargets& targets);

enum class PlanOrder { cost, devices, power };
inline constexpr std::array<core::NamedValue<PlanOrder>, 3> kPlanOrderNames{
    {{PlanOrder::cost, "cost"}, {PlanOrder::devices, "devices"}, {PlanOrder::power, "power"}}};

// A disaggregated option's pools (docs/serving.md, "Disaggregated prefill and decode").
struct DisaggregatedPlan {
    PoolShape pools;
    double kv_transfer_s = 0.0;        // one mean prompt's KV cache, prefill to decode instance
    double prefill_utilization = 0.0;  // per prefill instance, at the workload's rate
    double decode_utilization = 0.0;   // per decode instance: its rate over its saturation rate
    std::string link;                  // the link the KV cache crosses
    std::string prefill_hardware;      // the prefill pool's device; empty: the option's own
};

struct PlanOption {
    std::string hardware;
    profiles::DeviceSegment segment = profiles::DeviceSegment::unstated;  // the device's, for its caveats
    engine::Deployment deployment;
    SchedulerLimits limits;                            // each replica's scheduler: the runtime's on this device, or the flags'
    int replicas = 0;                                  // colocated replicas, or all instances of both pools
    int devices = 0;
    std::optional<double> cost_per_hour;               // USD, all devices
    profiles::PriceBasis price_basis = profiles::PriceBasis::unstated;  // of the device's price
    std::optional<double> cost_per_million_output_tokens;
    std::optional<double> joules_per_output_token;     // at board power
    double rate_per_s = 0.0;                           // the workload's rate (closed loop: solved)
    double max_rate_at_targets_per_s = 0.0;            // all replicas: the headroom
    std::string binding;                               // what caps one replica's rate at the targets
    SteadyState per_replica;                           // at the workload's rate (disaggregated: the whole deployment's)
    int devices_low = 0, devices_high = 0;             // across the efficiency band (docs/model.md)
    std::optional<DisaggregatedPlan> disaggregated;    // set: x prefill and y decode instances
    // Set when the request-level simulation checked it; `replicas` and the costs are then the
    // simulation's count, which may exceed the steady state's.
    std::optional<PlanVerification> verification;
};

struct PlanRejection {
    std::string hardware;
    std::string reason;
};

struct Plan {
    std::vector<PlanOption> options;  // the best deployment of each device that can serve, best first
    std::vector<PlanRejection> rejected;
};

// Throws core::InputError when the workload or the targets are malformed, or when disaggregated
// pools are asked for a closed loop (--users), which only colocated replicas are planned for.
Plan plan_deployments(const profiles::ModelProfile& model, const std::vector<profiles::HardwareProfile>& candidates,
                      const PlanWorkload& workload, const ServiceTargets& targets, const PlanSpace& space,
                      PlanOrder order);

}  // namespace decodesim::serving
