#pragma once
// Predicts public measurements and states the error, per subset, honestly: rows that cannot be
// evaluated say why, and rows above the roofline bound are flagged.

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/prediction.hpp"
#include "profiles/measurement.hpp"

namespace decodesim::fit {

// Rows are split by hardware so that the held-out error is on devices the fit never saw:
// a row is in the test split when the FNV-1a hash of its hardware id is odd.
enum class Split { train, test };
Split split_of(const std::string& hardware_id);
const char* split_name(Split split);

// The publication a row comes from: its source column up to the first " (" or ";", trailing spaces
// and commas dropped, so one thread or file cited with different notes (a table, a commit, how it
// was read) counts once. "https://github.com/ggml-org/llama.cpp/discussions/4167 (first-post table)"
// gives "https://github.com/ggml-org/llama.cpp/discussions/4167".
std::string source_key(std::string_view source);


struct AccuracyRow {
    const profiles::Measurement* measurement = nullptr;
    Split split = Split::train;
    std::string skipped;       // why the row cannot be evaluated; empty when it was
    double predicted = 0.0;    // in the row's metric
    double bound = 0.0;        // the roofline bound of the same metric (for times: the lower bound)
    double error = 0.0;        // predicted / measured - 1
    bool beats_bound = false;  // the measurement is better than physics allows
};

// Why a row cannot be evaluated before any profile is loaded (precision not stated, load shapes
// the engine does not model); empty when it can.
std::string unsupported_reason(const profiles::Measurement& measurement);

// The deployment a row's stated conditions describe, under `runtime`: its weight and KV formats,
// its devices (tensor parallel, or pipeline stages for a layer split), its backend, its attention
// kernels and the clocks its benchmark ran at. The one place a measurement becomes a deployment
// (accuracy and calibrate both read it). Throws core::UsageError for an unknown format name.
engine::DeploymentChoice stated_deployment(const profiles::Measurement& measurement,
                                           std::shared_ptr<const engine::RuntimeProfile> runtime);

// Predicts one row for a model on a device under a deployment (tensor parallelism = the row's
// device count), with the efficiency of `preset` (by default the deployment's runtime).
// The figure the row's metric reaches at the datasheet's peaks with no overheads, and whether the
// measurement beats it (beyond the replay's sampling slack; a closed loop's TTFT never does).
struct PhysicalBound {
    double figure = 0.0;
    bool beaten = false;
};
PhysicalBound physical_bound(const profiles::Measurement& measurement, const profiles::ModelProfile& model,
                             const profiles::HardwareProfile& hardware, const engine::Deployment& deployment);

// The predicted figure alone, in the row's metric, without the roofline bound: the fast path for
// fits that predict every row many times. The row must be supported (unsupported_reason empty).
// `cost`, when given, is engine::Evaluator::text_cost_model of the row's model, device and
// deployment, built once for the many presets a fit tries (it does not depend on them).
double predict_measurement(const profiles::Measurement& measurement, const profiles::ModelProfile& model,
                           const profiles::HardwareProfile& hardware, const engine::Deployment& deployment,
                           const engine::RuntimeProfile& preset, const engine::CostModel* cost = nullptr);

struct SubsetSummary {
    std::string name;
    int rows = 0;
    double median_absolute_error = 0.0;
    double mean_absolute_error = 0.0;
    double median_signed_error = 0.0;
    int beats_bound = 0;
};

// Groups evaluated rows by `key` and summarizes each group, sorted by name.
std::vector<SubsetSummary> summarize(const std::vector<AccuracyRow>& rows,
                                     const std::function<std::string(const AccuracyRow&)>& key);

// Median of |error| over the rows that pass `filter` (0 when none).
double median_absolute_error(const std::vector<AccuracyRow>& rows, const std::function<bool(const AccuracyRow&)>& filter);

}  // namespace decodesim::fit
