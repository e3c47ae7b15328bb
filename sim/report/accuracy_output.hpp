#pragma once
// `decodesim accuracy` for people (tables) and for programs (JSON).

#include <nlohmann/json.hpp>
#include <string>

#include "scenarios/accuracy_run.hpp"

namespace decodesim::report {

// The row counts, the error per split and metric and per subset, the `worst` rows with the largest
// error, the rows that beat the roofline bound with their likeliest explanation, and why rows were
// skipped. `file` is the measurements file, named in the first line.
std::string accuracy_to_text(const scenarios::AccuracyResult& result, const std::string& file, int worst);

// The fitted runtime factors per (runtime, backend), with the median absolute error before and after.
std::string accuracy_fit_to_text(const scenarios::AccuracyResult& result);

// schema_version, file, both summaries (errors as fractions) and every row: measured, predicted,
// bound and error, or the reason it was skipped.
nlohmann::json accuracy_to_json(const scenarios::AccuracyResult& result, const std::string& file);

}  // namespace decodesim::report
