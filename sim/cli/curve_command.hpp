#pragma once
// `decodesim curve`: throughput against concurrency, with the knee and the memory wall.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct CurveOptions {
    WorkloadOptions point;
    long long max_batch = 0;  // 0: up to the memory wall
    bool csv = false;
    bool json = false;
    std::string svg_path;
};

CLI::App* add_curve_command(CLI::App& app, CurveOptions& options);
int run_curve(const CurveOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
