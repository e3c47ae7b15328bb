#pragma once
// `decodesim accuracy` for people (tables) and for programs (JSON).

#include <nlohmann/json.hpp>
#include <string>

#include "fit/accuracy_run.hpp"

namespace decodesim::report {

// The row counts; when computed, the headline (leave-one-source-out, leave-one-family-out and
// in-sample error per metric); the error per split and metric and per subset, the `worst` rows
// with the largest error, the rows that beat the roofline bound with their likeliest explanation,
// and why rows were skipped. `file` is the measurements file, named in the first line.
std::string accuracy_to_text(const fit::AccuracyResult& result, const std::string& file, int worst);

// The headline alone (empty when it was not computed): a line that says what was held out, then the
// median and mean absolute and median signed error per (what was left out, metric).
std::string accuracy_held_out_to_text(const fit::AccuracyResult& result);

// The fitted runtime factors per (runtime, backend), with the median absolute error before and after.
std::string accuracy_fit_to_text(const fit::AccuracyResult& result);

// schema_version, file; when computed, leave_one_source_out, leave_one_family_out and in_sample
// (per metric and per held-out group); both summaries (errors as fractions) and every row:
// measured, predicted, bound and error, or the reason it was skipped.
nlohmann::json accuracy_to_json(const fit::AccuracyResult& result, const std::string& file);

}  // namespace decodesim::report
