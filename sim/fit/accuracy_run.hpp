#pragma once
// `decodesim accuracy` as a question: every measurement resolved to its profiles and predicted,
// the errors summarized per subset, the rows better than physics explained, and, when asked, the
// runtime presets refitted. Profiles come through a lookup, so this layer never opens a file.

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "profiles/hardware_profile.hpp"
#include "profiles/measurement.hpp"
#include "profiles/model_profile.hpp"
#include "fit/accuracy.hpp"
#include "fit/calibration.hpp"
#include "fit/residual_bands.hpp"

namespace decodesim::fit {

// Profiles by id. Each returns the profile or throws core::InputError (an unknown id, a bad file);
// the error's first message becomes the skip reason of every row naming that id. Each id is asked
// once per run.
struct ProfileLookup {
    std::function<profiles::HardwareProfile(const std::string& id)> hardware;
    std::function<profiles::ModelProfile(const std::string& id)> model;
    std::function<std::shared_ptr<const engine::RuntimeProfile>(const std::string& id)> runtime;
};

struct AccuracySettings {
    std::shared_ptr<const engine::RuntimeProfile> runtime;  // every row under this profile; null: each row's own
    bool fit = false;                        // also fit the vllm, llama.cpp and tensorrt-llm presets on the training split
    bool held_out = false;                   // also the leave-one-out and in-sample figures (HeldOutFigures)
};

// The headline: the error on rows whose source (or hardware family) the fit never saw, beside
// the in-sample error of the same fit procedure on every row.
struct HeldOutFigures {
    HeldOutErrors by_source;  // leave one source (source_key) out
    HeldOutErrors by_family;  // leave one hardware family (hardware_family) out
    HeldOutErrors in_sample;  // fit on every evaluated row, predict every one
    DerivedBands bands;       // the band from the by_source residuals, and its nested coverage
};

// A row whose measurement is better than the roofline bound, with the likeliest explanation.
struct BeatingRow {
    std::size_t row = 0;  // index into AccuracyResult::rows
    std::string explanation;
};

// Rows point into the measurements the result was computed from: keep those alive while it is used.
struct AccuracyResult {
    std::vector<AccuracyRow> rows;                    // one per measurement, in file order
    std::vector<SubsetSummary> by_split_and_metric;   // "train decode_tokens_per_s_total"
    std::vector<SubsetSummary> by_subset;             // "train | llama.cpp | gddr | prefill_tokens_per_s"
    std::vector<std::size_t> worst_first;             // every evaluated row (index into rows), largest |error| first
    std::vector<BeatingRow> beating_bound;            // in worst_first order
    std::map<std::string, int> skip_reasons;          // reason -> rows skipped for it
    std::vector<FitResult> fits;                      // with AccuracySettings::fit: each (runtime, backend) that had rows
    std::optional<HeldOutFigures> held_out;           // with AccuracySettings::held_out

    std::size_t evaluated() const { return worst_first.size(); }
};

// Predicts every measurement under its runtime column's profile (or settings.runtime), with tensor
// parallelism = the row's device count. A row that cannot be evaluated (a profile that does not
// load, a binned GPU, a condition the engine does not model, a deployment the device cannot run)
// is kept with its reason. Throws only what the lookups throw besides core::InputError.
AccuracyResult evaluate_accuracy(const std::vector<profiles::Measurement>& measurements, const ProfileLookup& lookup,
                                 const AccuracySettings& settings);

}  // namespace decodesim::fit
