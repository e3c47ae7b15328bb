#pragma once
// Throughput against concurrency: every batch from 1 to the memory wall (and optionally past it).

#include <optional>
#include <vector>

#include "engine/operating_point.hpp"
#include "engine/prediction.hpp"

namespace decodesim::explore {

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
    double requested_batch = 1.0;         // the workload's batch: the operating point asked about
    // Set: the memory wall lies beyond CurveOptions::point_limit and the curve stops here.
    std::optional<long long> capped_at;
};

struct CurveOptions {
    long long last_batch = 0;             // 0: the memory wall (at least 1)
    long long point_limit = 1'000'000;    // a longer curve to the wall is capped here; a longer last_batch refused
};

// Throws core::UsageError when last_batch exceeds the point limit.
Curve concurrency_curve(const engine::Evaluator& evaluator, const engine::Workload& base, const CurveOptions& options);

// The low and high ends of the plausible efficiency (engine::efficiency_band around the runtime's
// default efficiency on this device), as evaluators of the point's deployment: the same pair that
// `predict --band` evaluates. They refer to the point's profiles, which must outlive them.
struct BandEvaluators {
    engine::Evaluator low;
    engine::Evaluator high;
};
BandEvaluators band_evaluators(const engine::OperatingPoint& point);

// Throughput at both ends of the band along the curve, for shading. A band is drawn on a log axis,
// so about eight batches per octave (and `last_batch` itself) trace it as well as every batch would.
struct CurveBand {
    std::vector<double> batches;
    std::vector<double> low_tokens_per_s_total;
    std::vector<double> high_tokens_per_s_total;
    std::vector<double> low_tokens_per_s_per_stream;
    std::vector<double> high_tokens_per_s_per_stream;
};
CurveBand curve_band(const BandEvaluators& band, const engine::Workload& base, long long last_batch);

}  // namespace decodesim::explore
