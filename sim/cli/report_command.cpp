#include "cli/report_command.hpp"

#include <cmath>

#include "cli/output_file.hpp"
#include "cli/shared_options.hpp"
#include "report/html_report.hpp"
#include "scenarios/concurrency_curve.hpp"
#include "scenarios/context_series.hpp"
#include "scenarios/what_if.hpp"

namespace decodesim::cli {

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
    CLI::App* command = app.add_subcommand("report", "Write one self-contained HTML page with the charts and the verdict");
    add_workload_options(*command, options.point);
    command->add_option("-o,--output-file", options.output_path, "The HTML file to write")->required();
    return command;
}

int run_report(const ReportOptions& options, const profiles::Catalog& catalog, Io io) {
    const OperatingPoint point = resolve_operating_point(catalog, options.point, io);
    const engine::Evaluator evaluator(point.model, point.hardware, point.deployment);
    report::ReportInputs inputs;
    inputs.conditions = conditions_of(point);
    inputs.hardware_name = point.hardware.name;
    inputs.model_name = point.model.name;
    inputs.explanation = scenarios::explain(point.model, point.hardware, point.deployment, options.point.workload());
    scenarios::CurveOptions curve_options;
    curve_options.last_batch = std::max<long long>(1, std::min<long long>(inputs.explanation.prediction.memory.max_batch, 100'000));
    inputs.curve = scenarios::concurrency_curve(evaluator, options.point.workload(), curve_options);

    // Contexts from 128 tokens to the model's maximum (or 128k), 4 points per octave.
    const double last_context =
        static_cast<double>(point.model.max_position_embeddings.value_or(131072));
    std::vector<double> contexts;
    for (double context = 128.0; context <= last_context; context *= std::pow(2.0, 0.25)) contexts.push_back(std::round(context));
    const Eigen::ArrayXd context_array = Eigen::Map<const Eigen::ArrayXd>(contexts.data(), static_cast<Eigen::Index>(contexts.size()));
    const double batch = inputs.explanation.effective_batch;
    const Eigen::ArrayXd steps = scenarios::decode_step_times(evaluator, batch, context_array);
    inputs.context_series.contexts = contexts;
    for (Eigen::Index i = 0; i < steps.size(); ++i) {
        inputs.context_series.tokens_per_s_per_stream.push_back(1.0 / steps[i]);
        inputs.context_series.tokens_per_s_total.push_back(batch / steps[i]);
    }
    inputs.peak_matmul_ops_per_s = evaluator.roofline_rates().matmul_ops_per_s;
    inputs.peak_bandwidth = evaluator.roofline_rates().memory_bandwidth;

    write_file_atomically(options.output_path, report::render_html_report(inputs));
    io.err << "decodesim: wrote " << options.output_path << "\n";
    return 0;
}

}  // namespace decodesim::cli
