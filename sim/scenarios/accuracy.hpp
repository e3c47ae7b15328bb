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

namespace decodesim::scenarios {

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

// The vendor and generation of a hardware profile id ("h100-sxm" -> "nvidia-hopper"), from
// kHardwareFamilies; "other" for an id the table does not list.
struct HardwareFamily {
    std::string_view hardware_id;
    std::string_view family;
};
// One row per hardware profile; a generation is the chip architecture (Apple: the M generation,
// any tier). dgx-spark's GB10 and the RTX 50 and RTX PRO 6000 cards are Blackwell; strix-halo's
// iGPU is RDNA 3.5; jetson-agx-orin's GPU is Ampere.
inline constexpr auto kHardwareFamilies = std::to_array<HardwareFamily>({
    {"p40", "nvidia-pascal"},
    {"v100-sxm-32gb", "nvidia-volta"},
    {"a10", "nvidia-ampere"},
    {"a10g", "nvidia-ampere"},
    {"a30", "nvidia-ampere"},
    {"a40", "nvidia-ampere"},
    {"a100-pcie-80gb", "nvidia-ampere"},
    {"a100-pcie-80gb-nobridge", "nvidia-ampere"},
    {"a100-sxm-40gb", "nvidia-ampere"},
    {"a100-sxm-80gb", "nvidia-ampere"},
    {"jetson-agx-orin", "nvidia-ampere"},
    {"rtx-3060", "nvidia-ampere"},
    {"rtx-3070", "nvidia-ampere"},
    {"rtx-3080", "nvidia-ampere"},
    {"rtx-3080-ti", "nvidia-ampere"},
    {"rtx-3090", "nvidia-ampere"},
    {"rtx-3090-ti", "nvidia-ampere"},
    {"rtx-a6000", "nvidia-ampere"},
    {"l4", "nvidia-ada"},
    {"l40", "nvidia-ada"},
    {"l40s", "nvidia-ada"},
    {"rtx-4000-ada", "nvidia-ada"},
    {"rtx-4070-ti", "nvidia-ada"},
    {"rtx-4080", "nvidia-ada"},
    {"rtx-4090", "nvidia-ada"},
    {"rtx-5000-ada", "nvidia-ada"},
    {"rtx-6000-ada", "nvidia-ada"},
    {"h100-pcie", "nvidia-hopper"},
    {"h100-sxm", "nvidia-hopper"},
    {"h200-sxm", "nvidia-hopper"},
    {"gh200", "nvidia-hopper"},
    {"gh200-96gb", "nvidia-hopper"},
    {"b200", "nvidia-blackwell"},
    {"gb200", "nvidia-blackwell"},
    {"dgx-spark", "nvidia-blackwell"},
    {"rtx-5060-ti", "nvidia-blackwell"},
    {"rtx-5070-ti", "nvidia-blackwell"},
    {"rtx-5080", "nvidia-blackwell"},
    {"rtx-5090", "nvidia-blackwell"},
    {"rtx-pro-6000", "nvidia-blackwell"},
    {"rtx-pro-6000-maxq", "nvidia-blackwell"},
    {"apple-m1", "apple-m1"},
    {"apple-m1-7c", "apple-m1"},
    {"apple-m1-pro", "apple-m1"},
    {"apple-m1-pro-14c", "apple-m1"},
    {"apple-m1-max", "apple-m1"},
    {"apple-m1-max-24c", "apple-m1"},
    {"apple-m1-ultra", "apple-m1"},
    {"apple-m1-ultra-48c", "apple-m1"},
    {"apple-m2", "apple-m2"},
    {"apple-m2-8c", "apple-m2"},
    {"apple-m2-pro", "apple-m2"},
    {"apple-m2-pro-16c", "apple-m2"},
    {"apple-m2-max", "apple-m2"},
    {"apple-m2-max-30c", "apple-m2"},
    {"apple-m2-ultra", "apple-m2"},
    {"apple-m2-ultra-60c", "apple-m2"},
    {"apple-m3", "apple-m3"},
    {"apple-m3-pro", "apple-m3"},
    {"apple-m3-pro-14c", "apple-m3"},
    {"apple-m3-max", "apple-m3"},
    {"apple-m3-max-30c", "apple-m3"},
    {"apple-m3-ultra", "apple-m3"},
    {"apple-m3-ultra-60c", "apple-m3"},
    {"apple-m4", "apple-m4"},
    {"apple-m4-pro", "apple-m4"},
    {"apple-m4-pro-16c", "apple-m4"},
    {"apple-m4-max", "apple-m4"},
    {"apple-m4-max-32c", "apple-m4"},
    {"mi50", "amd-gcn"},
    {"mi100", "amd-cdna"},
    {"mi210", "amd-cdna"},
    {"mi250x", "amd-cdna"},
    {"mi250x-gcd", "amd-cdna"},
    {"mi300x", "amd-cdna"},
    {"mi325x", "amd-cdna"},
    {"mi350x", "amd-cdna"},
    {"mi355x", "amd-cdna"},
    {"rx-7900-xtx", "amd-rdna"},
    {"rx-9070-xt", "amd-rdna"},
    {"radeon-pro-w7900", "amd-rdna"},
    {"strix-halo", "amd-rdna"},
    {"arc-a770", "intel-arc"},
    {"arc-b580", "intel-arc"},
    {"gaudi2", "intel-gaudi"},
    {"gaudi3", "intel-gaudi"},
    {"tpu-v5e", "google-tpu-v5"},
    {"tpu-v5p", "google-tpu-v5"},
    {"tpu-v6e", "google-tpu-v6"},
});
std::string_view hardware_family(std::string_view hardware_id);

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
AccuracyRow evaluate_measurement(const profiles::Measurement& measurement, const profiles::ModelProfile& model,
                                 const profiles::HardwareProfile& hardware, const engine::Deployment& deployment);
AccuracyRow evaluate_measurement(const profiles::Measurement& measurement, const profiles::ModelProfile& model,
                                 const profiles::HardwareProfile& hardware, const engine::Deployment& deployment,
                                 const engine::RuntimeProfile& preset);

// The predicted figure alone, in the row's metric, without the roofline bound: the fast path for
// fits that predict every row many times. The row must be supported (unsupported_reason empty).
double predict_measurement(const profiles::Measurement& measurement, const profiles::ModelProfile& model,
                           const profiles::HardwareProfile& hardware, const engine::Deployment& deployment,
                           const engine::RuntimeProfile& preset);

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

}  // namespace decodesim::scenarios
