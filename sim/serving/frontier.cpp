#include "serving/frontier.hpp"

#include <algorithm>
#include <cmath>

#include "workload/request_stream.hpp"

namespace decodesim::serving {

namespace {

// A step that raises throughput by less than 1% (in log terms) gains nothing worth a user's wait:
// past the scheduler's batch limit more clients only queue, throughput and TPOT stay flat, and the
// knee must not drift out along that plateau.
constexpr double kLeastGain = 0.01;

}  // namespace

Frontier serve_frontier(const engine::Evaluator& evaluator, const FrontierRun& run) {
    Frontier frontier;
    frontier.devices = evaluator.deployment().parallelism.devices();
    for (const long long clients : run.concurrencies) {
        workload::StreamSpec spec;
        spec.arrivals.kind = workload::Arrivals::Kind::poisson;
        spec.arrivals.rate_per_s = 1.0;  // a closed loop sends as its clients free up; the rate is unused
        spec.prompt = run.workload.prompt;
        spec.output = run.workload.output;
        spec.max_context = run.workload.max_context;
        spec.requests = std::max(run.min_requests, run.requests_per_client * clients);
        spec.seed = run.seed;
        const std::vector<workload::Request> requests = workload::generate_requests(spec);
        ServeConfig config;
        config.limits = run.limits;
        config.seed = run.seed;
        config.closed_loop = ClosedLoop{clients, 0.0};
        const ServeResult result = simulate_serving(evaluator, requests, config, ServiceTargets{});

        FrontierPoint point;
        point.concurrency = clients;
        point.tokens_per_s_per_user = result.tpot_s.p50 > 0.0 ? 1.0 / result.tpot_s.p50 : 0.0;
        point.output_tokens_per_s = result.output_tokens_per_s;
        point.tokens_per_s_per_device = result.output_tokens_per_s / frontier.devices;
        point.ttft_s = result.ttft_s;
        point.tpot_s = result.tpot_s;
        point.mean_running_batch = result.mean_running_batch;
        point.preemptions = result.preemptions;
        point.requests = static_cast<long long>(requests.size());
        if (run.price_per_device_hour && result.output_tokens_per_s > 0.0) {
            const double usd_per_hour = *run.price_per_device_hour * frontier.devices;
            point.usd_per_million_output_tokens = usd_per_hour / (result.output_tokens_per_s * 3600.0) * 1e6;
        }
        frontier.points.push_back(point);
    }
    frontier.knee = frontier_knee(frontier.points);
    return frontier;
}

std::optional<std::size_t> frontier_knee(const std::vector<FrontierPoint>& points) {
    if (points.size() < 2) return std::nullopt;
    std::size_t knee = 0;
    for (std::size_t i = 1; i < points.size(); ++i) {
        const FrontierPoint& before = points[i - 1];
        const FrontierPoint& after = points[i];
        if (before.tokens_per_s_per_device <= 0.0 || after.tokens_per_s_per_device <= 0.0 ||
            before.tokens_per_s_per_user <= 0.0 || after.tokens_per_s_per_user <= 0.0) {
            break;
        }
        const double gained = std::log(after.tokens_per_s_per_device / before.tokens_per_s_per_device);
        const double lost = std::log(before.tokens_per_s_per_user / after.tokens_per_s_per_user);
        if (gained < kLeastGain || gained < lost) break;
        knee = i;
    }
    return knee;
}

}  // namespace decodesim::serving
