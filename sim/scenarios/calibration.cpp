#include "scenarios/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/efficiency.hpp"

namespace decodesim::scenarios {

namespace {

constexpr std::size_t kMinimumRows = 10;

bool is_prefill(const profiles::Measurement& m) { return m.metric == profiles::Metric::prefill_tokens_per_s; }

// Median absolute error of `cases` under `preset`.
double error_of(const std::vector<const CalibrationCase*>& cases, const engine::RuntimePreset& preset) {
    std::vector<AccuracyRow> rows;
    rows.reserve(cases.size());
    for (const CalibrationCase* c : cases) {
        rows.push_back(evaluate_measurement(*c->measurement, *c->model, *c->hardware, c->deployment, preset));
    }
    return median_absolute_error(rows, [](const AccuracyRow&) { return true; });
}

std::vector<double> steps(double first, double last, double step) {
    std::vector<double> values;
    for (double value = first; value <= last + step / 2; value += step) values.push_back(value);
    return values;
}

}  // namespace

FitResult fit_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimePreset& preset,
                      const std::vector<core::MemoryFamily>& families) {
    const bool throughput_runtime = preset.runtime == engine::Runtime::tensorrt_llm;
    std::vector<const CalibrationCase*> decode, prefill;
    for (const auto& c : cases) {
        if (split_of(c.measurement->hardware) != Split::train) continue;
        if (std::find(families.begin(), families.end(), c.hardware->memory_family) == families.end()) continue;
        if (!unsupported_reason(*c.measurement).empty()) continue;
        (is_prefill(*c.measurement) ? prefill : decode).push_back(&c);
    }
    FitResult result;
    result.runtime = std::string(preset.name);
    result.families = families;
    result.decode_rows = static_cast<int>(decode.size());
    result.prefill_rows = static_cast<int>(prefill.size());
    engine::RuntimePreset candidate = preset;
    // Start from the defaults, so the fit does not depend on values fitted before; the group's
    // families share one set of factors, written back to each after every change.
    engine::RuntimeFactors factors{};
    auto apply = [&] {
        for (core::MemoryFamily family : families) candidate.by_family[static_cast<std::size_t>(family)] = factors;
    };
    apply();
    result.decode_error_before = error_of(decode, candidate);
    result.prefill_error_before = error_of(prefill, candidate);

    // Two factors at a time on a grid; the best pair is kept.
    auto search = [&](const std::vector<const CalibrationCase*>& rows, double& first, const std::vector<double>& first_values,
                      double& second, const std::vector<double>& second_values) {
        if (rows.empty()) return;
        double best = std::numeric_limits<double>::infinity(), best_first = first, best_second = second;
        for (double a : first_values) {
            for (double b : second_values) {
                first = a;
                second = b;
                apply();
                const double error = error_of(rows, candidate);
                if (error < best - 1e-12) {
                    best = error;
                    best_first = a;
                    best_second = b;
                }
            }
        }
        first = best_first;
        second = best_second;
        apply();
    };
    // Too few rows would fit noise, so a family with fewer than kMinimumRows keeps the defaults.
    if (decode.size() >= kMinimumRows) {
        if (throughput_runtime) {
            // Batched throughput: the step is compute-bound at the batches these runs use.
            search(decode, factors.compute, steps(0.3, 1.25, 0.025), factors.kernel_overhead.value, steps(0.0, 30e-6, 2e-6));
        } else {
            search(decode, factors.kernel_overhead.value, steps(0.0, 30e-6, 1e-6), factors.quantized_weight_bandwidth,
                   steps(0.4, 1.0, 0.02));
            // Then how well the attention kernels stream the KV cache (long-context rows), with the
            // overhead refitted beside it.
            search(decode, factors.attention_bandwidth, steps(0.3, 1.0, 0.05), factors.kernel_overhead.value,
                   steps(0.0, 30e-6, 1e-6));
        }
    }
    if (prefill.size() >= kMinimumRows) {
        search(prefill, factors.compute, steps(0.1, 1.25, 0.05), factors.quantized_compute, steps(0.2, 1.0, 0.05));
    }
    result.factors = factors;
    result.decode_error_after = error_of(decode, candidate);
    result.prefill_error_after = error_of(prefill, candidate);
    return result;
}

}  // namespace decodesim::scenarios
