#pragma once
// `decodesim calibrate`: refits a runtime preset on one user's benchmark of one model on one
// machine, and states how much better it predicts rows the fit never saw (docs/cli.md,
// "calibrate"; docs/decisions.md, "Calibrating on your own machine").

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/runtime.hpp"
#include "fit/calibration.hpp"

namespace decodesim::fit {

// Below this many rows a held-out quarter is too small to say anything: the errors are in sample.
inline constexpr std::size_t kMinimumHeldOutRows = 8;

// The rows held out: after a stable sort by (metric, prompt, output, context, batch), every row
// whose position is 3 modulo 4. Indexed like `cases`.
std::vector<bool> held_out_rows(const std::vector<CalibrationCase>& cases);

struct MetricErrors {
    std::string label;  // profiles::metric_label: rows at a request rate are kept apart
    int rows = 0;
    double before = 0.0;  // median |predicted / measured - 1| under the base preset
    double after = 0.0;   // under the factors fitted without these rows (in sample: with them)
};

struct UserCalibration {
    core::MemoryFamily family = core::MemoryFamily::hbm;
    int rows = 0;
    int fitting_rows = 0;
    int held_out_rows = 0;
    bool in_sample = false;            // fewer than kMinimumHeldOutRows: nothing held out
    std::vector<MetricErrors> errors;  // in profiles::kMetrics order, then each at a request rate; labels with rows only
    engine::RuntimeFactors base;       // the base preset's factors for the family
    engine::RuntimeFactors held_out_fit;  // fitted on the fitting rows: the `after` figures
    engine::RuntimeFactors factors;       // fitted on every row: the preset to write
    std::vector<std::string_view> fitted; // keys (profiles::kRuntimeFactorFields) the final fit set; the rest are the base's
    int single_stream_rows = 0, batched_rows = 0, prefill_rows = 0;  // of each kind fit_runtime fits on
    // The preset to write: the base's factors, with the family's replaced by `factors`.
    std::array<engine::RuntimeFactors, core::kMemoryFamilies.size()> by_family{};
    bool base_within_two_percent = false;  // every metric's `before` at most 2%
    // Every evaluated row's |error| pooled: the median under the base and under the fit. A fit that
    // raises it is not written without being asked; one that leaves it unchanged is said to
    // (docs/cli.md, "calibrate").
    double pooled_before = 0.0;
    double pooled_after = 0.0;
    bool worse_than_base() const { return pooled_after > pooled_before; }
    bool no_better_than_base() const { return !base_within_two_percent && pooled_after >= pooled_before; }
    // The serving costs, fitted on the closed-loop rows (arrivals=closed: `vllm bench serve
    // --max-concurrency`, SGLang bench_serving) by replaying them: the host time per sequence in a
    // pass from their TPOT and throughput (then `fitted` names sequence_overhead), the request path
    // from their TTFT, its in/out shape and tokenization kept from the base.
    int closed_loop_rows = 0;
    bool request_path_fitted = false;
    engine::RequestPath base_request_path;
    engine::RequestPath held_out_request_path;  // fitted without the held-out rows
    engine::RequestPath request_path;           // fitted on every row: the preset's
};

// Fits `base`'s factors for the cases' memory family (every case must be on one device) with
// fit_runtime: first on the rows not held out, to measure the errors, then on every row for the
// preset. Factors fit_runtime does not fit (fewer than its 10 rows of the kind they are fitted on:
// single-stream decode, prefill and TTFT, batched decode) keep the base's values. Closed-loop rows
// then fit the serving costs (UserCalibration::closed_loop_rows), one row of a kind being enough:
// each is a whole run. Throws core::NothingComputed when `cases` is empty.
// `progress`, when set, is told the share of the work done after each stage (a progress bar).
UserCalibration calibrate_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& base,
                                  const std::function<void(double share_done)>& progress = {});

}  // namespace decodesim::fit
