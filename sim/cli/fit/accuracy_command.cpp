// `decodesim accuracy`: predicts every public measurement and states the error per subset.

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "cli/output_file.hpp"
#include "cli/runtime_option.hpp"
#include "profiles/residual_band_table.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "core/error.hpp"
#include "cli/point_options.hpp"
#include "profiles/measurements.hpp"
#include "report/fit/accuracy_output.hpp"
#include "fit/accuracy_run.hpp"

namespace decodesim::cli {

namespace {

struct AccuracyOptions {
    std::string file;       // default: validation/measurements.csv under the profile root
    std::string runtime;    // empty: each row's own
    bool fit = false;       // fit the runtime profiles' factors on the training split and print them
    std::optional<std::string> write_bands;  // with --held-out: write the derived band table here
    bool held_out = false;  // lead with leave-one-source-out, leave-one-family-out and in-sample errors
    bool json = false;
    int worst = 10;
};

int run_accuracy(const AccuracyOptions& options, const profiles::Catalog& catalog, Io io) {
    const std::string path = options.file.empty()
                                 ? (std::filesystem::path(catalog.root()) / "validation" / "measurements.csv").string()
                                 : options.file;
    const auto measurements = profiles::load_measurements(path);
    fit::AccuracySettings settings;
    if (!options.runtime.empty()) settings.runtime = runtime_named(catalog, options.runtime);
    settings.fit = options.fit;
    settings.held_out = options.held_out;
    const fit::ProfileLookup lookup{[&](const std::string& id) { return catalog.hardware(id); },
                                          [&](const std::string& id) { return catalog.model(id); },
                                          [&](const std::string& id) { return catalog.runtime(id); }};
    const fit::AccuracyResult result = fit::evaluate_accuracy(measurements, lookup, settings);
    if (result.evaluated() == 0) {
        std::string reasons;
        for (const auto& [reason, count] : result.skip_reasons) reasons += fmt::format("; {} skipped: {}", count, reason);
        throw core::NothingComputed(fmt::format("{}: no usable row among {}{}", path, measurements.size(), reasons));
    }

    if (options.write_bands && result.held_out) {
        AtomicFile file(*options.write_bands);
        file.stream() << profiles::residual_bands_csv(result.held_out->bands.bands);
        file.commit();
    }
    if (options.fit) {
        io.out << report::wrap_text(report::accuracy_fit_to_text(result));
        if (options.held_out) io.out << "\n" << report::wrap_text(report::accuracy_held_out_to_text(result));
    } else if (options.json) {
        io.out << report::json_text(report::accuracy_to_json(result, path));
    } else {
        io.out << report::wrap_text(report::accuracy_to_text(result, path, options.worst));
    }
    return 0;
}

}  // namespace

void add_accuracy_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<AccuracyOptions>();
    CLI::App* command = app.add_subcommand("accuracy", "Predict every public measurement in validation/ and report the error");
    command->add_option("file", options->file, "Measurements CSV (default: validation/measurements.csv)");
    command->add_option("--runtime", options->runtime, "Use this runtime build for every row (default: each row's runtime column)");
    CLI::Option* fit = command->add_flag(
        "--fit", options->fit, "Fit the vllm, llama.cpp and tensorrt-llm fit groups on the training split and print them");
    CLI::Option* held_out = command->add_flag(
        "--held-out", options->held_out,
        "Lead with the headline: the error on each source's rows (then each hardware family's) with the "
        "profiles refitted without them, beside the in-sample error (a few seconds: one refit per source and family)");
    command->add_option("--write-bands", options->write_bands,
                        "With --held-out: write the band table it derives to this file (the shipped one is "
                        "validation/residual_bands.csv)")
        ->needs(held_out);
    command->add_option("--worst", options->worst, "How many worst rows to list")->check(CLI::Range(0, 1000));
    // The fit is a table to read and copy into the root runtime profiles; no JSON form is written, so
    // asking for one is refused rather than answered in text.
    command->add_flag("--json", options->json, "Print JSON")->excludes(fit);
    run_when_parsed(command, run, options, &run_accuracy);
}

}  // namespace decodesim::cli
