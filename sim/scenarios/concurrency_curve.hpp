#pragma once
// Throughput against concurrency: every batch from 1 to the memory wall (and optionally past it).

#include <optional>
#include <vector>

#include "engine/prediction.hpp"

namespace decodesim::scenarios {

struct CurvePoint {
    long long batch = 1;
    double tokens_per_s_per_stream = 0.0;
    double tokens_per_s_total = 0.0;
    core::Seconds step_time;
    core::Seconds ttft;        // one request arriving at an idle server
    core::Seconds batch_prefill;  // the whole batch's prompts at once
    engine::Bound bound = engine::Bound::memory;
    bool fits = true;
    std::optional<core::Seconds> time_to_last_token;  // a request workload's, at this batch
};

struct Curve {
    std::vector<CurvePoint> points;
    std::optional<long long> knee_batch;  // where decode turns compute-bound
    long long max_batch = 0;              // the memory wall
    double context = 0.0;                 // decode context the knee was computed at
};

struct CurveOptions {
    long long last_batch = 0;             // 0: the memory wall (at least 1)
    long long point_limit = 1'000'000;    // refuse more points than this
};

// Throws core::UsageError when the curve would exceed the point limit.
Curve concurrency_curve(const engine::Evaluator& evaluator, const engine::Workload& base, const CurveOptions& options);

}  // namespace decodesim::scenarios
