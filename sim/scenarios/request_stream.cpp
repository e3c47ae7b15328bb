#include "scenarios/request_stream.hpp"

#include <algorithm>
#include <cmath>
#include <random>


namespace decodesim::scenarios {

double LengthDistribution::mean() const {
    switch (kind) {
        case Kind::fixed: return first;
        case Kind::uniform: return (first + second) / 2.0;
        case Kind::normal:
        case Kind::lognormal: return first;
    }
    return first;
}

namespace {

// One draw of a length, rounded to a whole token, at least 1.
long long draw(const LengthDistribution& length, std::mt19937_64& random) {
    double value = length.first;
    switch (length.kind) {
        case LengthDistribution::Kind::fixed: break;
        case LengthDistribution::Kind::uniform:
            value = std::uniform_real_distribution<double>(length.first, length.second + 1.0)(random);
            value = std::floor(value);
            break;
        case LengthDistribution::Kind::normal:
            value = std::normal_distribution<double>(length.first, length.second)(random);
            break;
        case LengthDistribution::Kind::lognormal: {
            // The log-space parameters whose distribution has this mean and standard deviation.
            const double variance_ratio = (length.second * length.second) / (length.first * length.first);
            const double sigma = std::sqrt(std::log1p(variance_ratio));
            const double mu = std::log(length.first) - sigma * sigma / 2.0;
            value = std::lognormal_distribution<double>(mu, sigma)(random);
            break;
        }
    }
    return std::max(1LL, std::llround(std::min(value, 1e9)));
}

}  // namespace

std::vector<Request> generate_requests(const StreamSpec& spec) {
    std::mt19937_64 random(spec.seed);
    std::vector<Request> requests;
    requests.reserve(static_cast<std::size_t>(spec.requests));
    const double shape = spec.arrivals.kind == Arrivals::Kind::gamma ? spec.arrivals.burstiness : 1.0;
    // Gaps with mean 1/rate: exponential for Poisson, gamma(k, 1/(k rate)) for bursty traffic.
    std::gamma_distribution<double> gap(shape, 1.0 / (shape * spec.arrivals.rate_per_s));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double time = 0.0;
    for (long long i = 0; i < spec.requests; ++i) {
        if (i > 0) time += gap(random);
        Request request;
        request.arrival_s = time;
        request.prompt_tokens = draw(spec.prompt, random);
        request.output_tokens = draw(spec.output, random);
        if (spec.prefix_fraction > 0.0 && unit(random) < spec.prefix_fraction) {
            request.prefix_id = static_cast<long long>(unit(random) * static_cast<double>(spec.prefix_groups));
            request.prefix_tokens = std::min(spec.prefix_tokens, request.prompt_tokens);
        }
        requests.push_back(request);
    }
    return requests;
}

}  // namespace decodesim::scenarios
