#pragma once
// Flags that describe a request stream, shared by `serve` and `plan`: prompt and output lengths
// as a number or a distribution, and the scheduler's limits.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io.hpp"
#include "workload/request_stream.hpp"
#include "serving/served_stream.hpp"
#include "serving/simulation.hpp"

namespace decodesim::cli {

// Parses "1000", "uniform:500:1500", "normal:1000:200" or "lognormal:1000:500" (the mean and
// standard deviation of the length itself), counted in `unit`. Throws core::UsageError naming `flag`.
workload::LengthDistribution parse_length(const std::string& text, const std::string& flag,
                                          std::string_view unit = "tokens");
using workload::describe;

// A trace file's requests as serve replays them (profiles::load_trace, serving::replayed_stream):
// sorted by arrival, the first at 0, with a warning naming the rows the traced service failed.
serving::ServedStream traced_stream(const std::string& path, Io io);

// Parses "2P3D" (x prefill and y decode instances, each at least 1; case-insensitive). Throws
// core::UsageError naming `flag`.
serving::PoolShape parse_pool_shape(const std::string& text, const std::string& flag);

// --turns and --follow-up as a conversation spec, the turns `think_time_s` apart; unset without
// --turns. Throws core::UsageError when --turns comes without --follow-up.
std::optional<workload::Conversations> parse_conversations(const std::optional<std::string>& turns,
                                                           const std::optional<std::string>& follow_up,
                                                           double think_time_s);

// One group of a mixed fleet (serve --add-replicas): replicas of the same model on another device,
// at their own tensor parallelism (unset: --tp).
struct AddedReplicas {
    std::string hardware;
    int replicas = 1;
    std::optional<int> tensor_parallel;
};

// Parses "a100-sxm-80gb:3" or "h200-sxm:1:2,l40s:4" (device, replicas, tensor parallelism). Throws
// core::UsageError naming `flag`.
std::vector<AddedReplicas> parse_added_replicas(const std::string& text, const std::string& flag);

// --seed: a whole number from 0 to 2^53 (JSON states it exactly; a negative seed is refused,
// never wrapped). Unset: the command's default.
void add_seed_option(CLI::App& command, std::optional<long long>& seed, const std::string& help);

// A shared prefix is part of each prompt it starts. A prefix longer than a fixed prompt would be
// cut to the prompt in every request: a usage error. With a length distribution, the requests
// whose drawn prompt is shorter than the prefix are counted and named in a warning.
void refuse_prefix_beyond_prompt(long long prefix_tokens, double prefix_fraction,
                                 const workload::LengthDistribution& prompt);
void warn_prefix_beyond_prompt(Io io, long long prefix_tokens, const std::vector<workload::Request>& requests);

struct SchedulerOptions {
    serving::SchedulerChoice choice;  // the limits set by flags; the rest are the runtime's defaults
    bool chunked_prefill = false;
    bool no_chunked_prefill = false;
    bool no_prefix_caching = false;
    std::optional<std::string> prefill_passes;  // mixed or separate (profiles::kPrefillPassNames)
    std::optional<std::string> admission;       // incremental or whole_request (profiles::kAdmissionNames)

    serving::SchedulerChoice resolved() const;
};

// --max-seqs --max-batched-tokens --block-size --chunked-prefill --no-chunked-prefill --no-prefix-caching
// --prefill-passes --admission
void add_scheduler_options(CLI::App& command, SchedulerOptions& options);

}  // namespace decodesim::cli
