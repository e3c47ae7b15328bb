#include "fit/user_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "core/statistics.hpp"
#include "core/error.hpp"
#include "fit/accuracy.hpp"
#include "profiles/runtime_fields.hpp"

namespace decodesim::fit {
namespace {

constexpr double kCloseEnough = 0.02;

// The base's factors with the fitted ones replaced.
engine::RuntimeFactors merged(const engine::RuntimeFactors& base, const FitResult& fit,
                              const std::vector<std::string_view>& keys) {
    engine::RuntimeFactors factors = base;
    for (const profiles::RuntimeFactorField& field : profiles::kRuntimeFactorFields) {
        if (std::find(keys.begin(), keys.end(), field.key) != keys.end()) field.value(factors) = field.get(fit.factors);
    }
    return factors;
}

engine::RuntimeFactors fit(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& base,
                           core::MemoryFamily family, std::vector<std::string_view>* keys_out) {
    const FitResult result = fit_runtime(cases, base, {family}, nullptr);
    if (keys_out) *keys_out = result.fitted;
    return merged(base.factors(family), result, result.fitted);
}

// A row's prediction under `preset`, its request path and scheduler included: the deployment runs
// the preset itself, not only its factors.
double predict_under(const CalibrationCase& c, const engine::RuntimeProfile& preset) {
    engine::Deployment deployment = c.deployment;
    deployment.runtime = std::make_shared<const engine::RuntimeProfile>(preset);
    return predict_measurement(*c.measurement, *c.model, *c.hardware, deployment, preset);
}

// The median |log(predicted / measured)| of `rows` under `preset`: a ratio error, symmetric.
double median_log_error(const std::vector<const CalibrationCase*>& rows, const engine::RuntimeProfile& preset) {
    std::vector<double> errors;
    for (const CalibrationCase* c : rows) errors.push_back(std::fabs(std::log(predict_under(*c, preset) / c->measurement->value)));
    return core::median(errors);
}

// The value in [low, high] that minimizes `error`: a grid of 20 steps, then twice 20 steps of a
// tenth around the best, to a two-thousandth of the range (the error of a replayed run is not
// smooth in its costs, so no derivative).
template <typename Error>
double grid_minimum(double low, double high, const Error& error) {
    double best = low, best_error = error(low);
    double step = (high - low) / 20.0;
    for (int round = 0; round < 3; ++round) {
        const double from = std::max(low, best - (round == 0 ? 0.0 : step * 10.0));
        for (int i = 0; i <= 20; ++i) {
            const double value = std::min(high, from + step * i);
            const double e = error(value);
            if (e < best_error) best = value, best_error = e;
        }
        step /= 10.0;
    }
    return best;
}

// The largest per-sequence host time and request path the fit considers: a millisecond a sequence
// a pass, two seconds on a request's way in and out.
constexpr double kMaxSequenceOverheadS = 1e-3;
constexpr double kMaxRequestPathS = 2.0;

// Fits the serving costs on the closed-loop rows under `preset` (whose factors for `family` are the
// kernels' fit): the host time per sequence from the TPOT and throughput rows, then the request path
// from the TTFT rows, then the host time again under that path. Returns the preset with them.
engine::RuntimeProfile fit_serving_costs(const std::vector<const CalibrationCase*>& rows, engine::RuntimeProfile preset,
                                         core::MemoryFamily family, bool& overhead_fitted, bool& path_fitted) {
    std::vector<const CalibrationCase*> pace, first;
    for (const CalibrationCase* c : rows) {
        (c->measurement->metric == profiles::Metric::ttft_s ? first : pace).push_back(c);
    }
    engine::RuntimeFactors& factors = preset.by_family[static_cast<std::size_t>(family)];
    auto fit_overhead = [&] {
        factors.sequence_overhead = core::Seconds(grid_minimum(0.0, kMaxSequenceOverheadS, [&](double overhead) {
            factors.sequence_overhead = core::Seconds(overhead);
            return median_log_error(pace, preset);
        }));
    };
    overhead_fitted = !pace.empty();
    path_fitted = !first.empty();
    if (overhead_fitted) fit_overhead();
    if (path_fitted) {
        // The fixed parts scale together, in the base's proportion (half each when it states none).
        const engine::RequestPath shape = preset.request_path;
        const double fixed = shape.before_scheduler.value + shape.after_step.value;
        const double in_share = fixed > 0.0 ? shape.before_scheduler.value / fixed : 0.5;
        auto with_fixed = [&](double total) {
            preset.request_path.before_scheduler = core::Seconds(total * in_share);
            preset.request_path.after_step = core::Seconds(total * (1.0 - in_share));
        };
        const double total = grid_minimum(0.0, kMaxRequestPathS, [&](double candidate) {
            with_fixed(candidate);
            return median_log_error(first, preset);
        });
        with_fixed(total);
        if (overhead_fitted) fit_overhead();
    }
    return preset;
}


}  // namespace

std::vector<bool> held_out_rows(const std::vector<CalibrationCase>& cases) {
    std::vector<std::size_t> order(cases.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto key = [&](std::size_t i) {
        const profiles::Measurement& m = *cases[i].measurement;
        return std::make_tuple(static_cast<int>(m.metric), m.prompt.value_or(0.0), m.output.value_or(0.0),
                               m.context.value_or(0.0), m.batch.value_or(0.0));
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::vector<bool> held_out(cases.size(), false);
    for (std::size_t position = 0; position < order.size(); ++position) held_out[order[position]] = position % 4 == 3;
    return held_out;
}

UserCalibration calibrate_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& base,
                                  const std::function<void(double share_done)>& progress) {
    // The stages' shares of the time: two fits of about equal cost, each followed by its serving
    // costs; the errors between them are a few predictions a row.
    const auto done = [&](double share) {
        if (progress) progress(share);
    };
    if (cases.empty()) throw core::NothingComputed("no benchmark row could be evaluated, so nothing was fitted");
    UserCalibration calibration;
    calibration.family = cases.front().hardware->memory_family;
    calibration.rows = static_cast<int>(cases.size());
    calibration.base = base.factors(calibration.family);
    calibration.in_sample = cases.size() < kMinimumHeldOutRows;

    std::vector<CalibrationCase> fitting, evaluated;
    const std::vector<bool> held_out = held_out_rows(cases);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (calibration.in_sample || !held_out[i]) fitting.push_back(cases[i]);
        if (calibration.in_sample || held_out[i]) evaluated.push_back(cases[i]);
    }
    calibration.fitting_rows = static_cast<int>(fitting.size());
    calibration.held_out_rows = calibration.in_sample ? 0 : static_cast<int>(evaluated.size());
    calibration.held_out_fit = fit(fitting, base, calibration.family, nullptr);
    done(0.35);
    calibration.base_request_path = base.request_path;
    const auto closed_loop = [](const std::vector<CalibrationCase>& from) {
        std::vector<const CalibrationCase*> rows;
        for (const CalibrationCase& c : from) {
            if (c.measurement->closed_loop) rows.push_back(&c);
        }
        return rows;
    };
    calibration.closed_loop_rows = static_cast<int>(closed_loop(cases).size());

    // The errors before and after, per metric, on the rows evaluated.
    engine::RuntimeProfile fitted = base;
    fitted.by_family[static_cast<std::size_t>(calibration.family)] = calibration.held_out_fit;
    bool overhead_fitted = false, path_fitted = false;
    fitted = fit_serving_costs(closed_loop(fitting), fitted, calibration.family, overhead_fitted, path_fitted);
    calibration.held_out_fit = fitted.factors(calibration.family);
    calibration.held_out_request_path = fitted.request_path;
    done(0.45);
    calibration.base_within_two_percent = true;
    std::vector<double> pooled_before, pooled_after;
    for (const std::string& label : profiles::metric_labels()) {
        std::vector<double> before, after;
        for (const CalibrationCase& c : evaluated) {
            if (profiles::metric_label(*c.measurement) != label) continue;
            const auto error = [&](const engine::RuntimeProfile& preset) {
                return std::fabs(predict_under(c, preset) / c.measurement->value - 1.0);
            };
            before.push_back(error(base));
            after.push_back(error(fitted));
        }
        if (before.empty()) continue;
        pooled_before.insert(pooled_before.end(), before.begin(), before.end());
        pooled_after.insert(pooled_after.end(), after.begin(), after.end());
        const MetricErrors errors{label, static_cast<int>(before.size()), core::median(before), core::median(after)};
        calibration.base_within_two_percent = calibration.base_within_two_percent && errors.before <= kCloseEnough;
        calibration.errors.push_back(errors);
    }

    calibration.pooled_before = core::median(pooled_before);
    calibration.pooled_after = core::median(pooled_after);

    done(0.5);
    // The preset written is fitted on every row.
    const FitResult on_all = fit_runtime(cases, base, {calibration.family}, nullptr);
    done(0.9);
    calibration.fitted = on_all.fitted;
    calibration.factors = merged(base.factors(calibration.family), on_all, on_all.fitted);
    engine::RuntimeProfile preset = base;
    preset.by_family[static_cast<std::size_t>(calibration.family)] = calibration.factors;
    preset = fit_serving_costs(closed_loop(cases), preset, calibration.family, overhead_fitted, path_fitted);
    calibration.factors = preset.factors(calibration.family);
    calibration.request_path = preset.request_path;
    calibration.request_path_fitted = path_fitted;
    if (overhead_fitted && std::find(calibration.fitted.begin(), calibration.fitted.end(), "sequence_overhead") ==
                               calibration.fitted.end()) {
        calibration.fitted.push_back("sequence_overhead");
    }
    calibration.single_stream_rows = on_all.single_stream_rows;
    calibration.batched_rows = on_all.batched_rows;
    calibration.prefill_rows = on_all.prefill_rows;
    calibration.by_family = base.by_family;
    calibration.by_family[static_cast<std::size_t>(calibration.family)] = calibration.factors;
    done(1.0);
    return calibration;
}

}  // namespace decodesim::fit
