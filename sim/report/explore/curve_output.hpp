#pragma once
// The concurrency curve as a table, CSV, JSON and an SVG chart.

#include <nlohmann/json.hpp>
#include <ostream>
#include <optional>
#include <string>

#include "report/predict_json.hpp"
#include "report/svg_chart.hpp"
#include "explore/concurrency_curve.hpp"

namespace decodesim::report {

// The table shows powers of two, the knee and the memory wall; CSV and JSON carry every point.
std::string curve_to_text(const Conditions& conditions, const explore::Curve& curve);
std::string curve_to_csv(const Conditions& conditions, const explore::Curve& curve);
// The curve as one JSON document (the layout of json_text), streamed to `out`.
void write_curve_json(std::ostream& out, const Conditions& conditions, const explore::Curve& curve);
// Total and per-stream tokens/s against the batch on log axes (batches in powers of two), with the
// knee (explore::compute_bound_batch, as the table and `why` report it) and the memory wall where
// the batches drawn reach them, the operating point at `marked_batch` (default: the curve's
// requested batch), and the uncertainty band shaded when `band` is given.
Chart curve_chart(const Conditions& conditions, const explore::Curve& curve,
                  const std::optional<explore::CurveBand>& band = std::nullopt,
                  std::optional<double> marked_batch = std::nullopt);

}  // namespace decodesim::report
