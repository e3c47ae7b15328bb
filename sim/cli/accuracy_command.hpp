#pragma once
// `decodesim accuracy`: predicts every public measurement and states the error per subset.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct AccuracyOptions {
    std::string file;          // default: validation/measurements.csv under the profile root
    std::string runtime;       // empty: by each row's engine
    bool fit = false;          // fit the runtime presets on the training split and print the factors
    bool json = false;
    int worst = 10;
};

CLI::App* add_accuracy_command(CLI::App& app, AccuracyOptions& options);
int run_accuracy(const AccuracyOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
