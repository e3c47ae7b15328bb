#pragma once
// `decodesim predict`: one operating point, as a table or JSON.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct PredictOptions {
    std::string hardware;
    std::string model;
    std::string weights = "bf16";
    std::string kv;  // empty: the activation type
    long long batch = 1;
    std::optional<long long> context;
    std::optional<long long> prompt;
    std::optional<long long> output;
    int tensor_parallel = 1;
    bool json = false;
};

CLI::App* add_predict_command(CLI::App& app, PredictOptions& options);
int run_predict(const PredictOptions& options, const profiles::Catalog& catalog, Io io);

}  // namespace decodesim::cli
