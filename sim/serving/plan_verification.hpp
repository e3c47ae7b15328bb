#pragma once
// A plan's answer checked by the request-level simulation: the analytic steady state prunes the
// search, but a deployment is reported as meeting the targets only when `serve` at the planned
// load agrees (docs/serving.md, "Verified by serve").

#include <memory>
#include <optional>

#include "engine/prediction.hpp"
#include "serving/simulation.hpp"
#include "workload/workload_choice.hpp"

namespace decodesim::serving {

struct VerifySettings {
    long long requests = 2000;
    unsigned long long seed = 1;
    // The share of served requests that must meet every target (each p99 target met by at least
    // 99% of requests), with none refused and no backlog standing at the last arrival.
    double required_share = 0.99;
};

struct PlanVerification {
    long long requests = 0;
    unsigned long long seed = 1;
    int replicas = 0;                // the replicas the simulation needed (at least the steady state's)
    int steady_state_replicas = 0;   // what the analytic steady state asked for
    double met_share = 0.0;          // of the requests, those within every target, at `replicas`
    double ttft_p99_s = 0.0, tpot_p99_s = 0.0, e2e_p99_s = 0.0;
    bool saturated = false;          // at `replicas`: a backlog stood at the last arrival, or a request was refused
    long long refused_longer_than_pass = 0;  // of the refused, prompts longer than an unchunked pass
    bool passed = false;             // false: no count within reach met the targets
};

// The workload a plan is verified on: its lengths and arrivals as resolved, and its load.
struct VerifyLoad {
    workload::ResolvedWorkload lengths;
    std::optional<double> rate_per_s;  // open loop, all replicas
    std::optional<double> users;       // closed loop
    // Set: these requests are replayed as recorded (a trace), in place of a generated stream.
    std::shared_ptr<const std::vector<workload::Request>> trace;
    // Set: a generated stream is of conversations (PlanWorkload::conversations).
    std::optional<workload::Conversations> conversations;
};

// Simulates `replicas` colocated replicas of `evaluator`'s deployment under `load`, adding replicas
// until the share of requests within `targets` reaches settings.required_share: the smallest count
// that does, up to eight times the steady state's count plus eight (beyond, `passed` is false). With
// `pools`, the disaggregated pools instead, checked as planned.
PlanVerification verify_replicas(const engine::Evaluator& evaluator, int replicas, const VerifyLoad& load,
                                 const ServiceTargets& targets, const SchedulerLimits& limits,
                                 const VerifySettings& settings, const std::optional<PoolShape>& pools = std::nullopt,
                                 const engine::Evaluator* prefill_pool = nullptr);

}  // namespace decodesim::serving
