// `decodesim predict`: one operating point, as a table or JSON.

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "cli/command.hpp"
#include "cli/host_option.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "engine/partial_offload.hpp"
#include "engine/point_warnings.hpp"
#include "engine/prediction.hpp"
#include "report/predict_json.hpp"
#include "report/predict_text.hpp"
#include "report/explore/offload_output.hpp"
#include "explore/concurrency_curve.hpp"

namespace decodesim::cli {

namespace {

struct PredictOptions {
    PointOptions point;
    bool json = false;
    bool band = false;
    std::optional<std::string> gpu_layers;  // N or auto: llama.cpp's -ngl (engine/partial_offload.hpp)
    std::string host{kDefaultHost};
};

// The layers on the GPU: `-ngl N` (0 to the model's layers + 1; more is all) or the most that fit.
engine::LayerPlacement chosen_placement(const std::string& gpu_layers, const engine::Evaluator& evaluator,
                                        double context) {
    const int layers = static_cast<int>(evaluator.cost_model().layers);
    if (gpu_layers == "auto") return engine::most_layers_that_fit(evaluator, context);
    std::int64_t ngl = -1;
    if (!core::parse_whole_number(gpu_layers, ngl) || ngl < 0 || ngl > 100000) {
        throw core::UsageError("--gpu-layers '" + gpu_layers + "': expected auto or a whole number of layers from 0 (" +
                               std::to_string(layers) + " layers and the output layer: " + std::to_string(layers + 1) + ")");
    }
    return engine::placement_for(static_cast<int>(ngl), layers);
}

// predict --gpu-layers: the model split between the GPU and host memory, as llama.cpp's -ngl.
int run_partial_offload(const PredictOptions& options, const profiles::Catalog& catalog, Io io) {
    const engine::HostMemory host = parse_host_memory(options.host);
    if (options.band) throw core::UsageError("--band is not given with --gpu-layers: the host side has no measured range");
    if (options.point.workload.images > 0 || options.point.workload.shared_prefix > 0) {
        throw core::UsageError("--images and --prefix-tokens are not modelled with --gpu-layers: the vision encoder's "
                               "placement and a cached prefix's are not");
    }
    if (options.point.workload.batch != 1) {
        throw core::UsageError("--gpu-layers is modelled for one stream (--batch 1): the CPU layers' arithmetic, "
                               "which more streams would need, is not");
    }
    DeploymentOptions deployment = options.point.deployment;
    // Layer offload is llama.cpp's: its build, unless another is named.
    if (!deployment.runtime) deployment.runtime = "llama.cpp";
    const engine::Workload workload = options.point.workload.workload();
    const engine::OperatingPoint point = resolve_point_quietly(catalog, deployment, workload, io);
    for (const auto& warning : engine::point_warnings(point, engine::DeviceFit::answered_by_caller)) warn(io, warning);
    const engine::Evaluator evaluator(point);
    const double prompt = point.workload.is_request() ? *point.workload.prompt : point.workload.context;
    const double context = point.workload.max_context();
    report::OffloadReport offload_report;
    offload_report.conditions = point_conditions(point, options.point.workload);
    offload_report.host = host;
    offload_report.automatic = *options.gpu_layers == "auto";
    offload_report.offload = engine::predict_partial_offload(evaluator, host, chosen_placement(*options.gpu_layers, evaluator, context),
                                                             prompt, context);
    offload_report.host_link = point.hardware.host_link ? point.hardware.host_link->kind : "";
    offload_report.prompt = prompt;
    offload_report.context = context;
    const engine::PartialOffload& offload = offload_report.offload;
    if (!offload.fits_gpu) {
        warn(io, fmt::format("{} GB of weights and cache on the GPU exceed the {} GB usable: fewer --gpu-layers "
                             "(auto finds the most)",
                             core::format_significant((offload.gpu_weights + offload.gpu_kv).value / 1e9),
                             core::format_significant(offload.gpu_usable.value / 1e9)));
    }
    if (!offload.fits_host) {
        warn(io, fmt::format("{} GB of weights and cache in host memory exceed the {} GB installed",
                             core::format_significant((offload.host_weights + offload.host_kv).value / 1e9),
                             core::format_significant(host.capacity->value / 1e9)));
    }
    if (options.json) {
        io.out << report::json_text(report::offload_to_json(offload_report));
    } else {
        io.out << report::wrap_text(report::offload_to_text(offload_report));
    }
    return 0;
}

int run_predict(const PredictOptions& options, const profiles::Catalog& catalog, Io io) {
    if (options.gpu_layers) return run_partial_offload(options, catalog, io);
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
    auto* gpu_layers = command->add_option(
        "--gpu-layers", options->gpu_layers,
        "Partial offload as llama.cpp's -ngl: N layers on the GPU (the last ones; one more than the model has puts "
        "the output layer there too), the rest in host memory; auto: the most that fit (docs/model.md, \"Partial "
        "offload\"). Runtime llama.cpp unless --runtime names another");
    command->add_option("--host", options->host,
                        "With --gpu-layers: the host's memory, GENERATION-MTPSxCHANNELS[:CAPACITY] (ddr5-6000x2, "
                        "ddr4-3200x4:128GB)")
        ->capture_default_str()
        ->needs(gpu_layers);
    run_when_parsed(command, run, options, &run_predict);
}

}  // namespace decodesim::cli
