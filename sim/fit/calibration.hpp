#pragma once
// Fits the runtime presets' factors per backend by grid search minimizing the median absolute
// error, and measures what the fitted model gets right on rows the fit never saw (one source or
// one hardware family held out at a time). Fitted values are copied into engine/runtime.hpp with
// the command that reproduces them (docs/validation.md); nothing is tuned per row.

#include <array>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/runtime.hpp"
#include "fit/accuracy.hpp"

namespace decodesim::fit {

// A measurement with its profiles resolved.
struct CalibrationCase {
    const profiles::Measurement* measurement;
    const profiles::ModelProfile* model;
    const profiles::HardwareProfile* hardware;
    engine::Deployment deployment;  // evaluated with the candidate preset's factors while fitting
};

struct FitResult {
    std::string fit_group;  // engine::RuntimeProfile::fit_group
    std::vector<core::MemoryFamily> families;
    engine::RuntimeFactors factors;
    // The factors the fit searched (keys of profiles::kRuntimeFactorFields); the others kept the
    // measured defaults it starts from, for lack of rows of the kind that measures them.
    std::vector<std::string_view> fitted;
    int decode_rows = 0;            // single-stream and batched
    int single_stream_rows = 0, batched_rows = 0;
    int multi_die_rows = 0;         // of the single-stream rows, those on multi-die packages
    // Backends whose matrix kernels the fit measured (core::kBackends order): the reference (the
    // most prefill rows) and each backend given its own multiplier on compute. The others run at
    // the reference's rate unless share_backend_kernels finds them measured in another group.
    std::array<bool, core::kBackends.size()> compute_measured{};
    // Backends whose compute multiplier came from another group of the runtime (share_backend_kernels).
    std::vector<core::Backend> borrowed;
    // Backends no group of the runtime measured, set to the typical measured backend's fraction
    // (share_backend_kernels).
    std::vector<core::Backend> typical;
    // Whether the fit read tile_setup_rows off its own MoE prompts, or took another group's
    // (share_backend_kernels); neither: 0.
    bool tile_setup_measured = false;
    bool tile_setup_borrowed = false;
    int prefill_rows = 0;           // prefill throughput and time to first token
    double decode_error_before = 0.0, decode_error_after = 0.0;
    double prefill_error_before = 0.0, prefill_error_after = 0.0;
};

// Predictions already made, by measurement and the factors its memory family ran under: fits over
// overlapping rows (one per held-out group) visit mostly the same grid points on mostly the same
// rows. Valid for one set of cases (each measurement with one model, device and deployment).
class PredictionCache {
public:
    double predict(const CalibrationCase& c, const engine::RuntimeProfile& preset);
    // The case's accuracy row under `preset`: its cached prediction, its error, and its physical
    // bound, which no preset changes and is computed once a row (a replayed row's bound is a whole
    // serving simulation). The one place a row is evaluated.
    AccuracyRow evaluate(const CalibrationCase& c, const engine::RuntimeProfile& preset);

private:
    using Key = std::tuple<const profiles::Measurement*, double, double, double, double, double, double, double, double, double>;
    // The case's cost model, which no preset changes: built once a row, not once a grid point.
    const engine::CostModel& cost_of(const CalibrationCase& c);

    std::map<Key, double> predictions_;
    std::unordered_map<const profiles::Measurement*, engine::CostModel> costs_;
    std::map<const profiles::Measurement*, PhysicalBound> bounds_;
};

// Whether a fit can read the row at all (supported, under conditions the engine models, not a
// whole serving run): rows it cannot read leave every fit unchanged when held out.
bool read_by_fits(const profiles::Measurement& measurement);

// Which kinds of rows a fit reads (the others keep the measured defaults).
struct FitKinds {
    bool single_stream = true;  // per-kernel cost, quantized-weight and attention bandwidth
    bool prefill = true;        // compute rates, backend multipliers
    bool batched = true;        // per-sequence cost (and compute without prefill rows)
};

// Fits two factors at a time for every given case of `preset`'s runtime on `families`, reading the
// `kinds` of rows asked for:
// - single-stream decode rows: (kernel overhead, quantized weight bandwidth), then (attention
//   bandwidth, kernel overhead);
// - prefill rows (prefill throughput and time to first token): (compute, quantized compute) on
//   the short prompts (under 8,192 tokens of prompt and context) where there are 10, then a
//   multiplier on compute for each other backend with 10 of them and, where there are 10 short
//   MoE prompts, a weight tile's staging (tile_setup_rows) on those alone, the pair refitted beside
//   them (twice; docs/model.md, "Expert tiles"); then, per backend with 10 long prompts, a multiplier on attention's arithmetic,
//   fitted on those and the backend's long single-stream decode rows (docs/model.md, "Backends");
// - batched decode rows (a concurrency above 1, or offline throughput): (compute, sequence
//   overhead), with the compute rate the prefill rows fixed where there were enough of them.
// The caller chooses the rows (the training split for `--fit`, all rows but one group's for the
// held-out figures). A group with fewer than 10 rows of a kind keeps its defaults. `families` are
// fitted together (the memory families one set of factors covers).
// `cache`, when given, remembers the predictions the grid search makes and reuses earlier ones.
FitResult fit_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& preset,
                      const std::vector<core::MemoryFamily>& families, PredictionCache* cache = nullptr,
                      FitKinds kinds = {});

// One set of fitted factors: a runtime on a set of memory families (its backends get their own
// multipliers inside it), and the kinds of rows it reads.
struct FitGroup {
    std::string fit_group;  // the runtime profiles whose fit_group this is
    std::vector<core::MemoryFamily> families;
    FitKinds kinds;
};
// vllm, llama.cpp and tensorrt-llm, each on discrete GPUs (HBM and GDDR) and on unified memory.
// vllm reads its single-stream rows only: its prefill and batched rows come from a mixture of
// engines (vLLM, SGLang, LMDeploy, Gaudi's stack, MLX ...) and their fits ran to the grids' edges
// (docs/validation.md, "The vllm preset").
std::vector<FitGroup> fit_groups();
bool in_fit_group(const CalibrationCase& c, const FitGroup& group);

// A backend's matrix kernels are the same code on every memory family (llama.cpp's CUDA kernels on
// a GeForce card and on DGX Spark): where one group of a runtime has too few prefill rows of a
// backend to fit it and another group of the runtime measured it, the first group's multiplier is
// set so that the backend reaches the fraction of peak the other group measured for quantized
// matrices (compute x backend multiplier x quantized compute), within the grid's 0.1 to 8. A
// backend no group of the runtime measured reaches the geometric mean of the fractions the
// measured backends reach, not the reference backend's. The attention multipliers are not shared
// (sharing them moved no held-out figure). A group with too few MoE prompts to read a weight
// tile's staging (tile_setup_rows) takes it from a group of the runtime that read it. Applied by
// fit_presets and to every held-out fit (docs/model.md, "Backends" and "Expert tiles").
void share_backend_kernels(std::vector<FitResult>& fits);

// fit_runtime for every fit group on `cases`, then share_backend_kernels; a group with no rows
// among them is left out.
std::vector<FitResult> fit_presets(const std::vector<CalibrationCase>& cases, PredictionCache* cache = nullptr);

// `runtime` with the factors of its fit group's `fits`. A fitted runtime's backend that has no fit gets
// the measured defaults (where every fit starts), never the shipped factors, which were fitted on
// other rows; a runtime that is never fitted comes back unchanged.
engine::RuntimeProfile fitted_preset(const engine::RuntimeProfile& runtime, const std::vector<FitResult>& fits);

// The error of one metric over held-out predictions.
struct HeldOutSummary {
    SubsetSummary errors;  // name: the metric
    int groups = 0;        // how many held-out groups its rows come from (0 in sample)
};

struct HeldOutErrors {
    std::string grouping;                   // "source", "hardware family", or "none" (in sample)
    int groups = 0;                         // groups held out in turn
    std::vector<AccuracyRow> rows;          // one per case, in case order
    std::vector<std::string> group_of_row;  // parallel to rows
    std::vector<HeldOutSummary> by_metric;  // in profiles::kMetrics order, metrics with rows only
    std::vector<SubsetSummary> by_group;    // "group | metric", sorted by name (none in sample)
};

// Leave-one-group-out: for each group (`group_of`), fits the presets on the cases of every other
// group and predicts the group's cases with that fit. A fit group with none of the held-out cases
// reuses the fit on all cases, which the same rows would reproduce, so only the fits a group
// touches are redone. Pass one `cache` to every call on the same cases to share predictions.
HeldOutErrors leave_one_group_out(const std::vector<CalibrationCase>& cases, const std::string& grouping,
                                  const std::function<std::string(const CalibrationCase&)>& group_of,
                                  PredictionCache* cache = nullptr);

// Fits on every case and predicts every case: the figure the held-out ones are compared with.
HeldOutErrors in_sample(const std::vector<CalibrationCase>& cases, PredictionCache* cache = nullptr);

}  // namespace decodesim::fit
