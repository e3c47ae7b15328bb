#pragma once
// `serve` results: a summary table, the JSON document, one CSV row per request, and an SVG of
// latency, queue and KV usage over time.

#include <nlohmann/json.hpp>
#include <string>

#include "report/predict_json.hpp"
#include "scenarios/output_cap.hpp"
#include "scenarios/serving.hpp"
#include "scenarios/steady_state.hpp"

namespace decodesim::report {

// The stream as the user gave it, echoed in every output.
struct ServeConditions {
    Conditions point;            // hardware, model, formats, runtime, tensor parallelism (no workload)
    int replicas = 1;
    std::string arrivals;        // "poisson 5/s", "gamma(k=0.5) 5/s", "trace FILE"
    std::string prompt;          // "1000", "lognormal 1000 sd 500", "trace"
    std::string output;
    long long requests = 0;
    unsigned long long seed = 0;
    scenarios::SchedulerLimits limits;
    scenarios::ServiceTargets targets;
    std::optional<scenarios::OutputCapEffect> output_cap;  // --max-output: what the cap saves
    // --disaggregate: the analytic state of the pools (the simulated ones are in the result).
    std::optional<scenarios::DisaggregatedState> disaggregation;
};

std::string serve_to_text(const ServeConditions& conditions, const scenarios::ServeResult& result,
                          const scenarios::SteadyState& analytic);
nlohmann::json serve_to_json(const ServeConditions& conditions, const scenarios::ServeResult& result,
                             const scenarios::SteadyState& analytic);
std::string requests_to_csv(const scenarios::ServeResult& result);
std::string serve_chart(const ServeConditions& conditions, const scenarios::ServeResult& result);

}  // namespace decodesim::report
