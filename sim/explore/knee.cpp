#include "explore/knee.hpp"

#include "engine/memory.hpp"
#include "core/search.hpp"

#include <cmath>

namespace decodesim::explore {

namespace {

double arithmetic_intensity(const engine::Evaluator& evaluator, double batch, double context) {
    const engine::StepCosts costs = engine::decode_step_costs(evaluator.cost_model(), batch, context);
    return costs.total_flops() / costs.total_bytes();
}

double machine_balance(const engine::Evaluator& evaluator) { return engine::machine_balance(evaluator.roofline_rates()); }

}  // namespace

std::optional<long long> compute_bound_batch(const engine::Evaluator& evaluator, double context) {
    const double balance = machine_balance(evaluator);
    return core::first_true(1, 1LL << 30, [&](long long batch) {
        return arithmetic_intensity(evaluator, static_cast<double>(batch), context) >= balance;
    });
}

std::optional<long long> matmul_compute_bound_batch(const engine::Evaluator& evaluator) {
    const double balance = machine_balance(evaluator);
    return core::first_true(1, 1LL << 30, [&](long long batch) {
        const engine::StepCosts costs = engine::decode_step_costs(evaluator.cost_model(), static_cast<double>(batch), 1.0);
        core::Flops flops;
        core::Bytes bytes;
        for (std::size_t i = 0; i < engine::kOperatorCount; ++i) {
            if (engine::kOperators[i].arithmetic != engine::ArithmeticClass::matmul) continue;
            flops += costs.operators[i].flops;
            bytes += costs.operators[i].bytes;
        }
        return flops / bytes >= balance;
    });
}

std::optional<double> kv_outweighs_weights_context(const engine::Evaluator& evaluator, double batch) {
    const engine::CostModel& cost = evaluator.cost_model();
    // Weight bytes streamed per step do not depend on the context; the KV reads do.
    const engine::StepCosts costs = engine::decode_step_costs(cost, batch, 1.0);
    const core::Bytes kv_at_one = cost.kv_bytes_per_sequence(1.0) * batch;
    const core::Bytes weights = costs.total_bytes() - kv_at_one - costs[engine::OperatorKind::kv_write].bytes;
    const auto found = core::first_true(1, 1LL << 40, [&](long long context) {
        return cost.kv_bytes_per_sequence(static_cast<double>(context)) * batch > weights;
    });
    if (!found) return std::nullopt;
    return static_cast<double>(*found);
}

std::optional<double> longest_context_that_fits(const engine::Evaluator& evaluator, double batch, double last_context) {
    const auto found = core::last_true(1, static_cast<long long>(last_context), [&](long long context) {
        return evaluator.memory(batch, static_cast<double>(context)).fits;
    });
    if (!found) return std::nullopt;
    return static_cast<double>(*found);
}

}  // namespace decodesim::explore
