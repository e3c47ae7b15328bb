#include "engine/cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "engine/model_shape.hpp"

namespace decodesim::engine {
namespace {

using core::TensorRole;

// Adds a matrix of `params` parameters (on this device) stored at `bits` per weight.
void add_matrix(WeightGroup& group, double params, double bits) {
    group.params += params;
    group.bytes += core::Bytes(params * bits / 8.0);
}

}  // namespace

double causal_pairs(double start, double tokens, double window) {
    // Token at position q (1-based) attends to q keys, or min(q, window) on a sliding layer.
    const double end = start + tokens;
    auto full_upto = [](double n) { return n * (n + 1.0) / 2.0; };
    if (window <= 0.0 || end <= window) return full_upto(end) - full_upto(start);
    if (start >= window) return tokens * window;
    return full_upto(window) - full_upto(start) + (end - window) * window;
}

double expected_distinct_experts(double experts, double per_token, double tokens) {
    if (experts <= 0.0) return 0.0;
    // log1p keeps the power accurate when k/E is tiny and the token count is huge.
    return experts * -std::expm1(tokens * std::log1p(-per_token / experts));
}

double CostModel::attended_tokens(double context) const {
    const double sliding_context = window > 0.0 ? std::min(context, window) : context;
    return full_attention_layers * context + sliding_layers * sliding_context;
}

core::Bytes CostModel::kv_bytes_per_sequence(double context) const {
    return attended_tokens(context) * kv_bytes_per_token_per_layer;
}

core::Bytes CostModel::weight_bytes() const {
    return qkv.bytes + output.bytes + mlp.bytes + router.bytes + shared_experts.bytes + lm_head.bytes +
           expert.bytes * routed_experts + norms_weight_bytes + embedding_table_bytes;
}

CostModel build_cost_model(const profiles::ModelProfile& model, const Deployment& deployment) {
    const int tp = deployment.parallelism.tensor;
    const core::WeightFormat& format = *deployment.weights;

    CostModel cost;
    cost.tensor_parallel = tp;
    cost.layers = model.num_hidden_layers;
    cost.hidden_size = static_cast<double>(model.hidden_size);
    cost.activation_bytes = core::Bytes(core::datatype_bytes(deployment.activation));

    const double hidden = cost.hidden_size;
    const double heads = static_cast<double>(model.num_attention_heads) / tp;
    const double kv_heads = model.num_key_value_heads >= tp ? static_cast<double>(model.num_key_value_heads) / tp : 1.0;
    const double head_dim = static_cast<double>(model.head_dim);
    const double kv_element_bytes = deployment.kv->bytes_per_element;
    const bool gated = model.gated_mlp;
    const int experts = model.moe ? model.moe->n_routed_experts : 0;

    cost.query_heads = heads;
    if (model.mla) {
        const auto& mla = *model.mla;
        const double latent = static_cast<double>(mla.kv_lora_rank + mla.qk_rope_head_dim);
        // Decode absorbs the up-projections, so attention runs over the latent cache, which every
        // device holds whole (it is shared by all heads).
        cost.latent_cache = true;
        cost.kv_bytes_per_token_per_layer = core::Bytes(latent * kv_element_bytes);
        cost.score_width = latent;
        cost.value_width = static_cast<double>(mla.kv_lora_rank);
        cost.prefill_score_width = static_cast<double>(mla.qk_nope_head_dim + mla.qk_rope_head_dim);
        cost.prefill_value_width = static_cast<double>(mla.v_head_dim);
        cost.query_key_value_width =
            heads * static_cast<double>(mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim) * 2.0 + latent;
    } else {
        cost.kv_bytes_per_token_per_layer = core::Bytes(2.0 * kv_heads * head_dim * kv_element_bytes);
        cost.score_width = head_dim;
        cost.value_width = head_dim;
        cost.prefill_score_width = head_dim;
        cost.prefill_value_width = head_dim;
        cost.query_key_value_width = 2.0 * heads * head_dim + 2.0 * kv_heads * head_dim;
    }
    if (model.sliding_window) cost.window = static_cast<double>(model.sliding_window->window);

    const double norm_bits = 16.0;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) {
        const core::LayerContext context{layer, model.num_hidden_layers,
                                         model.num_attention_heads / std::max(1, model.num_key_value_heads), experts};
        auto bits = [&](TensorRole role) { return core::tensor_bits(format, role, context); };

        if (is_sliding_layer(model, layer)) {
            ++cost.sliding_layers;
        } else {
            ++cost.full_attention_layers;
        }

        if (model.mla) {
            const auto& mla = *model.mla;
            const double q_lora = static_cast<double>(mla.q_lora_rank);
            const double kv_lora = static_cast<double>(mla.kv_lora_rank);
            const double qk_head = static_cast<double>(mla.qk_nope_head_dim + mla.qk_rope_head_dim);
            if (q_lora > 0) {
                add_matrix(cost.qkv, hidden * q_lora, bits(TensorRole::attn_q));  // replicated down-projection
                add_matrix(cost.qkv, q_lora * heads * qk_head, bits(TensorRole::attn_q));
            } else {
                add_matrix(cost.qkv, hidden * heads * qk_head, bits(TensorRole::attn_q));
            }
            add_matrix(cost.qkv, hidden * (kv_lora + static_cast<double>(mla.qk_rope_head_dim)), bits(TensorRole::attn_k));
            add_matrix(cost.qkv, kv_lora * heads * static_cast<double>(mla.qk_nope_head_dim + mla.v_head_dim),
                       bits(TensorRole::attn_v));
            add_matrix(cost.output, heads * static_cast<double>(mla.v_head_dim) * hidden, bits(TensorRole::attn_output));
            cost.qkv.activation_width += hidden + heads * qk_head + kv_lora;
            cost.output.activation_width += heads * static_cast<double>(mla.v_head_dim) + hidden;
        } else {
            add_matrix(cost.qkv, hidden * heads * head_dim, bits(TensorRole::attn_q));
            add_matrix(cost.qkv, hidden * kv_heads * head_dim, bits(TensorRole::attn_k));
            add_matrix(cost.qkv, hidden * kv_heads * head_dim, bits(TensorRole::attn_v));
            add_matrix(cost.output, heads * head_dim * hidden, bits(TensorRole::attn_output));
            cost.qkv.activation_width += hidden + heads * head_dim + 2.0 * kv_heads * head_dim;
            cost.output.activation_width += heads * head_dim + hidden;
        }
        cost.qkv.layers += 1;
        cost.output.layers += 1;

        // A gated MLP has gate and up (2 matrices of H x I) and down (I x H); a plain one up and down.
        auto add_mlp = [&](WeightGroup& group, double intermediate) {
            const double per_device = intermediate / tp;
            add_matrix(group, (gated ? 2.0 : 1.0) * hidden * per_device, bits(TensorRole::mlp_gate_up));
            add_matrix(group, per_device * hidden, bits(TensorRole::mlp_down));
            group.activation_width += 2.0 * hidden + (gated ? 3.0 : 2.0) * per_device;
            group.layers += 2;  // two kernels: gate/up, down
        };
        if (is_moe_layer(model, layer)) {
            const auto& moe = *model.moe;
            ++cost.moe_layers;
            add_mlp(cost.expert, static_cast<double>(moe.moe_intermediate_size));
            add_matrix(cost.router, hidden * experts, bits(TensorRole::router));
            cost.router.activation_width += hidden + experts;
            cost.router.layers += 1;
            for (int shared = 0; shared < moe.n_shared_experts; ++shared) {
                add_mlp(cost.shared_experts, static_cast<double>(moe.shared_expert_intermediate_size));
            }
        } else {
            add_mlp(cost.mlp, static_cast<double>(model.intermediate_size));
        }
        cost.norms_weight_bytes += core::Bytes(2.0 * hidden * norm_bits / 8.0);
    }
    cost.norms_weight_bytes += core::Bytes(hidden * norm_bits / 8.0);  // final norm
    if (model.moe) {
        cost.routed_experts = experts;
        cost.experts_per_token = model.moe->num_experts_per_tok;
    }

    // Vocabulary-parallel embedding and lm_head. A tied model's single matrix is quantized like an
    // output matrix (llama.cpp treats token_embd as the output when there is no separate one).
    const core::LayerContext last{model.num_hidden_layers - 1, model.num_hidden_layers, 1, experts};
    const double vocabulary = static_cast<double>(model.vocab_size) / tp;
    const double lm_head_bits = core::tensor_bits(format, TensorRole::lm_head, last);
    const double embedding_bits =
        model.tie_word_embeddings ? lm_head_bits : core::tensor_bits(format, TensorRole::embedding, last);
    cost.embedding_row_bytes = core::Bytes(hidden * embedding_bits / 8.0);
    cost.embedding_table_bytes = core::Bytes(model.tie_word_embeddings ? 0.0 : vocabulary * hidden * embedding_bits / 8.0);
    add_matrix(cost.lm_head, vocabulary * hidden, lm_head_bits);
    cost.lm_head.activation_width = hidden + vocabulary;
    cost.lm_head.layers = 1;
    return cost;
}

bool operator_shown(const OperatorInfo& info, const CostModel& cost) {
    switch (info.shown) {
        case ShownWhen::always: return true;
        case ShownWhen::dense_mlp: return cost.mlp.params > 0.0;
        case ShownWhen::moe: return cost.moe_layers > 0;
        case ShownWhen::shared_experts: return cost.shared_experts.params > 0.0;
        case ShownWhen::tensor_parallel: return cost.tensor_parallel > 1;
    }
    return true;
}

namespace {

using core::Bytes;
using core::Flops;

// A weight group read once for the whole batch of `tokens` tokens.
OperatorCost linear_cost(const WeightGroup& group, double tokens, Bytes activation_bytes) {
    return {Flops(2.0 * tokens * group.params), group.bytes + activation_bytes * (tokens * group.activation_width),
            group.layers, 0.0};
}

// Every operator but attention: the same for decode and prefill, given the tokens in the pass
// and the sequences whose newest position needs logits.
void add_common_costs(StepCosts& step, const CostModel& cost, double tokens, double sequences) {
    const Bytes act = cost.activation_bytes;
    step[OperatorKind::embedding] = {Flops(), cost.embedding_row_bytes * (tokens / cost.tensor_parallel), 1.0, 0.0};
    step[OperatorKind::qkv_projection] = linear_cost(cost.qkv, tokens, act);
    step[OperatorKind::output_projection] = linear_cost(cost.output, tokens, act);
    step[OperatorKind::mlp] = linear_cost(cost.mlp, tokens, act);
    step[OperatorKind::shared_experts] = linear_cost(cost.shared_experts, tokens, act);
    step[OperatorKind::router] = linear_cost(cost.router, tokens, act);
    step[OperatorKind::kv_write] = {Flops(), cost.kv_bytes_per_token_per_layer * (tokens * cost.layers), cost.layers,
                                    0.0};

    if (cost.moe_layers > 0) {
        const double distinct = expected_distinct_experts(cost.routed_experts, cost.experts_per_token, tokens);
        const double routed_tokens = tokens * cost.experts_per_token;
        step[OperatorKind::experts] = {Flops(2.0 * routed_tokens * cost.expert.params),
                                       cost.expert.bytes * distinct + act * (routed_tokens * cost.expert.activation_width),
                                       cost.expert.layers, 0.0};
    } else {
        step[OperatorKind::experts] = {};
    }

    // Each norm reads and writes the hidden state; about 4 FLOPs per element (square, sum, scale, weight).
    const double norm_count = 2.0 * cost.layers + 1.0;
    step[OperatorKind::norms] = {Flops(4.0 * tokens * cost.hidden_size * norm_count),
                                 cost.norms_weight_bytes + act * (2.0 * tokens * cost.hidden_size * norm_count),
                                 norm_count, 0.0};

    // Logits are needed for one position per sequence: the newest.
    step[OperatorKind::lm_head] = linear_cost(cost.lm_head, sequences, act);

    // Two all-reduces of the hidden state per layer (after attention and after the MLP).
    const double messages = cost.tensor_parallel > 1 ? 2.0 * cost.layers : 0.0;
    step[OperatorKind::all_reduce] = {Flops(), act * (messages * tokens * cost.hidden_size), 0.0, messages};
}

}  // namespace

StepShape& StepShape::operator+=(const StepShape& other) {
    tokens += other.tokens;
    logits += other.logits;
    decode_attended += other.decode_attended;
    prefill_tokens += other.prefill_tokens;
    prefill_pairs += other.prefill_pairs;
    prefill_cached += other.prefill_cached;
    return *this;
}

StepShape decode_shape(const CostModel& cost, double batch, double context) {
    StepShape shape;
    shape.tokens = batch;
    shape.logits = batch;
    shape.decode_attended = batch * cost.attended_tokens(context);
    return shape;
}

StepShape prefill_shape(const CostModel& cost, double sequences, double start, double tokens, bool completes) {
    StepShape shape;
    shape.tokens = sequences * tokens;
    shape.logits = completes ? sequences : 0.0;
    shape.prefill_tokens = sequences * tokens;
    shape.prefill_pairs = sequences * (cost.full_attention_layers * causal_pairs(start, tokens, 0.0) +
                                       cost.sliding_layers * causal_pairs(start, tokens, cost.window));
    shape.prefill_cached = start > 0.0 ? sequences * cost.attended_tokens(start) : 0.0;
    return shape;
}

StepCosts step_costs(const CostModel& cost, const StepShape& shape) {
    StepCosts step;
    add_common_costs(step, cost, shape.tokens, shape.logits);
    // Decode attention reads each sequence's cache: the keys for the score, the values for the
    // product (MLA: the whole latent for the score, which the value product reuses on chip), with
    // the absorbed MLA widths. Prefill attention is fused (flash): it reads Q, K, V and writes O
    // once per layer, reads any earlier cache once, and runs MLA un-absorbed (per-head widths).
    const Bytes decode_cache = cost.kv_bytes_per_token_per_layer * shape.decode_attended;
    const Bytes prefill_traffic = cost.activation_bytes * (shape.prefill_tokens * cost.layers * cost.query_key_value_width) +
                                  cost.kv_bytes_per_token_per_layer * shape.prefill_cached;
    const double score_flops = 2.0 * cost.query_heads *
                               (cost.score_width * shape.decode_attended + cost.prefill_score_width * shape.prefill_pairs);
    const double value_flops = 2.0 * cost.query_heads *
                               (cost.value_width * shape.decode_attended + cost.prefill_value_width * shape.prefill_pairs);
    step[OperatorKind::attention_score] = {Flops(score_flops),
                                           (cost.latent_cache ? decode_cache : decode_cache * 0.5) + prefill_traffic,
                                           cost.layers, 0.0};
    step[OperatorKind::attention_value] = {Flops(value_flops), cost.latent_cache ? Bytes() : decode_cache * 0.5, 0.0,
                                           0.0};
    return step;
}

StepCosts decode_step_costs(const CostModel& cost, double batch, double context) {
    return step_costs(cost, decode_shape(cost, batch, context));
}

StepCosts prefill_costs(const CostModel& cost, double batch, double prompt) {
    return step_costs(cost, prefill_shape(cost, batch, 0.0, prompt));
}

}  // namespace decodesim::engine
