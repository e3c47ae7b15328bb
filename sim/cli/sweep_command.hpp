#pragma once
// `decodesim sweep`: the cross product of lists and ranges, streamed as CSV or JSON lines.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct SweepOptions {
    std::string hardware;
    std::string model;
    std::string weights = "bf16";
    std::string kv;
    std::string batch = "1";
    std::string context;
    std::string prompt;
    std::string output;
    std::string tensor_parallel = "1";
    std::string format = "csv";
    std::string output_path;
    double max_points = 1e8;
    bool force = false;
    bool quiet = false;
};

CLI::App* add_sweep_command(CLI::App& app, SweepOptions& options);
// Rows go to io.out, or atomically to the -o file.
int run_sweep(const SweepOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
