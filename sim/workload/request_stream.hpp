#pragma once
// The requests a server sees: when they arrive and how long their prompts and outputs are.
// Generated from a seed (the same seed gives the same stream on the same standard library) or
// taken from a trace.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"

namespace decodesim::workload {

struct Request {
    double arrival_s = 0.0;
    long long prompt_tokens = 1;
    long long output_tokens = 1;
    long long prefix_id = -1;      // requests with the same id share their first prefix_tokens tokens
    long long prefix_tokens = 0;
    // A prompt as a chain of blocks of `block_tokens` tokens (the last one may be short), each named
    // by an id that stands for the whole prompt up to and including it (Mooncake's hash_ids): two
    // requests share the cache of their longest run of equal leading ids. Empty: the one shared
    // prefix above, if any.
    std::vector<long long> block_ids;
    long long block_tokens = 0;
    // A generated conversation's chain, named without a list (its memory does not grow with the
    // context): whole block i of the prompt and the reply is chain_base + i, the first
    // shared_blocks shared_base + i (a system prompt's group), in blocks of block_tokens. The
    // prompt's whole blocks are looked up and left in the cache as block_ids are; those the reply
    // completes (all but its last token, whose cache is never computed) are left there when the
    // request finishes, as vLLM and SGLang keep a finished sequence's blocks, so the next turn
    // reads them. chain_base < 0: none.
    long long chain_base = -1;
    long long shared_base = -1;
    long long shared_blocks = 0;
    // A later turn of a conversation: the index of the request it answers (-1: none). It is sent
    // `think_s` after the client has the last token of that one, from the same client, and its
    // arrival_s is set when it is sent.
    long long follows = -1;
    double think_s = 0.0;
};

// A length: fixed, or drawn from a distribution (rounded, at least 1 token), optionally capped
// (--max-output, or a model's context).
struct LengthDistribution {
    enum class Kind { fixed, uniform, normal, lognormal };
    static constexpr std::array<core::NamedValue<Kind>, 4> kKindNames{
        {{Kind::fixed, "fixed"}, {Kind::uniform, "uniform"}, {Kind::normal, "normal"}, {Kind::lognormal, "lognormal"}}};
    Kind kind = Kind::fixed;
    double first = 1.0;   // fixed: the length; uniform: low; normal, lognormal: mean
    double second = 0.0;  // uniform: high; normal, lognormal: standard deviation
    std::optional<double> cap;  // no draw exceeds it

    // The mean of the drawn lengths, E[max(1, min(X, cap))] in closed form for each kind.
    double mean() const;
    // E[min(X, cap)], without the floor at 1 token.
    double capped_mean() const;
    // The mean without the cap.
    double uncapped_mean() const;
    // What drawing each length as at least 1 token adds to the uncapped mean: E[max(X, 1)] - E[X],
    // in closed form; 0 for fixed and uniform lengths, which never fall below 1.
    double mean_added_by_floor() const;
};


struct Arrivals {
    enum class Kind { poisson, gamma };
    static constexpr std::array<core::NamedValue<Kind>, 2> kKindNames{{{Kind::poisson, "poisson"}, {Kind::gamma, "gamma"}}};
    Kind kind = Kind::poisson;
    double rate_per_s = 1.0;
    double burstiness = 1.0;  // gamma shape k: the coefficient of variation of gaps is 1/sqrt(k); 1 is Poisson
};

// Multi-turn conversations (chat, agents): each turn's prompt is the whole conversation so far, the
// previous prompt and reply and the user's next message, so it starts with the previous turn's
// cache. The stream's prompt length is the first turn's.
struct Conversations {
    LengthDistribution turns;      // turns a conversation has, at least 1
    LengthDistribution follow_up;  // tokens the user adds at each later turn
    double think_time_s = 0.0;     // from a reply's last token to the next turn's send
    long long block_tokens = 16;   // the cache's block: the unit of the ids a turn shares
};

struct StreamSpec {
    Arrivals arrivals;
    LengthDistribution prompt;
    LengthDistribution output;
    long long requests = 1000;
    std::uint64_t seed = 1;
    // Optional shared prefix: this fraction of requests starts with one of `prefix_groups` shared
    // prefixes of `prefix_tokens` tokens (a system prompt, a few-shot template).
    double prefix_fraction = 0.0;
    long long prefix_tokens = 0;
    long long prefix_groups = 1;
    // The model's context: a prompt is truncated so that prompt + output fits (agent frameworks
    // compact their context; a server refuses what does not fit). 0: no limit.
    long long max_context = 0;
    // Set: the requests are the turns of conversations, `requests` of them in all. Conversations
    // start at the arrival process's times at rate_per_s / mean turns, so that requests arrive at
    // about rate_per_s; a conversation ends early at the turn that would pass max_context.
    std::optional<Conversations> conversations;
};

// "1000", "lognormal 1000 sd 500", "lognormal 523 sd 1168 capped at 512" (a cap named where it binds).
std::string describe(const LengthDistribution& length);

// The spread of a conversation dataset's lengths where a run states only their mean (ShareGPT in
// `vllm bench serve` and SGLang's bench_serving): a coefficient of variation of 1, an exponential's
// (ServeGen, arXiv 2505.09999: production chat outputs fit an exponential). Not fitted: the serving
// figures move by a few percent between 0.5 and 1.5 (docs/validation.md, "Runs on ShareGPT").
inline constexpr double kDatasetLengthCv = 1.0;

// Lengths like a conversation dataset's, of this mean: a lognormal with kDatasetLengthCv. Fixed
// lengths at the mean would keep a closed loop's clients in step, which a dataset's never are.
LengthDistribution dataset_lengths(double mean);

// The requests of `spec`, sorted by arrival, the first at time 0; with conversations, each
// conversation's turns in order after its first (sent as the conversation proceeds).
std::vector<Request> generate_requests(const StreamSpec& spec);

}  // namespace decodesim::workload
