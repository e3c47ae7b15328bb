#include "serving/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "core/search.hpp"

namespace decodesim::serving {

namespace {

constexpr int kMaxReplicas = 100'000;

LoadShape load_of(const PlanWorkload& workload, double rate) {
    LoadShape load{rate, workload.prompt_tokens, workload.output_tokens, workload.arrival_cv2, workload.cached_prompt_tokens};
    load.output_cv2 = workload.output_cv2;
    load.prompt_cv2 = workload.prompt_cv2;
    return load;
}

// One deployment's per-replica figures at the targets.
struct Candidate {
    engine::Deployment deployment;
    double max_rate = 0.0;  // per replica, at the targets
    std::string binding;
};

// What stops one replica at `max_rate`: a latency target when it binds before saturation,
// otherwise what saturates it.
std::string binding_at(const engine::Evaluator& evaluator, const PlanWorkload& workload, const SchedulerLimits& limits,
                       const ServiceTargets& targets, double max_rate) {
    const SteadyState edge = steady_state(evaluator, load_of(workload, max_rate * 1.01), limits);
    if (!edge.stable) return edge.binding;
    if (const char* missed = missed_target(edge, targets)) return missed;
    return edge.binding;
}

// Replicas needed for an open-loop rate (a ceiling over the per-replica capacity at the targets),
// or for a closed loop of users: the fewest replicas whose share of the users each replica serves
// within the targets (the rate then follows from the latency).
std::optional<int> replicas_needed(const engine::Evaluator& evaluator, const PlanWorkload& workload,
                                   const SchedulerLimits& limits, const ServiceTargets& targets, double max_rate,
                                   double& rate) {
    if (max_rate <= 0.0) return std::nullopt;
    if (workload.rate_per_s) {
        rate = *workload.rate_per_s;
        const double replicas = std::ceil(rate / max_rate - 1e-9);
        if (replicas > kMaxReplicas) return std::nullopt;
        return std::max(1, static_cast<int>(replicas));
    }
    auto state_with = [&](long long replicas) {
        return closed_loop_state(evaluator, load_of(workload, 1.0), limits, *workload.users / static_cast<double>(replicas),
                                 workload.think_time_s);
    };
    auto meets = [&](long long replicas) {
        const SteadyState state = state_with(replicas);
        return state.stable && missed_target(state, targets) == nullptr;
    };
    // More replicas share the users more thinly, so meeting the targets is monotone in the count.
    const long long most = std::min<long long>(kMaxReplicas, static_cast<long long>(std::ceil(*workload.users)));
    const auto fewest = core::first_true(1, most, meets);
    if (!fewest) return std::nullopt;
    rate = state_with(*fewest).output_tokens_per_s / workload.output_tokens * static_cast<double>(*fewest);
    return static_cast<int>(*fewest);
}

// --- Disaggregated pools --------------------------------------------------------------------

bool meets_targets(const DisaggregatedState& state, const ServiceTargets& targets) {
    return state.overall.stable && missed_target(state.overall, targets) == nullptr;
}

// The fewest instances, x prefill and y decode, whose steady state meets the targets at the
// open-loop rate. TPOT depends on y alone, so y starts at the smallest that meets the TPOT target;
// then x at the smallest that meets the TTFT target beside it; then, while a target is still
// missed (the TTFT's wait for a decode slot, the time to the last token), one instance is added
// to whichever pool brings the missed figure down more. Empty, with `reason`, when none can.
std::optional<DisaggregatedState> cheapest_pools(const engine::Evaluator& evaluator, const PlanWorkload& workload,
                                                 const SchedulerLimits& limits, const ServiceTargets& targets,
                                                 std::string& reason, const engine::Evaluator* prefill_pool = nullptr) {
    const LoadShape load = load_of(workload, *workload.rate_per_s);
    const PoolCapacity capacity = pool_capacity(evaluator, load, limits, prefill_pool);
    auto state_of = [&](long long x, long long y) {
        return disaggregated_state(evaluator, load, limits, {static_cast<int>(x), static_cast<int>(y)}, capacity);
    };
    const DisaggregatedState probe = state_of(1, 1);
    if (!std::isfinite(probe.prefill_s) || probe.decode_saturation_per_instance_s <= 0.0) {
        reason = probe.overall.max_batch < 1.0 ? "the weights and one sequence's KV cache do not fit in memory"
                                               : "a prompt does not fit one pass of the scheduler";
        return std::nullopt;
    }
    // Each pool below saturation: offered prefill load under x, each decode instance under its rate.
    const double fewest_prefill = std::floor(load.rate_per_s * probe.prefill_s) + 1.0;
    const double fewest_decode = std::floor(load.rate_per_s / probe.decode_saturation_per_instance_s) + 1.0;
    if (fewest_prefill > kMaxReplicas || fewest_decode > kMaxReplicas) {
        reason = "needs more than 100,000 instances";
        return std::nullopt;
    }
    const auto x_floor = static_cast<long long>(fewest_prefill);
    const auto y_floor = static_cast<long long>(fewest_decode);
    const auto y = core::first_true(y_floor, kMaxReplicas, [&](long long count) {
        const DisaggregatedState state = state_of(x_floor, count);
        return state.overall.stable && (!targets.tpot_s || state.overall.tpot_s.p99 <= *targets.tpot_s);
    });
    if (!y) {
        reason = fmt::format("even a lone request misses the TPOT target (decode step {})",
                             core::format_seconds(probe.overall.decode_step_s));
        return std::nullopt;
    }
    const auto x = core::first_true(x_floor, kMaxReplicas, [&](long long count) {
        const DisaggregatedState state = state_of(count, *y);
        return state.overall.stable && (!targets.ttft_s || state.overall.ttft_s.p99 <= *targets.ttft_s);
    });
    if (!x && targets.ttft_s && probe.prefill_s + probe.kv_transfer_s > *targets.ttft_s) {
        reason = fmt::format("even a lone request misses the TTFT target (prefill {} + KV transfer {})",
                             core::format_seconds(probe.prefill_s), core::format_seconds(probe.kv_transfer_s));
        return std::nullopt;
    }
    // No prefill pool meets the TTFT target beside the fewest decode instances when its requests
    // wait for a decode slot there: the search below adds decode instances too.
    long long prefill = x.value_or(x_floor), decode = *y;
    for (int step = 0; step < 256 && prefill + decode <= kMaxReplicas; ++step) {
        const DisaggregatedState state = state_of(prefill, decode);
        if (meets_targets(state, targets)) return state;
        // The figure that misses, lower is better: the first missed target's p99.
        auto missed_figure = [&](const DisaggregatedState& candidate) {
            if (!candidate.overall.stable) return std::numeric_limits<double>::infinity();
            const char* missed = missed_target(state.overall, targets);
            const std::string_view name = missed ? missed : "";
            return name == "ttft target"   ? candidate.overall.ttft_s.p99
                   : name == "tpot target" ? candidate.overall.tpot_s.p99
                                           : candidate.overall.e2e_s.p99;
        };
        const DisaggregatedState more_prefill = state_of(prefill + 1, decode);
        const DisaggregatedState more_decode = state_of(prefill, decode + 1);
        const double with_prefill = missed_figure(more_prefill), with_decode = missed_figure(more_decode);
        const double now = missed_figure(state);
        if (!(std::min(with_prefill, with_decode) < now * (1.0 - 1e-9))) break;  // neither pool helps
        (with_prefill <= with_decode ? prefill : decode) += 1;
    }
    reason = "more instances do not bring the latency within the targets";
    return std::nullopt;
}

// The largest total rate `pools` sustain within the targets (bisection; 0 when none).
double pools_max_rate(const engine::Evaluator& evaluator, const PlanWorkload& workload, const SchedulerLimits& limits,
                      const ServiceTargets& targets, const PoolShape& pools, const engine::Evaluator* prefill_pool) {
    const PoolCapacity capacity = pool_capacity(evaluator, load_of(workload, 1.0), limits, prefill_pool);
    auto state_at_rate = [&](double rate) {
        return disaggregated_state(evaluator, load_of(workload, rate), limits, pools, capacity);
    };
    auto meets = [&](double rate) { return meets_targets(state_at_rate(rate), targets); };
    const double top = state_at_rate(1.0).overall.saturation_rate_per_s;
    if (top <= 0.0 || !meets(top * 1e-6)) return 0.0;
    const double high = top * (1.0 - 1e-9);
    if (meets(high)) return high;
    return core::bisect(top * 1e-6, high, meets, 50, 1e-4).low;
}

// The option's price (and its basis) and energy for its devices at its rate: one rule for every
// option a plan builds or resizes. `prefill`: the device a disaggregated option's prefill pool
// runs on when it is not `hardware`; each pool's devices then count at their own device's price
// and power, with no price when either has none, and the basis only when both state the same one.
void set_costs(PlanOption& option, const profiles::HardwareProfile& hardware, const PlanWorkload& workload,
               const profiles::HardwareProfile* prefill = nullptr) {
    const profiles::HardwareProfile& other = prefill != nullptr ? *prefill : hardware;
    const double other_devices = prefill != nullptr && option.disaggregated
                                     ? static_cast<double>(option.disaggregated->pools.prefill_instances *
                                                           option.deployment.parallelism.devices())
                                     : 0.0;
    const double own_devices = static_cast<double>(option.devices) - other_devices;
    const double output_per_s = option.rate_per_s * workload.output_tokens;
    option.cost_per_hour.reset();
    option.cost_per_million_output_tokens.reset();
    option.joules_per_output_token.reset();
    if (hardware.price_per_hour && other.price_per_hour) {
        option.cost_per_hour = *hardware.price_per_hour * own_devices + *other.price_per_hour * other_devices;
        option.price_basis = hardware.price_basis == other.price_basis ? hardware.price_basis : profiles::PriceBasis::unstated;
        option.cost_per_million_output_tokens = *option.cost_per_hour / (output_per_s * 3600.0) * 1e6;
    }
    if (hardware.power && other.power) {
        option.joules_per_output_token = (hardware.power->value * own_devices + other.power->value * other_devices) / output_per_s;
    }
}

// The price, energy and pools of a disaggregated deployment at the workload's rate; `prefill`,
// when given, the prefill pool's deployment on another device (else the option's own), and the
// link between the pools is the two sides' (kv_link_between).
PlanOption disaggregated_option(const profiles::HardwareProfile& hardware, const engine::Deployment& deployment,
                                const SchedulerLimits& limits, const DisaggregatedState& state, const PlanWorkload& workload,
                                const engine::Evaluator* decode = nullptr, const engine::Evaluator* prefill = nullptr) {
    PlanOption option;
    option.hardware = hardware.id;
    option.segment = hardware.segment;
    option.deployment = deployment;
    option.limits = limits;
    option.replicas = state.pools.instances();
    option.devices = option.replicas * deployment.parallelism.devices();
    option.rate_per_s = *workload.rate_per_s;
    option.per_replica = state.overall;
    option.disaggregated = DisaggregatedPlan{state.pools, state.kv_transfer_s, state.prefill_utilization,
                                             state.decode_utilization, kv_link(hardware, deployment.runtime_profile()).name,
                                             ""};
    if (prefill != nullptr && decode != nullptr) {
        option.disaggregated->prefill_hardware = prefill->hardware().id;
        option.disaggregated->link = kv_link_between(*prefill, *decode).name;
    }
    set_costs(option, hardware, workload, prefill != nullptr ? &prefill->hardware() : nullptr);
    return option;
}

// A disaggregated winner's headroom, binding constraint and device count across the efficiency band.
void finish_disaggregated(PlanOption& option, const profiles::ModelProfile& model,
                          const profiles::HardwareProfile& hardware, const PlanWorkload& workload,
                          const ServiceTargets& targets, const SchedulerLimits& limits,
                          const engine::Evaluator* prefill_pool) {
    const engine::Evaluator evaluator(model, hardware, option.deployment);
    const PoolShape pools = option.disaggregated->pools;
    const double max_rate = pools_max_rate(evaluator, workload, limits, targets, pools, prefill_pool);
    option.max_rate_at_targets_per_s = max_rate;
    const DisaggregatedState edge =
        disaggregated_state(evaluator, load_of(workload, max_rate * 1.01), limits, pools, prefill_pool);
    const char* missed = edge.overall.stable ? missed_target(edge.overall, targets) : nullptr;
    option.binding = !edge.overall.stable ? edge.overall.binding : missed ? missed : edge.overall.binding;
    const engine::EfficiencyBand band =
        engine::efficiency_band(engine::deployment_efficiency(hardware, option.deployment));
    auto devices_at = [&](const engine::Efficiency& efficiency) {
        const engine::Evaluator shifted(model, hardware, option.deployment, efficiency);
        std::string why;
        const auto state = cheapest_pools(shifted, workload, limits, targets, why, prefill_pool);
        return state ? state->pools.instances() * option.deployment.parallelism.devices() : 0;
    };
    option.devices_low = devices_at(band.high);
    option.devices_high = devices_at(band.low);
}

// What `order` ranks by, smaller first; a device without a price or a power figure ranks last on
// it (ties, within a device, go to fewer devices).
}  // namespace

ServiceTargets bounded_targets(const ServiceTargets& targets) {
    ServiceTargets bounded = targets;
    if (!bounded.ttft_s && !bounded.e2e_s) bounded.ttft_s = kDefaultTtftLimitS;
    return bounded;
}

namespace {

// The option's counts and costs at `replicas` colocated replicas of its deployment.
void set_replicas(PlanOption& option, int replicas, const profiles::HardwareProfile& hardware, const PlanWorkload& workload) {
    const double per_replica_max = option.max_rate_at_targets_per_s / option.replicas;
    option.replicas = replicas;
    option.devices = replicas * option.deployment.parallelism.devices();
    option.max_rate_at_targets_per_s = per_replica_max * replicas;
    set_costs(option, hardware, workload);
}

double ranking_key(const PlanOption& option, PlanOrder order) {
    constexpr double kUnknown = std::numeric_limits<double>::infinity();
    switch (order) {
        case PlanOrder::devices: return static_cast<double>(option.devices);
        case PlanOrder::power: return option.joules_per_output_token.value_or(kUnknown);
        case PlanOrder::cost: break;
    }
    return option.cost_per_hour.value_or(kUnknown);
}

// "tp 8, ep 8, pp 2": how one instance is spread, for messages.
std::string report_parallelism(const engine::Parallelism& p) {
    std::string text = fmt::format("tp {}", p.tensor);
    if (p.attention_data > 1) text += fmt::format(", dp-attention {}", p.attention_data);
    if (p.expert > 1) text += fmt::format(", ep {}", p.expert);
    if (p.pipeline > 1) text += fmt::format(", pp {}", p.pipeline);
    return text;
}

// The ways to spread one instance that the search tries for each tensor-parallel degree: the
// degree alone; for MoE models, the experts spread over the same devices (expert parallelism);
// and two pipeline stages of each, which reach across a second scale-up domain.
std::vector<engine::Parallelism> parallelism_candidates(const profiles::ModelProfile& model,
                                                        const std::vector<int>& tensor_degrees,
                                                        const std::vector<int>& stage_counts) {
    std::vector<engine::Parallelism> candidates;
    for (int tp : tensor_degrees) {
        for (int stages : stage_counts) {
            candidates.push_back(engine::Parallelism{tp, stages, 1, 1});
            if (model.moe && tp > 1) candidates.push_back(engine::Parallelism{tp, stages, tp, 1});
        }
    }
    return candidates;
}

// Whether `deployment` has the formats and layout of one the serve check refused.
bool excluded_deployment(const std::vector<engine::Deployment>& excluded, const engine::Deployment& deployment) {
    return std::any_of(excluded.begin(), excluded.end(), [&](const engine::Deployment& e) {
        return e.weights == deployment.weights && e.kv == deployment.kv &&
               e.parallelism.tensor == deployment.parallelism.tensor &&
               e.parallelism.pipeline == deployment.parallelism.pipeline &&
               e.parallelism.expert == deployment.parallelism.expert &&
               e.parallelism.attention_data == deployment.parallelism.attention_data;
    });
}

// The prefill pool's deployment on a prefill device: the decode pool's formats (the cache crosses
// as it is) and layout, with that device's runtime.
engine::Deployment prefill_deployment(const engine::Deployment& decode, const profiles::ModelProfile& model,
                                      const profiles::HardwareProfile& prefill, const PlanSpace& space) {
    engine::DeploymentChoice choice;
    choice.weights = decode.weights;
    choice.kv = decode.kv;
    choice.runtime = space.runtime(prefill);
    choice.parallelism = decode.parallelism;
    choice.clocks = space.clocks;
    choice.in_process = space.in_process;
    choice.cuda_graphs_off = space.cuda_graphs_off;
    return engine::resolve_deployment(prefill, model, choice);
}

// A disaggregated option's prefill pool: on the prefill device it names, or on its own device
// (null) when the plan has none of its own.
std::optional<engine::Evaluator> prefill_pool_of(const PlanOption& option, const profiles::ModelProfile& model,
                                                 const PlanSpace& space) {
    if (!option.disaggregated || option.disaggregated->prefill_hardware.empty()) return std::nullopt;
    const auto device = std::find_if(space.prefill_hardware.begin(), space.prefill_hardware.end(),
                                     [&](const profiles::HardwareProfile& h) { return h.id == option.disaggregated->prefill_hardware; });
    return std::optional<engine::Evaluator>(std::in_place, model, *device, prefill_deployment(option.deployment, model, *device, space));
}

// The most front-end processes plan gives an instance. A GPU server's host has about 14 cores a
// GPU (a DGX H100: 112 for 8 GPUs), and the engine's own processes take some: 8 API servers, each a
// process on a core of its own, leave them room on a one-GPU instance.
constexpr int kMaxApiServers = 8;
// The share of its capacity the front end runs at when the engine saturates: at 80% an M/D/1
// queue's wait is twice its service (rho / (2 (1 - rho))), not a wait that grows without bound.
constexpr double kApiServerHeadroom = 0.8;
// Below this share of one API server's capacity at its rate at the targets, an instance keeps one:
// its front end then waits half its service at most and is not what holds the rate.
constexpr double kApiServerCheck = 0.5;

// The front-end processes an instance runs: one, or where the runtime's launch states a flag for
// more (vLLM's --api-server-count) as many as keep them below kApiServerHeadroom of their capacity
// at the engine's saturation, up to kMaxApiServers. A front end binding at a rate the engine
// sustains would otherwise be met with more replicas, GPUs bought for want of a process.
// `max_rate`: the instance's rate at the targets with one, where known: well below one's capacity
// (kApiServerCheck) it keeps one without the engine's saturation search.
int api_servers_for(const engine::Evaluator& evaluator, const PlanWorkload& workload, const SchedulerLimits& limits,
                    const double* max_rate) {
    const auto& launch = evaluator.deployment().runtime_profile().launch;
    const bool has_flag = launch && std::any_of(launch->flags.begin(), launch->flags.end(), [](const auto& flag) {
                              return flag.when == profiles::LaunchCondition::api_servers;
                          });
    if (!has_flag) return 1;
    const LoadShape trickle = load_of(workload, 1e-9);
    const double one = api_server_capacity(evaluator, trickle, limits);
    if (!std::isfinite(one) || one <= 0.0) return 1;
    if (max_rate != nullptr && *max_rate < kApiServerCheck * one) return 1;
    const double engine = engine_saturation_rate(evaluator, trickle, limits);
    const double needed = std::ceil(engine / (kApiServerHeadroom * one) - 1e-9);
    return static_cast<int>(std::clamp(needed, 1.0, static_cast<double>(kMaxApiServers)));
}

// The best deployment of one device by the steady state, skipping `excluded` (layouts the serve
// check refused), finished with its binding, state and band; empty with `reason` when none serves.
std::optional<PlanOption> best_on_device(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                                         const PlanWorkload& workload, const ServiceTargets& targets,
                                         const PlanSpace& space, PlanOrder order,
                                         const std::vector<engine::Deployment>& excluded, std::string& reason) {
    // Closed loops are planned colocated (docs/serving.md).
    // With the prefill pool on a device of its own, every option is disaggregated.
    const bool colocated = space.disaggregation != PlanDisaggregation::only && space.prefill_hardware.empty();
    const bool disaggregated = space.disaggregation != PlanDisaggregation::off && workload.rate_per_s.has_value();
    const std::shared_ptr<const engine::RuntimeProfile> runtime = space.runtime(hardware);
    // The runtime's limits before a layout applies its own (limits_on_deployment, per layout below).
    const SchedulerLimits base_limits = resolve_scheduler(space.scheduler, *runtime, hardware, model.max_position_embeddings);
    // Without chunked prefill a prompt is one pass: a runtime that keeps its pass budget
    // (TensorRT-LLM's max_num_tokens) refuses a longer one, on any layout (the verification
    // catches a distribution's tail; this, a mean already over it).
    if (!base_limits.chunked_prefill &&
        workload.prompt_tokens - workload.cached_prompt_tokens > base_limits.max_batched_tokens) {
        reason = fmt::format("prompts of {:.0f} tokens are longer than a pass of {} tokens, and {} does not chunk them "
                             "by default: give --max-batched-tokens {:.0f} or more",
                             workload.prompt_tokens, base_limits.max_batched_tokens, runtime->id,
                             std::ceil(workload.prompt_tokens - workload.cached_prompt_tokens));
        return std::nullopt;
    }
    std::optional<PlanOption> best;
    // Why it cannot serve: a deployment that ran but missed is more telling than one that
    // could not be built (a tp the device has no link for), so the first of those wins.
    std::string ran_reason, built_reason;
    // The prefill pool's devices: the plan's own, or (null) the candidate itself.
    std::vector<const profiles::HardwareProfile*> prefill_devices;
    for (const profiles::HardwareProfile& device : space.prefill_hardware) prefill_devices.push_back(&device);
    if (prefill_devices.empty()) prefill_devices.push_back(nullptr);
    for (const core::WeightFormat* weights : space.weights) {
        for (const core::KvFormat* kv : space.kv) {
            for (const engine::Parallelism& parallelism : parallelism_candidates(model, space.tensor_parallel, space.pipeline_parallel)) {
                engine::DeploymentChoice choice{weights, kv, std::nullopt, runtime, std::nullopt, parallelism,
                                                space.clocks, false, {}, std::nullopt, space.in_process,
                                                space.cuda_graphs_off};
                const int tp = parallelism.devices();  // devices per instance, for counts
                const std::string spread =
                    parallelism.any() ? report_parallelism(parallelism) : std::string("one device");
                engine::Deployment deployment;
                try {
                    deployment = engine::resolve_deployment(hardware, model, choice);
                } catch (const core::InputError& error) {
                    if (built_reason.empty()) built_reason = error.diagnostics().front().message;
                    continue;
                }
                if (excluded_deployment(excluded, deployment)) continue;
                // One API server first; more where one would cap the engine (api_servers_for).
                std::optional<engine::Evaluator> built;
                built.emplace(model, hardware, deployment);
                SchedulerLimits limits = limits_on_deployment(base_limits, *built);
                double max_rate = colocated ? max_rate_at_targets(*built, load_of(workload, 1.0), limits, targets) : 0.0;
                choice.api_servers = space.api_servers ? *space.api_servers
                                                       : api_servers_for(*built, workload, limits, colocated ? &max_rate : nullptr);
                if (choice.api_servers > 1) {
                    deployment = engine::resolve_deployment(hardware, model, choice);
                    built.emplace(model, hardware, deployment);
                    limits = limits_on_deployment(base_limits, *built);
                    if (colocated) max_rate = max_rate_at_targets(*built, load_of(workload, 1.0), limits, targets);
                }
                const engine::Evaluator& evaluator = *built;
                auto key = [order](const PlanOption& o) { return ranking_key(o, order); };
                auto offer = [&](const PlanOption& option) {
                    // Ties go to fewer devices, then to colocated replicas (disaggregation must pay its way).
                    const bool tie = best && key(option) == key(*best);
                    if (!best || key(option) < key(*best) || (tie && option.devices < best->devices) ||
                        (tie && option.devices == best->devices && best->disaggregated && !option.disaggregated)) {
                        best = option;
                    }
                };
                for (const profiles::HardwareProfile* prefill_device : disaggregated ? prefill_devices
                                                                                     : std::vector<const profiles::HardwareProfile*>{}) {
                    // The prefill pool's deployment: the same formats and layout on its own device, with
                    // that device's runtime; a layout it cannot take is skipped.
                    std::optional<engine::Evaluator> prefill_pool;
                    if (prefill_device != nullptr) {
                        try {
                            prefill_pool.emplace(model, *prefill_device, prefill_deployment(deployment, model, *prefill_device, space));
                            kv_room(*prefill_pool, limits.block_tokens);  // the weights leave its cache room there
                        } catch (const core::InputError& error) {
                            if (built_reason.empty()) {
                                built_reason = fmt::format("the prefill pool on {}: {}", prefill_device->id,
                                                           error.diagnostics().front().message);
                            }
                            continue;
                        }
                    }
                    const engine::Evaluator* prefill_evaluator = prefill_pool ? &*prefill_pool : nullptr;
                    std::string why;
                    std::optional<DisaggregatedState> state;
                    try {
                        state = cheapest_pools(evaluator, workload, limits, targets, why, prefill_evaluator);
                    } catch (const core::InputError& error) {
                        why = error.diagnostics().front().message;  // no link for the KV cache
                    }
                    if (state) {
                        offer(disaggregated_option(hardware, deployment, limits, *state, workload, &evaluator,
                                                   prefill_evaluator));
                    } else if (!colocated && ran_reason.empty()) {
                        ran_reason = prefill_device != nullptr
                                         ? fmt::format("{}, disaggregated with prefill on {}: {}", spread, prefill_device->id, why)
                                         : fmt::format("{}, disaggregated: {}", spread, why);
                    }
                }
                if (!colocated) continue;
                if (max_rate <= 0.0) {
                    const SteadyState idle = steady_state(evaluator, load_of(workload, 1e-9), limits);
                    if (!ran_reason.empty()) continue;
                    ran_reason = idle.max_batch < 1.0 ? fmt::format("{}: the weights and one sequence's KV cache "
                                                                      "do not fit in memory", spread)
                                                       : fmt::format("{}: even one request alone misses the targets "
                                                                     "(TTFT {}, TPOT {})",
                                                                     spread, core::format_seconds(idle.ttft_s.p99),
                                                                     core::format_seconds(idle.tpot_s.p99));
                    continue;
                }
                double rate = 0.0;
                const auto replicas = replicas_needed(evaluator, workload, limits, targets, max_rate, rate);
                if (!replicas) {
                    if (ran_reason.empty()) ran_reason = "needs more than 100,000 replicas";
                    continue;
                }
                PlanOption option;
                option.hardware = hardware.id;
                option.segment = hardware.segment;
                option.deployment = deployment;
                option.limits = limits;
                option.replicas = *replicas;
                option.devices = *replicas * tp;
                option.rate_per_s = rate;
                option.max_rate_at_targets_per_s = max_rate * *replicas;
                set_costs(option, hardware, workload);
                offer(option);
            }
        }
    }
    if (!best) {
        reason = !ran_reason.empty() ? ran_reason : !built_reason.empty() ? built_reason : "no deployment to try";
        return std::nullopt;
    }
    if (best->disaggregated) {
        const std::optional<engine::Evaluator> prefill_pool = prefill_pool_of(*best, model, space);
        finish_disaggregated(*best, model, hardware, workload, targets, best->limits,
                             prefill_pool ? &*prefill_pool : nullptr);
        return best;
    }
    // The winner's binding constraint, its state at the load, and its device count across the
    // efficiency band.
    const engine::Evaluator evaluator(model, hardware, best->deployment);
    const double per_replica_max = best->max_rate_at_targets_per_s / best->replicas;
    best->binding = binding_at(evaluator, workload, best->limits, targets, per_replica_max);
    best->per_replica = steady_state(evaluator, load_of(workload, best->rate_per_s / best->replicas), best->limits);
    const engine::EfficiencyBand band =
        engine::efficiency_band(engine::deployment_efficiency(hardware, best->deployment));
    const int tp = best->deployment.parallelism.devices();
    auto devices_at = [&](const engine::Efficiency& efficiency) {
        const engine::Evaluator shifted(model, hardware, best->deployment, efficiency);
        const double max_rate = max_rate_at_targets(shifted, load_of(workload, 1.0), best->limits, targets);
        double rate = 0.0;
        const auto replicas = replicas_needed(shifted, workload, best->limits, targets, max_rate, rate);
        return replicas ? *replicas * tp : 0;  // 0: cannot meet the targets at that end of the band
    };
    best->devices_low = devices_at(band.high);
    best->devices_high = devices_at(band.low);
    return best;
}

// plan = serve: every option, simulated request by request at its planned load, takes the
// replicas the simulation needs; one that no count within reach serves on target is dropped with
// its reason. Re-ranked after each, until every option left is verified: no row of a plan says a
// deployment meets the targets that serve has not seen meet them.
void verify_options(Plan& plan, const profiles::ModelProfile& model, const std::vector<profiles::HardwareProfile>& candidates,
                 const PlanWorkload& workload, const ServiceTargets& targets, const PlanSpace& space, PlanOrder order) {
    VerifyLoad load;
    if (workload.lengths) {
        load.lengths = *workload.lengths;
    } else {
        load.lengths.prompt = {workload::LengthDistribution::Kind::fixed, workload.prompt_tokens, 0.0, std::nullopt};
        load.lengths.output = {workload::LengthDistribution::Kind::fixed, workload.output_tokens, 0.0, std::nullopt};
        load.lengths.think_time_s = workload.think_time_s;
    }
    load.rate_per_s = workload.rate_per_s;
    load.users = workload.users;
    load.trace = workload.trace;
    load.conversations = workload.conversations;
    auto key = [order](const PlanOption& o) { return ranking_key(o, order); };
    // The layouts of each device the serve check refused; a device gets kLayoutsTried at most.
    constexpr std::size_t kLayoutsTried = 4;
    std::map<std::string, std::vector<engine::Deployment>> refused;
    while (true) {
        const auto next = std::find_if(plan.options.begin(), plan.options.end(),
                                       [](const PlanOption& o) { return !o.verification; });
        if (next == plan.options.end()) return;
        PlanOption& option = *next;
        const auto hardware = std::find_if(candidates.begin(), candidates.end(),
                                           [&](const profiles::HardwareProfile& h) { return h.id == option.hardware; });
        const engine::Evaluator evaluator(model, *hardware, option.deployment);
        const std::optional<PoolShape> pools =
            option.disaggregated ? std::optional<PoolShape>(option.disaggregated->pools) : std::nullopt;
        const std::optional<engine::Evaluator> prefill_pool = prefill_pool_of(option, model, space);
        const PlanVerification verification =
            verify_replicas(evaluator, pools ? 1 : option.replicas, load, targets, option.limits, *space.verify, pools,
                            prefill_pool ? &*prefill_pool : nullptr);
        if (!verification.passed) {
            // The layout fails where replicas cannot help (a tail prompt's prefill alone misses the
            // TTFT target at this tensor parallelism): the device's next layout by the steady state.
            std::vector<engine::Deployment>& tried = refused[option.hardware];
            tried.push_back(option.deployment);
            std::string reason;
            std::optional<PlanOption> fallback;
            if (tried.size() < kLayoutsTried) {
                fallback = best_on_device(model, *hardware, workload, targets, space, order, tried, reason);
            }
            if (fallback) {
                *next = std::move(*fallback);
            } else {
                const std::string planned =
                    pools ? fmt::format("{}P{}D pools", pools->prefill_instances, pools->decode_instances)
                          : fmt::format("{} replica{}", verification.steady_state_replicas,
                                        verification.steady_state_replicas == 1 ? "" : "s");
                plan.rejected.push_back(
                    {option.hardware,
                     fmt::format("{} layout{} that the steady state accepts, none of which serve meets the targets at "
                                 "that load; the last, {} of {}: {:.1f}% of {} requests on target{}{}",
                                 tried.size(), tried.size() == 1 ? "" : "s", planned,
                                 report_parallelism(option.deployment.parallelism),
                                 verification.met_share * 100.0, verification.requests,
                                 pools ? "" : fmt::format(" with up to {} replicas", verification.replicas),
                                 verification.refused_longer_than_pass > 0
                                     ? fmt::format(", {} prompts longer than a pass of {} tokens without chunked prefill "
                                                   "refused (--max-batched-tokens)",
                                                   verification.refused_longer_than_pass, option.limits.max_batched_tokens)
                                 : verification.saturated ? ", a backlog standing"
                                                          : "")});
                plan.options.erase(next);
            }
            std::stable_sort(plan.options.begin(), plan.options.end(),
                             [&](const PlanOption& a, const PlanOption& b) { return key(a) < key(b); });
            continue;
        }
        if (!pools && verification.replicas != option.replicas) {
            set_replicas(option, verification.replicas, *hardware, workload);
            option.per_replica = steady_state(evaluator, load_of(workload, option.rate_per_s / option.replicas), option.limits);
        }
        option.verification = verification;
        if (space.progress) {
            const auto verified = static_cast<std::size_t>(std::count_if(
                plan.options.begin(), plan.options.end(), [](const PlanOption& o) { return o.verification.has_value(); }));
            space.progress(PlanStage::verify, verified, plan.options.size());
        }
        std::stable_sort(plan.options.begin(), plan.options.end(),
                         [&](const PlanOption& a, const PlanOption& b) { return key(a) < key(b); });
    }
}

}  // namespace

Plan plan_deployments(const profiles::ModelProfile& model, const std::vector<profiles::HardwareProfile>& candidates,
                      const PlanWorkload& workload, const ServiceTargets& targets, const PlanSpace& space,
                      PlanOrder order) {
    if (!workload.rate_per_s && !workload.users) {
        throw core::InputError(core::unlocated("rate", "give a request rate or a number of users"));
    }
    if (space.disaggregation == PlanDisaggregation::only && !workload.rate_per_s) {
        throw core::InputError(core::unlocated(
            "disaggregation", "disaggregated pools are planned for a request rate only, not for a closed loop of users"));
    }
    Plan plan;
    for (const profiles::HardwareProfile& hardware : candidates) {
        std::string reason;
        if (auto best = best_on_device(model, hardware, workload, targets, space, order, {}, reason)) {
            plan.options.push_back(std::move(*best));
        } else {
            plan.rejected.push_back({hardware.id, reason});
        }
        if (space.progress) space.progress(PlanStage::search, plan.options.size() + plan.rejected.size(), candidates.size());
    }
    auto key = [order](const PlanOption& o) { return ranking_key(o, order); };
    std::stable_sort(plan.options.begin(), plan.options.end(),
                     [&](const PlanOption& a, const PlanOption& b) { return key(a) < key(b); });
    if (space.verify) verify_options(plan, model, candidates, workload, targets, space, order);
    return plan;
}

}  // namespace decodesim::serving
