#pragma once
// `decodesim predict`: one operating point, as a table or JSON.

#include <CLI/CLI.hpp>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct PredictOptions {
    WorkloadOptions point;
    bool json = false;
    bool band = false;
};

CLI::App* add_predict_command(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
