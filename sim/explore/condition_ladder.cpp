#include "explore/condition_ladder.hpp"

#include <fmt/format.h>

#include "core/registry.hpp"
#include "engine/efficiency.hpp"

namespace decodesim::explore {

namespace {

// Unstated weights are the checkpoint's format, else bf16: the resolver's own default
// (engine::resolve_deployment), named here for the step labels.
const core::WeightFormat& weights_of(const LadderConditions& conditions, const profiles::ModelProfile& model) {
    if (conditions.weights != nullptr) return *conditions.weights;
    if (model.checkpoint_weights != nullptr) return *model.checkpoint_weights;
    return *core::find_named(core::weight_formats(), "bf16");
}

std::string clocks_text(const engine::ClockChoice& clocks) {
    if (clocks.power_limit) return fmt::format("sustained at {:g} W", clocks.power_limit->value);
    return engine::clock_condition_name(clocks.condition);
}

bool same_clocks(const engine::ClockChoice& a, const engine::ClockChoice& b) {
    return a.condition == b.condition && a.power_limit == b.power_limit;
}

LadderStep evaluate(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                    engine::DeploymentChoice choice, const LadderConditions& conditions, std::string change) {
    LadderStep step;
    step.change = std::move(change);
    step.conditions = conditions;
    choice.weights = &weights_of(conditions, model);
    choice.clocks = conditions.clocks;  // the KV format and activation stay the user's (or their defaults)
    step.deployment = engine::resolve_deployment(hardware, model, choice);
    const engine::Evaluator evaluator(model, hardware, step.deployment);
    const engine::Prediction prediction =
        evaluator.predict(engine::Workload::step(conditions.batch, conditions.context), engine::Detail::figures);
    step.tokens_per_s_per_stream = prediction.decode.tokens_per_s_per_stream;
    const engine::EfficiencyBand band =
        engine::efficiency_band(engine::deployment_efficiency(hardware, step.deployment));
    const auto per_stream = [&](const engine::Efficiency& efficiency) {
        return engine::Evaluator(model, hardware, step.deployment, efficiency)
            .predict(engine::Workload::step(conditions.batch, conditions.context), engine::Detail::figures)
            .decode.tokens_per_s_per_stream;
    };
    step.tokens_per_s_per_stream_low = per_stream(band.low);
    step.tokens_per_s_per_stream_high = per_stream(band.high);
    step.tokens_per_s_total = prediction.decode.tokens_per_s_total;
    step.ttft = prediction.ttft;
    step.bound = prediction.decode.bound;
    step.fits = prediction.memory.fits;
    return step;
}

}  // namespace

std::vector<LadderStep> condition_ladder(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                                         const engine::DeploymentChoice& base, const LadderConditions& vendor,
                                         const LadderConditions& mine) {
    std::vector<LadderStep> steps;
    LadderConditions at = vendor;
    steps.push_back(evaluate(hardware, model, base, at, "the vendor's conditions"));
    if (&weights_of(vendor, model) != &weights_of(mine, model)) {
        at.weights = mine.weights;
        steps.push_back(evaluate(hardware, model, base, at,
                                 fmt::format("weights {} -> {}", weights_of(vendor, model).name, weights_of(mine, model).name)));
    }
    if (vendor.context != mine.context) {
        at.context = mine.context;
        steps.push_back(evaluate(hardware, model, base, at,
                                 fmt::format("context {:.0f} -> {:.0f} tokens", vendor.context, mine.context)));
    }
    if (vendor.batch != mine.batch) {
        at.batch = mine.batch;
        steps.push_back(evaluate(hardware, model, base, at,
                                 fmt::format("concurrency {:.0f} -> {:.0f} streams", vendor.batch, mine.batch)));
    }
    if (!same_clocks(vendor.clocks, mine.clocks)) {
        at.clocks = mine.clocks;
        steps.push_back(evaluate(hardware, model, base, at,
                                 fmt::format("clocks {} -> {}", clocks_text(vendor.clocks), clocks_text(mine.clocks))));
    }
    return steps;
}

}  // namespace decodesim::explore
