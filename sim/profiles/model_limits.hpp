#pragma once
// The plausible range of every size in a model's shape, shared by the YAML model loader and the
// config.json importer so that a value refused in one is refused in the other (docs/robustness.md,
// "Numbers at the edge"). The bounds are far beyond any published model; they exist so that an
// absurd value is refused with its range instead of overflowing a count or narrowing into an int
// (2^32 + 32 heads must not become 32).

#include <cstdint>
#include <string_view>

namespace decodesim::profiles {

inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;   // 16.7 M: widths, heads, ranks
inline constexpr std::int64_t kMaxLayers = 100000;
inline constexpr std::int64_t kMaxVocabulary = std::int64_t{1} << 26;  // 67 M
inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 34;     // 17 G tokens
inline constexpr std::int64_t kMaxExperts = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxSharedExperts = std::int64_t{1} << 10;
inline constexpr double kMaxParameters = 1e15;

// The largest accepted value of a shape key, by its name in a model profile or a config.json.
constexpr std::int64_t model_size_limit(std::string_view key) {
    if (key == "num_hidden_layers" || key == "sliding_window_pattern" || key == "first_k_dense_replace" ||
        key == "moe_layer_freq" || key == "decoder_sparse_step" || key == "moe_layer_offset" ||
        key == "attention_layer_period" || key == "attention_layer_offset" || key == "chunked_attention_pattern" ||
        key == "full_attention_interval" || key == "attn_layer_period" || key == "attn_layer_offset" ||
        key == "expert_layer_period" || key == "expert_layer_offset" || key == "interleave_moe_layer_step" ||
        key == "mtp_layers" || key == "num_nextn_predict_layers" || key == "mtp_num_hidden_layers" ||
        key == "cross_attention_layers" || key == "num_global_layers") {
        return kMaxLayers;
    }
    if (key == "vocab_size") return kMaxVocabulary;
    if (key == "max_position_embeddings" || key == "sliding_window" || key == "attention_chunk_size" ||
        key == "index_topk" || key == "compress_ratios") {
        return kMaxContext;
    }
    if (key == "n_routed_experts" || key == "num_local_experts" || key == "num_experts" ||
        key == "num_experts_per_tok" || key == "num_experts_per_token") {
        return kMaxExperts;
    }
    if (key == "n_shared_experts") return kMaxSharedExperts;
    return kMaxDimension;  // hidden and intermediate sizes, heads, head dims, ranks
}

}  // namespace decodesim::profiles
