#pragma once
// The requests a serve run replays and the load its analytic steady state sees, assembled once
// from a resolved workload or a trace, and the targets a run is held to.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "workload/workload_choice.hpp"

namespace decodesim::serving {

struct ServedStream {
    std::vector<workload::Request> requests;  // sorted by arrival, the first at 0
    LoadShape load;                           // all replicas together: the stream's rate and mean lengths
    std::optional<LoadShape> uncapped_load;   // with max_output: the same load without the cap
    // For the report: "poisson at 5/s", "lognormal 1000 sd 500", "trace FILE (3.2/s)".
    std::string arrivals;
    std::string prompt;
    std::string output;
};

// A generated stream: `stream` gives the rate, count, seed and shared prefixes; `workload` the
// lengths, arrivals and the model's context (which truncates prompts).
ServedStream generated_stream(const workload::ResolvedWorkload& workload, workload::StreamSpec stream,
                              std::optional<long long> max_output);

// Arrivals that all fall within this span are one burst, with no rate: a rate from a shorter span
// (two requests 1e-308 s apart: 1e308 a second) measures the clock's resolution, not a load. No
// trace layout clocks finer than 0.1 us (Azure's seven decimals), and a server's step takes
// milliseconds, so moving such arrivals together by under a microsecond changes no figure.
inline constexpr double kBurstSpan_s = 1e-6;

// A trace's rows replayed as recorded, moved so the first arrives at 0; `name` labels it. Rows
// whose arrivals span less than kBurstSpan_s all arrive at 0, a burst (its load's rate is then
// the request count a second).
ServedStream replayed_stream(std::vector<workload::Request> rows, std::string_view name);

// The squared coefficients of variation of `requests`' output and prompt lengths: 0 when they are
// all one length.
double output_lengths_cv2(const std::vector<workload::Request>& requests);
double prompt_lengths_cv2(const std::vector<workload::Request>& requests);

// The squared coefficient of variation of the gaps between `requests`' arrivals (sorted): 1 for
// Poisson arrivals, more for bursts; 1 when there is no gap to measure.
double arrival_gaps_cv2(const std::vector<workload::Request>& requests);

// "conversations of 4 turns", "... 5 s apart" (the think time between turns).
std::string describe_conversations(const workload::Conversations& talk);

// "closed loop of 32 clients", "... thinking 5 s".
std::string describe_closed_loop(const ClosedLoop& loop);

// Each target: the flag's, else the scenario's p99 target, else none.
ServiceTargets service_targets(const workload::WorkloadScenario* scenario, std::optional<double> ttft_s,
                               std::optional<double> tpot_s, std::optional<double> e2e_s);

}  // namespace decodesim::serving
