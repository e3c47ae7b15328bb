#include "engine/cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "engine/attention_tile.hpp"
#include "engine/kernel_graph.hpp"
#include "engine/model_shape.hpp"

namespace decodesim::engine {
namespace {

using core::TensorRole;

constexpr double kFp32Bytes = 4.0;

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

double chunked_pairs(double start, double tokens, double chunk) {
    if (chunk <= 0.0) return causal_pairs(start, tokens, 0.0);
    // Token at position q (1-based) attends to ((q - 1) mod chunk) + 1 keys: its chunk so far.
    auto pairs_upto = [chunk](double n) {
        const double whole = std::floor(n / chunk);
        const double rest = n - whole * chunk;
        return whole * chunk * (chunk + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0;
    };
    return pairs_upto(start + tokens) - pairs_upto(start);
}

double expected_distinct_experts(double experts, double per_token, double tokens) {
    if (experts <= 0.0) return 0.0;
    // log1p keeps the power accurate when k/E is tiny and the token count is huge.
    return experts * -std::expm1(tokens * std::log1p(-per_token / experts));
}

int CostModel::attention_layers() const {
    int layers = full_attention_layers + sliding_layers + chunked_layers + sparse_layers;
    for (const CompressedLayers& group : compressed) layers += group.layers;
    return layers;
}

namespace {

// Compressed rows of a `context`-token sequence under `ratio`: one a whole block of the ratio's
// tokens, taken at its mean (half a block still being pooled) so that costs grow smoothly.
double compressed_rows(double context, double ratio) { return context / ratio; }

}  // namespace

double CostModel::attended_tokens(double context) const {
    const double sliding_context = window > 0.0 ? std::min(context, window) : context;
    const double chunk_context = chunk > 0.0 ? std::min(context, chunk) : context;
    const double sparse_context = topk > 0.0 ? std::min(context, topk) : context;
    double attended = full_attention_layers * context + sliding_layers * sliding_context +
                      chunked_layers * chunk_context + sparse_layers * sparse_context + cross_layers * cross_states;
    for (const CompressedLayers& group : compressed) {
        const double rows = compressed_rows(context, group.ratio);
        attended += group.layers * (sliding_context + (group.sparse ? std::min(rows, topk) : rows));
    }
    return attended;
}

double CostModel::indexed_tokens(double context) const {
    if (indexer_width <= 0.0) return 0.0;
    double indexed = sparse_layers * context;
    for (const CompressedLayers& group : compressed) {
        if (group.sparse) indexed += group.layers * compressed_rows(context, group.ratio);
    }
    return indexed;
}

core::Bytes CostModel::kv_bytes_per_token() const {
    // Every layer writes the token's row (a compressed layer into its window); a compressed layer
    // adds a row, and its indexer a key, each ratio tokens.
    core::Bytes written = kv_bytes_per_token_per_layer * attention_layers() + indexer_bytes_per_token_per_layer * sparse_layers;
    for (const CompressedLayers& group : compressed) {
        written += (kv_bytes_per_token_per_layer + (group.sparse ? indexer_bytes_per_token_per_layer : core::Bytes())) *
                   (group.layers / group.ratio);
    }
    return written;
}

core::Bytes CostModel::kv_bytes_per_sequence(double context) const {
    // DSA layers hold the whole context though they read only top-k of it; compressed layers hold
    // every row they made, and their indexers a key a row.
    const double sparse_read = topk > 0.0 ? std::min(context, topk) : context;
    double held = attended_tokens(context) + sparse_layers * (context - sparse_read);
    double index_keys = sparse_layers * context;
    for (const CompressedLayers& group : compressed) {
        if (!group.sparse) continue;
        const double rows = compressed_rows(context, group.ratio);
        held += group.layers * (rows - std::min(rows, topk));
        index_keys += group.layers * rows;
    }
    return (held * kv_bytes_per_token_per_layer + indexer_bytes_per_token_per_layer * index_keys +
            recurrent_state_bytes + compressor_state_bytes) /
           static_cast<double>(parallelism.pipeline);
}

core::Bytes CostModel::kv_growth_per_token(double context, double stretch) const {
    return (kv_bytes_per_sequence(context + stretch) - kv_bytes_per_sequence(context)) / stretch;
}

core::Bytes CostModel::shared_prefix_bytes(double prefix) const {
    // A compressed layer's rows of the prefix stay (its window moves on).
    core::Bytes shared = kv_bytes_per_token_per_layer * ((full_attention_layers + sparse_layers) * prefix) +
                         indexer_bytes_per_token_per_layer * (sparse_layers * prefix);
    for (const CompressedLayers& group : compressed) {
        const double rows = compressed_rows(prefix, group.ratio);
        shared += (kv_bytes_per_token_per_layer + (group.sparse ? indexer_bytes_per_token_per_layer : core::Bytes())) *
                  (group.layers * rows);
    }
    return shared / static_cast<double>(parallelism.pipeline);
}

core::Bytes CostModel::weight_bytes() const {
    // The groups hold every layer (a pipeline pass runs them all); a device holds its stage's share.
    return (qkv.bytes + output.bytes + mlp.bytes + router.bytes + shared_experts.bytes + lm_head.bytes + cross_kv.bytes +
            expert.bytes * local_experts + norms_weight_bytes + embedding_table_bytes) /
           static_cast<double>(parallelism.pipeline);
}

CostModel build_cost_model(const profiles::ModelProfile& model, const Deployment& deployment, double cross_states) {
    const int tp = deployment.parallelism.tensor;
    const core::WeightFormat& format = *deployment.weights;
    // Each expert is split over the stage's devices that do not hold other experts: with full
    // expert parallelism (expert == stage devices) every expert sits whole on one device.
    const int expert_split = deployment.parallelism.stage_devices() / deployment.parallelism.expert;

    CostModel cost;
    cost.kv_sizing = deployment.runtime_profile().kv_sizing;
    cost.tensor_parallel = tp;
    cost.parallelism = deployment.parallelism;
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
    } else if (model.compressed_attention) {
        // One key-value head, its keys its values: a row serves the score and the product, and
        // every device holds it whole (DeepSeek-V4's Attention.kv_cache).
        cost.latent_cache = true;
        cost.kv_bytes_per_token_per_layer = core::Bytes(head_dim * kv_element_bytes);
        cost.score_width = head_dim;
        cost.value_width = head_dim;
        cost.prefill_score_width = head_dim;
        cost.prefill_value_width = head_dim;
        cost.query_key_value_width = 2.0 * heads * head_dim + head_dim;
        cost.window = static_cast<double>(model.compressed_attention->window);
    } else {
        cost.kv_bytes_per_token_per_layer = core::Bytes(2.0 * kv_heads * head_dim * kv_element_bytes);
        cost.score_width = head_dim;
        cost.value_width = head_dim;
        cost.prefill_score_width = head_dim;
        cost.prefill_value_width = head_dim;
        cost.query_key_value_width = 2.0 * heads * head_dim + 2.0 * kv_heads * head_dim;
    }
    if (model.sliding_window) cost.window = static_cast<double>(model.sliding_window->window);
    if (model.chunked_attention) cost.chunk = static_cast<double>(model.chunked_attention->chunk);
    if (model.sparse_attention) {
        const auto& dsa = *model.sparse_attention;
        cost.topk = static_cast<double>(dsa.index_topk);
        // DeepSeek-V3.2's indexer caches its keys in fp8 with one fp32 scale per 128 elements,
        // whatever the KV format (inference/model.py, Indexer.k_cache and k_scale_cache).
        const double index_dim = static_cast<double>(dsa.index_head_dim);
        cost.indexer_bytes_per_token_per_layer = core::Bytes(index_dim + 4.0 * std::ceil(index_dim / 128.0));
        cost.indexer_width = dsa.index_n_heads * index_dim;  // every device scores all indexer heads
    }
    // A recurrent layer's state, split over the tensor group with its heads (channels): the
    // recurrence in fp32 (HF's gated delta rule and mamba_ssm keep it so: it sums the whole context),
    // the convolution window in the activation datatype. The update costs about three multiply-adds
    // per state element and token (decay and read S k, rank-one write, read S q; for Mamba: decay,
    // input, output).
    const double recurrent_state_element_bytes = 4.0;
    const double layer_state_bytes = (recurrent_state_elements(model) * recurrent_state_element_bytes +
                                      recurrent_conv_elements(model) * cost.activation_bytes.value) / tp;
    const double layer_state_flops = 6.0 * recurrent_state_elements(model) / tp;
    const RecurrentMixer mixer = recurrent_mixer(model);

    const double norm_bits = 16.0;
    // A checkpoint run in its own format is priced tensor by tensor as its files store it.
    const core::StoredTensorBits* stored =
        model.stored_tensor_bits && deployment.weights == model.checkpoint_weights ? model.stored_tensor_bits.get() : nullptr;
    for (int layer = 0; layer < model.num_hidden_layers; ++layer) {
        const core::LayerContext context{layer, model.num_hidden_layers,
                                         model.num_attention_heads / std::max(1, model.num_key_value_heads), experts,
                                         false, stored};
        core::LayerContext expert_context = context;
        expert_context.routed_expert = true;
        auto bits = [&](TensorRole role) { return core::tensor_bits(format, role, context); };

        // A cross-attention layer without images to read is skipped: its weights are only held.
        const bool cross = is_cross_attention_layer(model, layer);
        if (cross && cross_states <= 0.0) {
            const double held_bits = (attention_parameters(model) * bits(TensorRole::attn_output) +
                                      mlp_parameters(model, static_cast<double>(model.intermediate_size)) *
                                          bits(TensorRole::mlp_gate_up)) / tp +
                                     2.0 * hidden * norm_bits;  // its two norms, on every device
            cost.encoder_weight_bytes += core::Bytes(held_bits / 8.0);
            continue;
        }

        // A single-block layer (Nemotron-H's layer_pattern) is a mixer or an MLP, with one norm.
        const bool mixes = has_mixer(model, layer);
        const bool feeds_forward = has_feedforward(model, layer);
        cost.norm_count += (mixes ? 1 : 0) + (feeds_forward ? 1 : 0);
        cost.norms_weight_bytes += core::Bytes(((mixes ? 1.0 : 0.0) + (feeds_forward ? 1.0 : 0.0)) * hidden * norm_bits / 8.0);
        const bool recurrent = is_recurrent_layer(model, layer);
        if (mixes) ++cost.mixer_layers;
        if (!mixes) {
            // no attention or recurrent block
        } else if (recurrent) {
            ++cost.recurrent_layers;
        } else if (cross) {
            ++cost.cross_layers;
        } else if (model.compressed_attention) {
            const int ratio = compress_ratio(model, layer);
            if (ratio == 0) {
                ++cost.sliding_layers;  // the window alone
            } else {
                const bool sparse = ratio == profiles::kSparseCompressRatio;
                auto group = std::find_if(cost.compressed.begin(), cost.compressed.end(),
                                          [&](const CostModel::CompressedLayers& g) { return g.ratio == ratio; });
                if (group == cost.compressed.end()) {
                    cost.compressed.push_back({0, static_cast<double>(ratio), sparse});
                    group = cost.compressed.end() - 1;
                }
                ++group->layers;
                // Its compressor's kv_state and score_state, [c r, c head_dim] each in fp32 (c = 2
                // where blocks overlap), and at the sparse ratio its indexer's compressor's too.
                const double overlap = compressor_overlap(ratio);
                auto state = [&](double width) { return 2.0 * overlap * ratio * overlap * width * kFp32Bytes; };
                double bytes = state(head_dim);
                if (sparse && model.sparse_attention) bytes += state(static_cast<double>(model.sparse_attention->index_head_dim));
                cost.compressor_state_bytes += core::Bytes(bytes);
            }
        } else if (is_sliding_layer(model, layer)) {
            ++cost.sliding_layers;
        } else if (is_chunked_layer(model, layer)) {
            ++cost.chunked_layers;
        } else if (model.sparse_attention) {
            ++cost.sparse_layers;
        } else {
            ++cost.full_attention_layers;
        }

        if (!mixes) {
            // an MLP block only
        } else if (recurrent) {
            // Projections split by heads (channels) over the tensor group, like attention's.
            const auto& r = *model.recurrent;
            add_matrix(cost.qkv, mixer.input / tp, bits(TensorRole::attn_q));
            add_matrix(cost.qkv, mixer.vectors / tp, norm_bits);
            add_matrix(cost.output, mixer.output / tp, bits(TensorRole::attn_output));
            const double mixer_width = mixer.output / hidden / tp;  // value dim (DeltaNet) or inner width (Mamba)
            // Elements the recurrence kernel reads and writes per token: DeltaNet's q, k, v, gate and
            // output; Mamba-1's x, gate, dt and output with B and C; Mamba-2's conv output (x, B, C),
            // gate, dt per head and output.
            double kernel_width = 4.0 * mixer_width + 2.0 * static_cast<double>(r.d_state);
            if (r.kind == profiles::RecurrentKind::gated_delta_net) {
                kernel_width = (2.0 * r.num_key_heads * static_cast<double>(r.key_head_dim) + 2.0 * mixer.output / hidden +
                                2.0 * r.num_value_heads) / tp;
            } else if (r.kind == profiles::RecurrentKind::mamba2) {
                kernel_width = 3.0 * mixer_width + (2.0 * r.num_key_heads * static_cast<double>(r.d_state) +
                                                    r.num_value_heads) / tp;
            }
            cost.qkv.activation_width += hidden + mixer.input / hidden / tp;
            cost.output.activation_width += mixer_width + hidden;
            cost.recurrent_state_bytes += core::Bytes(layer_state_bytes);
            cost.recurrent_flops_per_token += layer_state_flops;
            cost.recurrent_io_width += kernel_width;
        } else if (model.mla) {
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
            if (model.sparse_attention) {
                add_matrix(cost.qkv, indexer_parameters(model) / tp, bits(TensorRole::attn_q));
                cost.qkv.activation_width += cost.indexer_width / tp + model.sparse_attention->index_n_heads;
            }
        } else if (cross) {
            // Queries and output on the tokens; keys and values on the image states, once a prompt.
            add_matrix(cost.qkv, hidden * heads * head_dim, bits(TensorRole::attn_q));
            add_matrix(cost.output, heads * head_dim * hidden, bits(TensorRole::attn_output));
            add_matrix(cost.cross_kv, 2.0 * hidden * kv_heads * head_dim, bits(TensorRole::attn_k));
            cost.qkv.activation_width += hidden + heads * head_dim;
            cost.output.activation_width += heads * head_dim + hidden;
            cost.cross_kv.activation_width += hidden + 2.0 * kv_heads * head_dim;
        } else if (model.compressed_attention) {
            const auto& attention = *model.compressed_attention;
            const int ratio = compress_ratio(model, layer);
            const double q_lora = static_cast<double>(attention.q_lora_rank);
            const double o_lora = static_cast<double>(attention.o_lora_rank);
            const double groups = static_cast<double>(attention.o_groups) / tp;
            add_matrix(cost.qkv, hidden * q_lora, bits(TensorRole::attn_q));            // wq_a, on every device
            add_matrix(cost.qkv, q_lora * heads * head_dim, bits(TensorRole::attn_q));  // wq_b, this device's heads
            add_matrix(cost.qkv, hidden * head_dim, bits(TensorRole::attn_k));          // wkv, the one head
            add_matrix(cost.output, heads * head_dim * o_lora, bits(TensorRole::attn_output));  // wo_a, its heads' groups
            add_matrix(cost.output, groups * o_lora * hidden, bits(TensorRole::attn_output));   // wo_b, their rows
            cost.qkv.activation_width += hidden + q_lora + heads * head_dim + head_dim;
            cost.output.activation_width += heads * head_dim + groups * o_lora + hidden;
            // The compressor's wkv and wgate stay 16-bit in the checkpoint whatever its format
            // (inference/model.py); at the sparse ratio the indexer adds its query heads, its head
            // weights and its own compressor (split over the tensor group like DSA's indexer).
            if (ratio > 0) {
                const double overlap = compressor_overlap(ratio);
                add_matrix(cost.qkv, 2.0 * overlap * head_dim * hidden, norm_bits);
                cost.qkv.activation_width += 2.0 * overlap * head_dim;
            }
            if (ratio == profiles::kSparseCompressRatio && model.sparse_attention) {
                const auto& dsa = *model.sparse_attention;
                const double index_dim = static_cast<double>(dsa.index_head_dim);
                add_matrix(cost.qkv, q_lora * dsa.index_n_heads * index_dim / tp, bits(TensorRole::attn_q));
                add_matrix(cost.qkv, (hidden * dsa.index_n_heads + 2.0 * compressor_overlap(ratio) * index_dim * hidden) / tp,
                           norm_bits);
                cost.qkv.activation_width += cost.indexer_width / tp + dsa.index_n_heads;
            }
        } else {
            // An output gate doubles the query projection's outputs (profiles/model_profile.hpp).
            const double query_outputs = (model.attn_output_gate ? 2.0 : 1.0) * heads * head_dim;
            add_matrix(cost.qkv, hidden * query_outputs, bits(TensorRole::attn_q));
            add_matrix(cost.qkv, hidden * kv_heads * head_dim, bits(TensorRole::attn_k));
            add_matrix(cost.qkv, hidden * kv_heads * head_dim, bits(TensorRole::attn_v));
            add_matrix(cost.output, heads * head_dim * hidden, bits(TensorRole::attn_output));
            cost.qkv.activation_width += hidden + query_outputs + 2.0 * kv_heads * head_dim;
            cost.output.activation_width += heads * head_dim + hidden;
        }
        if (mixes) {
            cost.qkv.layers += kProjectionKernels;
            cost.output.layers += kOutputKernels;
        }
        // Hyper-connections: each block mixes the copies of the residual stream through an fp32
        // matrix every device holds, reading and writing all the copies.
        if (const double connections = hyper_connection_parameters(model); connections > 0.0) {
            add_matrix(cost.qkv, connections, 8.0 * kFp32Bytes);
            cost.qkv.activation_width += 4.0 * model.compressed_attention->hc_mult * hidden;
        }

        // A gated MLP has gate and up (2 matrices of H x I) and down (I x H); a plain one up and down.
        // Routed experts read and write expert_width (the hidden size, or LatentMoE's latent).
        auto add_mlp = [&](WeightGroup& group, double intermediate, int split, bool routed) {
            const double per_device = intermediate / split;
            const double width = routed ? expert_width(model) : hidden;
            const core::LayerContext& where = routed ? expert_context : context;
            add_matrix(group, (gated ? 2.0 : 1.0) * width * per_device,
                       core::tensor_bits(format, TensorRole::mlp_gate_up, where));
            add_matrix(group, per_device * width, core::tensor_bits(format, TensorRole::mlp_down, where));
            group.activation_width += 2.0 * width + (gated ? 3.0 : 2.0) * per_device;
            group.layers += kMlpMatrixKernels;  // gate/up, then down
        };
        if (!feeds_forward) {
            // no MLP block
        } else if (is_moe_layer(model, layer)) {
            const auto& moe = *model.moe;
            ++cost.moe_layers;
            add_mlp(cost.expert, static_cast<double>(moe.moe_intermediate_size), expert_split, true);
            if (moe.latent_size > 0) {
                // LatentMoE: every token goes into the latent and back, through two matrices each
                // device holds a tensor-parallel share of.
                const double latent = static_cast<double>(moe.latent_size);
                add_matrix(cost.shared_experts, 2.0 * hidden * latent / tp, bits(TensorRole::mlp_gate_up));
                cost.shared_experts.activation_width += 2.0 * (hidden + latent / tp);
                cost.shared_experts.layers += kMlpMatrixKernels;
            }
            add_matrix(cost.router, hidden * experts, bits(TensorRole::router));
            cost.router.activation_width += hidden + experts;
            cost.router.layers += kRouterKernels;
            if (moe.n_shared_experts > 0) {
                ++cost.shared_expert_layers;
                cost.shared_expert_matrix_kernels += kMlpMatrixKernels * moe.n_shared_experts;
            }
            for (int shared = 0; shared < moe.n_shared_experts; ++shared) {
                add_mlp(cost.shared_experts, static_cast<double>(moe.shared_expert_intermediate_size), tp, false);
            }
        } else {
            add_mlp(cost.mlp, static_cast<double>(model.intermediate_size), tp, false);
            ++cost.dense_layers;
        }
    }
    cost.norms_weight_bytes += core::Bytes(hidden * norm_bits / 8.0);  // final norm
    cost.norm_count += 1;
    // A vision encoder stays in the activation datatype (vLLM quantizes the language model only)
    // and is split over the tensor group with it.
    if (model.vision) cost.encoder_weight_bytes += core::Bytes(model.vision->parameters * cost.activation_bytes.value / tp);
    if (model.moe) {
        cost.routed_experts = experts;
        cost.local_experts = experts / deployment.parallelism.expert;
        cost.experts_per_token = model.moe->num_experts_per_tok;
    }

    // Vocabulary-parallel embedding and lm_head. A tied model's single matrix is quantized like an
    // output matrix (llama.cpp treats token_embd as the output when there is no separate one).
    const core::LayerContext last{model.num_hidden_layers - 1, model.num_hidden_layers, 1, experts, false, stored};
    const double vocabulary = static_cast<double>(model.vocab_size) / tp;
    const double lm_head_bits = core::tensor_bits(format, TensorRole::lm_head, last);
    const double embedding_bits =
        model.tie_word_embeddings ? lm_head_bits : core::tensor_bits(format, TensorRole::embedding, last);
    cost.embedding_row_bytes = core::Bytes(hidden * embedding_bits / 8.0);
    cost.embedding_table_bytes = core::Bytes(model.tie_word_embeddings ? 0.0 : vocabulary * hidden * embedding_bits / 8.0);
    add_matrix(cost.lm_head, vocabulary * hidden, lm_head_bits);
    cost.lm_head.activation_width = hidden + vocabulary;
    cost.lm_head.layers = 1;
    cost.unfused_attention = deployment.attention == AttentionKernels::unfused;
    cost.dequantized_block_matmul_above_tokens =
        format.is_block_format() ? deployment.runtime_profile().block_matmul_on(deployment.backend).dequantized_above_tokens
                                 : 0.0;
    // The prompt kernel's tile: MLA's prompt attention runs un-absorbed, every head with its own
    // decompressed keys and values in the activation datatype.
    cost.prefill_rows_per_kv_load = rows_per_memory_load(deployment.runtime_profile().tile_rows_on(deployment.backend));
    cost.prefill_kv_element_bytes = model.mla ? cost.activation_bytes : core::Bytes(kv_element_bytes);
    // The runtime's graph: its launches beyond the structural kernels, per attention (MLA's where
    // counted), dense MLP, routed MoE and shared-expert block (recurrent mixers keep their
    // structural kernels).
    const KernelGraph graph = deployment.kernel_graph();
    cost.cross_states = cost.cross_layers > 0 ? cross_states : 0.0;
    const double attention_graph =
        model.mla && graph.latent_attention_block > 0.0 ? graph.latent_attention_block : graph.attention_block;
    // A DSA layer's block adds its indexer's launches where the runtime counts them.
    const double sparse_graph = graph.sparse_attention_block > 0.0 ? graph.sparse_attention_block : attention_graph;
    // Shared experts the runtime folds into the routed launches spare their structural kernels.
    const bool moe_counted = graph.moe_counted_for(format.name);
    const double moe_graph = moe_counted ? graph.moe_mlp_block : 0.0;
    const double shared_expert_extra =
        moe_counted && graph.shared_expert_block
            ? cost.shared_expert_layers * *graph.shared_expert_block - cost.shared_expert_matrix_kernels
            : 0.0;
    cost.elementwise_kernels = std::max(
        0.0, (cost.attention_layers() - cost.sparse_layers + cost.cross_layers) *
                     extra_kernels(attention_graph, kStructuralAttentionKernels) +
                 cost.sparse_layers * extra_kernels(sparse_graph, kStructuralAttentionKernels) +
                 cost.dense_layers * extra_kernels(graph.dense_mlp_block, kStructuralDenseMlpKernels) +
                 cost.moe_layers * extra_kernels(moe_graph, kStructuralMoeKernels) + shared_expert_extra);
    // Passes dispatched op by op: each layer's attention (MLA's, DSA's or grouped-query), Gated
    // DeltaNet mixer and MLP blocks as the runtime's source launches them.
    const EagerPasses& eager = deployment.runtime_profile().eager;
    const bool delta_net = model.recurrent && model.recurrent->kind == profiles::RecurrentKind::gated_delta_net;
    const double attention_ops = model.mla ? eager.latent_attention_block : eager.attention_block;
    const double sparse_ops = eager.sparse_attention_block > 0.0 ? eager.sparse_attention_block : attention_ops;
    const double ops_a_pass = (cost.attention_layers() - cost.sparse_layers + cost.cross_layers) * attention_ops +
                              cost.sparse_layers * sparse_ops +
                              (delta_net ? cost.recurrent_layers * eager.delta_net_block : 0.0) +
                              cost.dense_layers * eager.dense_mlp_block + cost.moe_layers * eager.moe_mlp_block;
    if (deployment.eager.prefill) cost.eager_prefill_ops = ops_a_pass;
    if (deployment.eager.decode) cost.eager_decode_ops = ops_a_pass;
    cost.eager_pass_ops = ops_a_pass;
    cost.captured_batches = deployment.captured_batches;
    cost.graph_padding = deployment.graph_padding;
    return cost;
}

bool operator_shown(const OperatorInfo& info, const CostModel& cost) {
    switch (info.shown) {
        case ShownWhen::always: return true;
        case ShownWhen::dense_mlp: return cost.mlp.params > 0.0;
        case ShownWhen::moe: return cost.moe_layers > 0;
        case ShownWhen::shared_experts: return cost.shared_experts.params > 0.0;
        case ShownWhen::tensor_parallel: return cost.tensor_parallel > 1;
        case ShownWhen::expert_parallel: return cost.parallelism.expert > 1;
        case ShownWhen::pipeline_parallel: return cost.parallelism.pipeline > 1;
        case ShownWhen::kv_offload: return cost.kv_device_room.has_value();
        case ShownWhen::unfused_attention: return cost.unfused_attention;
        case ShownWhen::elementwise_kernels: return cost.elementwise_kernels > 0.0;
        case ShownWhen::dequantized_block_matmul: return cost.dequantized_block_matmul_above_tokens > 0.0;
    }
    return true;
}

namespace {

using core::Bytes;
using core::Flops;

// A weight group read once for the whole batch of `tokens` tokens.
OperatorCost linear_cost(const WeightGroup& group, double tokens, Bytes activation_bytes) {
    return {Flops(2.0 * tokens * group.params), group.bytes + activation_bytes * (tokens * group.activation_width),
            group.layers, 0.0, 0.0};
}

// Routed-expert work on the busiest device when `tokens` tokens each pick k of E experts spread
// over `ep` devices. Routing is taken as uniform: a device's routed token-slots are then
// Binomial(T k, 1/ep), whose expected maximum over ep devices is about mean + sd sqrt(2 ln ep)
// (the Gaussian extreme-value estimate), capped at every token sending min(k, local experts)
// slots there. Real routers are less even; docs/model.md says what that leaves out.
double busiest_device_slots(double tokens, double per_token, int experts, int ep) {
    const double slots = tokens * per_token;
    if (ep <= 1) return slots;
    const double share = 1.0 / ep;
    const double mean = slots * share;
    const double spread = std::sqrt(slots * share * (1.0 - share)) * std::sqrt(2.0 * std::log(static_cast<double>(ep)));
    const double cap = tokens * std::min(per_token, static_cast<double>(experts) / ep);
    return std::min(mean + spread, cap);
}

// Every operator but attention: the same for decode and prefill. `local` holds the tokens and
// logits one attention replica processes; `stage_tokens` the tokens of the whole stage, which
// the routed experts of the stage's devices serve between them.
void add_common_costs(StepCosts& step, const CostModel& cost, double tokens, double sequences, double stage_tokens) {
    const Bytes act = cost.activation_bytes;
    const Parallelism& parallel = cost.parallelism;
    step[OperatorKind::embedding] = {Flops(), cost.embedding_row_bytes * (tokens / cost.tensor_parallel), 1.0, 0.0, 0.0};
    step[OperatorKind::qkv_projection] = linear_cost(cost.qkv, tokens, act);
    step[OperatorKind::output_projection] = linear_cost(cost.output, tokens, act);
    step[OperatorKind::mlp] = linear_cost(cost.mlp, tokens, act);
    step[OperatorKind::shared_experts] = linear_cost(cost.shared_experts, tokens, act);
    step[OperatorKind::router] = linear_cost(cost.router, tokens, act);
    step[OperatorKind::kv_write] = {Flops(), cost.kv_bytes_per_token() * tokens,
                                    cost.attention_layers() * kCacheWriteKernels, 0.0, 0.0};

    // The experts this device holds that any of the stage's tokens picked.
    const double distinct = cost.moe_layers > 0
                                ? expected_distinct_experts(cost.routed_experts, cost.experts_per_token, stage_tokens) *
                                      (static_cast<double>(cost.local_experts) / cost.routed_experts)
                                : 0.0;
    if (cost.moe_layers > 0) {
        // Its routed slots.
        const double slots = busiest_device_slots(stage_tokens, cost.experts_per_token, cost.routed_experts,
                                                  parallel.expert);
        // Each picked expert's weights serve the slots routed to it: few rows per weight tile,
        // where staging the tile weighs in (DeviceRates::tile_setup_rows).
        step[OperatorKind::experts] = {Flops(2.0 * slots * cost.expert.params),
                                       cost.expert.bytes * distinct + act * (slots * cost.expert.activation_width),
                                       cost.expert.layers, 0.0, 0.0, distinct > 0.0 ? slots / distinct : 0.0};
    } else {
        step[OperatorKind::experts] = {};
    }

    // A dequantized block matmul (BlockFormatMatmul::dequantized_above_tokens): a longer pass first writes each
    // block-format matrix out as a 16-bit copy (one kernel a product: reading the blocks, writing
    // 2 bytes a weight), then cuBLAS multiplies the copy, reading it in place of the blocks. The
    // graph runs a prompt one physical batch at a time, and each does both again. The
    // dequantization is a kernel of its own: nothing hides it behind the product's arithmetic.
    step[OperatorKind::weight_dequantize] = {};
    if (cost.dequantized_block_matmul_above_tokens > 0.0 && tokens > cost.dequantized_block_matmul_above_tokens) {
        OperatorCost& dequantize = step[OperatorKind::weight_dequantize];
        const double batches = std::ceil(tokens / kPhysicalBatchTokens);
        const auto through_copy = [&](OperatorKind kind, const WeightGroup& group, double matrices) {
            if (group.params <= 0.0 || matrices <= 0.0) return;
            const Bytes blocks = group.bytes * matrices;
            const Bytes copy(kCopyBytesPerWeight * group.params * matrices);
            dequantize.bytes += (blocks + copy) * batches;
            dequantize.kernels += group.layers * batches;
            OperatorCost& product = step[kind];
            product.bytes += copy * batches - blocks;
            product.on_16bit_copy = true;
        };
        through_copy(OperatorKind::qkv_projection, cost.qkv, 1.0);
        through_copy(OperatorKind::output_projection, cost.output, 1.0);
        through_copy(OperatorKind::mlp, cost.mlp, 1.0);
        through_copy(OperatorKind::shared_experts, cost.shared_experts, 1.0);
        through_copy(OperatorKind::experts, cost.expert, distinct);
    }

    // Each norm reads and writes the hidden state; about 4 FLOPs per element (square, sum, scale, weight).
    const double norm_count = cost.norm_count;  // each block's, and the final one
    step[OperatorKind::norms] = {Flops(4.0 * tokens * cost.hidden_size * norm_count),
                                 cost.norms_weight_bytes + act * (2.0 * tokens * cost.hidden_size * norm_count),
                                 norm_count * kNormKernels, 0.0, 0.0};

    // The runtime's other kernels each read and write the hidden state of every token once.
    step[OperatorKind::elementwise] = {Flops(), act * (2.0 * tokens * cost.hidden_size * cost.elementwise_kernels),
                                       cost.elementwise_kernels, 0.0, 0.0};

    // Logits are needed for one position per sequence: the newest.
    step[OperatorKind::lm_head] = linear_cost(cost.lm_head, sequences, act);
    // The runtime's host work per sequence (scheduling, sampling) is charged where each sequence
    // is sampled.
    step[OperatorKind::lm_head].sequences = sequences;

    // An all-reduce of the hidden state over the tensor group after each layer's attention and
    // after each MLP; with expert parallelism a MoE layer's output is combined by its all-to-all.
    double reductions = 0.0;
    if (parallel.tensor > 1) {
        const double moe_reductions = parallel.expert > 1 ? 0.0 : cost.moe_layers;
        reductions = cost.mixer_layers + cost.dense_layers + moe_reductions;
    }
    step[OperatorKind::all_reduce] = {Flops(), act * (reductions * tokens * cost.hidden_size), 0.0, reductions, 0.0};

    // Dispatch and combine per MoE layer: each device sends its 1/stage share of the stage's
    // tokens, each copied to k experts.
    if (parallel.expert > 1 && cost.moe_layers > 0) {
        const double exchanges = 2.0 * cost.moe_layers;
        const double per_device = stage_tokens / parallel.stage_devices() * cost.experts_per_token;
        step[OperatorKind::all_to_all] = {Flops(), act * (exchanges * per_device * cost.hidden_size), 0.0, exchanges, 0.0};
    } else {
        step[OperatorKind::all_to_all] = {};
    }

    // The hidden state of the micro-batch, handed from each stage to the next.
    if (parallel.pipeline > 1) {
        const double hops = parallel.pipeline - 1.0;
        step[OperatorKind::pipeline_send] = {Flops(), act * (hops * tokens * cost.hidden_size), 0.0, hops, 0.0};
    } else {
        step[OperatorKind::pipeline_send] = {};
    }
}

StepShape scaled(StepShape shape, double factor) {
    shape.tokens *= factor;
    shape.logits *= factor;
    shape.decode_attended *= factor;
    shape.prefill_tokens *= factor;
    shape.prefill_pairs *= factor;
    shape.prefill_masked_pairs *= factor;
    shape.prefill_reloaded_pairs *= factor;
    shape.prefill_cached *= factor;
    shape.decode_indexed *= factor;
    shape.prefill_index_pairs *= factor;
    shape.prefill_indexed *= factor;
    shape.state_passes *= factor;
    shape.encoded_states *= factor;
    shape.sequences *= factor;
    shape.prefill_sequences *= factor;
    shape.verified_tokens *= factor;
    return shape;
}

// The share of `count` sequences (or prompt chunks) that the busiest of `replicas` holds.
double busiest_share(double count, double replicas) {
    return count > 0.0 ? on_busiest_replica(count, replicas) / count : 0.0;
}

// What the busiest of `replicas` attention replicas runs of a stage's step. Each sequence lives
// on one replica, and the replicas meet at every MoE layer's all-to-all, so the step lasts as long
// as its busiest replica: it holds ceil(D / replicas) of the step's D decode sequences and
// ceil(P / replicas) of its P prompt chunks (a single prompt or a single stream, all of it).
StepShape busiest_replica(const StepShape& shape, double replicas) {
    if (replicas <= 1.0) return shape;
    const double chunks = shape.prefill_sequences;
    const double decode_sequences = std::max(0.0, shape.sequences - chunks);
    const double chunk_share = busiest_share(chunks, replicas);
    const double decode_share = busiest_share(decode_sequences, replicas);
    const double decode_tokens = std::max(0.0, shape.tokens - shape.prefill_tokens);
    const double prompt_logits = std::max(0.0, shape.logits - decode_sequences);
    StepShape busiest = scaled(shape, chunk_share);  // every prompt field at the chunks' share
    busiest.decode_attended = shape.decode_attended * decode_share;
    busiest.decode_indexed = shape.decode_indexed * decode_share;
    busiest.tokens = decode_tokens * decode_share + shape.prefill_tokens * chunk_share;
    busiest.logits = decode_sequences * decode_share + prompt_logits * chunk_share;
    busiest.sequences = decode_sequences * decode_share + chunks * chunk_share;
    busiest.state_passes = shape.sequences > 0.0 ? shape.state_passes * (busiest.sequences / shape.sequences) : 0.0;
    return busiest;
}

}  // namespace

double on_busiest_replica(double count, double replicas) {
    if (replicas <= 1.0 || count <= 1.0) return count;
    return std::min(count, std::ceil(count / replicas));
}

StepShape& StepShape::operator+=(const StepShape& other) {
    tokens += other.tokens;
    logits += other.logits;
    decode_attended += other.decode_attended;
    prefill_tokens += other.prefill_tokens;
    prefill_pairs += other.prefill_pairs;
    prefill_masked_pairs += other.prefill_masked_pairs;
    prefill_reloaded_pairs += other.prefill_reloaded_pairs;
    prefill_cached += other.prefill_cached;
    decode_indexed += other.decode_indexed;
    prefill_index_pairs += other.prefill_index_pairs;
    prefill_indexed += other.prefill_indexed;
    state_passes += other.state_passes;
    encoded_states += other.encoded_states;
    sequences += other.sequences;
    prefill_sequences += other.prefill_sequences;
    verified_tokens += other.verified_tokens;
    return *this;
}

void add_decode(StepShape& shape, const CostModel& cost, double batch, double context) {
    shape.tokens += batch;
    shape.logits += batch;
    shape.sequences += batch;
    shape.decode_attended += batch * cost.attended_tokens(context);
    shape.decode_indexed += batch * cost.indexed_tokens(context);
    if (cost.recurrent_layers > 0) shape.state_passes += 2.0 * batch;  // read and write each state
}

StepShape decode_shape(const CostModel& cost, double batch, double context) {
    StepShape shape;
    add_decode(shape, cost, batch, context);
    return shape;
}

StepShape prefill_shape(const CostModel& cost, double sequences, double start, double tokens, bool completes) {
    StepShape shape;
    shape.tokens = sequences * tokens;
    shape.logits = completes ? sequences : 0.0;
    shape.sequences = sequences;
    shape.prefill_sequences = sequences;
    shape.prefill_tokens = sequences * tokens;
    shape.prefill_pairs = sequences * (cost.full_attention_layers * causal_pairs(start, tokens, 0.0) +
                                       cost.sliding_layers * causal_pairs(start, tokens, cost.window) +
                                       cost.chunked_layers * chunked_pairs(start, tokens, cost.chunk) +
                                       cost.sparse_layers * causal_pairs(start, tokens, cost.topk));
    // Each prompt token of a cross-attention layer attends to every image state; the first chunk
    // projects the states' keys and values.
    shape.prefill_pairs += sequences * tokens * cost.cross_layers * cost.cross_states;
    if (start <= 0.0) shape.encoded_states = sequences * cost.cross_states;
    // A compressed layer's query at position q attends to its window and to q / r rows (a sparse
    // layer's to at most topk of them: min(q, topk r) / r).
    for (const CostModel::CompressedLayers& group : cost.compressed) {
        const double rows = causal_pairs(start, tokens, group.sparse ? cost.topk * group.ratio : 0.0) / group.ratio;
        shape.prefill_pairs += sequences * group.layers * (causal_pairs(start, tokens, cost.window) + rows);
    }
    shape.prefill_cached = start > 0.0 ? sequences * cost.attended_tokens(start) : 0.0;
    // A tile of R query rows loads each head's keys and values once; N queries take N / R loads,
    // N / R - 1 of them beyond the first: (1 - R / N) of the pairs, once more per R rows.
    const double rows = cost.prefill_rows_per_kv_load;
    if (!cost.unfused_attention && rows > 0.0 && tokens > rows) {
        shape.prefill_reloaded_pairs = shape.prefill_pairs * (1.0 - rows / tokens);
    }
    if (cost.unfused_attention) {
        double masked = 0.0;
        for (double done = 0.0; done < tokens; done += kUnfusedQueryBlock) {
            const double block = std::min(kUnfusedQueryBlock, tokens - done);
            masked += block * cost.attended_tokens(start + done + block);
        }
        shape.prefill_masked_pairs = sequences * masked;
    }
    if (cost.indexer_width > 0.0) {
        shape.prefill_index_pairs = sequences * cost.sparse_layers * causal_pairs(start, tokens, 0.0);
        for (const CostModel::CompressedLayers& group : cost.compressed) {
            if (group.sparse) {
                shape.prefill_index_pairs += sequences * group.layers * causal_pairs(start, tokens, 0.0) / group.ratio;
            }
        }
        shape.prefill_indexed = sequences * cost.indexed_tokens(start);
    }
    // A chunk writes each state once, and reads it first unless it starts the prompt (zero state).
    if (cost.recurrent_layers > 0) shape.state_passes = sequences * (start > 0.0 ? 2.0 : 1.0);
    return shape;
}

double pipeline_micro_batches(const CostModel& cost, double sequences) {
    return std::clamp(sequences, 1.0, static_cast<double>(cost.parallelism.pipeline));
}

StepCosts step_costs(const CostModel& cost, const StepShape& whole) {
    // Pipeline parallelism: the step's sequences are split into one micro-batch per stage (fewer
    // when there are fewer sequences); a token's step is one micro-batch's pass through every
    // stage, so the step costs one micro-batch through all layers. With fewer micro-batches than
    // stages the stages idle in turn: the bubble. Attention data parallelism: the step lasts as long
    // as its busiest replica (busiest_replica).
    StepShape stage = scaled(whole, 1.0 / pipeline_micro_batches(cost, whole.sequences));
    StepShape shape = busiest_replica(stage, cost.parallelism.attention_data);
    // A decode-only pass replays the graph captured for its batch (per attention replica and
    // micro-batch), padded with dummy rows up to a captured size, or, with no graph to hold it,
    // is dispatched op by op (engine/graph_capture.hpp).
    bool decode_without_graph = false;
    if (whole.prompt_tokens() <= 0.0 && cost.eager_decode_ops <= 0.0 && shape.sequences > 0.0) {
        const GraphReplay replay = graph_replay(cost.captured_batches, cost.graph_padding, shape.sequences);
        decode_without_graph = !replay.replayed;
        if (replay.rows > shape.sequences) {
            // A dummy row passes every matrix (a verification step's draft positions too) at a
            // context of one token (SGLang's seq_len_fill_value). It carries whatever token id an
            // earlier pass left in the graph's input buffer (replay_prepare copies the real rows'
            // ids only), so a MoE layer routes it as it routes a token.
            StepShape dummy = decode_shape(cost, replay.rows - shape.sequences, 1.0);
            const double positions = shape.tokens / shape.sequences;
            dummy.tokens *= positions;
            dummy.logits *= positions;
            shape += dummy;
            stage.tokens += dummy.tokens * cost.parallelism.attention_data;
        }
    }
    StepCosts step;
    add_common_costs(step, cost, shape.tokens, shape.logits, stage.tokens);
    // Decode attention reads each sequence's cache: the keys for the score, the values for the
    // product (MLA: the whole latent for the score, which the value product reuses on chip), with
    // the absorbed MLA widths. Prefill attention is fused (flash): it reads Q, K, V and writes O
    // once per layer, reads any earlier cache once, and runs MLA un-absorbed (per-head widths).
    const Bytes decode_cache = cost.kv_bytes_per_token_per_layer * shape.decode_attended;
    // Recurrent layers read and write their constant states, whatever the context, and their scan
    // kernels read the per-token inputs once; the DSA indexer reads its keys over the whole context.
    const Bytes prefill_traffic =
        cost.activation_bytes * (shape.prefill_tokens * (cost.attention_layers() * cost.query_key_value_width +
                                                         cost.recurrent_io_width)) +
        cost.kv_bytes_per_token_per_layer * shape.prefill_cached;
    const Bytes state_and_index_traffic = cost.recurrent_state_bytes * shape.state_passes +
                                          cost.indexer_bytes_per_token_per_layer * (shape.decode_indexed + shape.prefill_indexed);
    // The image states' cross-attention keys and values: projected and written once a prompt.
    if (shape.encoded_states > 0.0 && cost.cross_layers > 0) {
        OperatorCost& projection = step[OperatorKind::qkv_projection];
        projection.flops += Flops(2.0 * shape.encoded_states * cost.cross_kv.params);
        projection.bytes += cost.cross_kv.bytes + cost.activation_bytes * (shape.encoded_states * cost.cross_kv.activation_width);
        step[OperatorKind::kv_write].bytes += cost.kv_bytes_per_token_per_layer * (shape.encoded_states * cost.cross_layers);
    }
    // Unfused attention multiplies every query of a block by every key up to the block's end.
    const double prefill_scored = cost.unfused_attention ? shape.prefill_masked_pairs : shape.prefill_pairs;
    const double score_flops = 2.0 * cost.query_heads *
                                   (cost.score_width * shape.decode_attended + cost.prefill_score_width * prefill_scored) +
                               2.0 * cost.indexer_width * (shape.decode_indexed + shape.prefill_index_pairs) +
                               cost.recurrent_flops_per_token * shape.tokens;
    const double value_flops = 2.0 * cost.query_heads *
                               (cost.value_width * shape.decode_attended + cost.prefill_value_width * prefill_scored);
    // A fused prompt kernel loads each head's keys and values again for every further tile of
    // query rows (engine/attention_tile.hpp): the keys for the score, the values for the product.
    const double tile_loads = cost.prefill_rows_per_kv_load > 0.0
                                  ? shape.prefill_reloaded_pairs * cost.query_heads / cost.prefill_rows_per_kv_load
                                  : 0.0;
    const Bytes key_reloads = cost.prefill_kv_element_bytes * (tile_loads * cost.prefill_score_width);
    const Bytes value_reloads = cost.prefill_kv_element_bytes * (tile_loads * cost.prefill_value_width);
    step[OperatorKind::attention_score] = {Flops(score_flops),
                                           (cost.latent_cache ? decode_cache : decode_cache * 0.5) + prefill_traffic +
                                               state_and_index_traffic + key_reloads,
                                           cost.mixer_layers * kAttentionKernels, 0.0, 0.0};
    step[OperatorKind::attention_value] = {Flops(value_flops),
                                           (cost.latent_cache ? Bytes() : decode_cache * 0.5) + value_reloads, 0.0,
                                           0.0, 0.0};
    // The score matrix of an unfused attention goes through device memory once per layer: written
    // by Q.K, read and rewritten by the softmax (its own kernel), read by the value product.
    step[OperatorKind::attention_softmax] = {};
    if (cost.unfused_attention) {
        const double scores = cost.query_heads * (shape.decode_attended + shape.prefill_masked_pairs);
        step[OperatorKind::attention_softmax] = {Flops(), Bytes(kUnfusedScoreBytes * scores),
                                                 static_cast<double>(cost.attention_layers()), 0.0, 0.0};
    }
    step[OperatorKind::kv_offload] = {};
    if (cost.kv_device_room && decode_cache.value > 0.0) {
        // The device holds its stage's share of every sequence it serves; what exceeds the room
        // lives in CPU memory and streams over the host link each step, in the same proportion.
        const double held = decode_cache.value * pipeline_micro_batches(cost, whole.sequences) / cost.parallelism.pipeline;
        const double spilled = std::clamp(1.0 - cost.kv_device_room->value / held, 0.0, 1.0);
        if (spilled > 0.0) {
            step[OperatorKind::kv_offload] = {Flops(), decode_cache * spilled, 0.0, 0.0, 0.0};
            step[OperatorKind::attention_score].bytes -= decode_cache * (spilled * (cost.latent_cache ? 1.0 : 0.5));
            step[OperatorKind::attention_value].bytes -= decode_cache * (cost.latent_cache ? 0.0 : spilled * 0.5);
        }
    }
    // A pass with prompt tokens in it, mixed or not, runs eagerly where the runtime runs prompts so;
    // a decode-only pass where it runs those so.
    step.eager_ops = whole.prompt_tokens() > 0.0 ? cost.eager_prefill_ops
                     : decode_without_graph       ? cost.eager_pass_ops
                                                  : cost.eager_decode_ops;
    return step;
}

StepCosts decode_step_costs(const CostModel& cost, double batch, double context) {
    return step_costs(cost, decode_shape(cost, batch, context));
}

GraphReplay decode_graph_replay(const CostModel& cost, double batch) {
    // The decode sequences of step_costs' busiest replica of one micro-batch.
    const double stage = batch / pipeline_micro_batches(cost, batch);
    return graph_replay(cost.captured_batches, cost.graph_padding,
                        on_busiest_replica(stage, cost.parallelism.attention_data));
}

bool decode_without_graph(const CostModel& cost, double batch) {
    return cost.eager_pass_ops > 0.0 && cost.eager_decode_ops <= 0.0 && !decode_graph_replay(cost, batch).replayed;
}

StepCosts prefill_costs(const CostModel& cost, double batch, double prompt) {
    return step_costs(cost, prefill_shape(cost, batch, 0.0, prompt));
}

}  // namespace decodesim::engine
