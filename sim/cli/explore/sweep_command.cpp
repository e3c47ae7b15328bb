// `decodesim sweep`: the cross product of lists and ranges, streamed as CSV or JSON lines.


#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "cli/progress_bar.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "cli/runtime_option.hpp"
#include "cli/usage_checks.hpp"
#include "core/error.hpp"
#include "core/value_range.hpp"
#include "report/explore/sweep_writer.hpp"
#include "explore/sweep.hpp"
#include "core/registry.hpp"

namespace decodesim::cli {

namespace {

// The point flags of every command, each taking a list (a,b,c) or, for numbers, a range.
struct SweepOptions {
    std::string hardware;
    std::string model;
    std::string weights = "bf16";
    std::string kv;          // empty: the activation datatype
    std::string activation;  // empty: the resolver's default
    std::optional<std::string> runtime;  // unset: each device's default
    std::string tensor_parallel = "1";
    std::string clocks = "sustained";
    std::optional<double> power_limit_watts;
    std::string batch = "1";
    std::string context;
    std::string prompt;
    std::string output;
    std::string format = "csv";
    std::string output_path;
    double max_points = 1e8;
    bool force = false;
    bool quiet = false;
};

constexpr std::size_t kMaxValuesPerAxis = 10'000'000;

int run_sweep(const SweepOptions& options, const profiles::Catalog& catalog, Io io) {
    explore::SweepGrid grid;
    // Axes first (cheap, and the count must be refused before any profile is loaded).
    grid.batch = core::parse_integer_list(options.batch, "--batch", 1, kMaxValuesPerAxis, kMaxBatch);
    grid.tensor_parallel = core::parse_integer_list(options.tensor_parallel, "--tp", 1, kMaxTensorParallel, kMaxTensorParallel);
    if (!options.prompt.empty()) {
        grid.prompt = core::parse_integer_list(options.prompt, "--prompt", 1, kMaxValuesPerAxis, kMaxTokens);
        grid.output = core::parse_integer_list(options.output, "--output", 1, kMaxValuesPerAxis, kMaxTokens);
    } else {
        grid.context = core::parse_integer_list(options.context.empty() ? std::to_string(kDefaultContext) : options.context,
                                                "--context", 1, kMaxValuesPerAxis, kMaxTokens);
    }
    const auto hardware_ids = core::parse_name_list(options.hardware, "--hardware");
    const auto model_ids = core::parse_name_list(options.model, "--model");
    for (const auto& name : core::parse_name_list(options.weights, "--weights")) grid.weights.push_back(&weight_format_named(name));
    if (options.kv.empty()) {
        grid.kv = {nullptr};
    } else {
        for (const auto& name : core::parse_name_list(options.kv, "--kv")) grid.kv.push_back(&kv_format_named(name));
    }
    if (!options.activation.empty()) {
        grid.activations.clear();
        for (const auto& name : core::parse_name_list(options.activation, "--activation")) {
            grid.activations.push_back(activation_named(name));
        }
    }
    grid.runtimes.clear();
    if (options.runtime) {
        for (const auto& name : core::parse_name_list(*options.runtime, "--runtime")) {
            grid.runtimes.push_back(runtime_named(catalog, name));
        }
    }
    grid.default_runtime = runtime_chooser(catalog, std::nullopt);
    grid.clocks.clear();
    for (const auto& name : core::parse_name_list(options.clocks, "--clocks")) {
        grid.clocks.push_back(clock_choice(name, options.power_limit_watts));
    }

    const double points = grid.points(hardware_ids.size(), model_ids.size());
    if (points > options.max_points && !options.force) {
        throw core::UsageError(fmt::format("the sweep has {:.4g} points, more than --max-points {:.4g}; narrow it or pass --force",
                                           points, options.max_points));
    }
    for (const auto& id : hardware_ids) grid.hardware.push_back(catalog.hardware(id));
    for (const auto& id : model_ids) grid.models.push_back(catalog.model(id));
    for (const auto& model : grid.models) warn_beyond_context(io, model, grid.longest_context());

    std::optional<AtomicFile> file;
    if (!options.output_path.empty() && io.sweep_points == nullptr) file.emplace(options.output_path);
    std::ostream& destination = file ? file->stream() : io.out;
    double done = 0.0;
    double written = 0.0;
    double not_fitting = 0.0;  // rows written with memory.fits false
    // Progress only where a person watches: never into a redirected log.
    ProgressBar progress(io, points, "points", !options.quiet && io.sweep_points == nullptr && stderr_is_terminal(), 4096);
    {
        report::SweepWriter writer(destination,
                                   core::named_or_throw(report::kSweepFormatNames, options.format, "--format", "format").value);
        if (io.sweep_points == nullptr) writer.header();
        explore::run_sweep(
            grid,
            [&](const explore::SweepPoint& point) {
                if (io.sweep_points != nullptr) {
                    (*io.sweep_points)(point);
                } else {
                    writer.write(point);
                }
                ++written;
                if (!point.prediction->memory.fits) ++not_fitting;
                progress.advance(++done);
            },
            [&](const explore::SweepSkip& skip) {
                warn(io, fmt::format("skipped {:.0f} points of {} on {} at tp {} with {}: {}", skip.points, skip.model,
                                     skip.hardware, skip.tensor_parallel, skip.runtime, skip.reason));
                done += skip.points;
            });
    }
    progress.finish();
    if (not_fitting > 0.0) {
        warn(io, fmt::format("{:.0f} of {:.0f} points do not fit in memory (memory.fits is false on their rows; their "
                             "figures assume they did)",
                             not_fitting, written));
    }
    if (written == 0.0) {
        throw core::NothingComputed(
            fmt::format("every deployment of the sweep was skipped (the reasons are above); {} was written",
                        file ? "no file" : io.sweep_points != nullptr ? "nothing" : "only the header"));
    }
    if (file) {
        file->commit();
    } else {
        io.out.flush();
    }
    return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<SweepOptions>();
    CLI::App* command = app.add_subcommand(
        "sweep", "Evaluate the cross product of lists (a,b,c) and ranges (1:256:x2, 1:131072:+4096)");
    const std::string lists = " (a list: a,b,c)";
    const std::string ranges = " (a list or a range: 1:256:x2, 1:131072:+4096)";
    command->add_option("--hardware", options->hardware, help::kHardware + lists)->required();
    command->add_option("--model", options->model, help::kModel + lists)->required();
    command->add_option("--weights", options->weights, help::kWeights + lists)->capture_default_str();
    command->add_option("--kv", options->kv, help::kKv + lists);
    command->add_option("--activation", options->activation, help::kActivation + lists);
    command->add_option("--runtime", options->runtime, help::kRuntime + lists);
    command->add_option("--tp", options->tensor_parallel, help::kTensorParallel + ranges)->capture_default_str();
    command->add_option("--clocks", options->clocks, help::kClocks + lists)->capture_default_str();
    command->add_option("--power-limit", options->power_limit_watts, help::kPowerLimit)
        ->check(number_in(1e-3, kMaxPowerLimitWatts));
    command->add_option("--batch", options->batch, help::kBatch + ranges)->capture_default_str();
    auto* context = command->add_option("--context", options->context, help::kContext + ranges);
    auto* prompt = command->add_option("--prompt", options->prompt, help::kPrompt + ranges);
    auto* output = command->add_option("--output", options->output, help::kOutput + ranges);
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command->add_option("--format", options->format, "csv or jsonl")->capture_default_str()->check(CLI::IsMember(core::names_of(report::kSweepFormatNames)));
    command->add_option("-o,--output-file", options->output_path, "Write here (atomically) instead of stdout");
    command->add_option("--max-points", options->max_points, "Refuse larger sweeps unless --force")
        ->capture_default_str()
        ->check(number_in(1.0, 1e15));
    command->add_flag("--force", options->force, "Run a sweep larger than --max-points");
    command->add_flag("--quiet", options->quiet, "No progress bar (there is none when stderr is not a terminal)");
    run_when_parsed(command, run, options, &run_sweep);
}

}  // namespace decodesim::cli
