#include "scenarios/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "scenarios/search.hpp"

namespace decodesim::scenarios {

namespace {

constexpr int kMaxReplicas = 100'000;

LoadShape load_of(const PlanWorkload& workload, double rate) {
    return {rate, workload.prompt_tokens, workload.output_tokens, workload.arrival_cv2};
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
    const auto fewest = first_true(1, most, meets);
    if (!fewest) return std::nullopt;
    rate = state_with(*fewest).output_tokens_per_s / workload.output_tokens * static_cast<double>(*fewest);
    return static_cast<int>(*fewest);
}

// What `order` ranks by, smaller first; a device without a price or a power figure ranks last on
// it (ties, within a device, go to fewer devices).
double ranking_key(const PlanOption& option, PlanOrder order) {
    constexpr double kUnknown = std::numeric_limits<double>::infinity();
    switch (order) {
        case PlanOrder::devices: return static_cast<double>(option.devices);
        case PlanOrder::power: return option.joules_per_output_token.value_or(kUnknown);
        case PlanOrder::cost: break;
    }
    return option.cost_per_hour.value_or(kUnknown);
}

}  // namespace

Plan plan_deployments(const profiles::ModelProfile& model, const std::vector<profiles::HardwareProfile>& candidates,
                      const PlanWorkload& workload, const ServiceTargets& targets, const PlanSpace& space,
                      PlanOrder order) {
    if (!workload.rate_per_s && !workload.users) {
        throw core::InputError(core::unlocated("rate", "give a request rate or a number of users"));
    }
    Plan plan;
    for (const profiles::HardwareProfile& hardware : candidates) {
        std::optional<PlanOption> best;
        // Why it cannot serve: a deployment that ran but missed is more telling than one that
        // could not be built (a tp the device has no link for), so the first of those wins.
        std::string ran_reason, built_reason;
        for (const core::WeightFormat* weights : space.weights) {
            for (const core::KvFormat* kv : space.kv) {
                for (int tp : space.tensor_parallel) {
                    engine::DeploymentChoice choice{weights, kv, std::nullopt, space.runtime, engine::Parallelism{tp},
                                                    space.clocks};
                    engine::Deployment deployment;
                    try {
                        deployment = engine::resolve_deployment(hardware, model, choice);
                    } catch (const core::InputError& error) {
                        if (built_reason.empty()) built_reason = error.diagnostics().front().message;
                        continue;
                    }
                    const engine::Evaluator evaluator(model, hardware, deployment);
                    const double max_rate =
                        max_rate_at_targets(evaluator, load_of(workload, 1.0), space.limits, targets);
                    if (max_rate <= 0.0) {
                        const SteadyState idle = steady_state(evaluator, load_of(workload, 1e-9), space.limits);
                        if (!ran_reason.empty()) continue;
                        ran_reason = idle.max_batch < 1.0 ? fmt::format("tp {}: the weights and one sequence's KV cache "
                                                                          "do not fit in memory", tp)
                                                           : fmt::format("tp {}: even one request alone misses the targets "
                                                                         "(TTFT {}, TPOT {})",
                                                                         tp, core::format_seconds(idle.ttft_s.p99),
                                                                         core::format_seconds(idle.tpot_s.p99));
                        continue;
                    }
                    double rate = 0.0;
                    const auto replicas = replicas_needed(evaluator, workload, space.limits, targets, max_rate, rate);
                    if (!replicas) {
                        if (ran_reason.empty()) ran_reason = "needs more than 100,000 replicas";
                        continue;
                    }
                    PlanOption option;
                    option.hardware = hardware.id;
                    option.deployment = deployment;
                    option.replicas = *replicas;
                    option.devices = *replicas * tp;
                    option.rate_per_s = rate;
                    option.max_rate_at_targets_per_s = max_rate * *replicas;
                    const double output_per_s = rate * workload.output_tokens;
                    if (hardware.price_per_hour) {
                        option.cost_per_hour = *hardware.price_per_hour * option.devices;
                        option.cost_per_million_output_tokens = *option.cost_per_hour / (output_per_s * 3600.0) * 1e6;
                    }
                    if (hardware.power) {
                        option.joules_per_output_token = hardware.power->value * option.devices / output_per_s;
                    }
                    auto key = [order](const PlanOption& o) { return ranking_key(o, order); };
                    if (!best || key(option) < key(*best) ||
                        (key(option) == key(*best) && option.devices < best->devices)) {
                        best = option;
                    }
                }
            }
        }
        if (!best) {
            plan.rejected.push_back({hardware.id, !ran_reason.empty()     ? ran_reason
                                                  : !built_reason.empty() ? built_reason
                                                                          : "no deployment to try"});
            continue;
        }
        // The winner's binding constraint, its state at the load, and its device count across the
        // efficiency band.
        const engine::Evaluator evaluator(model, hardware, best->deployment);
        const double per_replica_max = best->max_rate_at_targets_per_s / best->replicas;
        best->binding = binding_at(evaluator, workload, space.limits, targets, per_replica_max);
        best->per_replica = steady_state(evaluator, load_of(workload, best->rate_per_s / best->replicas), space.limits);
        const engine::EfficiencyBand band =
            engine::efficiency_band(hardware, engine::default_efficiency(hardware, best->deployment.runtime));
        const int tp = best->deployment.parallelism.tensor;
        auto devices_at = [&](const engine::Efficiency& efficiency) {
            const engine::Evaluator shifted(model, hardware, best->deployment, efficiency);
            const double max_rate = max_rate_at_targets(shifted, load_of(workload, 1.0), space.limits, targets);
            double rate = 0.0;
            const auto replicas = replicas_needed(shifted, workload, space.limits, targets, max_rate, rate);
            return replicas ? *replicas * tp : 0;  // 0: cannot meet the targets at that end of the band
        };
        best->devices_low = devices_at(band.high);
        best->devices_high = devices_at(band.low);
        plan.options.push_back(*best);
    }
    auto key = [order](const PlanOption& o) { return ranking_key(o, order); };
    std::stable_sort(plan.options.begin(), plan.options.end(),
                     [&](const PlanOption& a, const PlanOption& b) { return key(a) < key(b); });
    return plan;
}

}  // namespace decodesim::scenarios
