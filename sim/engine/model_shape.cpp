#include "engine/model_shape.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::engine {

namespace {

char block_at(const ModelProfile& model, int layer) {
    return layer >= 0 && layer < static_cast<int>(model.layer_pattern.size()) ? model.layer_pattern[static_cast<std::size_t>(layer)]
                                                                               : '\0';
}

}  // namespace

bool has_mixer(const ModelProfile& model, int layer) {
    if (model.layer_pattern.empty()) return true;
    const char block = block_at(model, layer);
    return block == profiles::kRecurrentBlock || block == profiles::kAttentionBlock;
}

bool has_feedforward(const ModelProfile& model, int layer) {
    if (model.layer_pattern.empty()) return true;
    const char block = block_at(model, layer);
    return block == profiles::kMoeBlock || block == profiles::kDenseBlock;
}

bool is_moe_layer(const ModelProfile& model, int layer) {
    if (!model.moe) return false;
    if (!model.layer_pattern.empty()) return block_at(model, layer) == profiles::kMoeBlock;
    const auto& moe = *model.moe;
    return layer >= moe.first_k_dense_replace && layer % moe.moe_layer_freq == moe.moe_layer_offset;
}

bool is_recurrent_layer(const ModelProfile& model, int layer) {
    if (!model.recurrent) return false;
    if (!model.layer_pattern.empty()) return block_at(model, layer) == profiles::kRecurrentBlock;
    return layer % model.recurrent->attention_period != model.recurrent->attention_offset;
}

bool is_chunked_layer(const ModelProfile& model, int layer) {
    if (!model.chunked_attention) return false;
    const int pattern = model.chunked_attention->pattern;
    return pattern == 0 || (layer + 1) % pattern != 0;
}

bool is_cross_attention_layer(const ModelProfile& model, int layer) {
    const auto& layers = model.cross_attention_layers;
    return std::binary_search(layers.begin(), layers.end(), layer);
}

bool is_sliding_layer(const ModelProfile& model, int layer) {
    if (!model.sliding_window) return false;
    const int pattern = model.sliding_window->pattern;
    return pattern == 0 || (layer + 1) % pattern != 0;
}

int compress_ratio(const ModelProfile& model, int layer) {
    if (!model.compressed_attention) return 0;
    const auto& ratios = model.compressed_attention->ratios;
    return layer >= 0 && layer < static_cast<int>(ratios.size()) ? ratios[static_cast<std::size_t>(layer)] : 0;
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
    if (r.kind == profiles::RecurrentKind::mamba2) {
        // HF NemotronHMamba2Mixer: in_proj to the gate z and x (inner each), B and C (groups x
        // d_state each) and dt (one per head); a depthwise conv with bias over x, B and C; dt_bias,
        // A_log and D per head; the gated norm over the inner width; out_proj.
        const double inner = static_cast<double>(r.num_value_heads) * static_cast<double>(r.value_head_dim);
        const double groups_state = static_cast<double>(r.num_key_heads) * static_cast<double>(r.d_state);
        const double conv_channels = inner + 2.0 * groups_state;
        mixer.input = hidden * (2.0 * inner + 2.0 * groups_state + r.num_value_heads);
        mixer.vectors = conv_channels * kernel + conv_channels + 3.0 * r.num_value_heads + inner;
        mixer.output = inner * hidden;
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

double compressor_overlap(int ratio) { return ratio == profiles::kSparseCompressRatio ? 2.0 : 1.0; }

double compressed_attention_parameters(const ModelProfile& model, int ratio) {
    if (!model.compressed_attention) return 0.0;
    const auto& attention = *model.compressed_attention;
    const double hidden = static_cast<double>(model.hidden_size);
    const double heads = model.num_attention_heads;
    const double head_dim = static_cast<double>(model.head_dim);
    const double q_lora = static_cast<double>(attention.q_lora_rank);
    const double o_lora = static_cast<double>(attention.o_lora_rank);
    // wq_a and q_norm, wq_b, wkv and kv_norm, wo_a (each group's heads to o_lora), wo_b, attn_sink.
    double params = hidden * q_lora + q_lora + q_lora * heads * head_dim + hidden * head_dim + head_dim +
                    heads * head_dim * o_lora + attention.o_groups * o_lora * hidden + heads;
    // A compressor of ratio r: ape [r, c head_dim], wkv and wgate [c head_dim, hidden], its norm;
    // c = 2 where blocks overlap (the sparse ratio), else 1.
    auto compressor = [&](double r, double width) {
        const double overlap = compressor_overlap(ratio);
        return r * overlap * width + 2.0 * overlap * width * hidden + width;
    };
    if (ratio > 0) params += compressor(ratio, head_dim);
    if (ratio == profiles::kSparseCompressRatio && model.sparse_attention) {
        // The indexer: wq_b from the query latent, weights_proj from the hidden state, and a
        // compressor of its own at the indexer's head width.
        const auto& dsa = *model.sparse_attention;
        const double index_dim = static_cast<double>(dsa.index_head_dim);
        params += q_lora * dsa.index_n_heads * index_dim + hidden * dsa.index_n_heads + compressor(ratio, index_dim);
    }
    return params;
}

namespace {

// (2 + n) n mixes a block: n to read the copies into the block, n to write its output back, and
// the n x n matrix that mixes the copies (hc_split_sinkhorn).
double hyper_connection_mixes(int copies) { return (2.0 + copies) * copies; }

}  // namespace

double hyper_connection_parameters(const ModelProfile& model) {
    if (!model.compressed_attention || model.compressed_attention->hc_mult <= 1) return 0.0;
    const int copies = model.compressed_attention->hc_mult;
    const double mixes = hyper_connection_mixes(copies);
    // Per block: hc_fn [mixes, copies x hidden], hc_base [mixes], hc_scale [3].
    return 2.0 * (mixes * copies * static_cast<double>(model.hidden_size) + mixes + 3.0);
}

double hyper_connection_head_parameters(const ModelProfile& model) {
    if (!model.compressed_attention || model.compressed_attention->hc_mult <= 1) return 0.0;
    const double copies = model.compressed_attention->hc_mult;
    // hc_head_fn [copies, copies x hidden], hc_head_base [copies], hc_head_scale [1].
    return copies * copies * static_cast<double>(model.hidden_size) + copies + 1.0;
}

double recurrent_state_elements(const ModelProfile& model) {
    if (!model.recurrent) return 0.0;
    const auto& r = *model.recurrent;
    if (r.kind == profiles::RecurrentKind::gated_delta_net) {
        return static_cast<double>(r.num_value_heads) * static_cast<double>(r.key_head_dim) *
               static_cast<double>(r.value_head_dim);
    }
    if (r.kind == profiles::RecurrentKind::mamba2) {
        return static_cast<double>(r.num_value_heads) * static_cast<double>(r.value_head_dim) *
               static_cast<double>(r.d_state);
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
    if (r.kind == profiles::RecurrentKind::mamba2) {  // the conv runs over x, B and C
        return (static_cast<double>(r.num_value_heads) * static_cast<double>(r.value_head_dim) +
                2.0 * r.num_key_heads * static_cast<double>(r.d_state)) * window;
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

double expert_width(const ModelProfile& model) {
    return model.moe && model.moe->latent_size > 0 ? static_cast<double>(model.moe->latent_size)
                                                   : static_cast<double>(model.hidden_size);
}

double expert_parameters(const ModelProfile& model) {
    if (!model.moe) return 0.0;
    return (model.gated_mlp ? 3.0 : 2.0) * expert_width(model) * static_cast<double>(model.moe->moe_intermediate_size);
}

ParameterCount count_parameters(const ModelProfile& model) {
    const double hidden = static_cast<double>(model.hidden_size);
    const double embedding = static_cast<double>(model.vocab_size) * hidden;
    const double lm_head = model.tie_word_embeddings ? 0.0 : embedding;

    ParameterCount count;
    count.total = embedding + lm_head + hidden + hyper_connection_head_parameters(model);  // + final norm
    count.active = count.total;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) {
        // Each block (mixer, MLP) has its norm.
        const double norms = hidden * ((has_mixer(model, layer) ? 1.0 : 0.0) + (has_feedforward(model, layer) ? 1.0 : 0.0));
        count.total += norms;
        count.active += norms;
        const double connections = hyper_connection_parameters(model);
        count.total += connections;
        count.active += connections;
        if (has_mixer(model, layer)) {
            const double mixer = is_recurrent_layer(model, layer)   ? recurrent_parameters(model)
                                 : model.compressed_attention ? compressed_attention_parameters(model, compress_ratio(model, layer))
                                                              : attention_parameters(model) + indexer_parameters(model);
            // A cross-attention layer also norms its queries and keys, and gates its two blocks.
            const double cross = is_cross_attention_layer(model, layer) ? 2.0 * static_cast<double>(model.head_dim) + 2.0 : 0.0;
            count.total += mixer + cross;
            count.active += mixer + cross;
        }
        if (!has_feedforward(model, layer)) continue;
        if (is_moe_layer(model, layer)) {
            const auto& moe = *model.moe;
            const double expert = expert_parameters(model);
            const double shared_experts =
                moe.n_shared_experts * mlp_parameters(model, static_cast<double>(moe.shared_expert_intermediate_size));
            const double router = hidden * moe.n_routed_experts;
            const double latent = 2.0 * hidden * static_cast<double>(moe.latent_size);  // into and out of the latent
            count.total += moe.n_routed_experts * expert + shared_experts + router + latent;
            count.active += moe.num_experts_per_tok * expert + shared_experts + router + latent;
        } else {
            const double dense = mlp_parameters(model, static_cast<double>(model.intermediate_size));
            count.total += dense;
            count.active += dense;
        }
    }
    return count;
}

namespace {

double tokens_a_side(const profiles::VisionEncoder& vision, double image_size) {
    const double unit = static_cast<double>(vision.patch_size * vision.merge);
    return std::max(1.0, std::round(image_size / unit));
}

}  // namespace

double image_tokens(const profiles::VisionEncoder& vision, double image_size) {
    const double side = tokens_a_side(vision, image_size);
    return side * side;
}

double image_tiles(const profiles::VisionEncoder& vision, double image_size) {
    if (vision.tile_size <= 0) return 1.0;
    const double side = std::max(1.0, std::ceil(image_size / static_cast<double>(vision.tile_size)));
    return std::min(side * side, static_cast<double>(vision.max_tiles));
}

namespace {

double tile_patches(const profiles::VisionEncoder& vision) {
    const double side = std::floor(static_cast<double>(vision.tile_size) / static_cast<double>(vision.patch_size));
    return side * side;
}

}  // namespace

double image_states(const profiles::VisionEncoder& vision, double image_size) {
    return image_tiles(vision, image_size) * (tile_patches(vision) + 1.0);
}

double image_patches(const profiles::VisionEncoder& vision, double image_size) {
    if (vision.tile_size > 0) return image_tiles(vision, image_size) * tile_patches(vision);
    const double side = tokens_a_side(vision, image_size) * static_cast<double>(vision.merge);
    return side * side;
}

Workload with_images(Workload workload, const ModelProfile& model, double images, double image_size) {
    if (!model.vision || images <= 0.0) return workload;
    const double size = image_size > 0.0 ? image_size : static_cast<double>(model.vision->image_size);
    // A tiled encoder's states go to the cross-attention layers, not into the prompt.
    const double tokens = model.vision->tile_size > 0 ? 0.0 : images * image_tokens(*model.vision, size);
    if (workload.is_request()) {
        workload.prompt = *workload.prompt + tokens;
    } else {
        workload.context += tokens;
    }
    workload.images = images;
    workload.image_size = size;
    workload.image_states = model.cross_attention_layers.empty() ? 0.0 : image_states(*model.vision, size);
    return workload;
}

double vision_encoder_flops(const profiles::VisionEncoder& vision, double image_size) {
    const double patches = image_patches(vision, image_size);
    const double width = static_cast<double>(vision.hidden_size);
    const double windowed = vision.window_patches > 0 ? vision.layers - vision.full_attention_layers : 0.0;
    const double full = vision.layers - windowed;
    const double window = std::min(patches, static_cast<double>(vision.window_patches));
    const double attention = 4.0 * patches * width * (full * patches + windowed * window);
    return 2.0 * vision.parameters * patches + attention;
}

}  // namespace decodesim::engine
