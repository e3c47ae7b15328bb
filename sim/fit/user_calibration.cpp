#include "fit/user_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "core/statistics.hpp"
#include "core/error.hpp"
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

UserCalibration calibrate_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& base) {
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

    // The errors before and after, per metric, on the rows evaluated.
    engine::RuntimeProfile fitted = base;
    fitted.by_family[static_cast<std::size_t>(calibration.family)] = calibration.held_out_fit;
    calibration.base_within_two_percent = true;
    for (const std::string& label : profiles::metric_labels()) {
        std::vector<double> before, after;
        for (const CalibrationCase& c : evaluated) {
            if (profiles::metric_label(*c.measurement) != label) continue;
            const auto error = [&](const engine::RuntimeProfile& preset) {
                return std::fabs(predict_measurement(*c.measurement, *c.model, *c.hardware, c.deployment, preset) /
                                     c.measurement->value -
                                 1.0);
            };
            before.push_back(error(base));
            after.push_back(error(fitted));
        }
        if (before.empty()) continue;
        const MetricErrors errors{label, static_cast<int>(before.size()), core::median(before), core::median(after)};
        calibration.base_within_two_percent = calibration.base_within_two_percent && errors.before <= kCloseEnough;
        calibration.errors.push_back(errors);
    }

    // The preset written is fitted on every row.
    const FitResult on_all = fit_runtime(cases, base, {calibration.family}, nullptr);
    calibration.fitted = on_all.fitted;
    calibration.factors = merged(base.factors(calibration.family), on_all, on_all.fitted);
    calibration.single_stream_rows = on_all.single_stream_rows;
    calibration.batched_rows = on_all.batched_rows;
    calibration.prefill_rows = on_all.prefill_rows;
    calibration.by_family = base.by_family;
    calibration.by_family[static_cast<std::size_t>(calibration.family)] = calibration.factors;
    return calibration;
}

}  // namespace decodesim::fit
