// `decodesim accuracy`: predicts every public measurement and states the error per subset.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/point_options.hpp"
#include "core/error.hpp"
#include "engine/efficiency.hpp"
#include "report/text_table.hpp"
#include "profiles/measurements.hpp"
#include "scenarios/accuracy.hpp"
#include "scenarios/calibration.hpp"

namespace decodesim::cli {

namespace {

struct AccuracyOptions {
    std::string file;     // default: validation/measurements.csv under the profile root
    std::string runtime;  // empty: by each row's engine
    bool fit = false;     // fit the runtime presets on the training split and print the factors
    bool json = false;
    int worst = 10;
};

// The runtime preset a row's engine corresponds to.
engine::Runtime runtime_for_engine(const std::string& engine_name) {
    if (engine_name == "llama.cpp") return engine::Runtime::llama_cpp;
    if (engine_name == "tensorrt-llm" || engine_name.starts_with("mlperf")) return engine::Runtime::tensorrt_llm;
    return engine::kDefaultRuntime;
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

// Loads each profile once; an unknown id becomes a skip reason instead of an error.
class ProfileCache {
public:
    explicit ProfileCache(const profiles::Catalog& catalog) : catalog_(catalog) {}

    const profiles::HardwareProfile* hardware(const std::string& id, std::string& problem) {
        return lookup(hardware_, id, problem, [&] { return catalog_.hardware(id); });
    }
    const profiles::ModelProfile* model(const std::string& id, std::string& problem) {
        return lookup(models_, id, problem, [&] { return catalog_.model(id); });
    }

private:
    template <typename Profile, typename Load>
    const Profile* lookup(std::map<std::string, std::unique_ptr<Profile>>& cache, const std::string& id,
                          std::string& problem, Load load) {
        auto found = cache.find(id);
        if (found == cache.end()) {
            std::unique_ptr<Profile> loaded;
            try {
                loaded = std::make_unique<Profile>(load());
            } catch (const core::InputError& error) {
                problems_[id] = error.diagnostics().front().message;
            }
            found = cache.emplace(id, std::move(loaded)).first;
        }
        if (!found->second) problem = problems_[id];
        return found->second.get();
    }

    const profiles::Catalog& catalog_;
    std::map<std::string, std::unique_ptr<profiles::HardwareProfile>> hardware_;
    std::map<std::string, std::unique_ptr<profiles::ModelProfile>> models_;
    std::map<std::string, std::string> problems_;
};

// Apple rows measured on a binned GPU (fewer cores than the profile) are not this profile's chip.
std::string binned_gpu_problem(const profiles::Measurement& m, const profiles::HardwareProfile& hardware) {
    const auto at = m.notes.find("gpu_cores=");
    if (at == std::string::npos) return {};
    const std::string cores = m.notes.substr(at + 10, m.notes.find_first_not_of("0123456789", at + 10) - at - 10);
    if (cores.empty() || hardware.name.find("(" + cores + "-core") != std::string::npos) return {};
    return fmt::format("measured on a {}-core GPU variant that has no profile", cores);
}

std::string classify_beating_row(const profiles::Measurement& m) {
    std::vector<std::string> unstated;
    if (m.kv.empty()) unstated.push_back("KV precision");
    if (!m.batch) unstated.push_back("concurrency");
    if (!unstated.empty()) return fmt::format("hidden condition: {} not stated", fmt::join(unstated, ", "));
    return "data error or a condition the source does not state (check the source)";
}

int run_accuracy(const AccuracyOptions& options, const profiles::Catalog& catalog, Io io) {
    const std::string path = options.file.empty()
                                 ? (std::filesystem::path(catalog.root()) / "validation" / "measurements.csv").string()
                                 : options.file;
    const auto measurements = profiles::load_measurements(path);
    const std::optional<engine::Runtime> forced =
        options.runtime.empty() ? std::nullopt : std::optional(runtime_named(options.runtime));
    ProfileCache cache(catalog);

    std::vector<scenarios::AccuracyRow> rows;
    std::vector<scenarios::CalibrationCase> cases;
    for (const auto& m : measurements) {
        scenarios::AccuracyRow skipped;
        skipped.measurement = &m;
        skipped.split = scenarios::split_of(m.hardware);
        std::string problem;
        const auto* hardware = cache.hardware(m.hardware, problem);
        const auto* model = hardware ? cache.model(m.model, problem) : nullptr;
        if (problem.empty() && hardware) problem = binned_gpu_problem(m, *hardware);
        if (problem.empty()) problem = scenarios::unsupported_reason(m);
        if (!problem.empty()) {
            skipped.skipped = problem;
            rows.push_back(skipped);
            continue;
        }
        try {
            engine::DeploymentChoice choice;
            choice.weights = &weight_format_named(m.weights);
            if (!m.kv.empty()) choice.kv = &kv_format_named(m.kv);
            choice.runtime = forced.value_or(runtime_for_engine(m.engine));
            choice.parallelism.tensor = m.devices;
            const engine::Deployment deployment = engine::resolve_deployment(*hardware, *model, choice);
            rows.push_back(scenarios::evaluate_measurement(m, *model, *hardware, deployment));
            cases.push_back({&m, model, hardware, deployment});
        } catch (const std::exception& error) {
            skipped.skipped = error.what();
            rows.push_back(skipped);
        }
    }

    if (options.fit) {
        report::TextTable table({"runtime", "memory", "decode rows", "prefill rows", "kernel overhead", "quantized bw",
                                 "attention bw", "compute", "quantized compute", "decode error", "prefill error"});
        const std::vector<std::vector<core::MemoryFamily>> groups{
            {core::MemoryFamily::hbm, core::MemoryFamily::gddr}, {core::MemoryFamily::unified}};
        for (const engine::Runtime runtime : {engine::Runtime::llama_cpp, engine::Runtime::tensorrt_llm}) {
            for (const auto& families : groups) {
                std::vector<scenarios::CalibrationCase> selected;
                for (const auto& c : cases) {
                    if (c.deployment.runtime == runtime) selected.push_back(c);
                }
                const auto fit = scenarios::fit_runtime(selected, engine::runtime_preset(runtime), families);
                if (fit.decode_rows + fit.prefill_rows == 0) continue;
                std::vector<std::string> names;
                for (auto family : families) names.emplace_back(core::memory_family_name(family));
                table.add_row({std::string(engine::runtime_name(runtime)), fmt::format("{}", fmt::join(names, "+")), std::to_string(fit.decode_rows),
                               std::to_string(fit.prefill_rows), fmt::format("{:.0f} us", fit.factors.kernel_overhead.value * 1e6),
                               fmt::format("{:.2f}", fit.factors.quantized_weight_bandwidth),
                               fmt::format("{:.2f}", fit.factors.attention_bandwidth),
                               fmt::format("{:.2f}", fit.factors.compute), fmt::format("{:.2f}", fit.factors.quantized_compute),
                               fmt::format("{} -> {}", percent(fit.decode_error_before), percent(fit.decode_error_after)),
                               fmt::format("{} -> {}", percent(fit.prefill_error_before), percent(fit.prefill_error_after))});
            }
        }
        io.out << "Fitted on the training split (median absolute error before -> after):\n" << table.render();
        return 0;
    }

    auto family_of = [&](const scenarios::AccuracyRow& row) {
        std::string ignored;
        return std::string(core::memory_family_name(cache.hardware(row.measurement->hardware, ignored)->memory_family));
    };
    const auto by_split_metric = scenarios::summarize(rows, [](const scenarios::AccuracyRow& row) {
        return fmt::format("{} {}", scenarios::split_name(row.split), profiles::metric_info(row.measurement->metric).name);
    });
    const auto by_subset = scenarios::summarize(rows, [&](const scenarios::AccuracyRow& row) {
        return fmt::format("{} | {} | {} | {}", scenarios::split_name(row.split), row.measurement->engine, family_of(row),
                           profiles::metric_info(row.measurement->metric).name);
    });
    std::vector<const scenarios::AccuracyRow*> evaluated;
    std::map<std::string, int> skip_reasons;
    for (const auto& row : rows) {
        if (row.skipped.empty()) {
            evaluated.push_back(&row);
        } else {
            ++skip_reasons[row.skipped];
        }
    }
    std::sort(evaluated.begin(), evaluated.end(),
              [](const auto* a, const auto* b) { return std::fabs(a->error) > std::fabs(b->error); });

    if (options.json) {
        nlohmann::json document;
        document["schema_version"] = 1;
        document["file"] = path;
        auto summaries = [](const std::vector<scenarios::SubsetSummary>& list) {
            nlohmann::json array = nlohmann::json::array();
            for (const auto& s : list) {
                array.push_back({{"subset", s.name}, {"rows", s.rows}, {"median_absolute_error", s.median_absolute_error},
                                 {"mean_absolute_error", s.mean_absolute_error}, {"median_signed_error", s.median_signed_error},
                                 {"rows_beating_bound", s.beats_bound}});
            }
            return array;
        };
        document["by_split_and_metric"] = summaries(by_split_metric);
        document["by_subset"] = summaries(by_subset);
        nlohmann::json all_rows = nlohmann::json::array();
        for (const auto& row : rows) {
            nlohmann::json entry = {{"id", row.measurement->id}, {"split", scenarios::split_name(row.split)}};
            if (row.skipped.empty()) {
                entry["measured"] = row.measurement->value;
                entry["predicted"] = row.predicted;
                entry["bound"] = row.bound;
                entry["error"] = row.error;
                entry["beats_bound"] = row.beats_bound;
            } else {
                entry["skipped"] = row.skipped;
            }
            all_rows.push_back(std::move(entry));
        }
        document["rows"] = std::move(all_rows);
        io.out << document.dump(2) << "\n";
        return 0;
    }

    io.out << fmt::format("{}: {} rows, {} evaluated, {} skipped\n\n", path, rows.size(), evaluated.size(),
                          rows.size() - evaluated.size());
    report::TextTable overall({"split and metric", "rows", "median |error|", "mean |error|", "median error", "beat bound"});
    for (const auto& s : by_split_metric) {
        overall.add_row({s.name, std::to_string(s.rows), percent(s.median_absolute_error), percent(s.mean_absolute_error),
                         percent(s.median_signed_error), std::to_string(s.beats_bound)});
    }
    io.out << overall.render() << "\n";
    report::TextTable subsets({"split | engine | memory | metric", "rows", "median |error|", "mean |error|", "median error",
                               "beat bound"});
    for (const auto& s : by_subset) {
        subsets.add_row({s.name, std::to_string(s.rows), percent(s.median_absolute_error), percent(s.mean_absolute_error),
                         percent(s.median_signed_error), std::to_string(s.beats_bound)});
    }
    io.out << subsets.render() << "\n";
    report::TextTable worst({"worst rows", "split", "metric", "measured", "predicted", "error"});
    for (int i = 0; i < options.worst && i < static_cast<int>(evaluated.size()); ++i) {
        const auto& row = *evaluated[static_cast<std::size_t>(i)];
        worst.add_row({row.measurement->id, scenarios::split_name(row.split), std::string(profiles::metric_info(row.measurement->metric).name),
                       fmt::format("{:.4g}", row.measurement->value), fmt::format("{:.4g}", row.predicted),
                       fmt::format("{:+.1f}%", row.error * 100.0)});
    }
    io.out << worst.render() << "\n";
    int beating = 0;
    for (const auto* row : evaluated) {
        if (!row->beats_bound) continue;
        if (beating++ == 0) io.out << "Measurements better than the roofline bound:\n";
        io.out << fmt::format("  {} (line {}): measured {:.4g}, bound {:.4g}: {}\n", row->measurement->id,
                              row->measurement->line, row->measurement->value, row->bound,
                              classify_beating_row(*row->measurement));
    }
    io.out << fmt::format("{} of {} evaluated rows beat the roofline bound.\n\nSkipped rows:\n", beating, evaluated.size());
    for (const auto& [reason, count] : skip_reasons) io.out << fmt::format("  {:4} {}\n", count, reason);
    return 0;
}

}  // namespace

void add_accuracy_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<AccuracyOptions>();
    CLI::App* command = app.add_subcommand("accuracy", "Predict every public measurement in validation/ and report the error");
    command->add_option("file", options->file, "Measurements CSV (default: validation/measurements.csv)");
    command->add_option("--runtime", options->runtime, "Use this runtime preset for every row (default: by the row's engine)");
    command->add_flag("--fit", options->fit, "Fit the llama.cpp and tensorrt-llm presets on the training split and print them");
    command->add_option("--worst", options->worst, "How many worst rows to list")->check(CLI::Range(0, 1000));
    command->add_flag("--json", options->json, "Print JSON");
    command->callback([options, &run] { run = [options](const profiles::Catalog& c, Io io) { return run_accuracy(*options, c, io); }; });
}

}  // namespace decodesim::cli
