#pragma once
// `decodesim check-claim`: a vendor's tokens/s against what physics allows.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

// Exit codes of check-claim beyond the common ones (docs/cli.md).
inline constexpr int kClaimImpossible = 4;
inline constexpr int kClaimNeedsConditions = 5;

struct CheckClaimOptions {
    std::string hardware;
    std::string model;
    std::optional<std::string> weights;
    std::string kv;
    double tokens_per_s = 0.0;
    std::string per;
    std::optional<long long> batch;
    std::optional<long long> context;
    std::optional<long long> prompt;
    std::optional<long long> output;
    int tensor_parallel = 1;
    bool json = false;
};

CLI::App* add_check_claim_command(CLI::App& app, CheckClaimOptions& options);
int run_check_claim(const CheckClaimOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
