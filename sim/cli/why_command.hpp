#pragma once
// `decodesim why`: which resource bounds this operating point, and what doubling each would give.

#include <CLI/CLI.hpp>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct WhyOptions {
    WorkloadOptions point;
    bool json = false;
};

CLI::App* add_why_command(CLI::App& app, WhyOptions& options);
int run_why(const WhyOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
