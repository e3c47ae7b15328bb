// `decodesim predict`: one operating point, as a table or JSON.

#include <memory>
#include <optional>
#include <utility>

#include "cli/command.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "engine/prediction.hpp"
#include "report/predict_json.hpp"
#include "report/predict_text.hpp"
#include "explore/concurrency_curve.hpp"

namespace decodesim::cli {

namespace {

struct PredictOptions {
    PointOptions point;
    bool json = false;
    bool band = false;
};

int run_predict(const PredictOptions& options, const profiles::Catalog& catalog, Io io) {
    const engine::OperatingPoint point = resolve_point(catalog, options.point, io);
    const engine::Evaluator evaluator(point);
    const engine::Prediction prediction = evaluator.predict(point.workload);

    for (const auto& warning : prediction.warnings) warn(io, warning);
    const report::Conditions conditions = point_conditions(point, options.point.workload);
    std::optional<std::pair<engine::Prediction, engine::Prediction>> band;
    if (options.band) {
        const explore::BandEvaluators evaluators = explore::band_evaluators(point);
        band.emplace(evaluators.low.predict(point.workload, engine::Detail::figures),
                     evaluators.high.predict(point.workload, engine::Detail::figures));
    }
    if (options.json) {
        auto document = report::prediction_to_json(conditions, prediction);
        if (band) document["band"] = report::band_to_json(band->first, band->second);
        io.out << report::json_text(document);
    } else {
        io.out << report::wrap_text(report::prediction_to_text(conditions, prediction));
        if (band) io.out << report::wrap_text(report::band_to_text(band->first, band->second));
    }
    return 0;
}

}  // namespace

void add_predict_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<PredictOptions>();
    CLI::App* command = app.add_subcommand("predict", "Predict decode speed, TTFT and memory for one operating point");
    add_point_options(*command, options->point);
    command->add_flag("--json", options->json, "Print one JSON object instead of the table");
    command->add_flag("--band", options->band, "Also give low and high estimates from the measured range of each efficiency");
    run_when_parsed(command, run, options, &run_predict);
}

}  // namespace decodesim::cli
