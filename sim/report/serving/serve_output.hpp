#pragma once
// `serve` results: a summary table, the JSON document, one CSV row per request, and an SVG of
// latency, queue and KV usage over time.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/predict_json.hpp"
#include "serving/output_cap.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"

namespace decodesim::report {

// The stream as the user gave it, echoed in every output.
// A group of a mixed fleet's replicas on one device and layout (serve --add-replicas).
struct FleetGroup {
    std::string hardware;
    engine::Parallelism parallelism;
    int replicas = 0;
};

struct ServeConditions {
    Conditions point;            // hardware, model, formats, runtime, tensor parallelism (no workload)
    int replicas = 1;
    std::string arrivals;        // "poisson 5/s", "gamma(k=0.5) 5/s", "trace FILE"
    std::string prompt;          // "1000", "lognormal 1000 sd 500", "trace"
    std::string output;
    long long requests = 0;
    unsigned long long seed = 0;
    serving::SchedulerLimits limits;
    serving::WarmCache warm;     // --warm-prefix, --warm-up
    serving::ServiceTargets targets;
    std::optional<serving::OutputCapEffect> output_cap;  // --max-output: what the cap saves
    // --disaggregate: the analytic state of the pools (the simulated ones are in the result).
    std::optional<serving::DisaggregatedState> disaggregation;
    // --prefill-hardware: the prefill pool's device and parallelism; empty: the decode pool's.
    std::string prefill_hardware;
    engine::Parallelism prefill_parallelism;
    // A mixed fleet: its groups in replica order, the first the deployment's own; empty otherwise.
    std::vector<FleetGroup> fleet;
};

std::string serve_to_text(const ServeConditions& conditions, const serving::ServeResult& result,
                          const serving::SteadyState& analytic);
nlohmann::json serve_to_json(const ServeConditions& conditions, const serving::ServeResult& result,
                             const serving::SteadyState& analytic);
std::string requests_to_csv(const serving::ServeResult& result);
// A latency's percentiles as every serving document writes them: p50, p90, p99, mean and max.
nlohmann::json percentiles_to_json(const serving::Percentiles& percentiles);
std::string serve_chart(const ServeConditions& conditions, const serving::ServeResult& result);

}  // namespace decodesim::report
