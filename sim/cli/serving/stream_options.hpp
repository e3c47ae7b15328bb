#pragma once
// Flags that describe a request stream, shared by `serve` and `plan`: prompt and output lengths
// as a number or a distribution, and the scheduler's limits.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "workload/request_stream.hpp"
#include "serving/simulation.hpp"

namespace decodesim::cli {

// Parses "1000", "uniform:500:1500", "normal:1000:200" or "lognormal:1000:500" (the mean and
// standard deviation of the length itself). Throws core::UsageError naming `flag`.
workload::LengthDistribution parse_length(const std::string& text, const std::string& flag);
using workload::describe;

// Parses "2P3D" (x prefill and y decode instances, each at least 1; case-insensitive). Throws
// core::UsageError naming `flag`.
serving::PoolShape parse_pool_shape(const std::string& text, const std::string& flag);

struct SchedulerOptions {
    serving::SchedulerChoice choice;  // the limits set by flags; the rest are the runtime's defaults
    bool no_chunked_prefill = false;
    bool no_prefix_caching = false;
    std::optional<std::string> prefill_passes;  // mixed or separate (profiles::kPrefillPassNames)

    serving::SchedulerChoice resolved() const;
};

// --max-seqs --max-batched-tokens --block-size --no-chunked-prefill --no-prefix-caching
void add_scheduler_options(CLI::App& command, SchedulerOptions& options);

}  // namespace decodesim::cli
