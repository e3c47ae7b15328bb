#include "engine/model_shape.hpp"

namespace decodesim::engine {

bool is_moe_layer(const ModelProfile& model, int layer) {
    if (!model.moe) return false;
    const auto& moe = *model.moe;
    return layer >= moe.first_k_dense_replace && layer % moe.moe_layer_freq == moe.moe_layer_offset;
}

bool is_recurrent_layer(const ModelProfile& model, int layer) {
    if (!model.recurrent) return false;
    return layer % model.recurrent->attention_period != model.recurrent->attention_offset;
}

bool is_chunked_layer(const ModelProfile& model, int layer) {
    if (!model.chunked_attention) return false;
    const int pattern = model.chunked_attention->pattern;
    return pattern == 0 || (layer + 1) % pattern != 0;
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

int recurrent_layer_count(const ModelProfile& model) {
    int count = 0;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) count += is_recurrent_layer(model, layer) ? 1 : 0;
    return count;
}

int chunked_layer_count(const ModelProfile& model) {
    int count = 0;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) count += is_chunked_layer(model, layer) ? 1 : 0;
    return count;
}

RecurrentMixer recurrent_mixer(const ModelProfile& model) {
    RecurrentMixer mixer;
    if (!model.recurrent) return mixer;
    const auto& r = *model.recurrent;
    const double hidden = static_cast<double>(model.hidden_size);
    const double kernel = static_cast<double>(r.conv_kernel);
    if (r.kind == profiles::RecurrentKind::gated_delta_net) {
        // HF Qwen3NextGatedDeltaNet: in_proj_qkvz (q, k, v and the output gate z), in_proj_ba (beta and
        // decay per value head); a depthwise conv over q, k, v, dt_bias and A_log per value head, the
        // gated norm over one value head; out_proj.
        const double value_heads = r.num_value_heads;
        const double key_dim = static_cast<double>(r.num_key_heads) * static_cast<double>(r.key_head_dim);
        const double value_dim = value_heads * static_cast<double>(r.value_head_dim);
        mixer.input = hidden * (2.0 * key_dim + 2.0 * value_dim) + hidden * 2.0 * value_heads;
        mixer.vectors = (2.0 * key_dim + value_dim) * kernel + 2.0 * value_heads + static_cast<double>(r.value_head_dim);
        mixer.output = value_dim * hidden;
        return mixer;
    }
    // HF JambaMambaMixer: in_proj (x and gate), x_proj to (dt, B, C), dt_proj; the depthwise conv with
    // bias, dt bias, A_log, D and Jamba's norms of dt, B and C; out_proj.
    const double inner = static_cast<double>(r.expand) * hidden;
    const double state = static_cast<double>(r.d_state);
    const double dt_rank = static_cast<double>(r.dt_rank);
    mixer.input = hidden * 2.0 * inner + inner * (dt_rank + 2.0 * state) + dt_rank * inner;
    mixer.vectors = inner * kernel + inner + inner + inner * state + inner + dt_rank + 2.0 * state;
    mixer.output = inner * hidden;
    return mixer;
}

double recurrent_parameters(const ModelProfile& model) { return recurrent_mixer(model).total(); }

double indexer_parameters(const ModelProfile& model) {
    if (!model.sparse_attention || !model.mla) return 0.0;
    const auto& dsa = *model.sparse_attention;
    const double hidden = static_cast<double>(model.hidden_size);
    const double heads = dsa.index_n_heads;
    const double head_dim = static_cast<double>(dsa.index_head_dim);
    // DeepSeek-V3.2 Indexer: wq_b from the query latent, wk and its LayerNorm (weight, bias),
    // weights_proj giving each indexer head's weight per token.
    return static_cast<double>(model.mla->q_lora_rank) * heads * head_dim + hidden * head_dim + 2.0 * head_dim +
           hidden * heads;
}

double recurrent_state_elements(const ModelProfile& model) {
    if (!model.recurrent) return 0.0;
    const auto& r = *model.recurrent;
    if (r.kind == profiles::RecurrentKind::gated_delta_net) {
        return static_cast<double>(r.num_value_heads) * static_cast<double>(r.key_head_dim) *
               static_cast<double>(r.value_head_dim);
    }
    return static_cast<double>(r.expand) * static_cast<double>(model.hidden_size) * static_cast<double>(r.d_state);
}

double recurrent_conv_elements(const ModelProfile& model) {
    if (!model.recurrent) return 0.0;
    const auto& r = *model.recurrent;
    const double window = static_cast<double>(r.conv_kernel - 1);
    if (r.kind == profiles::RecurrentKind::gated_delta_net) {
        return (2.0 * r.num_key_heads * static_cast<double>(r.key_head_dim) +
                r.num_value_heads * static_cast<double>(r.value_head_dim)) * window;
    }
    return static_cast<double>(r.expand) * static_cast<double>(model.hidden_size) * window;
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
    const double query_outputs = (model.attn_output_gate ? 2.0 : 1.0) * heads * head_dim;  // the gate's half
    return hidden * query_outputs + 2.0 * hidden * model.num_key_value_heads * head_dim + heads * head_dim * hidden;
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
        const double mixer = is_recurrent_layer(model, layer) ? recurrent_parameters(model)
                                                               : attention_parameters(model) + indexer_parameters(model);
        const double shared = mixer + norms_per_layer;
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
