#include "serving/plan_verification.hpp"

#include <algorithm>
#include <vector>


namespace decodesim::serving {

namespace {

struct Run {
    double met_share = 0.0;
    double ttft_p99_s = 0.0, tpot_p99_s = 0.0, e2e_p99_s = 0.0;
    bool saturated = false;
    ServeResult result;
};

Run simulate(const engine::Evaluator& evaluator, int replicas, const VerifyLoad& load, const ServiceTargets& targets,
             const SchedulerLimits& limits, const VerifySettings& settings, const std::optional<PoolShape>& pools) {
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = load.rate_per_s.value_or(1.0);
    spec.requests = settings.requests;
    spec.seed = settings.seed;
    const workload::ResolvedWorkload& lengths = load.lengths;
    spec.arrivals.kind = lengths.arrivals;
    spec.arrivals.burstiness = lengths.burstiness;
    spec.prompt = lengths.prompt;
    spec.output = lengths.output;
    spec.max_context = lengths.max_context;
    ServeConfig config;
    config.replicas = replicas;
    config.disaggregation = pools;
    config.limits = limits;
    config.seed = settings.seed;
    if (load.users) config.closed_loop = ClosedLoop{static_cast<long long>(*load.users), lengths.think_time_s};
    Run run;
    run.result = simulate_serving(evaluator, workload::generate_requests(spec), config, targets);
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
        const bool within = (!targets.ttft_s || record.ttft() <= *targets.ttft_s) &&
                            (!targets.tpot_s || record.tpot() <= *targets.tpot_s) &&
                            (!targets.e2e_s || record.e2e() <= *targets.e2e_s);
        met += within ? 1.0 : 0.0;
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
                                 const VerifySettings& settings, const std::optional<PoolShape>& pools) {
    PlanVerification verification;
    verification.requests = settings.requests;
    verification.seed = settings.seed;
    verification.steady_state_replicas = replicas;
    const int most = pools ? replicas : 2 * replicas + 2;
    int tried = replicas;
    while (true) {
        const Run run = simulate(evaluator, tried, load, targets, limits, settings, pools);
        verification.replicas = tried;
        verification.met_share = run.met_share;
        verification.saturated = run.saturated;
        verification.ttft_p99_s = run.ttft_p99_s;
        verification.tpot_p99_s = run.tpot_p99_s;
        verification.e2e_p99_s = run.e2e_p99_s;
        verification.passed = !run.saturated && run.met_share >= settings.required_share;
        if (verification.passed || tried >= most) return verification;
        // Grow by a tenth (at least one): a shortfall of a few percent of capacity needs few more.
        tried += std::max(1, tried / 10);
        tried = std::min(tried, most);
    }
}

}  // namespace decodesim::serving
