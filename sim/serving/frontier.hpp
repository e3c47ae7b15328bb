#pragma once
// The throughput-interactivity frontier: one deployment under closed loops of rising concurrency,
// each point the output tokens per second per device against the tokens per second one user
// sees, as serving engineers and public benchmark dashboards compare systems (docs/serving.md,
// "The frontier").

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/prediction.hpp"
#include "serving/simulation.hpp"
#include "workload/workload_choice.hpp"

namespace decodesim::serving {

struct FrontierPoint {
    long long concurrency = 1;
    // 1 / the median TPOT: the rate at which one user's answer streams once it has started.
    double tokens_per_s_per_user = 0.0;
    double tokens_per_s_per_device = 0.0;  // the deployment's output tokens/s over its devices
    double output_tokens_per_s = 0.0;      // the deployment's
    Percentiles ttft_s;
    Percentiles tpot_s;
    double mean_running_batch = 0.0;
    long long preemptions = 0;
    long long requests = 0;
    // Devices x their hourly price over the output tokens of that hour; unset without a price.
    std::optional<double> usd_per_million_output_tokens;
};

struct FrontierRun {
    std::vector<long long> concurrencies;  // ascending, each at least 1
    workload::ResolvedWorkload workload;   // lengths (think time is ignored: clients send at once)
    long long requests_per_client = 10;    // each closed loop sends this many per client ...
    long long min_requests = 200;          // ... and at least this many
    std::uint64_t seed = 1;
    SchedulerLimits limits;
    std::optional<double> price_per_device_hour;
};

struct Frontier {
    std::vector<FrontierPoint> points;  // one per concurrency, in the run's order
    std::optional<std::size_t> knee;    // index into points (frontier_knee)
    int devices = 1;
};

// One closed-loop simulation a concurrency, with the same seeded lengths throughout. Throws as
// simulate_serving does (no room for one sequence's cache).
Frontier serve_frontier(const engine::Evaluator& evaluator, const FrontierRun& run);

// The knee: the last point reached by steps along each of which throughput per device rose by at
// least 1% and by at least as large a share as the users' token rate fell (d ln throughput >=
// -d ln interactivity, between neighbouring points). Past it, a step of concurrency costs the
// users more, in proportion, than it gains the machine, or gains it nothing. The first point when
// the first step already fails; unset with fewer than two points.
std::optional<std::size_t> frontier_knee(const std::vector<FrontierPoint>& points);

}  // namespace decodesim::serving
