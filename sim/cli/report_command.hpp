#pragma once
// `decodesim report`: one self-contained HTML page to look at.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct ReportOptions {
    WorkloadOptions point;
    std::string output_path;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report(const ReportOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
