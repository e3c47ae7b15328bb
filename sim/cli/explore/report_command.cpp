// `decodesim report`: one self-contained HTML page to look at.

#include <algorithm>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "report/explore/html_report.hpp"
#include "explore/concurrency_curve.hpp"
#include "explore/context_series.hpp"
#include "explore/knee.hpp"
#include "explore/what_if.hpp"

namespace decodesim::cli {

namespace {

struct ReportOptions {
    PointOptions point;
    std::string output_path;
};

int run_report(const ReportOptions& options, const profiles::Catalog& catalog, Io io) {
    const engine::OperatingPoint point = resolve_point(catalog, options.point, io);
    const engine::Evaluator evaluator(point);
    report::ReportInputs inputs;
    inputs.conditions = point_conditions(point, options.point.workload);
    inputs.hardware_name = point.hardware.name;
    inputs.model_name = point.model.name;
    inputs.explanation = explore::explain(point);
    explore::CurveOptions curve_options;
    curve_options.last_batch =
        std::max<long long>(1, std::min<long long>(inputs.explanation.prediction.memory.max_batch, 100'000));
    inputs.curve = explore::concurrency_curve(evaluator, point.workload, curve_options);
    // The low and high estimates, shaded around every predicted tokens/s the page draws.
    const explore::BandEvaluators band = explore::band_evaluators(point);
    inputs.curve_band = explore::curve_band(band, point.workload, curve_options.last_batch);
    // Contexts up to the model's maximum (or 128k).
    const double last_context = static_cast<double>(point.model.max_position_embeddings.value_or(131072));
    inputs.context_series = explore::context_series(evaluator, inputs.explanation.effective_batch, last_context);
    inputs.context_series_low = explore::context_series(band.low, inputs.explanation.effective_batch, last_context);
    inputs.context_series_high = explore::context_series(band.high, inputs.explanation.effective_batch, last_context);
    inputs.longest_context_that_fits =
        explore::longest_context_that_fits(evaluator, inputs.explanation.effective_batch, last_context);
    inputs.roofline_rates = evaluator.roofline_rates();
    inputs.context_levels_output = point.workload.output.value_or(256.0);
    inputs.context_levels = explore::context_levels(evaluator, inputs.explanation.effective_batch,
                                                      inputs.context_levels_output, point.model.max_position_embeddings);

    write_file_atomically(options.output_path, report::render_html_report(inputs));
    io.err << "decodesim: wrote " << options.output_path << "\n";
    return 0;
}

}  // namespace

void add_report_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<ReportOptions>();
    CLI::App* command = app.add_subcommand("report", "Write one self-contained HTML page with the charts and the verdict");
    add_point_options(*command, options->point);
    command->add_option("-o,--output-file", options->output_path, "The HTML file to write")->required();
    run_when_parsed(command, run, options, &run_report);
}

}  // namespace decodesim::cli
