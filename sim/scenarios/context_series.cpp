#include "scenarios/context_series.hpp"

namespace decodesim::scenarios {

Eigen::ArrayXd decode_step_times(const engine::Evaluator& evaluator, double batch, const Eigen::ArrayXd& contexts) {
    using engine::OperatorKind;
    const engine::CostModel& cost = evaluator.cost_model();
    const engine::DeviceRates& rates = evaluator.rates();

    // Everything but attention is independent of the context: take it from one scalar evaluation.
    const engine::StepTime at_one = evaluator.decode_step(batch, 1.0);
    const auto& score_one = at_one.operators[static_cast<std::size_t>(OperatorKind::attention_score)];
    const auto& value_one = at_one.operators[static_cast<std::size_t>(OperatorKind::attention_value)];
    const double rest = at_one.time_s - score_one.time_s - value_one.time_s;

    const Eigen::ArrayXd sliding_context = cost.window > 0.0 ? contexts.min(cost.window) : contexts;
    const Eigen::ArrayXd attended = cost.full_attention_layers * contexts + cost.sliding_layers * sliding_context;
    const Eigen::ArrayXd cache_bytes = batch * cost.kv_bytes_per_token_per_layer * attended;
    const double query_heads = batch * cost.query_heads;

    const Eigen::ArrayXd score_compute = 2.0 * query_heads * cost.score_width * attended / rates.activation_ops_per_s;
    const Eigen::ArrayXd score_memory = (cost.latent_cache ? 1.0 : 0.5) * cache_bytes / rates.attention_memory_bandwidth;
    const Eigen::ArrayXd value_compute = 2.0 * query_heads * cost.value_width * attended / rates.activation_ops_per_s;
    const Eigen::ArrayXd value_memory = (cost.latent_cache ? 0.0 : 0.5) * cache_bytes / rates.attention_memory_bandwidth;

    return rest + score_one.overhead_s + value_one.overhead_s + score_compute.max(score_memory) +
           value_compute.max(value_memory);
}

}  // namespace decodesim::scenarios
