#include "serving/served_stream.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace decodesim::serving {

ServedStream generated_stream(const workload::ResolvedWorkload& workload, workload::StreamSpec stream,
                              std::optional<long long> max_output) {
    stream.arrivals.kind = workload.arrivals;
    stream.arrivals.burstiness = workload.burstiness;
    stream.prompt = workload.prompt;
    stream.output = workload.output;
    stream.max_context = workload.max_context;
    ServedStream served;
    served.requests = workload::generate_requests(stream);
    served.load.rate_per_s = stream.arrivals.rate_per_s;
    served.load.prompt_tokens = workload.prompt.mean();
    served.load.output_tokens = workload.output.mean();
    served.load.arrival_cv2 = workload.arrival_cv2();
    served.load.output_cv2 = output_lengths_cv2(served.requests);
    served.load.prompt_cv2 = prompt_lengths_cv2(served.requests);
    if (max_output) {
        served.uncapped_load = served.load;
        served.uncapped_load->output_tokens = workload.uncapped_output_mean;
    }
    served.arrivals = workload::describe_arrivals(workload.arrivals, workload.burstiness, stream.arrivals.rate_per_s);
    served.prompt = workload::describe(workload.prompt);
    served.output = workload::describe(workload.output);
    if (stream.conversations) {
        // A later turn's prompt is the conversation so far: the load sees the prompts as sent.
        // A later turn finds the turn before it in the cache: that turn's prompt and reply blocks.
        double prompt_sum = 0.0, cached_sum = 0.0;
        for (const auto& request : served.requests) {
            prompt_sum += static_cast<double>(request.prompt_tokens);
            if (request.follows < 0) continue;
            const auto& before = served.requests[static_cast<std::size_t>(request.follows)];
            // Its prompt and reply but the last token, in whole blocks.
            cached_sum += static_cast<double>((before.prompt_tokens + before.output_tokens - 1) / before.block_tokens *
                                              before.block_tokens);
        }
        served.load.prompt_tokens = prompt_sum / static_cast<double>(served.requests.size());
        served.load.cached_prompt_tokens = cached_sum / static_cast<double>(served.requests.size());
        served.prompt = fmt::format("{} first, then the conversation and {} more a turn (mean {:.0f}, {:.0f} of it cached)",
                                    served.prompt, workload::describe(stream.conversations->follow_up),
                                    served.load.prompt_tokens, served.load.cached_prompt_tokens);
        served.arrivals = describe_conversations(*stream.conversations) + ", " + served.arrivals;
    }
    return served;
}

ServedStream replayed_stream(std::vector<workload::Request> rows, std::string_view name) {
    ServedStream served;
    served.requests = std::move(rows);
    std::stable_sort(served.requests.begin(), served.requests.end(),
                     [](const auto& a, const auto& b) { return a.arrival_s < b.arrival_s; });
    const double origin = served.requests.front().arrival_s;
    const bool burst = served.requests.back().arrival_s - origin < kBurstSpan_s;
    double prompt_sum = 0.0, output_sum = 0.0;
    for (auto& request : served.requests) {
        request.arrival_s = burst ? 0.0 : request.arrival_s - origin;
        prompt_sum += static_cast<double>(request.prompt_tokens);
        output_sum += static_cast<double>(request.output_tokens);
    }
    const double count = static_cast<double>(served.requests.size());
    const double span = served.requests.back().arrival_s;
    // n arrivals span n - 1 gaps; a trace whose requests all arrive at once is a burst of n per second.
    served.load.rate_per_s = span > 0.0 ? (count - 1.0) / span : count;
    served.load.prompt_tokens = prompt_sum / count;
    served.load.output_tokens = output_sum / count;
    // The steady state beside a replay waits as the trace's gaps vary, not as Poisson arrivals.
    served.load.arrival_cv2 = arrival_gaps_cv2(served.requests);
    served.load.output_cv2 = output_lengths_cv2(served.requests);
    served.load.prompt_cv2 = prompt_lengths_cv2(served.requests);
    served.arrivals = fmt::format("trace {} ({:.3g}/s)", name, served.load.rate_per_s);
    served.prompt = fmt::format("trace (mean {:.0f})", served.load.prompt_tokens);
    served.output = fmt::format("trace (mean {:.0f})", served.load.output_tokens);
    return served;
}

namespace {

// The squared coefficient of variation of `values`, the population variance over the squared mean;
// `otherwise` where there are none or their mean is not positive.
double squared_variation(const std::vector<double>& values, double otherwise) {
    if (values.empty()) return otherwise;
    double mean = 0.0;
    for (double value : values) mean += value;
    mean /= static_cast<double>(values.size());
    if (!(mean > 0.0)) return otherwise;
    double variance = 0.0;
    for (double value : values) variance += (value - mean) * (value - mean);
    variance /= static_cast<double>(values.size());
    return variance / (mean * mean);
}

template <typename Length>
double lengths_cv2(const std::vector<workload::Request>& requests, Length length) {
    std::vector<double> lengths;
    lengths.reserve(requests.size());
    for (const auto& request : requests) lengths.push_back(static_cast<double>(length(request)));
    return squared_variation(lengths, 0.0);
}

}  // namespace

double output_lengths_cv2(const std::vector<workload::Request>& requests) {
    return lengths_cv2(requests, [](const workload::Request& r) { return r.output_tokens; });
}

double prompt_lengths_cv2(const std::vector<workload::Request>& requests) {
    return lengths_cv2(requests, [](const workload::Request& r) { return r.prompt_tokens; });
}

double arrival_gaps_cv2(const std::vector<workload::Request>& requests) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < requests.size(); ++i) gaps.push_back(requests[i].arrival_s - requests[i - 1].arrival_s);
    return squared_variation(gaps, 1.0);
}

std::string describe_conversations(const workload::Conversations& talk) {
    return fmt::format("conversations of {} turns{}", workload::describe(talk.turns),
                       talk.think_time_s > 0.0 ? fmt::format(" {:g} s apart", talk.think_time_s) : std::string());
}

std::string describe_closed_loop(const ClosedLoop& loop) {
    std::string text = fmt::format("closed loop of {} client{}", loop.clients, loop.clients == 1 ? "" : "s");
    if (loop.think_time_s > 0.0) text += fmt::format(" thinking {:g} s", loop.think_time_s);
    return text;
}

ServiceTargets service_targets(const workload::WorkloadScenario* scenario, std::optional<double> ttft_s,
                               std::optional<double> tpot_s, std::optional<double> e2e_s) {
    return {ttft_s ? ttft_s : scenario ? scenario->ttft_p99_s : std::nullopt,
            tpot_s ? tpot_s : scenario ? scenario->tpot_p99_s : std::nullopt,
            e2e_s ? e2e_s : scenario ? scenario->e2e_p99_s : std::nullopt};
}

}  // namespace decodesim::serving
