#include "engine/model_shape.hpp"

namespace decodesim::engine {

bool is_moe_layer(const ModelProfile& model, int layer) {
    if (!model.moe) return false;
    const auto& moe = *model.moe;
    return layer >= moe.first_k_dense_replace && layer % moe.moe_layer_freq == 0;
}

bool is_sliding_layer(const ModelProfile& model, int layer) {
    if (!model.sliding_window) return false;
    const int pattern = model.sliding_window->pattern;
    return pattern == 0 || (layer + 1) % pattern != 0;
}

int moe_layer_count(const ModelProfile& model) {
    int count = 0;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) count += is_moe_layer(model, layer) ? 1 : 0;
    return count;
}

int sliding_layer_count(const ModelProfile& model) {
    int count = 0;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) count += is_sliding_layer(model, layer) ? 1 : 0;
    return count;
}

double attention_parameters(const ModelProfile& model) {
    const double hidden = static_cast<double>(model.hidden_size);
    const double heads = model.num_attention_heads;
    if (model.mla) {
        const auto& mla = *model.mla;
        const double qk_head = static_cast<double>(mla.qk_nope_head_dim + mla.qk_rope_head_dim);
        const double q_lora = static_cast<double>(mla.q_lora_rank);
        const double kv_lora = static_cast<double>(mla.kv_lora_rank);
        // q: down + norm + up (or one direct projection); kv: down to latent + rope key, norm, up to heads; o.
        const double query = q_lora > 0 ? hidden * q_lora + q_lora + q_lora * heads * qk_head : hidden * heads * qk_head;
        const double key_value = hidden * (kv_lora + static_cast<double>(mla.qk_rope_head_dim)) + kv_lora +
                                 kv_lora * heads * static_cast<double>(mla.qk_nope_head_dim + mla.v_head_dim);
        const double output = heads * static_cast<double>(mla.v_head_dim) * hidden;
        return query + key_value + output;
    }
    const double head_dim = static_cast<double>(model.head_dim);
    return hidden * heads * head_dim + 2.0 * hidden * model.num_key_value_heads * head_dim + heads * head_dim * hidden;
}

double mlp_parameters(const ModelProfile& model, double intermediate_size) {
    return (model.gated_mlp ? 3.0 : 2.0) * static_cast<double>(model.hidden_size) * intermediate_size;
}

ParameterCount count_parameters(const ModelProfile& model) {
    const double hidden = static_cast<double>(model.hidden_size);
    const double embedding = static_cast<double>(model.vocab_size) * hidden;
    const double lm_head = model.tie_word_embeddings ? 0.0 : embedding;
    const double norms_per_layer = 2.0 * hidden;

    ParameterCount count;
    count.total = embedding + lm_head + hidden;  // + final norm
    count.active = embedding + lm_head + hidden;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) {
        const double shared = attention_parameters(model) + norms_per_layer;
        count.total += shared;
        count.active += shared;
        if (is_moe_layer(model, layer)) {
            const auto& moe = *model.moe;
            const double expert = mlp_parameters(model, static_cast<double>(moe.moe_intermediate_size));
            const double shared_experts =
                moe.n_shared_experts * mlp_parameters(model, static_cast<double>(moe.shared_expert_intermediate_size));
            const double router = hidden * moe.n_routed_experts;
            count.total += moe.n_routed_experts * expert + shared_experts + router;
            count.active += moe.num_experts_per_tok * expert + shared_experts + router;
        } else {
            const double dense = mlp_parameters(model, static_cast<double>(model.intermediate_size));
            count.total += dense;
            count.active += dense;
        }
    }
    return count;
}

}  // namespace decodesim::engine
