#pragma once
// A transformer's shape, in Hugging Face config.json terms: plain data, loaded by model_loader
// (YAML profiles) or hf_config (config.json files).

#include <cstdint>
#include <optional>
#include <string>

#include "core/quantization.hpp"

namespace decodesim::profiles {

struct SlidingWindow {
    std::int64_t window = 0;  // tokens
    // Every pattern-th layer ((i + 1) % pattern == 0) is global and the rest slide;
    // 0 means every layer slides.
    int pattern = 0;
};

struct MixtureOfExperts {
    int n_routed_experts = 0;
    int num_experts_per_tok = 0;
    std::int64_t moe_intermediate_size = 0;
    int n_shared_experts = 0;
    std::int64_t shared_expert_intermediate_size = 0;
    int first_k_dense_replace = 0;  // leading dense layers
    int moe_layer_freq = 1;         // after those, every n-th layer is MoE
};

// Multi-head latent attention (DeepSeek-V2/V3).
struct LatentAttention {
    std::int64_t kv_lora_rank = 0;
    std::int64_t q_lora_rank = 0;  // 0: queries projected directly from the hidden state
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t v_head_dim = 0;
};

struct ModelProfile {
    std::string id;
    std::string name;
    std::string source;
    std::optional<double> parameters;  // as published
    int num_hidden_layers = 0;
    std::int64_t hidden_size = 0;
    std::int64_t intermediate_size = 0;  // 0 when no layer is a dense MLP
    std::string hidden_act;
    bool gated_mlp = true;
    int num_attention_heads = 0;
    int num_key_value_heads = 0;
    std::int64_t head_dim = 0;
    std::int64_t vocab_size = 0;
    bool tie_word_embeddings = false;
    std::optional<std::int64_t> max_position_embeddings;
    std::optional<SlidingWindow> sliding_window;
    std::optional<MixtureOfExperts> moe;
    std::optional<LatentAttention> mla;
    // How the checkpoint stores its weights, from config.json's quantization_config: the weight
    // format a deployment takes unless --weights says otherwise (null: none stated, or not one
    // decodesim reads). `checkpoint_quantization` says what the config stated, for messages.
    const core::WeightFormat* checkpoint_weights = nullptr;
    std::string checkpoint_quantization;
    // What the checkpoint files hold, read from their headers when the model came from a model
    // folder or a .gguf (profiles/checkpoint_folder.hpp); unset for YAML profiles and a lone
    // config.json. The weights count stored elements, not scales or zero points, so the CLI can set
    // them against the shape's own count (a gap over 5% means the shape or the files are not what
    // they claim). The bits per weight are exact for the whole file set, mixed formats included
    // (GGUF Q4_K_M with its Q6_K tensors, MXFP4 experts beside bf16 attention); the engine still
    // prices weights by checkpoint_weights' per-tensor rules.
    std::optional<double> checkpoint_parameters;
    std::optional<double> checkpoint_bytes;
    std::optional<double> checkpoint_bits_per_weight;
};

}  // namespace decodesim::profiles
