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

std::vector<Request> generate_requests(const StreamSpec& spec) {
    std::mt19937_64 random(spec.seed);
    std::vector<Request> requests;
    requests.reserve(static_cast<std::size_t>(spec.requests));
    const double shape = spec.arrivals.kind == Arrivals::Kind::gamma ? spec.arrivals.burstiness : 1.0;
    // Gaps with mean 1/rate: exponential for Poisson, gamma(k, 1/(k rate)) for bursty traffic.
    // Every draw is core's, so a seed replays the same stream under any standard library.
    const double gap_scale = 1.0 / (shape * spec.arrivals.rate_per_s);
    double time = 0.0;
    for (long long i = 0; i < spec.requests; ++i) {
        if (i > 0) time += core::gamma(random, shape, gap_scale);
        Request request;
        request.arrival_s = time;
        request.prompt_tokens = draw(spec.prompt, random);
        request.output_tokens = draw(spec.output, random);
        if (spec.max_context > 0) {
            request.output_tokens = std::min(request.output_tokens, std::max(1LL, spec.max_context - 1));
            request.prompt_tokens = std::max(1LL, std::min(request.prompt_tokens, spec.max_context - request.output_tokens));
        }
        if (spec.prefix_fraction > 0.0 && core::uniform_unit(random) < spec.prefix_fraction) {
            request.prefix_id = static_cast<long long>(core::uniform_unit(random) * static_cast<double>(spec.prefix_groups));
            request.prefix_tokens = std::min(spec.prefix_tokens, request.prompt_tokens);
        }
        requests.push_back(request);
    }
    return requests;
}

}  // namespace decodesim::workload
