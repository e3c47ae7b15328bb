#include "serving/daily_scaling.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::serving {

ScaledDay scale_over_day(const std::vector<profiles::LoadStep>& curve, const DailyScaling& scaling) {
    ScaledDay day;
    const double per_replica = scaling.peak_rate_per_s / std::max(1, scaling.peak_replicas);
    for (std::size_t i = 0; i < curve.size(); ++i) {
        ScaledStep step;
        step.start_hour = curve[i].start_hour;
        step.end_hour = i + 1 < curve.size() ? curve[i + 1].start_hour : 24.0;
        step.rate_per_s = curve[i].rate_per_s;
        // A relative margin keeps a rate that is the peak's exact multiple from a rounding up.
        const double needed = per_replica > 0.0 ? std::ceil(step.rate_per_s / per_replica * (1.0 - 1e-12)) : 1.0;
        step.replicas = std::clamp(static_cast<int>(needed), 1, std::max(1, scaling.peak_replicas));
        step.devices = step.replicas * scaling.devices_per_replica;
        step.device_hours = step.devices * (step.end_hour - step.start_hour);
        day.steps.push_back(step);
    }
    // The replicas a step adds start before it, by the lag (never before the day's start).
    for (std::size_t i = 1; i < day.steps.size(); ++i) {
        const int added = day.steps[i].replicas - day.steps[i - 1].replicas;
        if (added <= 0) continue;
        const double early = std::min(scaling.scale_up_lag_hours, day.steps[i - 1].end_hour - day.steps[i - 1].start_hour);
        day.steps[i - 1].device_hours += added * scaling.devices_per_replica * early;
    }
    for (ScaledStep& step : day.steps) {
        if (scaling.price_per_device_hour) step.cost_usd = step.device_hours * *scaling.price_per_device_hour;
        day.device_hours += step.device_hours;
    }
    day.peak_replicas = std::max(1, scaling.peak_replicas);
    day.peak_device_hours = day.peak_replicas * scaling.devices_per_replica * 24.0;
    if (scaling.price_per_device_hour) {
        day.cost_usd = day.device_hours * *scaling.price_per_device_hour;
        day.peak_cost_usd = day.peak_device_hours * *scaling.price_per_device_hour;
    }
    return day;
}

}  // namespace decodesim::serving
