// `decodesim versus`: the vendor's number against the user's, one condition at a time.

#include <memory>
#include <optional>
#include <string>

#include "cli/usage_checks.hpp"
#include "cli/command.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "engine/operating_point.hpp"
#include "engine/prediction.hpp"
#include "report/explore/ladder_output.hpp"
#include "explore/condition_ladder.hpp"

namespace decodesim::cli {

namespace {

struct VersusOptions {
    DeploymentOptions deployment;  // --weights, --clocks, --power-limit: yours
    long long batch = 1;
    long long context = 4096;
    // The vendor's conditions: a short prompt, one stream, peak clocks, and by default your format.
    std::optional<std::string> vendor_weights;
    long long vendor_batch = 1;
    long long vendor_context = 128;
    std::string vendor_clocks = "peak";
    std::optional<double> claim;
    bool json = false;
    std::string svg_path;
};

int run_versus(const VersusOptions& options, const profiles::Catalog& catalog, Io io) {
    const profiles::HardwareProfile hardware = catalog.hardware(options.deployment.hardware);
    const engine::DeploymentChoice base = deployment_choice(catalog, options.deployment, hardware);
    explore::LadderConditions mine;
    mine.weights = base.weights;
    mine.batch = static_cast<double>(options.batch);
    mine.context = static_cast<double>(options.context);
    mine.clocks = base.clocks;
    explore::LadderConditions vendor;
    vendor.weights = options.vendor_weights ? &weight_format_named(*options.vendor_weights) : base.weights;
    vendor.batch = static_cast<double>(options.vendor_batch);
    vendor.context = static_cast<double>(options.vendor_context);
    vendor.clocks = clock_choice(options.vendor_clocks, std::nullopt);

    const profiles::ModelProfile model = catalog.model(options.deployment.model);
    for (const auto& warning : engine::model_warnings(model)) warn(io, warning);
    warn_beyond_context(io, model, std::max(mine.context, vendor.context));
    warn_if_no_stream_fits(io, engine::resolve_operating_point(hardware, model, base, engine::Workload::step(1.0, mine.context)));
    report::LadderReport report;
    report.hardware = hardware.id;
    report.hardware_name = hardware.name;
    report.model = model.id;
    report.claimed_tokens_per_s_per_stream = options.claim;
    report.steps = explore::condition_ladder(hardware, model, base, vendor, mine);
    if (!options.svg_path.empty()) write_file_atomically(options.svg_path, report::ladder_chart(report));
    if (options.json) {
        io.out << report::json_text(report::ladder_to_json(report));
    } else {
        io.out << report::wrap_text(report::ladder_to_text(report));
    }
    return 0;
}

}  // namespace

void add_versus_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<VersusOptions>();
    CLI::App* command = app.add_subcommand(
        "versus", "The vendor's number against yours: from their conditions to yours, one condition at a time");
    add_deployment_options(*command, options->deployment);
    command->add_option("--batch", options->batch, "Your concurrent streams")->capture_default_str()->check(CLI::Range(1LL, kMaxBatch));
    command->add_option("--context", options->context, "Your context (prompt) tokens")
        ->capture_default_str()
        ->check(CLI::Range(1LL, kMaxTokens));
    command->add_option("--vendor-weights", options->vendor_weights, "The format the vendor measured (default: yours)");
    command->add_option("--vendor-batch", options->vendor_batch, "The vendor's concurrent streams")
        ->capture_default_str()
        ->check(CLI::Range(1LL, kMaxBatch));
    command->add_option("--vendor-context", options->vendor_context, "The vendor's context tokens (llama-bench tg128: 128)")
        ->capture_default_str()
        ->check(CLI::Range(1LL, kMaxTokens));
    command->add_option("--vendor-clocks", options->vendor_clocks, "peak (a short run on a cool device) or sustained")
        ->capture_default_str();
    command->add_option("--claim", options->claim, "The vendor's figure, tokens/s per stream, drawn beside the ladder")
        ->check(number_in(1e-6, 1e12));
    command->add_flag("--json", options->json, "Print one JSON object");
    command->add_option("--svg", options->svg_path, "Also draw the ladder into this SVG file");
    run_when_parsed(command, run, options, &run_versus);
}

}  // namespace decodesim::cli
