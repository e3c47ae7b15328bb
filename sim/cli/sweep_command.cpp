#include "cli/sweep_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/shared_options.hpp"
#include "core/error.hpp"
#include "core/value_range.hpp"
#include "report/sweep_writer.hpp"
#include "scenarios/sweep.hpp"

namespace decodesim::cli {

namespace {

constexpr std::size_t kMaxValuesPerAxis = 10'000'000;

// Draws "[=====>     ]  45%" on stderr, only once a sweep has run for a second.
class ProgressBar {
public:
    ProgressBar(Io io, double total, bool enabled)
        : io_(io), total_(total), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

    void advance(double done) {
        if (!enabled_ || ++calls_ % 4096 != 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(200)) return;
        last_draw_ = now;
        drawn_ = true;
        const double fraction = done / total_;
        const int filled = static_cast<int>(fraction * 40.0);
        io_.err << fmt::format("\r[{}{}] {:3.0f}% {:.0f}/{:.0f} points", std::string(filled, '='),
                               std::string(40 - filled, ' '), fraction * 100.0, done, total_)
                << std::flush;
    }

    void finish() {
        if (drawn_) io_.err << fmt::format("\r[{}] 100% {:.0f}/{:.0f} points\n", std::string(40, '='), total_, total_);
    }

private:
    Io io_;
    double total_;
    bool enabled_;
    bool drawn_ = false;
    std::uint64_t calls_ = 0;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& options) {
    CLI::App* command = app.add_subcommand(
        "sweep", "Evaluate the cross product of lists (a,b,c) and ranges (1:256:x2, 0:131072:+4096)");
    command->add_option("--hardware", options.hardware, "Hardware ids or paths, comma-separated")->required();
    command->add_option("--model", options.model, "Model ids or paths, comma-separated")->required();
    command->add_option("--weights", options.weights, "Weight formats")->capture_default_str();
    command->add_option("--kv", options.kv, "KV formats (default: the activation type)");
    command->add_option("--batch", options.batch, "Batches: list or range")->capture_default_str();
    auto* context = command->add_option("--context", options.context, "Contexts: list or range (default 1024)");
    auto* prompt = command->add_option("--prompt", options.prompt, "Prompt lengths: list or range");
    auto* output = command->add_option("--output", options.output, "Output lengths: list or range");
    prompt->needs(output);
    output->needs(prompt);
    context->excludes(prompt)->excludes(output);
    command->add_option("--tp", options.tensor_parallel, "Tensor-parallel degrees")->capture_default_str();
    command->add_option("--format", options.format, "csv or jsonl")->capture_default_str()->check(CLI::IsMember({"csv", "jsonl"}));
    command->add_option("-o,--output-file", options.output_path, "Write here (atomically) instead of stdout");
    command->add_option("--max-points", options.max_points, "Refuse larger sweeps unless --force")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 1e15));
    command->add_flag("--force", options.force, "Run a sweep larger than --max-points");
    command->add_flag("--quiet", options.quiet, "No progress bar");
    return command;
}

int run_sweep(const SweepOptions& options, const profiles::Catalog& catalog, Io io) {
    scenarios::SweepGrid grid;
    // Axes first (cheap, and the count must be refused before any profile is loaded).
    grid.batch = core::parse_integer_list(options.batch, "--batch", 1, kMaxValuesPerAxis);
    grid.tensor_parallel = core::parse_integer_list(options.tensor_parallel, "--tp", 1, 4096);
    if (!options.prompt.empty()) {
        grid.prompt = core::parse_integer_list(options.prompt, "--prompt", 1, kMaxValuesPerAxis);
        grid.output = core::parse_integer_list(options.output, "--output", 1, kMaxValuesPerAxis);
    } else {
        grid.context = core::parse_integer_list(options.context.empty() ? std::to_string(kDefaultContext) : options.context,
                                                "--context", 1, kMaxValuesPerAxis);
    }
    const auto hardware_ids = core::parse_name_list(options.hardware, "--hardware");
    const auto model_ids = core::parse_name_list(options.model, "--model");
    const auto weight_names = core::parse_name_list(options.weights, "--weights");
    const auto kv_names = options.kv.empty() ? std::vector<std::string>{""} : core::parse_name_list(options.kv, "--kv");
    for (const auto& name : weight_names) grid.weights.push_back(&weight_format_named(name));
    for (const auto& name : kv_names) grid.kv.push_back(kv_format_named(name));

    const double points = static_cast<double>(hardware_ids.size()) * static_cast<double>(model_ids.size()) *
                          static_cast<double>(grid.weights.size()) * static_cast<double>(grid.kv.size()) *
                          static_cast<double>(grid.tensor_parallel.size()) * grid.points_per_deployment();
    if (points > options.max_points && !options.force) {
        throw core::UsageError(fmt::format("the sweep has {:.4g} points, more than --max-points {:.4g}; narrow it or pass --force",
                                           points, options.max_points));
    }
    for (const auto& id : hardware_ids) grid.hardware.push_back(catalog.hardware(id));
    for (const auto& id : model_ids) grid.models.push_back(catalog.model(id));

    std::ostream* destination = &io.out;
    const std::string temporary = options.output_path + ".tmp";
    std::ofstream file;
    if (!options.output_path.empty()) {
        file.open(temporary, std::ios::binary | std::ios::trunc);
        if (!file) throw core::InputError(core::Diagnostic{{options.output_path, 0, 0}, "", "cannot write here"});
        destination = &file;
    }
    double done = 0.0;
    ProgressBar progress(io, points, !options.quiet);
    {
        report::SweepWriter writer(*destination, options.format == "jsonl" ? report::SweepFormat::jsonl
                                                                           : report::SweepFormat::csv);
        writer.header();
        scenarios::run_sweep(
            grid,
            [&](const scenarios::SweepPoint& point) {
                writer.write(point);
                progress.advance(++done);
            },
            [&](const scenarios::SweepSkip& skip) {
                warn(io, fmt::format("skipped {:.0f} points of {} on {} at tp {}: {}", skip.points, skip.model,
                                     skip.hardware, skip.tensor_parallel, skip.reason));
                done += skip.points;
            });
    }
    progress.finish();
    if (!options.output_path.empty()) {
        file.close();
        std::error_code error;
        if (!file) {
            std::filesystem::remove(temporary, error);
            throw core::InputError(core::Diagnostic{{options.output_path, 0, 0}, "", "writing failed (disk full?)"});
        }
        std::filesystem::rename(temporary, options.output_path, error);
        if (error) throw core::InputError(core::Diagnostic{{options.output_path, 0, 0}, "", error.message()});
    } else {
        io.out.flush();
    }
    return 0;
}

}  // namespace decodesim::cli
