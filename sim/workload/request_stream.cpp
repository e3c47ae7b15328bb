#include "workload/request_stream.hpp"

#include "core/random_draws.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>


namespace decodesim::workload {

double LengthDistribution::uncapped_mean() const {
    switch (kind) {
        case Kind::fixed: return first;
        case Kind::uniform: return (first + second) / 2.0;
        case Kind::normal:
        case Kind::lognormal: return first;
    }
    return first;
}

namespace {
double standard_normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
}  // namespace

double LengthDistribution::mean() const {
    // Every draw is floored at 1 token: max(1, min(X, c)) = min(X, c) + (1 - X)+ for a cap c >= 1, so
    // the floor adds the same to the capped mean as to the uncapped one (without it a capped wide
    // normal's mean could fall below 1, or below 0).
    return capped_mean() + mean_added_by_floor();
}

double LengthDistribution::capped_mean() const {
    if (!cap) return uncapped_mean();
    const double c = *cap;
    switch (kind) {
        case Kind::fixed: return std::min(first, c);
        case Kind::uniform: {
            if (c >= second) return uncapped_mean();
            if (c <= first) return c;
            // E[min(X, c)] for X uniform on [a, b]: the part below c, then c for the rest.
            return ((c * c - first * first) / 2.0 + c * (second - c)) / (second - first);
        }
        case Kind::normal: {
            if (second <= 0.0) return std::min(first, c);
            // E[min(X, c)] = m Phi(z) - s phi(z) + c (1 - Phi(z)), z = (c - m) / s.
            const double z = (c - first) / second;
            const double density = std::exp(-z * z / 2.0) / std::sqrt(2.0 * 3.14159265358979323846);
            return first * standard_normal_cdf(z) - second * density + c * (1.0 - standard_normal_cdf(z));
        }
        case Kind::lognormal: {
            if (second <= 0.0) return std::min(first, c);
            // With sigma^2 = ln(1 + sd^2/mean^2) and mu = ln(mean) - sigma^2/2:
            // E[min(X, c)] = mean Phi((ln c - mu - sigma^2) / sigma) + c (1 - Phi((ln c - mu) / sigma)).
            const double sigma2 = std::log1p((second * second) / (first * first));
            const double sigma = std::sqrt(sigma2);
            const double mu = std::log(first) - sigma2 / 2.0;
            const double log_cap = std::log(c);
            return first * standard_normal_cdf((log_cap - mu - sigma2) / sigma) +
                   c * (1.0 - standard_normal_cdf((log_cap - mu) / sigma));
        }
    }
    return uncapped_mean();
}

double LengthDistribution::mean_added_by_floor() const {
    if (second <= 0.0 || (kind != Kind::normal && kind != Kind::lognormal)) return 0.0;
    const double density_factor = 1.0 / std::sqrt(2.0 * 3.14159265358979323846);
    if (kind == Kind::normal) {
        // E[(1 - X)+] = (1 - m) Phi(z) + s phi(z), z = (1 - m) / s.
        const double z = (1.0 - first) / second;
        return (1.0 - first) * standard_normal_cdf(z) + second * density_factor * std::exp(-z * z / 2.0);
    }
    // E[(1 - X)+] = P(X < 1) - E[X; X < 1] = Phi(-mu / sigma) - mean Phi((-mu - sigma^2) / sigma).
    const double sigma2 = std::log1p((second * second) / (first * first));
    const double sigma = std::sqrt(sigma2);
    const double mu = std::log(first) - sigma2 / 2.0;
    return std::max(0.0, standard_normal_cdf(-mu / sigma) - first * standard_normal_cdf((-mu - sigma2) / sigma));
}

namespace {

// One draw of a length, rounded to a whole token, at least 1.
long long draw(const LengthDistribution& length, std::mt19937_64& random) {
    double value = length.first;
    switch (length.kind) {
        case LengthDistribution::Kind::fixed: break;
        case LengthDistribution::Kind::uniform:
            // Whole tokens from first to second, each as likely.
            value = std::floor(length.first + core::uniform_unit(random) * (length.second + 1.0 - length.first));
            break;
        case LengthDistribution::Kind::normal:
            value = length.first + length.second * core::standard_normal(random);
            break;
        case LengthDistribution::Kind::lognormal: {
            // The log-space parameters whose distribution has this mean and standard deviation.
            const double variance_ratio = (length.second * length.second) / (length.first * length.first);
            const double sigma = std::sqrt(std::log1p(variance_ratio));
            const double mu = std::log(length.first) - sigma * sigma / 2.0;
            value = std::exp(mu + sigma * core::standard_normal(random));
            break;
        }
    }
    if (length.cap) value = std::min(value, *length.cap);
    return std::max(1LL, std::llround(std::min(value, 1e9)));
}

}  // namespace

std::string describe(const LengthDistribution& length) {
    std::string text;
    switch (length.kind) {
        case LengthDistribution::Kind::fixed: text = fmt::format("{:.0f}", length.first); break;
        case LengthDistribution::Kind::uniform: text = fmt::format("uniform {:.0f}-{:.0f}", length.first, length.second); break;
        case LengthDistribution::Kind::normal: text = fmt::format("normal {:.0f} sd {:.0f}", length.first, length.second); break;
        case LengthDistribution::Kind::lognormal:
            text = fmt::format("lognormal {:.0f} sd {:.0f}", length.first, length.second);
            break;
    }
    // The cap is named where it binds: where it moves the mean by more than 0.1% (a context cap far
    // above every likely draw is not news).
    if (length.cap && length.mean() < 0.999 * length.uncapped_mean()) text += fmt::format(" capped at {:.0f}", *length.cap);
    return text;
}

LengthDistribution dataset_lengths(double mean) {
    LengthDistribution length;
    length.kind = LengthDistribution::Kind::lognormal;
    length.first = mean;
    length.second = mean * kDatasetLengthCv;
    return length;
}

namespace {

// A request's lengths from the stream's distributions, truncated to the model's context: the
// output first keeps room for one prompt token, then the prompt takes what is left.
Request draw_request(const StreamSpec& spec, std::mt19937_64& random) {
    Request request;
    request.prompt_tokens = draw(spec.prompt, random);
    request.output_tokens = draw(spec.output, random);
    if (spec.max_context > 0) {
        request.output_tokens = std::min(request.output_tokens, std::max(1LL, spec.max_context - 1));
        request.prompt_tokens = std::max(1LL, std::min(request.prompt_tokens, spec.max_context - request.output_tokens));
    }
    return request;
}

// One of the shared prefixes, or -1: drawn for each request (each conversation) that may start with one.
long long draw_prefix_group(const StreamSpec& spec, std::mt19937_64& random) {
    if (spec.prefix_fraction <= 0.0 || core::uniform_unit(random) >= spec.prefix_fraction) return -1;
    return static_cast<long long>(core::uniform_unit(random) * static_cast<double>(spec.prefix_groups));
}

// Block ids of generated conversations lie above any trace's (Mooncake's are at most 2^53): block
// `index` of conversation `chain` counts from kConversationBlocks, of shared prefix `chain` from
// kSharedPrefixBlocks, each chain with room for kBlocksPerChain blocks.
constexpr long long kConversationBlocks = 1LL << 60;
constexpr long long kSharedPrefixBlocks = 1LL << 61;
constexpr long long kBlocksPerChain = 1LL << 24;

// The turns of conversations: each later turn's prompt is the conversation so far and the user's
// next message; its whole blocks are named by the conversation (or, under a shared prefix, by the
// prefix's group) and their position (Request::chain_base), so a turn's chain starts with the
// previous turn's.
std::vector<Request> generate_conversations(const StreamSpec& spec, std::mt19937_64& random) {
    const Conversations& talk = *spec.conversations;
    std::vector<Request> requests;
    requests.reserve(static_cast<std::size_t>(spec.requests));
    const double shape = spec.arrivals.kind == Arrivals::Kind::gamma ? spec.arrivals.burstiness : 1.0;
    const double start_rate = spec.arrivals.rate_per_s / std::max(1.0, talk.turns.mean());
    const double gap_scale = 1.0 / (shape * start_rate);
    const long long block = talk.block_tokens;
    // No conversation grows past the model's context, nor past its chain's ids.
    const long long context_limit = std::min(spec.max_context > 0 ? spec.max_context : kBlocksPerChain * block,
                                             kBlocksPerChain * block);
    double time = 0.0;
    for (long long conversation = 0; static_cast<long long>(requests.size()) < spec.requests; ++conversation) {
        if (conversation > 0) time += core::gamma(random, shape, gap_scale);
        const long long turns = draw(talk.turns, random);
        const long long group = draw_prefix_group(spec, random);
        long long context = 0;  // the conversation's tokens before this turn's message
        for (long long turn = 0; turn < turns && static_cast<long long>(requests.size()) < spec.requests; ++turn) {
            Request request;
            if (turn == 0) {
                request = draw_request(spec, random);
                request.arrival_s = time;
            } else {
                request.prompt_tokens = context + draw(talk.follow_up, random);
                request.output_tokens = draw(spec.output, random);
                if (request.prompt_tokens + request.output_tokens > context_limit) break;
                request.follows = static_cast<long long>(requests.size()) - 1;
                request.think_s = talk.think_time_s;
            }
            // The conversation's chain, its first blocks the shared prefix's when it opens with one.
            request.chain_base = kConversationBlocks + conversation * kBlocksPerChain;
            if (group >= 0) {
                request.shared_base = kSharedPrefixBlocks + group * kBlocksPerChain;
                request.shared_blocks = std::min(spec.prefix_tokens, request.prompt_tokens) / block;
            }
            request.block_tokens = block;
            context = request.prompt_tokens + request.output_tokens;
            requests.push_back(std::move(request));
        }
    }
    return requests;
}

}  // namespace

std::vector<Request> generate_requests(const StreamSpec& spec) {
    std::mt19937_64 random(spec.seed);
    if (spec.conversations) return generate_conversations(spec, random);
    std::vector<Request> requests;
    requests.reserve(static_cast<std::size_t>(spec.requests));
    const double shape = spec.arrivals.kind == Arrivals::Kind::gamma ? spec.arrivals.burstiness : 1.0;
    // Gaps with mean 1/rate: exponential for Poisson, gamma(k, 1/(k rate)) for bursty traffic.
    // Every draw is core's, so a seed replays the same stream under any standard library.
    const double gap_scale = 1.0 / (shape * spec.arrivals.rate_per_s);
    double time = 0.0;
    for (long long i = 0; i < spec.requests; ++i) {
        if (i > 0) time += core::gamma(random, shape, gap_scale);
        Request request = draw_request(spec, random);
        request.arrival_s = time;
        if (const long long group = draw_prefix_group(spec, random); group >= 0) {
            request.prefix_id = group;
            request.prefix_tokens = std::min(spec.prefix_tokens, request.prompt_tokens);
        }
        requests.push_back(request);
    }
    return requests;
}

}  // namespace decodesim::workload
