#pragma once
// One self-contained HTML page: inline SVG and CSS, no network at view time.

#include <optional>
#include <string>
#include <vector>

#include "report/predict_json.hpp"
#include "explore/concurrency_curve.hpp"
#include "explore/context_series.hpp"
#include "explore/what_if.hpp"

namespace decodesim::report {

struct ReportInputs {
    Conditions conditions;
    std::string hardware_name;
    std::string model_name;
    explore::Explanation explanation;  // includes the prediction at the evaluated batch
    explore::Curve curve;
    std::optional<explore::CurveBand> curve_band;  // low and high estimates along the curve
    explore::ContextSeries context_series;
    // The same series at the low and high ends of the efficiency band, for shading.
    std::optional<explore::ContextSeries> context_series_low;
    std::optional<explore::ContextSeries> context_series_high;
    // The memory wall along the context at the series' batch (empty: not one token fits).
    std::optional<double> longest_context_that_fits;
    std::vector<explore::ContextLevel> context_levels;  // 8k, 32k, 128k side by side
    double context_levels_output = 0.0;                    // output tokens per request in them
    engine::DeviceRates roofline_rates;  // datasheet peaks, for the roofline chart
};

std::string render_html_report(const ReportInputs& inputs);

}  // namespace decodesim::report
