// `decodesim frontier`: throughput a device against tokens per second a user, over concurrency, for
// several devices at once: a closed-loop serve run at each concurrency (serving/frontier.hpp).

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "cli/price_option.hpp"
#include "cli/progress_bar.hpp"
#include "cli/serving/stream_options.hpp"
#include "core/error.hpp"
#include "core/value_range.hpp"
#include "report/json_units.hpp"
#include "report/serving/frontier_output.hpp"
#include "report/text_wrap.hpp"
#include "serving/frontier.hpp"
#include "workload/workload_choice.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::cli {

namespace {

// The concurrencies a frontier is drawn over by default: 1 to 256 clients, doubling.
constexpr const char* kDefaultConcurrency = "1:256:x2";
constexpr std::size_t kMaxConcurrencies = 64;
constexpr long long kMaxClients = 100'000;

struct FrontierOptions {
    DeploymentOptions deployment;  // deployment.hardware: "id[:devices],..."
    std::optional<std::string> scenario;
    std::optional<std::string> prompt;
    std::optional<std::string> output;
    std::string concurrency = kDefaultConcurrency;
    long long requests_per_client = 10;
    std::optional<long long> seed;
    SchedulerOptions scheduler;
    std::string prices;
    std::string price_file;
    bool json = false;
    std::string svg_path;
};

int run_frontier(const FrontierOptions& options, const profiles::Catalog& catalog, Io io) {
    const std::vector<long long> concurrencies =
        core::parse_integer_list(options.concurrency, "--concurrency", 1, kMaxConcurrencies, kMaxClients);
    const workload::WorkloadScenario* scenario =
        options.scenario ? &workload::workload_scenario_named(*options.scenario) : nullptr;
    workload::WorkloadChoice choice;
    choice.scenario = scenario;
    // Without a scenario, the 1k-in, 1k-out requests public frontier dashboards lead with.
    const std::string fallback = scenario ? "" : "1000";
    if (options.prompt || !scenario) choice.prompt = parse_length(options.prompt.value_or(fallback), "--prompt");
    if (options.output || !scenario) choice.output = parse_length(options.output.value_or(fallback), "--output");
    const profiles::ModelProfile model = catalog.model(options.deployment.model);
    const workload::ResolvedWorkload resolved = workload::resolve_workload(choice, model.max_position_embeddings);
    warn_beyond_context(io, model, resolved.asked_context_mean);

    std::vector<profiles::HardwareProfile> devices;
    std::vector<DeploymentOptions> deployments;
    for (const auto& item : core::parse_name_list(options.deployment.hardware, "--hardware")) {
        const auto [id, count] = hardware_with_devices(item, "--hardware");
        DeploymentOptions deployment = options.deployment;
        deployment.hardware = id;
        if (count) deployment.tensor_parallel = *count;
        devices.push_back(catalog.hardware(id));
        deployments.push_back(std::move(deployment));
    }
    const std::map<std::string, double> given = apply_given_prices(options.prices, options.price_file, catalog, devices);

    serving::FrontierRun run;
    run.concurrencies = concurrencies;
    run.workload = resolved;
    run.requests_per_client = options.requests_per_client;
    run.seed = static_cast<std::uint64_t>(options.seed.value_or(1));
    ProgressBar progress(io, static_cast<double>(devices.size()), "deployments", stderr_is_terminal());
    std::vector<report::FrontierDeployment> results;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const engine::OperatingPoint point = resolve_point(
            catalog, devices[i], model, deployments[i],
            engine::Workload::request(1.0, resolved.prompt.mean(), resolved.output.mean()), io);
        const engine::Evaluator evaluator(point);
        run.limits = serving::limits_for(options.scheduler.resolved(), evaluator);
        run.price_per_device_hour = point.hardware.price_per_hour;
        report::FrontierDeployment result;
        result.point = report::conditions_of(point.hardware.id, point.model.id, point.deployment);
        const int tp = point.deployment.parallelism.tensor;
        result.label = tp > 1 ? fmt::format("{} tp{}", point.hardware.id, tp) : point.hardware.id;
        result.price_per_device_hour = point.hardware.price_per_hour;
        if (result.price_per_device_hour) {
            result.price_basis = given.contains(point.hardware.id)
                                     ? "given"
                                     : std::string(core::name_of(profiles::kPriceBasisNames, point.hardware.price_basis));
        }
        result.frontier = serving::serve_frontier(evaluator, run);
        results.push_back(std::move(result));
        progress.advance(static_cast<double>(i + 1));
    }
    progress.finish();

    report::FrontierConditions conditions;
    conditions.model = model.id;
    conditions.prompt = workload::describe(resolved.prompt);
    conditions.output = workload::describe(resolved.output);
    conditions.requests_per_client = run.requests_per_client;
    conditions.min_requests = run.min_requests;
    conditions.seed = run.seed;
    if (!options.svg_path.empty()) write_file_atomically(options.svg_path, report::frontier_chart(conditions, results));
    if (options.json) {
        io.out << report::json_text(report::frontier_to_json(conditions, results));
    } else {
        io.out << report::wrap_text(report::frontier_to_text(conditions, results));
    }
    return 0;
}

}  // namespace

void add_frontier_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<FrontierOptions>();
    CLI::App* command = app.add_subcommand(
        "frontier", "Throughput a device against tokens/s a user over concurrency, several devices at once, knee marked");
    add_deployment_options(*command, options->deployment);
    command->get_option("--hardware")
        ->description("Comma-separated hardware ids, each optionally :DEVICES (tensor parallel; default --tp), "
                      "e.g. h100-sxm,h200-sxm,mi300x:2");
    command->add_option("--concurrency", options->concurrency,
                        "Closed-loop clients at each point: a list or range, e.g. 1:256:x2 or 1,8,64")
        ->capture_default_str();
    command->add_option("--scenario", options->scenario,
                        "A named workload (chat, code, summarize, agent, batch; docs/scenarios.md) for the lengths");
    command->add_option("--prompt", options->prompt,
                        "Prompt tokens: N, uniform:LOW:HIGH, normal:MEAN:SD, lognormal:MEAN:SD or dataset:MEAN (a chat dataset's spread, as ShareGPT's; default 1000)");
    command->add_option("--output", options->output, "Output tokens, as for --prompt (default 1000)");
    command->add_option("--requests-per-client", options->requests_per_client,
                        "Requests each client sends at each point (at least 200 in all)")
        ->capture_default_str()
        ->check(CLI::Range(1LL, 1000LL));
    add_seed_option(*command, options->seed, "Random seed of the lengths (default 1)");
    add_scheduler_options(*command, options->scheduler);
    command->add_option("--price", options->prices, "USD per device-hour, e.g. h100-sxm=2.49 (in place of the profile's)");
    command->add_option("--prices", options->price_file,
                        "A price list CSV, hardware,usd_per_hour[,basis][,date][,source]; --price wins over its rows");
    command->add_flag("--json", options->json, "Print one JSON object");
    command->add_option("--svg", options->svg_path, "Also draw the frontier into this SVG file");
    run_when_parsed(command, run, options, &run_frontier);
}

}  // namespace decodesim::cli
