#pragma once
// One self-contained HTML page: inline SVG and CSS, no network at view time.

#include <string>
#include <vector>

#include "report/predict_json.hpp"
#include "scenarios/concurrency_curve.hpp"
#include "scenarios/what_if.hpp"

namespace decodesim::report {

struct ContextSeries {
    std::vector<double> contexts;
    std::vector<double> tokens_per_s_per_stream;
    std::vector<double> tokens_per_s_total;
};

struct ReportInputs {
    Conditions conditions;
    std::string hardware_name;
    std::string model_name;
    scenarios::Explanation explanation;  // includes the prediction at the evaluated batch
    scenarios::Curve curve;
    ContextSeries context_series;
    double peak_matmul_ops_per_s = 0.0;
    double peak_bandwidth = 0.0;
};

std::string render_html_report(const ReportInputs& inputs);

}  // namespace decodesim::report
