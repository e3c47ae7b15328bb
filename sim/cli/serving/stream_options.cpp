#include "cli/serving/stream_options.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "cli/point_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/registry.hpp"
#include "core/text_escape.hpp"
#include "profiles/trace.hpp"

namespace decodesim::cli {

using workload::LengthDistribution;

namespace {

// A spread so wide that many draws fall below 1 token: each is sent as 1, so the lengths sent
// average more than MEAN (normal:1000:30000 sends about 12,500), while the steady state, the
// labels and the plan take MEAN. Refused rather than modelled as the floored distribution: what
// is sent is then no longer the named distribution, and a spread this wide is a typo or wants
// lognormal:MEAN:SD. Within 1% the two agree to the precision of the figures printed.
constexpr double kMaxFlooredMeanShare = 0.01;

template <typename Refuse>
void refuse_floored_mean(const LengthDistribution& length, Refuse refuse) {
    const double added = length.mean_added_by_floor();
    if (added <= kMaxFlooredMeanShare * length.uncapped_mean()) return;
    const auto tokens = [](double value) { return fmt::format("{:.{}f}", value, value < 100.0 ? 1 : 0); };
    refuse(fmt::format(
        "draws so many lengths below 1 token that, sent as 1, they average {}, not {} (more than {:g}% "
        "off); give a smaller SD, or lognormal:MEAN:SD for a long tail",
        tokens(length.uncapped_mean() + added), tokens(length.uncapped_mean()), 100.0 * kMaxFlooredMeanShare));
}

}  // namespace

LengthDistribution parse_length(const std::string& text, const std::string& flag, std::string_view unit) {
    auto refuse = [&](const std::string& why) {
        throw core::UsageError(fmt::format("{}: '{}' {}; expected N, uniform:LOW:HIGH, normal:MEAN:SD, "
                                           "lognormal:MEAN:SD or dataset:MEAN ({})",
                                           flag, text, why, unit));
    };
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto colon = text.find(':', start);
        parts.push_back(text.substr(start, colon - start));
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    if (parts.size() == 1) {  // a fixed length: a whole number, as --prompt and --output are in predict
        std::int64_t tokens = 0;
        if (!core::parse_whole_number(parts[0], tokens)) refuse("is " + core::why_not_whole_number(parts[0]));
        if (tokens < 1 || tokens > 1'000'000'000) refuse("is not in range 1 to 1000000000");
        LengthDistribution fixed;
        fixed.first = static_cast<double>(tokens);
        return fixed;
    }
    std::vector<double> numbers;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        double value = 0.0;
        if (!core::parse_number(parts[i], value) || value < 0.0 || value > 1e9) refuse("has a bad number");
        numbers.push_back(value);
    }
    LengthDistribution length;
    if (parts.size() == 1) {
        if (numbers[0] < 1.0 || numbers[0] != std::floor(numbers[0])) refuse("must be a whole number of tokens, at least 1");
        length.first = numbers[0];
        return length;
    }
    // A conversation dataset's lengths of this mean (ShareGPT's, as a run states them).
    if (parts[0] == "dataset") {
        if (parts.size() != 2) refuse("has the wrong number of fields");
        if (numbers[0] < 1.0) refuse("needs a mean of at least 1 token");
        const LengthDistribution dataset = workload::dataset_lengths(numbers[0]);
        refuse_floored_mean(dataset, refuse);
        return dataset;
    }
    if (parts.size() != 3) refuse("has the wrong number of fields");
    const std::string& kind = parts[0];
    length.first = numbers[0];
    length.second = numbers[1];
    const auto* named = core::find_named(LengthDistribution::kKindNames, kind);
    if (named == nullptr || named->value == LengthDistribution::Kind::fixed) refuse("names an unknown distribution");
    length.kind = named->value;
    if (length.kind == LengthDistribution::Kind::uniform) {
        if (length.first < 1.0 || length.second < length.first) refuse("needs 1 <= LOW <= HIGH");
    } else if (length.first < 1.0) {
        refuse("needs a mean of at least 1 token");
    }
    refuse_floored_mean(length, refuse);
    return length;
}

serving::ServedStream traced_stream(const std::string& path, Io io) {
    std::vector<workload::Request> rows;
    profiles::Trace trace = profiles::load_trace(path);
    for (auto& row : trace.rows) {
        workload::Request request;
        request.arrival_s = row.arrival_s;
        request.prompt_tokens = row.prompt_tokens;
        request.output_tokens = row.output_tokens;
        request.prefix_id = row.prefix_id;
        request.prefix_tokens = row.prefix_tokens;
        request.block_ids = std::move(row.block_ids);
        request.block_tokens = row.block_tokens;
        rows.push_back(std::move(request));
    }
    if (trace.failed_rows > 0) {
        warn(io, fmt::format("{}: {} requests the traced service failed (zero prompt or response tokens) are left out; "
                             "{} are replayed",
                             path, trace.failed_rows, rows.size()));
    }
    return serving::replayed_stream(std::move(rows), path);
}

std::optional<workload::Conversations> parse_conversations(const std::optional<std::string>& turns,
                                                           const std::optional<std::string>& follow_up,
                                                           double think_time_s) {
    if (!turns) return std::nullopt;
    if (!follow_up) {
        throw core::UsageError("--turns needs --follow-up: the tokens the user adds at each later turn of a conversation");
    }
    return workload::Conversations{parse_length(*turns, "--turns", "turns"), parse_length(*follow_up, "--follow-up"),
                                   think_time_s};
}

std::vector<AddedReplicas> parse_added_replicas(const std::string& text, const std::string& flag) {
    std::vector<AddedReplicas> groups;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        const std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto refuse = [&](const std::string& why) {
            throw core::UsageError(fmt::format("{}: '{}' {}; expected ID:REPLICAS or ID:REPLICAS:TP, comma-separated "
                                               "(a100-sxm-80gb:3, h200-sxm:1:2)",
                                               flag, core::printable(entry), why));
        };
        std::vector<std::string> fields;
        for (std::size_t from = 0;;) {
            const auto colon = entry.find(':', from);
            fields.push_back(entry.substr(from, colon == std::string::npos ? std::string::npos : colon - from));
            if (colon == std::string::npos) break;
            from = colon + 1;
        }
        if (fields.size() < 2 || fields.size() > 3 || fields[0].empty()) refuse("is not of that form");
        auto whole = [&](const std::string& digits, const char* what, std::int64_t most) {
            std::int64_t value = 0;
            if (!core::parse_whole_number(digits, value)) refuse(fmt::format("has {} that is {}", what, core::why_not_whole_number(digits)));
            if (value < 1 || value > most) refuse(fmt::format("has {} out of range 1 to {}", what, most));
            return static_cast<int>(value);
        };
        AddedReplicas group;
        group.hardware = fields[0];
        group.replicas = whole(fields[1], "a replica count", 4096);
        if (fields.size() == 3) group.tensor_parallel = whole(fields[2], "a tensor parallelism", kMaxTensorParallel);
        groups.push_back(group);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return groups;
}

serving::PoolShape parse_pool_shape(const std::string& text, const std::string& flag) {
    auto refuse = [&](const std::string& why) {
        throw core::UsageError(fmt::format("{}: '{}' {}; expected xPyD, as 2P3D for 2 prefill and 3 decode instances",
                                           flag, text, why));
    };
    // Two whole numbers, each followed by its letter: digits, 'P', digits, 'D'.
    const auto p = text.find_first_of("Pp");
    if (p == std::string::npos || p == 0 || text.size() < p + 3 || (text.back() != 'D' && text.back() != 'd')) {
        refuse("is not of that form");
    }
    auto count = [&](const std::string& digits, const char* pool) {
        std::int64_t value = 0;
        if (!core::parse_whole_number(digits, value)) refuse(fmt::format("has a {} count that is {}", pool, core::why_not_whole_number(digits)));
        if (value < 1 || value > 4096) refuse(fmt::format("has a {} count out of range 1 to 4096", pool));
        return static_cast<int>(value);
    };
    serving::PoolShape shape;
    shape.prefill_instances = count(text.substr(0, p), "prefill");
    shape.decode_instances = count(text.substr(p + 1, text.size() - p - 2), "decode");
    return shape;
}

void add_seed_option(CLI::App& command, std::optional<long long>& seed, const std::string& help) {
    command.add_option("--seed", seed, help)->check(CLI::Range(std::int64_t{0}, core::kMaxExactWhole));
}

void refuse_prefix_beyond_prompt(long long prefix_tokens, double prefix_fraction, const workload::LengthDistribution& prompt) {
    if (prefix_tokens <= 0 || prefix_fraction <= 0.0) return;
    if (prompt.kind == workload::LengthDistribution::Kind::fixed && static_cast<double>(prefix_tokens) > prompt.first) {
        throw core::UsageError(fmt::format("--prefix-tokens {} is longer than every prompt ({:.0f} tokens): a shared "
                                           "prefix is the start of a prompt",
                                           prefix_tokens, prompt.first));
    }
}

void warn_prefix_beyond_prompt(Io io, long long prefix_tokens, const std::vector<workload::Request>& requests) {
    long long shared = 0;
    long long cut = 0;
    for (const auto& request : requests) {
        if (request.prefix_tokens <= 0) continue;
        ++shared;
        if (request.prefix_tokens < prefix_tokens) ++cut;
    }
    if (cut > 0) {
        warn(io, fmt::format("{} of the {} requests with a shared prefix drew a prompt shorter than --prefix-tokens {}: "
                             "their prefix is the whole prompt",
                             cut, shared, prefix_tokens));
    }
}

serving::SchedulerChoice SchedulerOptions::resolved() const {
    serving::SchedulerChoice result = choice;
    if (chunked_prefill) result.chunked_prefill = true;
    if (no_chunked_prefill) result.chunked_prefill = false;
    if (no_prefix_caching) result.prefix_caching = false;
    if (prefill_passes) {
        result.separate_prefill =
            core::named_or_throw(profiles::kPrefillPassNames, *prefill_passes, "--prefill-passes", "choice").value;
    }
    if (admission) {
        result.reserve_whole_request =
            core::named_or_throw(profiles::kAdmissionNames, *admission, "--admission", "choice").value;
    }
    return result;
}

void add_scheduler_options(CLI::App& command, SchedulerOptions& options) {
    command.add_option("--max-seqs", options.choice.max_sequences,
                       "Running sequences per replica (vLLM max_num_seqs); default: the runtime's on that device")
        ->check(CLI::Range(1LL, 1'000'000LL));
    command.add_option("--max-batched-tokens", options.choice.max_batched_tokens,
                       "Tokens per forward pass (vLLM max_num_batched_tokens); default: the runtime's on that device")
        ->check(CLI::Range(1LL, 100'000'000LL));
    command.add_option("--block-size", options.choice.block_tokens,
                       "Tokens per KV-cache block; default: the runtime's")
        ->check(CLI::Range(1LL, 1'000'000LL));
    auto* chunked = command.add_flag("--chunked-prefill", options.chunked_prefill,
                                     "Split prompts into chunks of the pass's token budget, where the runtime's default "
                                     "prefills them whole (TensorRT-LLM's --enable_chunked_prefill)");
    command.add_flag("--no-chunked-prefill", options.no_chunked_prefill,
                     "Prefill each prompt whole in one pass (then --max-batched-tokens must hold the longest prompt)")
        ->excludes(chunked);
    command.add_flag("--no-prefix-caching", options.no_prefix_caching, "Do not reuse the KV cache of shared prefixes");
    command.add_option("--prefill-passes", options.prefill_passes,
                       "mixed (a pass holds the decodes and prefill chunks: vLLM, TensorRT-LLM) or separate (prompts "
                       "are prefilled in passes of their own, ahead of the decodes: SGLang without "
                       "--enable-mixed-chunk); default: the runtime's");
    command.add_option("--admission", options.admission,
                       "incremental (a sequence's cache grows as it decodes; the youngest is preempted when it runs "
                       "out: vLLM, SGLang) or whole_request (a request is admitted only with room for its prompt and "
                       "whole output, and never preempted: TensorRT-LLM's GUARANTEED_NO_EVICT); default: the "
                       "runtime's");
}

}  // namespace decodesim::cli
