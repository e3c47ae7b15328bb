#pragma once
// The flags every single-point command shares: what to run, on what, at which operating point.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "engine/workload.hpp"

namespace decodesim::cli {

struct WorkloadOptions {
    std::string hardware;
    std::string model;
    std::string weights = "bf16";
    std::string kv;
    long long batch = 1;
    std::optional<long long> context;
    std::optional<long long> prompt;
    std::optional<long long> output;
    int tensor_parallel = 1;
    std::string runtime = "vllm";

    engine::Workload workload() const;
};

// Adds --hardware --model --weights --kv --batch --context --prompt --output --tp to `command`.
void add_workload_options(CLI::App& command, WorkloadOptions& options, bool hardware_required = true);

}  // namespace decodesim::cli
