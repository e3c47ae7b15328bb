#pragma once
// The concurrency curve as a table, CSV, JSON and an SVG chart.

#include <nlohmann/json.hpp>
#include <string>

#include "report/predict_json.hpp"
#include "report/svg_chart.hpp"
#include "scenarios/concurrency_curve.hpp"

namespace decodesim::report {

// The table shows powers of two, the knee and the memory wall; CSV and JSON carry every point.
std::string curve_to_text(const Conditions& conditions, const scenarios::Curve& curve);
std::string curve_to_csv(const Conditions& conditions, const scenarios::Curve& curve);
nlohmann::json curve_to_json(const Conditions& conditions, const scenarios::Curve& curve);
Chart curve_chart(const Conditions& conditions, const scenarios::Curve& curve);

}  // namespace decodesim::report
