#pragma once
// `decodesim compare`: several devices side by side for one workload.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct CompareOptions {
    WorkloadOptions point;                 // point.hardware: "id[:devices],..."
    std::optional<double> target_tokens_per_s;
    std::string prices;                    // "id=usd,..."
    std::string by = "total";
    bool json = false;
    bool csv = false;
};

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);
int run_compare(const CompareOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
