// `decodesim curve`: throughput against concurrency, with the knee and the memory wall.

#include <memory>
#include <string>

#include "cli/command.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "report/explore/curve_output.hpp"
#include "report/svg_chart.hpp"
#include "explore/concurrency_curve.hpp"

namespace decodesim::cli {

namespace {

struct CurveOptions {
    PointOptions point;
    long long max_batch = 0;  // 0: up to the memory wall
    bool csv = false;
    bool json = false;
    std::string svg_path;
};

int run_curve(const CurveOptions& options, const profiles::Catalog& catalog, Io io) {
    const engine::OperatingPoint point = resolve_point(catalog, options.point, io);
    const engine::Evaluator evaluator(point);
    explore::CurveOptions curve_options;
    curve_options.last_batch = options.max_batch;
    const explore::Curve curve = explore::concurrency_curve(evaluator, point.workload, curve_options);
    if (curve.capped_at) {
        warn(io, fmt::format("the memory wall is at batch {}; the curve stops at batch {} (--max-batch sets the last batch)",
                             curve.max_batch, *curve.capped_at));
    }
    // The resolver has named the cause (the weights, or one stream's KV cache); this says what it means here.
    if (curve.max_batch == 0) warn(io, "not one stream fits in memory: every point of the curve is marked as not fitting");
    const report::Conditions conditions = point_conditions(point, options.point.workload);
    if (!options.svg_path.empty()) {
        // The band is shaded only in the picture; the table, CSV and JSON keep the nominal numbers.
        const explore::BandEvaluators band = explore::band_evaluators(point);
        const long long last_batch = curve.points.empty() ? 1 : curve.points.back().batch;
        write_file_atomically(options.svg_path, report::render_chart(report::curve_chart(
                                                    conditions, curve, explore::curve_band(band, point.workload, last_batch))));
    }
    if (options.csv) {
        io.out << report::curve_to_csv(conditions, curve);
    } else if (options.json) {
        report::write_curve_json(io.out, conditions, curve);
    } else {
        io.out << report::wrap_text(report::curve_to_text(conditions, curve));
    }
    return 0;
}

}  // namespace

void add_curve_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<CurveOptions>();
    CLI::App* command = app.add_subcommand("curve", "Throughput against concurrency, from batch 1 to the memory wall");
    add_point_options(*command, options->point);
    command->add_option("--max-batch", options->max_batch,
                        "Last batch to evaluate (default: the memory wall; larger values go past it, marked not fitting)")
        ->check(CLI::Range(1LL, 1'000'000LL));
    auto* csv = command->add_flag("--csv", options->csv, "Every point as CSV");
    auto* json = command->add_flag("--json", options->json, "Every point as JSON");
    csv->excludes(json);
    command->add_option("--svg", options->svg_path, "Also draw the curve into this SVG file");
    run_when_parsed(command, run, options, &run_curve);
}

}  // namespace decodesim::cli
