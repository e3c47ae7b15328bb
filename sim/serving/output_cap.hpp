#pragma once
// What a cap on output length (--max-output) saves: the mean output shrinks, each request holds
// its replica for fewer decode steps, and the same devices serve more requests. Measured at
// saturation, where the device time per request is the deployment's cost per request.

#include <optional>

#include "serving/steady_state.hpp"

namespace decodesim::serving {

struct OutputCapEffect {
    double cap_tokens = 0.0;
    double mean_output_uncapped = 0.0;
    double mean_output_capped = 0.0;
    // Device-seconds per request at one replica's saturation rate (devices / requests per second).
    double device_seconds_per_request_uncapped = 0.0;
    double device_seconds_per_request_capped = 0.0;
    // USD per million requests at that rate, when the device has a price.
    std::optional<double> cost_per_million_requests_uncapped;
    std::optional<double> cost_per_million_requests_capped;

    double saving_fraction() const {
        return device_seconds_per_request_uncapped > 0.0
                   ? 1.0 - device_seconds_per_request_capped / device_seconds_per_request_uncapped
                   : 0.0;
    }
};

// `capped` and `uncapped` differ only in their mean output; `devices` per replica;
// `price_per_device_hour` from the profile or --price.
OutputCapEffect output_cap_effect(const engine::Evaluator& evaluator, const LoadShape& capped, const LoadShape& uncapped,
                                  double cap_tokens, const SchedulerLimits& limits, int devices,
                                  std::optional<double> price_per_device_hour);

}  // namespace decodesim::serving
