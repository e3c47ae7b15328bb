#pragma once
// "Will more FLOPS help?": each resource doubled alone and the workload re-evaluated by the engine.

#include <optional>

#include "engine/prediction.hpp"

namespace decodesim::explore {

// Ratio of total tokens/s with one resource doubled to today's.
struct WhatIf {
    double bandwidth_x2 = 1.0;
    double flops_x2 = 1.0;
    double capacity_x2 = 1.0;     // counts only when memory caps the batch
    double interconnect_x2 = 1.0; // 1 without tensor parallelism
    // The same doublings for the time to first token (the prompt's prefill) and for a whole
    // request (TTFT and its output), as ratios of the new time to today's: below 1 is faster.
    double bandwidth_x2_ttft = 1.0, flops_x2_ttft = 1.0, interconnect_x2_ttft = 1.0;
    double bandwidth_x2_request = 1.0, flops_x2_request = 1.0, interconnect_x2_request = 1.0;
    // Peak clocks instead of the deployment's (sustained or power-limited): decode tokens/s and
    // TTFT, as ratios to today (1 when the deployment already runs at peak).
    double peak_clocks = 1.0;
    double peak_clocks_ttft = 1.0;
    double compute_clock_share = 1.0;  // today's share of the listed compute peaks
};

struct Explanation {
    engine::Prediction prediction;          // today, at the batch memory allows
    double requested_batch = 1.0;
    double effective_batch = 1.0;           // min(requested, memory wall), at least 1
    bool capped_by_memory = false;
    WhatIf what_if;
    std::optional<long long> compute_bound_batch;         // the whole step (knee)
    std::optional<long long> matmul_compute_bound_batch;  // the weight matrix products alone
    std::optional<double> kv_outweighs_weights_context;
    std::optional<long long> max_batch_with_capacity_x2;
};

// The point's hardware is copied where a resource is doubled; the rest is pure evaluation.
Explanation explain(const engine::OperatingPoint& point);

}  // namespace decodesim::explore
