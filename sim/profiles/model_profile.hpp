#pragma once
// A transformer's shape, in Hugging Face config.json terms: plain data, loaded by model_loader
// (YAML profiles) or hf_config (config.json files).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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
    // LatentMoE (Nemotron-3 Super): routed experts work in a latent of this width, projected from
    // and back to the hidden state by two matrices every token uses; 0: experts at hidden width.
    std::int64_t latent_size = 0;
    int moe_layer_freq = 1;         // after those, layer i is MoE when i % moe_layer_freq == moe_layer_offset
    int moe_layer_offset = 0;       // Jamba expert_layer_offset 1; Llama 4 interleave step s: offset s - 1
};

// Multi-head latent attention (DeepSeek-V2/V3).
struct LatentAttention {
    std::int64_t kv_lora_rank = 0;
    std::int64_t q_lora_rank = 0;  // 0: queries projected directly from the hidden state
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t v_head_dim = 0;
};

// Hybrid models whose non-attention layers keep a constant-size recurrent state per sequence
// instead of a growing KV cache. Layer i is an attention layer iff i % attention_period ==
// attention_offset (Qwen3-Next full_attention_interval 4: period 4, offset 3; Jamba
// attn_layer_period 8, attn_layer_offset 4).
enum class RecurrentKind {
    gated_delta_net,  // Qwen3-Next linear attention: per value head a key_head_dim x value_head_dim state
    mamba,            // Mamba-1 selective SSM (Jamba): per inner channel a d_state state
    mamba2,           // Mamba-2 SSD (Nemotron-H): per head head_dim x d_state, B and C shared per group
};

struct RecurrentLayers {
    RecurrentKind kind = RecurrentKind::gated_delta_net;
    int attention_period = 0;
    int attention_offset = 0;
    std::int64_t conv_kernel = 0;  // short causal convolution width (linear_conv_kernel_dim, mamba_d_conv)
    // Gated DeltaNet.
    int num_key_heads = 0;
    int num_value_heads = 0;
    std::int64_t key_head_dim = 0;
    std::int64_t value_head_dim = 0;
    // Mamba: inner width expand * hidden_size, d_state per inner channel, dt_rank for the step size.
    // Mamba-2 also uses d_state, with num_value_heads heads of value_head_dim (its inner width)
    // and num_key_heads groups sharing B and C.
    std::int64_t expand = 0;
    std::int64_t d_state = 0;
    std::int64_t dt_rank = 0;
};

// One character a layer, for models whose layers are single blocks (Nemotron-H's
// hybrid_override_pattern): 'M' a recurrent mixer, '*' attention, 'E' a MoE MLP, '-' a dense MLP,
// each with its own norm and residual. Empty: every layer is a mixer followed by an MLP.
inline constexpr char kRecurrentBlock = 'M', kAttentionBlock = '*', kMoeBlock = 'E', kDenseBlock = '-';

// DeepSeek sparse attention (DSA, DeepSeek-V3.2): a lightning indexer scores every cached token
// with index_n_heads heads of index_head_dim over its own small key cache, and MLA then attends
// to the index_topk best tokens only.
struct SparseAttention {
    std::int64_t index_topk = 0;
    int index_n_heads = 0;
    std::int64_t index_head_dim = 0;
};

// DeepSeek-V4's compressed attention (CSA and HCA; its inference/model.py, Attention and
// Compressor). Every layer has one key-value head of head_dim, its keys and values the same
// vector, and keeps its last `window` tokens whole; a layer of ratio r > 0 also pools each r
// tokens into one compressed row and attends to those. A layer of ratio kSparseCompressRatio is
// CSA: its compressor pools overlapping blocks, and a lightning indexer (the index_* keys,
// SparseAttention) picks index_topk of its rows; any other ratio is HCA, which attends to all of
// them. Queries go through a q_lora_rank latent; the output projection is grouped: each of
// o_groups groups of heads is projected to o_lora_rank, and their concatenation to the hidden
// state. The residual stream is hc_mult copies wide (manifold-constrained hyper-connections).
inline constexpr int kSparseCompressRatio = 4;

struct CompressedAttention {
    std::vector<int> ratios;         // compress_ratios, one a layer; 0: the window alone
    std::int64_t window = 0;         // sliding_window, tokens
    std::int64_t q_lora_rank = 0;
    std::int64_t o_lora_rank = 0;
    int o_groups = 1;
    int hc_mult = 1;
};

// Chunked local attention (Llama 4 iRoPE): a chunked layer attends only within its
// attention_chunk_size-token chunk; every pattern-th layer ((i + 1) % pattern == 0) is global.
struct ChunkedAttention {
    std::int64_t chunk = 0;  // tokens
    int pattern = 0;
};

// A vision encoder whose image tokens join the language model's prompt (Qwen2.5-VL and its
// kind): patches of patch_size pixels, merge x merge of them one token of the language model. Its
// attention runs over the whole image in full_attention_layers of its layers and within windows of
// window_patches patches in the rest. A tiled encoder (Llama 3.2 Vision, tile_size > 0) cuts an
// image into up to max_tiles tiles of tile_size pixels a side and attends over all of them; each
// tile gives (tile_size / patch_size)^2 patch states and a class token, which the language
// model's cross-attention layers read instead of prompt tokens.
struct VisionEncoder {
    double parameters = 0.0;            // the encoder and its projector into the language model
    int layers = 0;
    std::int64_t hidden_size = 0;
    std::int64_t patch_size = 0;        // pixels a side
    std::int64_t merge = 1;             // spatial_merge_size
    std::int64_t image_size = 0;        // pixels a side of the image predicted by default
    int full_attention_layers = 0;      // all layers when 0 window_patches
    std::int64_t window_patches = 0;    // 0: every layer attends over the whole image
    std::int64_t tile_size = 0;         // pixels a side of a tile; 0: the image is not tiled
    int max_tiles = 1;
    std::string source;
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
    // Multi-token-prediction layers the checkpoint ships beside the main stack (DeepSeek-V3's
    // num_nextn_predict_layers, Qwen3-Next's mtp_num_hidden_layers): what `--draft mtp` drafts
    // with. 0: the model has none, and `--draft mtp` is refused.
    int mtp_layers = 0;
    // A sigmoid gate on the attention output, computed by the query projection (Qwen3-Next and
    // Qwen3.5, config.json attn_output_gate): q_proj is twice as wide, heads x head_dim x 2 outputs.
    bool attn_output_gate = false;
    // Single-block layers (see kRecurrentBlock); empty for mixer-plus-MLP layers.
    std::string layer_pattern;
    std::optional<VisionEncoder> vision;
    // Layers that attend to the images' states instead of the tokens (Llama 3.2 Vision's
    // cross_attention_layers, in increasing order): query and output projections on the tokens,
    // keys and values of the vision encoder's states, and an MLP. They keep no per-token cache,
    // and a request without images skips them whole (transformers' MllamaTextModel, vLLM's
    // skip_cross_attention).
    std::vector<int> cross_attention_layers;
    std::optional<SlidingWindow> sliding_window;
    std::optional<MixtureOfExperts> moe;
    std::optional<LatentAttention> mla;
    std::optional<RecurrentLayers> recurrent;
    std::optional<SparseAttention> sparse_attention;
    std::optional<ChunkedAttention> chunked_attention;
    std::optional<CompressedAttention> compressed_attention;
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
    // A GGUF file's tensor types by layer and role: a deployment that runs the checkpoint's own
    // format prices its weights tensor by tensor as stored (engine/cost_model.cpp), which is what a
    // per-tensor mix (unsloth's dynamic quants, a --tensor-type override) needs. Shared, not
    // copied, with the profile.
    std::shared_ptr<const core::StoredTensorBits> stored_tensor_bits;
};

}  // namespace decodesim::profiles
