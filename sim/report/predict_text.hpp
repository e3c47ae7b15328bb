#pragma once
// predict's human-readable report: the conditions first, then speed, latency, bound and memory.

#include <string>

#include "engine/prediction.hpp"
#include "report/predict_json.hpp"

namespace decodesim::report {

std::string prediction_to_text(const Conditions& conditions, const engine::Prediction& prediction);
std::string band_to_text(const engine::Prediction& low, const engine::Prediction& high);

}  // namespace decodesim::report
