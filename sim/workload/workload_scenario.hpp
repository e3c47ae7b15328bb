#pragma once
// Named workload scenarios users plan in: prompt and output length distributions, an arrival
// pattern and latency targets, each from a public trace or benchmark definition
// (docs/scenarios.md; the arithmetic behind every figure in docs/evidence/scenarios.md).
// Explicit flags override any part of a scenario.

#include <optional>
#include <span>
#include <string_view>

#include "workload/request_stream.hpp"

namespace decodesim::workload {

struct WorkloadScenario {
    std::string_view name;
    std::string_view purpose;            // one line, for help and reports
    LengthDistribution prompt;           // tokens: the whole context a request brings
    LengthDistribution output;
    Arrivals::Kind arrivals = Arrivals::Kind::poisson;
    double burstiness = 1.0;             // gamma shape k (1: Poisson)
    std::optional<double> ttft_p99_s;
    std::optional<double> tpot_p99_s;
    std::optional<double> e2e_p99_s;     // total completion time
    std::optional<double> think_time_s;  // between a response and a closed-loop user's next request
    std::string_view source;             // the data behind it, short
};

std::span<const WorkloadScenario> workload_scenarios();

// The scenario called `name`; core::UsageError naming --scenario, with a suggestion, otherwise.
const WorkloadScenario& workload_scenario_named(std::string_view name);

}  // namespace decodesim::workload
