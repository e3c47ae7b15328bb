#include "serving/plan_verification.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "core/search.hpp"
#include "serving/served_stream.hpp"


namespace decodesim::serving {

namespace {

struct Run {
    double met_share = 0.0;
    double ttft_p99_s = 0.0, tpot_p99_s = 0.0, e2e_p99_s = 0.0;
    bool saturated = false;
    ServeResult result;
};

Run simulate(const engine::Evaluator& evaluator, int replicas, const VerifyLoad& load, const ServiceTargets& targets,
             const SchedulerLimits& limits, const VerifySettings& settings, const std::optional<PoolShape>& pools,
             const engine::Evaluator* prefill_pool) {
    // The stream serve would generate from the same workload, rate, count and seed.
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = load.rate_per_s.value_or(1.0);
    spec.requests = settings.requests;
    spec.seed = settings.seed;
    spec.conversations = load.conversations;
    const std::vector<workload::Request> requests =
        load.trace ? *load.trace : generated_stream(load.lengths, spec, std::nullopt).requests;
    ServeConfig config;
    config.replicas = replicas;
    config.disaggregation = pools;
    config.prefill_pool = prefill_pool;
    config.limits = limits;
    config.seed = settings.seed;
    if (load.users) config.closed_loop = ClosedLoop{static_cast<long long>(*load.users), load.lengths.think_time_s};
    Run run;
    run.result = simulate_serving(evaluator, requests, config, targets);
    run.saturated = run.result.saturated;
    // A closed loop's clients all start at once, a burst no steady population of users makes: the
    // share is taken after each client's first request (a benchmark's warm-up). Refused requests
    // count as missing their targets.
    const std::size_t skip = load.users ? std::min(run.result.requests.size() / 2, static_cast<std::size_t>(*load.users)) : 0;
    std::vector<double> ttft, tpot, e2e;
    double met = 0.0, counted = 0.0;
    for (std::size_t i = skip; i < run.result.requests.size(); ++i) {
        const RequestRecord& record = run.result.requests[i];
        counted += 1.0;
        if (record.rejected) continue;
        ttft.push_back(record.ttft());
        e2e.push_back(record.e2e());
        if (record.request.output_tokens > 1) tpot.push_back(record.tpot());
        met += within_targets(record, targets) ? 1.0 : 0.0;
    }
    run.met_share = counted > 0.0 ? met / counted : 0.0;
    run.ttft_p99_s = percentiles(ttft).p99;
    run.tpot_p99_s = percentiles(tpot).p99;
    run.e2e_p99_s = percentiles(e2e).p99;
    return run;
}

}  // namespace

PlanVerification verify_replicas(const engine::Evaluator& evaluator, int replicas, const VerifyLoad& load,
                                 const ServiceTargets& targets, const SchedulerLimits& limits,
                                 const VerifySettings& settings, const std::optional<PoolShape>& pools,
                                 const engine::Evaluator* prefill_pool) {
    std::map<int, PlanVerification> runs;  // by replica count: each count is simulated once
    auto at = [&](int count) -> const PlanVerification& {
        auto found = runs.find(count);
        if (found != runs.end()) return found->second;
        const Run run = simulate(evaluator, count, load, targets, limits, settings, pools, prefill_pool);
        PlanVerification verification;
        verification.requests = load.trace ? static_cast<long long>(load.trace->size()) : settings.requests;
        verification.seed = settings.seed;
        verification.steady_state_replicas = replicas;
        verification.replicas = count;
        verification.met_share = run.met_share;
        verification.saturated = run.saturated;
        verification.refused_longer_than_pass = run.result.rejected_longer_than_pass;
        verification.ttft_p99_s = run.ttft_p99_s;
        verification.tpot_p99_s = run.tpot_p99_s;
        verification.e2e_p99_s = run.e2e_p99_s;
        verification.passed = !run.saturated && run.met_share >= settings.required_share;
        return runs.emplace(count, verification).first->second;
    };
    if (pools || at(replicas).passed) return at(replicas);
    // Grow until the targets are met: by a tenth (at least one) when close, doubling when far
    // off, up to kMaxGrowth times the steady state's count; then the smallest count that meets
    // them between the last miss and the first hit.
    constexpr int kMaxGrowth = 8;
    const int most = kMaxGrowth * replicas + kMaxGrowth;
    int missed = replicas;
    int tried = replicas;
    while (!at(tried).passed) {
        if (tried >= most) return at(tried);
        missed = tried;
        const bool close = at(tried).met_share >= 0.9 && !at(tried).saturated;
        tried = std::min(most, close ? tried + std::max(1, tried / 10) : 2 * tried);
    }
    const auto smallest = core::first_true(missed + 1, tried, [&](long long count) { return at(static_cast<int>(count)).passed; });
    return at(static_cast<int>(*smallest));
}

}  // namespace decodesim::serving
