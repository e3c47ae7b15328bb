#pragma once
// A workload as a user states it (a named scenario, flags that override parts of it, a model's
// context) resolved into the lengths and arrivals every command then uses: serve generates its
// requests from it, plan its load, both with the same defaults, caps and truncation.

#include <optional>
#include <string>

#include "workload/request_stream.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::workload {

// Unset members take the scenario's value, else the default stated beside them.
struct WorkloadChoice {
    const WorkloadScenario* scenario = nullptr;
    std::optional<LengthDistribution> prompt;  // default: 1000 tokens
    std::optional<LengthDistribution> output;  // default: 200 tokens
    std::optional<long long> max_output;       // caps every output (--max-output)
    std::optional<Arrivals::Kind> arrivals;    // default: poisson
    std::optional<double> burstiness;          // default: 1
    std::optional<double> think_time_s;        // default: 0 (a closed loop's pause between requests)
};

struct ResolvedWorkload {
    LengthDistribution prompt;  // truncated so that prompt + mean output fits the model's context
    LengthDistribution output;  // capped at max_output
    double uncapped_output_mean = 0.0;  // the output's mean without max_output
    double asked_context_mean = 0.0;    // mean prompt + output before truncation, for the context warning
    Arrivals::Kind arrivals = Arrivals::Kind::poisson;
    double burstiness = 1.0;
    double think_time_s = 0.0;
    long long max_context = 0;  // the model's context; 0: none stated

    // The squared coefficient of variation of the gaps between arrivals (1 for Poisson).
    double arrival_cv2() const { return arrivals == Arrivals::Kind::gamma ? 1.0 / burstiness : 1.0; }
};

// `model_context`: the model's maximum positions, when its profile states them.
ResolvedWorkload resolve_workload(const WorkloadChoice& choice, std::optional<long long> model_context);

// "poisson", "gamma (burstiness 0.5)"; with a rate, " at 3/s" after it.
std::string describe_arrivals(Arrivals::Kind kind, double burstiness, std::optional<double> rate_per_s = std::nullopt);

}  // namespace decodesim::workload
