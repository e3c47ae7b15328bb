#include "workload/workload_scenario.hpp"

#include <array>

#include "core/registry.hpp"

namespace decodesim::workload {

namespace {

constexpr LengthDistribution lognormal(double mean, double sd) {
    return LengthDistribution{LengthDistribution::Kind::lognormal, mean, sd, std::nullopt};
}

// Lognormals are moment-matched to the published mean and standard deviation of each trace
// (docs/evidence/scenarios.md shows the arithmetic and checks the fitted percentiles).
const std::array<WorkloadScenario, 5> kScenarios{{
    {"chat", "interactive chat: low time to first token, steady streaming",
     lognormal(1155, 1109), lognormal(211, 163), Arrivals::Kind::gamma, 0.83,
     0.45, 0.04, std::nullopt, std::nullopt,
     "Azure LLM inference trace 2023, conversation (19,366 requests); MLPerf llama2-70b-interactive limits"},
    {"code", "code assistant: short latency; completion-style outputs (the only public production code trace)",
     lognormal(2048, 1974), lognormal(28, 60), Arrivals::Kind::gamma, 0.11,
     0.5, 0.03, std::nullopt, std::nullopt,
     "Azure LLM inference trace 2023, code; MLPerf llama3.1-8b-interactive limits"},
    {"summarize", "long-document summarization: long prompts, total completion time matters",
     lognormal(10892, 5446), lognormal(153, 77), Arrivals::Kind::poisson, 1.0,
     6.0, 0.175, 20.0, std::nullopt,
     "LongBench GovReport lengths; MLPerf CNN/DailyMail summary length; MLPerf llama3.1-405b and GPT-J limits"},
    {"agent", "coding-agent calls: very long contexts, tool waits between calls",
     lognormal(153712, 124279), lognormal(523, 1168), Arrivals::Kind::poisson, 1.0,
     30.0, 0.1, std::nullopt, 16.8,
     "TraceLab coding-agent trace (357,161 calls); Mooncake latency thresholds"},
    {"batch", "offline batch: total throughput and cost per token, a 24-hour window",
     lognormal(1155, 1109), lognormal(294, 147), Arrivals::Kind::poisson, 1.0,
     std::nullopt, std::nullopt, 86400.0, std::nullopt,
     "MLPerf llama2-70b output length; Azure 2023 conversation prompts; batch APIs' 24 h window"},
}};

}  // namespace

std::span<const WorkloadScenario> workload_scenarios() { return kScenarios; }

const WorkloadScenario& workload_scenario_named(std::string_view name) {
    return core::named_or_throw(kScenarios, name, "--scenario", "scenario");
}

}  // namespace decodesim::workload
