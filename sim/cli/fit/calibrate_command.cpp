// `decodesim calibrate`: refits a runtime preset on the user's own benchmark and writes it as a
// runtime profile that `--runtime path.yaml` reads (docs/cli.md, "calibrate").

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/command.hpp"
#include "cli/flag_use.hpp"
#include "cli/progress_bar.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "cli/runtime_option.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "engine/operating_point.hpp"
#include "profiles/benchmark_results.hpp"
#include "profiles/measurement.hpp"
#include "report/fit/calibrate_output.hpp"
#include "report/text_wrap.hpp"
#include "fit/accuracy_run.hpp"
#include "fit/user_calibration.hpp"

namespace decodesim::cli {
namespace {

struct CalibrateOptions {
    std::vector<std::string> files;
    std::string hardware;
    std::string model;
    std::optional<std::string> weights;  // unset: from the file (llama-bench model_type; vllm --metadata weights=)
    std::optional<std::string> runtime;  // unset: the benchmark's engine
    std::optional<std::string> output;   // unset: the preset is printed
    std::optional<std::string> name;     // unset: HARDWARE-BASE-calibrated
    bool json = false;
    bool force = false;  // write a preset that predicts the held-out rows no better than the base
};

std::string today_utc() {
    const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    const std::chrono::year_month_day date{days};
    return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                       static_cast<unsigned>(date.day()));
}

std::string command_line(const CalibrateOptions& options) {
    std::string text = "decodesim calibrate";
    for (const auto& file : options.files) text += " " + file;
    text += " --hardware " + options.hardware + " --model " + options.model;
    if (options.weights) text += " --weights " + *options.weights;
    if (options.runtime) text += " --runtime " + *options.runtime;
    return text;
}

// The runtime the rows ran on: --runtime, else the rows' own (one for all rows).
std::shared_ptr<const engine::RuntimeProfile> base_runtime(const CalibrateOptions& options, const profiles::Catalog& catalog,
                                                           const std::vector<profiles::Measurement>& rows) {
    if (options.runtime) return runtime_named(catalog, *options.runtime);
    // A benchmark's own output names no build: its engine's current one ("llama.cpp", "vllm").
    const auto runtime_of = [](const profiles::Measurement& row) { return row.runtime.empty() ? row.engine : row.runtime; };
    const std::string runtime = runtime_of(rows.front());
    if (runtime.empty()) {
        // AIPerf and GenAI-Perf measure an endpoint without knowing what serves it.
        throw core::UsageError(
            "the benchmark does not name the serving stack it measured; pass --runtime (vllm, sglang, tensorrt-llm, ...)");
    }
    for (const auto& row : rows) {
        if (runtime_of(row) != runtime) {
            throw core::UsageError(fmt::format("the rows name several runtimes ({} and {}); pass --runtime to say which "
                                               "profile to refit",
                                               runtime, runtime_of(row)));
        }
    }
    return runtime_named(catalog, runtime);
}

int run_calibrate(const CalibrateOptions& options, const profiles::Catalog& catalog, Io io) {
    refuse_flags_without_effect({{"--force", options.force, options.output.has_value(), "with --output (it writes the file)"}});
    if (options.weights) weight_format_named(*options.weights);  // a usage error before any file is read
    if (options.runtime) runtime_named(catalog, *options.runtime);
    profiles::BenchmarkResults results = profiles::load_benchmark_results(options.files, options.weights);
    const profiles::HardwareProfile hardware = catalog.hardware(options.hardware);
    const profiles::ModelProfile model = catalog.model(options.model);

    // A measurements table names each row's device and model: only this pair's rows are used.
    std::vector<profiles::Measurement> rows;
    int skipped = static_cast<int>(results.skipped.size());
    for (const std::string& reason : results.skipped) warn(io, reason);
    for (profiles::Measurement& row : results.rows) {
        if (results.format == profiles::BenchmarkFormat::measurements_csv) {
            if (row.hardware != hardware.id || row.model != model.id) {
                ++skipped;
                continue;
            }
        } else {
            row.hardware = hardware.id;
            row.model = model.id;
        }
        rows.push_back(std::move(row));
    }
    if (rows.empty()) {
        throw core::NothingComputed(fmt::format("no row of {} is for {} running {}", options.files.front(), hardware.id,
                                                model.id));
    }

    const std::shared_ptr<const engine::RuntimeProfile> runtime = base_runtime(options, catalog, rows);
    const engine::RuntimeProfile& base = *runtime;
    if (base.ideal) throw core::UsageError("--runtime ideal has no factors to fit; name vllm, llama.cpp or tensorrt-llm");
    // Rows of a benchmark that names no engine ran on the one --runtime names.
    for (profiles::Measurement& row : rows) {
        if (row.engine.empty()) row.engine = base.name;
    }

    // Reading the rows is a tenth of the work (a bound each); the fit the rest.
    ProgressBar progress(io, 1.0, "", stderr_is_terminal());
    std::vector<fit::CalibrationCase> cases;
    double read = 0.0;
    for (const profiles::Measurement& row : rows) {
        progress.advance(0.1 * (read++) / static_cast<double>(rows.size()));
        const std::string reason = fit::unsupported_reason(row);
        if (!reason.empty()) {
            warn(io, fmt::format("{}: {}; not used", row.id, reason));
            ++skipped;
            continue;
        }
        try {
            const engine::DeploymentChoice choice = fit::stated_deployment(row, runtime);
            engine::Deployment deployment = engine::resolve_deployment(hardware, model, choice);
            // A figure beyond what the datasheet's peaks allow cannot be fitted (no efficiency
            // exceeds 1): it names a wrong device, model, format or batch, and would pull every
            // factor toward it. Named and left out, as accuracy names it.
            const fit::PhysicalBound checked = fit::physical_bound(row, model, hardware, deployment);
            if (checked.beaten) {
                warn(io, fmt::format("{}: the measured {} of {} beats the physical bound {} (datasheet peaks of {}, no "
                                     "overheads); check the device, model, weights and batch; not used",
                                     row.id, profiles::metric_label(row), core::format_significant(row.value),
                                     core::format_significant(checked.figure), hardware.id));
                ++skipped;
                continue;
            }
            cases.push_back({&row, &model, &hardware, std::move(deployment)});
            // The fit reads no such row (profiles::unmodelled_conditions); say so, or a file of
            // them would seem to fit nothing for no reason.
            if (const auto conditions = profiles::unmodelled_conditions(row); !conditions.empty()) {
                warn(io, fmt::format("{}: {} is not modelled; predicted, not fitted", row.id, fmt::join(conditions, ", ")));
            } else if (row.eager_launch) {
                warn(io, fmt::format("{}: kernels launched one by one from the host (graphs off): the host, not the "
                                     "kernels, sets its rate; predicted, not fitted", row.id));
            }
        } catch (const std::exception& error) {
            warn(io, fmt::format("{}: {}; not used", row.id, error.what()));
            ++skipped;
        }
    }
    const fit::UserCalibration calibration =
        fit::calibrate_runtime(cases, base, [&progress](double share) { progress.advance(0.1 + 0.9 * share); });
    progress.finish();

    report::CalibrateContext context;
    context.command = command_line(options);
    context.date = today_utc();
    context.format = std::string(profiles::benchmark_format_name(results.format));
    context.hardware = hardware.id;
    context.model = model.id;
    context.base = base.id;
    context.name = options.name.value_or(fmt::format("{}-{}-calibrated", hardware.id, base.name));
    context.skipped_rows = skipped;

    const std::string preset = report::runtime_preset_yaml(calibration, context);
    // A fit that predicts the rows it was checked on no better than the base is not written over a
    // file unasked: a user who sets --runtime to it would get worse predictions.
    const bool refused = calibration.worse_than_base() && options.output && !options.force;
    if (calibration.no_better_than_base() || calibration.worse_than_base()) {
        warn(io, fmt::format("the fitted preset predicts the {} rows {} than {} (median |error| {} against {}){}",
                             calibration.in_sample ? "fitted" : "held-out",
                             calibration.worse_than_base() ? "worse" : "no better", base.id,
                             core::format_percent(calibration.pooled_after), core::format_percent(calibration.pooled_before),
                             refused ? fmt::format("; {} not written (--force writes it)", *options.output) : ""));
    }
    if (options.output && !refused) {
        AtomicFile file(*options.output);
        file.stream() << preset;
        file.commit();
    }
    if (options.json) {
        io.out << report::calibrate_to_json(calibration, context, options.output.value_or(""));
    } else if (refused) {
        io.out << report::wrap_text(report::calibrate_to_text(calibration, context));
    } else if (options.output) {
        io.out << report::wrap_text(report::calibrate_to_text(calibration, context));
        io.out << fmt::format("\nwrote {} (fitted on all {} rows); use it with --runtime {}\n", *options.output,
                              calibration.rows, *options.output);
    } else {
        // Without --output the summary becomes comments, so that stdout is itself a runtime profile.
        std::istringstream summary(report::calibrate_to_text(calibration, context));
        for (std::string line; std::getline(summary, line);) io.out << (line.empty() ? "#" : "# " + line) << "\n";
        io.out << "# the preset below is fitted on all rows; save it with --output FILE\n" << preset;
    }
    if (refused) {
        throw core::NothingComputed(fmt::format("{} was not written: the fit does not improve on {}", *options.output, base.id));
    }
    return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<CalibrateOptions>();
    CLI::App* command = app.add_subcommand(
        "calibrate", "Refit a runtime preset on your own benchmark (llama-bench, vllm bench serve, SGLang bench_serving, AIPerf, GenAI-Perf) and write it as a file");
    command->add_option("files", options->files,
                        "llama-bench -o csv/json/jsonl output, vllm bench serve result JSONs (or their folder), SGLang "
                        "bench_serving JSON lines, AIPerf or GenAI-Perf profile export JSONs, or a measurements CSV")
        ->required();
    command->add_option("--hardware", options->hardware, help::kHardware)->required();
    command->add_option("--model", options->model, help::kModel)->required();
    command->add_option("--weights", options->weights,
                        "Weight format of every row (default: from llama-bench's model_type, or vllm's --metadata weights=)");
    command->add_option("--runtime", options->runtime,
                        "Runtime profile to refit: a build (vllm, llama.cpp@2024-06, ...) or a profile file (default: the rows' runtime)");
    command->add_option("--output", options->output, "Write the runtime profile here (default: print it)");
    command->add_option("--name", options->name, "The preset's name in reports (default: HARDWARE-RUNTIME-calibrated)");
    command->add_flag("--json", options->json, "Print the fit as JSON");
    command->add_flag("--force", options->force,
                      "Write --output even when the fit predicts the held-out rows no better than the base preset");
    run_when_parsed(command, run, options, &run_calibrate);
}

}  // namespace decodesim::cli
