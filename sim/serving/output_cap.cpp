#include "serving/output_cap.hpp"

namespace decodesim::serving {

OutputCapEffect output_cap_effect(const engine::Evaluator& evaluator, const LoadShape& capped, const LoadShape& uncapped,
                                  double cap_tokens, const SchedulerLimits& limits, int devices,
                                  std::optional<double> price_per_device_hour) {
    OutputCapEffect effect;
    effect.cap_tokens = cap_tokens;
    effect.mean_output_capped = capped.output_tokens;
    effect.mean_output_uncapped = uncapped.output_tokens;
    auto device_seconds = [&](const LoadShape& load) {
        const double saturation = steady_state(evaluator, load, limits).saturation_rate_per_s;
        return saturation > 0.0 ? static_cast<double>(devices) / saturation : 0.0;
    };
    effect.device_seconds_per_request_capped = device_seconds(capped);
    effect.device_seconds_per_request_uncapped = device_seconds(uncapped);
    if (price_per_device_hour) {
        const double per_second = *price_per_device_hour / 3600.0;
        effect.cost_per_million_requests_capped = effect.device_seconds_per_request_capped * per_second * 1e6;
        effect.cost_per_million_requests_uncapped = effect.device_seconds_per_request_uncapped * per_second * 1e6;
    }
    return effect;
}

}  // namespace decodesim::serving
