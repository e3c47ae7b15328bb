#include "workload/workload_choice.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace decodesim::workload {

namespace {

// The lengths when neither a flag nor a scenario gives one (docs/cli.md).
constexpr double kDefaultPromptTokens = 1000.0;
constexpr double kDefaultOutputTokens = 200.0;

LengthDistribution fixed(double tokens) { return LengthDistribution{LengthDistribution::Kind::fixed, tokens, 0.0, std::nullopt}; }

}  // namespace

ResolvedWorkload resolve_workload(const WorkloadChoice& choice, std::optional<long long> model_context) {
    const WorkloadScenario* scenario = choice.scenario;
    ResolvedWorkload resolved;
    resolved.prompt = choice.prompt ? *choice.prompt : scenario ? scenario->prompt : fixed(kDefaultPromptTokens);
    resolved.output = choice.output ? *choice.output : scenario ? scenario->output : fixed(kDefaultOutputTokens);
    resolved.uncapped_output_mean = resolved.output.mean();
    if (choice.max_output) resolved.output.cap = static_cast<double>(*choice.max_output);
    resolved.asked_context_mean = resolved.prompt.mean() + resolved.output.mean();
    // Prompts longer than the model's context are truncated so that the mean output still fits, as
    // agent frameworks compact their context (docs/scenarios.md).
    if (model_context) {
        resolved.max_context = *model_context;
        resolved.prompt.cap = std::max(1.0, static_cast<double>(*model_context) - resolved.output.mean());
    }
    resolved.arrivals = choice.arrivals ? *choice.arrivals : scenario ? scenario->arrivals : Arrivals::Kind::poisson;
    resolved.burstiness = choice.burstiness.value_or(scenario ? scenario->burstiness : 1.0);
    resolved.think_time_s = choice.think_time_s.value_or(scenario && scenario->think_time_s ? *scenario->think_time_s : 0.0);
    return resolved;
}

std::string describe_arrivals(Arrivals::Kind kind, double burstiness, std::optional<double> rate_per_s) {
    std::string text(core::name_of(Arrivals::kKindNames, kind));
    if (kind == Arrivals::Kind::gamma) text += fmt::format(" (burstiness {:g})", burstiness);
    if (rate_per_s) text += fmt::format(" at {:g}/s", *rate_per_s);
    return text;
}

}  // namespace decodesim::workload
