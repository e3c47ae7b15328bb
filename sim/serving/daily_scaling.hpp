#pragma once
// A planned deployment scaled over a day's load: the replicas each step of the curve needs, the
// device-hours and cost of the day, and the same deployment provisioned for its peak all day.

#include <optional>
#include <vector>

#include "profiles/load_curve.hpp"

namespace decodesim::serving {

struct ScaledStep {
    double start_hour = 0.0;
    double end_hour = 0.0;
    double rate_per_s = 0.0;
    int replicas = 0;           // running through the step
    int devices = 0;            // replicas x devices per replica
    // Device-hours charged to the step: its replicas for its length, and the replicas the next step
    // adds for the scale-up lag before it starts (they start early, so they serve from its start).
    double device_hours = 0.0;
    std::optional<double> cost_usd;
};

struct ScaledDay {
    std::vector<ScaledStep> steps;
    double device_hours = 0.0;
    std::optional<double> cost_usd;
    // The peak's replicas on all day, as a plan for the peak rate alone would buy.
    int peak_replicas = 0;
    double peak_device_hours = 0.0;
    std::optional<double> peak_cost_usd;
};

struct DailyScaling {
    double peak_rate_per_s = 0.0;  // the plan's rate, the curve's highest
    int peak_replicas = 0;         // the plan's replicas at that rate (verified by serve, where it was)
    int devices_per_replica = 1;
    std::optional<double> price_per_device_hour;
    double scale_up_lag_hours = 0.0;  // a new replica's start: weights loaded, graphs captured
};

// Each replica carries at most the load the plan gave each of its replicas at the peak
// (peak_rate / peak_replicas): a step at rate r runs ceil(r / that) replicas, at least one, at
// most the peak's. Replicas a step adds are started `scale_up_lag_hours` before it, charged to
// the step before.
ScaledDay scale_over_day(const std::vector<profiles::LoadStep>& curve, const DailyScaling& scaling);

}  // namespace decodesim::serving
