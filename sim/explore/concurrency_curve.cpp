#include "explore/concurrency_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "explore/knee.hpp"

namespace decodesim::explore {

Curve concurrency_curve(const engine::Evaluator& evaluator, const engine::Workload& base, const CurveOptions& options) {
    Curve curve;
    engine::Workload workload = base;
    workload.batch = 1.0;
    const engine::Prediction first = evaluator.predict(workload);
    curve.max_batch = first.memory.max_batch;
    curve.context = first.decode.context;
    curve.knee_batch = compute_bound_batch(evaluator, curve.context);
    curve.requested_batch = base.batch;

    // A memory wall beyond the point limit (a small model at a short context on a large device)
    // caps the curve there, and says so: every batch to the wall would be millions of rows.
    long long last = options.last_batch > 0 ? options.last_batch : std::max(1LL, curve.max_batch);
    if (last > options.point_limit) {
        if (options.last_batch > 0) {
            throw core::UsageError(fmt::format("the curve would have {} points (up to batch {}); the limit is {}",
                                               last, last, options.point_limit));
        }
        last = options.point_limit;
        curve.capped_at = last;
    }
    curve.points.reserve(static_cast<std::size_t>(last));
    for (long long batch = 1; batch <= last; ++batch) {
        workload.batch = static_cast<double>(batch);
        const engine::Prediction prediction =
            batch == 1 ? first : evaluator.predict(workload, engine::Detail::figures);
        curve.points.push_back({batch, prediction.decode.tokens_per_s_per_stream, prediction.decode.tokens_per_s_total,
                                prediction.decode.step_time, prediction.ttft, prediction.batch_prefill.time,
                                prediction.decode.bound,
                                prediction.memory.fits,
                                prediction.request ? std::optional<core::Seconds>(prediction.request->end_to_end)
                                                   : std::nullopt});
    }
    return curve;
}

BandEvaluators band_evaluators(const engine::OperatingPoint& point) {
    const engine::EfficiencyBand efficiencies =
        engine::efficiency_band(engine::deployment_efficiency(point.hardware, point.deployment));
    return {engine::Evaluator(point.model, point.hardware, point.deployment, efficiencies.low),
            engine::Evaluator(point.model, point.hardware, point.deployment, efficiencies.high)};
}

CurveBand curve_band(const BandEvaluators& band, const engine::Workload& base, long long last_batch) {
    CurveBand result;
    engine::Workload workload = base;
    long long previous = 0;
    for (int eighth = 0;; ++eighth) {
        const long long batch = std::min(last_batch, std::llround(std::exp2(eighth / 8.0)));
        if (batch > previous) {
            workload.batch = static_cast<double>(batch);
            const engine::Prediction low = band.low.predict(workload, engine::Detail::figures);
            const engine::Prediction high = band.high.predict(workload, engine::Detail::figures);
            result.batches.push_back(static_cast<double>(batch));
            result.low_tokens_per_s_total.push_back(low.decode.tokens_per_s_total);
            result.high_tokens_per_s_total.push_back(high.decode.tokens_per_s_total);
            result.low_tokens_per_s_per_stream.push_back(low.decode.tokens_per_s_per_stream);
            result.high_tokens_per_s_per_stream.push_back(high.decode.tokens_per_s_per_stream);
            previous = batch;
        }
        if (batch >= last_batch) break;
    }
    return result;
}

}  // namespace decodesim::explore
