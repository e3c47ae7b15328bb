#include "profiles/model_loader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/text_escape.hpp"
#include "profiles/model_limits.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

bool any_dense_layer(const ModelProfile& model) {
    if (!model.layer_pattern.empty()) return model.layer_pattern.find(kDenseBlock) != std::string::npos;
    if (!model.moe) return true;
    if (model.moe->first_k_dense_replace > 0) return true;
    return model.moe->moe_layer_freq > 1;
}

}  // namespace

void check_model_consistency(const ModelProfile& model,
                             const std::function<core::SourceLocation(const std::string&)>& locate,
                             std::vector<core::Diagnostic>& diagnostics) {
    auto fail = [&](const std::string& key, const std::string& message) {
        diagnostics.push_back({locate(key), key, message});
    };
    if (model.num_attention_heads > 0 && model.num_key_value_heads > 0 &&
        model.num_attention_heads % model.num_key_value_heads != 0) {
        fail("num_key_value_heads", fmt::format("{} attention heads cannot be shared evenly by {} KV heads; expected a "
                                                "divisor of num_attention_heads",
                                                model.num_attention_heads, model.num_key_value_heads));
    }
    if (model.num_key_value_heads > model.num_attention_heads && model.num_attention_heads > 0) {
        fail("num_key_value_heads", "more KV heads than attention heads");
    }
    if (any_dense_layer(model) && model.intermediate_size <= 0) {
        fail("intermediate_size", "missing: the model has dense MLP layers, so their intermediate size is required");
    }
    if (model.moe) {
        const auto& moe = *model.moe;
        if (moe.num_experts_per_tok > moe.n_routed_experts) {
            fail("num_experts_per_tok", fmt::format("{} experts per token but only {} routed experts",
                                                    moe.num_experts_per_tok, moe.n_routed_experts));
        }
        if (moe.moe_layer_offset >= moe.moe_layer_freq) {
            fail("moe_layer_offset", fmt::format("offset {} can never equal layer % {}; expected less than moe_layer_freq",
                                                 moe.moe_layer_offset, moe.moe_layer_freq));
        }
        if (moe.first_k_dense_replace >= model.num_hidden_layers) {
            fail("first_k_dense_replace", "every layer would be dense; expected fewer than num_hidden_layers");
        }
    }
    if (model.recurrent) {
        const auto& recurrent = *model.recurrent;
        if (model.layer_pattern.empty() && recurrent.attention_offset >= recurrent.attention_period) {
            fail("attention_layer_offset",
                 fmt::format("offset {} can never equal layer % {}; expected less than attention_layer_period",
                             recurrent.attention_offset, recurrent.attention_period));
        }
        if (recurrent.conv_kernel < 2) {
            fail(recurrent.kind == RecurrentKind::gated_delta_net ? "linear_conv_kernel_dim" : "mamba_d_conv",
                 "a convolution of width 1 keeps no earlier inputs; expected at least 2");
        }
        if (recurrent.kind == RecurrentKind::mamba2 && recurrent.num_key_heads > 0 &&
            recurrent.num_value_heads % recurrent.num_key_heads != 0) {
            fail("mamba2_n_groups", fmt::format("{} heads cannot share {} groups of B and C evenly",
                                                recurrent.num_value_heads, recurrent.num_key_heads));
        }
        if (recurrent.kind == RecurrentKind::gated_delta_net && recurrent.num_key_heads > 0 &&
            recurrent.num_value_heads % recurrent.num_key_heads != 0) {
            fail("linear_num_value_heads", fmt::format("{} value heads cannot share {} key heads evenly",
                                                       recurrent.num_value_heads, recurrent.num_key_heads));
        }
    }
    if (!model.layer_pattern.empty()) {
        const std::string& pattern = model.layer_pattern;
        if (static_cast<int>(pattern.size()) != model.num_hidden_layers) {
            fail("layer_pattern", fmt::format("{} blocks for {} layers; expected one character a layer", pattern.size(),
                                              model.num_hidden_layers));
        }
        const auto bad = pattern.find_first_not_of(std::string{kRecurrentBlock, kAttentionBlock, kMoeBlock, kDenseBlock});
        if (bad != std::string::npos) {
            fail("layer_pattern", fmt::format("'{}' at layer {} is no block; expected M (recurrent), * (attention), E "
                                              "(MoE MLP) or - (dense MLP)",
                                              core::printable(pattern.substr(bad, 1)), bad));
        } else {
            if (pattern.find(kRecurrentBlock) != std::string::npos && !model.recurrent) {
                fail("layer_pattern", "'M' layers need a recurrent mixer (the mamba2_* or mamba_* keys)");
            }
            if (pattern.find(kMoeBlock) != std::string::npos && !model.moe) {
                fail("layer_pattern", "'E' layers need experts (n_routed_experts and the other MoE keys)");
            }
            if (pattern.find(kAttentionBlock) == std::string::npos && pattern.find(kRecurrentBlock) == std::string::npos) {
                fail("layer_pattern", "no mixer layer ('*' or 'M'): nothing mixes tokens");
            }
        }
    }
    if (model.sparse_attention && !model.mla && !model.compressed_attention) {
        fail("index_topk", "sparse attention (index_*) selects tokens of an MLA latent cache or compressed rows; "
                           "kv_lora_rank and the other MLA keys, or compress_ratios, are required");
    }
    if (!model.cross_attention_layers.empty()) {
        const auto& layers = model.cross_attention_layers;
        if (!std::is_sorted(layers.begin(), layers.end()) ||
            std::adjacent_find(layers.begin(), layers.end()) != layers.end()) {
            fail("cross_attention_layers", "expected each layer once, in increasing order");
        }
        if (layers.back() >= model.num_hidden_layers) {
            fail("cross_attention_layers", fmt::format("layer {} of {}; expected indices below num_hidden_layers",
                                                       layers.back(), model.num_hidden_layers));
        }
        if (!model.vision || model.vision->tile_size == 0) {
            fail("cross_attention_layers", "cross-attention layers read a tiled vision encoder's states: a vision block "
                                           "with tile_size and max_tiles is required");
        }
        if (model.mla || model.recurrent || model.compressed_attention || !model.layer_pattern.empty()) {
            fail("cross_attention_layers", "cross-attention layers sit among plain attention layers: not with MLA, "
                                           "recurrent layers, compressed attention or a layer_pattern");
        }
        if (static_cast<int>(layers.size()) >= model.num_hidden_layers) {
            fail("cross_attention_layers", "every layer would be a cross-attention layer; nothing attends to the tokens");
        }
    } else if (model.vision && model.vision->tile_size > 0) {
        fail("vision", "a tiled encoder's states are read by cross-attention layers: cross_attention_layers is required");
    }
    if (model.compressed_attention) {
        const auto& attention = *model.compressed_attention;
        if (static_cast<int>(attention.ratios.size()) != model.num_hidden_layers) {
            fail("compress_ratios", fmt::format("{} ratios for {} layers; expected one a layer (config.json lists the "
                                                "multi-token-prediction layers' after them: leave those out)",
                                                attention.ratios.size(), model.num_hidden_layers));
        }
        const bool sparse_layers = std::find(attention.ratios.begin(), attention.ratios.end(), kSparseCompressRatio) !=
                                   attention.ratios.end();
        if (sparse_layers && !model.sparse_attention) {
            fail("compress_ratios", fmt::format("layers of ratio {} pick their rows with a lightning indexer: index_topk, "
                                                "index_n_heads and index_head_dim are required",
                                                kSparseCompressRatio));
        }
        if (!sparse_layers && model.sparse_attention) {
            fail("index_topk", fmt::format("only layers of ratio {} have an indexer, and no layer has that ratio",
                                           kSparseCompressRatio));
        }
        if (model.num_key_value_heads != 1) {
            fail("num_key_value_heads", "compressed attention has one key-value head (its keys are its values); expected 1");
        }
        if (model.num_attention_heads > 0 && model.num_attention_heads % attention.o_groups != 0) {
            fail("o_groups", fmt::format("{} heads cannot form {} equal groups for the output projection",
                                         model.num_attention_heads, attention.o_groups));
        }
        if (model.mla || model.recurrent || model.chunked_attention) {
            fail("compress_ratios", "compressed attention is every layer's attention: it cannot be combined with MLA "
                                    "(kv_lora_rank), recurrent layers or chunked attention");
        }
    }
    if (model.chunked_attention && model.sliding_window) {
        fail("attention_chunk_size", "a model has sliding-window or chunked attention layers, not both");
    }
    if (model.chunked_attention && model.chunked_attention->pattern == 1) {
        fail("chunked_attention_pattern", "a pattern of 1 makes every layer global; remove attention_chunk_size instead");
    }
    if (model.sliding_window && model.sliding_window->pattern == 1) {
        fail("sliding_window_pattern", "a pattern of 1 makes every layer global; remove sliding_window instead");
    }
}

ModelProfile load_model_profile(const std::string& path) { return parse_model_profile(read_input_file(path), path); }

ModelProfile parse_model_profile(const std::string& text, const std::string& path) {
    const YAML::Node document = parse_document(text, path);
    std::vector<core::Diagnostic> diagnostics;
    StrictMap root(document, path, "", diagnostics);
    const auto required = Presence::required;
    const auto optional = Presence::optional;

    ModelProfile model;
    model.id = id_from_path(path);
    model.name = root.string("name", required).value_or("");
    model.source = root.string("source", required).value_or("");
    model.parameters = root.positive_number("parameters", optional, kMaxParameters);
    model.num_hidden_layers = static_cast<int>(root.positive_integer("num_hidden_layers", required, model_size_limit("num_hidden_layers")).value_or(0));
    model.hidden_size = root.positive_integer("hidden_size", required, model_size_limit("hidden_size")).value_or(0);
    model.intermediate_size = root.positive_integer("intermediate_size", optional, model_size_limit("intermediate_size")).value_or(0);
    model.hidden_act = root.string("hidden_act", required).value_or("");
    model.gated_mlp = root.boolean("gated_mlp", optional).value_or(true);
    model.num_attention_heads =
        static_cast<int>(root.positive_integer("num_attention_heads", required, model_size_limit("num_attention_heads")).value_or(0));
    model.num_key_value_heads =
        static_cast<int>(root.positive_integer("num_key_value_heads", required, model_size_limit("num_key_value_heads")).value_or(0));
    model.head_dim = root.positive_integer("head_dim", required, model_size_limit("head_dim")).value_or(0);
    model.vocab_size = root.positive_integer("vocab_size", required, model_size_limit("vocab_size")).value_or(0);
    model.tie_word_embeddings = root.boolean("tie_word_embeddings", required).value_or(false);
    model.max_position_embeddings = root.positive_integer("max_position_embeddings", optional, model_size_limit("max_position_embeddings"));
    model.mtp_layers = static_cast<int>(root.non_negative_integer("mtp_layers", optional, model_size_limit("mtp_layers")).value_or(0));
    model.attn_output_gate = root.boolean("attn_output_gate", optional).value_or(false);
    model.layer_pattern = root.string("layer_pattern", optional).value_or("");

    // DeepSeek-V4 (compressed attention): its sliding_window is the window every layer keeps beside
    // its compressed rows, and its q_lora_rank feeds plain heads, not MLA's.
    const bool compressed = root.has("compress_ratios") || root.has("o_lora_rank") || root.has("o_groups") ||
                            root.has("hc_mult");
    if (compressed) {
        CompressedAttention attention;
        for (const std::int64_t ratio :
             root.integers("compress_ratios", required, 0, model_size_limit("compress_ratios")).value_or(std::vector<std::int64_t>{})) {
            attention.ratios.push_back(static_cast<int>(ratio));
        }
        attention.window = root.positive_integer("sliding_window", required, model_size_limit("sliding_window")).value_or(0);
        attention.q_lora_rank = root.positive_integer("q_lora_rank", required, model_size_limit("q_lora_rank")).value_or(0);
        attention.o_lora_rank = root.positive_integer("o_lora_rank", required, model_size_limit("o_lora_rank")).value_or(0);
        attention.o_groups = static_cast<int>(root.positive_integer("o_groups", required, model_size_limit("o_groups")).value_or(1));
        attention.hc_mult = static_cast<int>(root.positive_integer("hc_mult", optional, model_size_limit("hc_mult")).value_or(1));
        if (root.has("sliding_window_pattern")) {
            root.error("sliding_window_pattern", "compressed attention (compress_ratios) keeps its window on every layer; "
                                                 "remove sliding_window_pattern");
        }
        model.compressed_attention = attention;
    } else if (root.has("sliding_window") || root.has("sliding_window_pattern")) {
        SlidingWindow window;
        window.window = root.positive_integer("sliding_window", required, model_size_limit("sliding_window")).value_or(0);
        window.pattern = static_cast<int>(root.positive_integer("sliding_window_pattern", optional, model_size_limit("sliding_window_pattern")).value_or(0));
        model.sliding_window = window;
    } else {
        root.accept("sliding_window");
        root.accept("sliding_window_pattern");
    }

    const bool has_moe = root.has("n_routed_experts") || root.has("num_experts_per_tok") ||
                         root.has("moe_intermediate_size") || root.has("n_shared_experts") ||
                         root.has("first_k_dense_replace") || root.has("moe_layer_freq") ||
                         root.has("shared_expert_intermediate_size") || root.has("moe_layer_offset");
    if (has_moe) {
        MixtureOfExperts moe;
        moe.n_routed_experts = static_cast<int>(root.positive_integer("n_routed_experts", required, model_size_limit("n_routed_experts")).value_or(0));
        moe.num_experts_per_tok = static_cast<int>(root.positive_integer("num_experts_per_tok", required, model_size_limit("num_experts_per_tok")).value_or(0));
        moe.moe_intermediate_size = root.positive_integer("moe_intermediate_size", required, model_size_limit("moe_intermediate_size")).value_or(0);
        moe.n_shared_experts = static_cast<int>(root.non_negative_integer("n_shared_experts", optional, model_size_limit("n_shared_experts")).value_or(0));
        moe.shared_expert_intermediate_size =
            root.positive_integer("shared_expert_intermediate_size", optional, model_size_limit("shared_expert_intermediate_size")).value_or(moe.moe_intermediate_size);
        moe.first_k_dense_replace =
            static_cast<int>(root.non_negative_integer("first_k_dense_replace", optional, model_size_limit("first_k_dense_replace")).value_or(0));
        moe.moe_layer_freq = static_cast<int>(root.positive_integer("moe_layer_freq", optional, model_size_limit("moe_layer_freq")).value_or(1));
        moe.moe_layer_offset = static_cast<int>(root.non_negative_integer("moe_layer_offset", optional, model_size_limit("moe_layer_offset")).value_or(0));
        moe.latent_size = root.positive_integer("moe_latent_size", optional, model_size_limit("moe_latent_size")).value_or(0);
        model.moe = moe;
    }

    const bool has_mla = root.has("kv_lora_rank") || (root.has("q_lora_rank") && !compressed) ||
                         root.has("qk_rope_head_dim") || root.has("qk_nope_head_dim") || root.has("v_head_dim");
    if (has_mla) {
        LatentAttention mla;
        mla.kv_lora_rank = root.positive_integer("kv_lora_rank", required, model_size_limit("kv_lora_rank")).value_or(0);
        mla.q_lora_rank = root.non_negative_integer("q_lora_rank", required, model_size_limit("q_lora_rank")).value_or(0);
        mla.qk_rope_head_dim = root.positive_integer("qk_rope_head_dim", required, model_size_limit("qk_rope_head_dim")).value_or(0);
        mla.qk_nope_head_dim = root.positive_integer("qk_nope_head_dim", required, model_size_limit("qk_nope_head_dim")).value_or(0);
        mla.v_head_dim = root.positive_integer("v_head_dim", required, model_size_limit("v_head_dim")).value_or(0);
        model.mla = mla;
    }

    const bool has_delta_net = root.has("linear_num_key_heads") || root.has("linear_num_value_heads") ||
                               root.has("linear_key_head_dim") || root.has("linear_value_head_dim") ||
                               root.has("linear_conv_kernel_dim");
    const bool has_mamba2 = root.has("mamba2_num_heads") || root.has("mamba2_head_dim") || root.has("mamba2_n_groups");
    const bool has_mamba = root.has("mamba_d_state") || root.has("mamba_d_conv") || root.has("mamba_expand") ||
                           root.has("mamba_dt_rank") || has_mamba2;
    const bool patterned = root.has("layer_pattern");
    if (has_delta_net && has_mamba) {
        root.error(root.has("mamba_d_state") ? "mamba_d_state" : "mamba_d_conv",
                   "a model has either Gated DeltaNet (linear_*) or Mamba (mamba_*) layers, not both");
    }
    if (patterned && (root.has("attention_layer_period") || root.has("attention_layer_offset"))) {
        root.error(root.has("attention_layer_period") ? "attention_layer_period" : "attention_layer_offset",
                   "layer_pattern places every layer; a period and offset would place them twice");
    }
    if (has_delta_net || has_mamba || root.has("attention_layer_period") || root.has("attention_layer_offset")) {
        RecurrentLayers recurrent;
        // With a layer pattern, the pattern says which layers are recurrent.
        const auto where = patterned ? optional : required;
        recurrent.attention_period = static_cast<int>(root.positive_integer("attention_layer_period", where, model_size_limit("attention_layer_period")).value_or(1));
        recurrent.attention_offset = static_cast<int>(root.non_negative_integer("attention_layer_offset", where, model_size_limit("attention_layer_offset")).value_or(0));
        if (has_mamba2) {
            // Mamba-2 (Nemotron-H): the inner width is heads x head_dim, not expand x hidden.
            for (const char* mamba1 : {"mamba_expand", "mamba_dt_rank"}) {
                if (root.has(mamba1)) {
                    root.error(mamba1, "a Mamba-1 key; a Mamba-2 mixer (mamba2_*) has heads of mamba2_head_dim and no "
                                       "step-size projection");
                }
            }
            recurrent.kind = RecurrentKind::mamba2;
            recurrent.num_value_heads = static_cast<int>(root.positive_integer("mamba2_num_heads", required, model_size_limit("mamba2_num_heads")).value_or(0));
            recurrent.value_head_dim = root.positive_integer("mamba2_head_dim", required, model_size_limit("mamba2_head_dim")).value_or(0);
            recurrent.num_key_heads = static_cast<int>(root.positive_integer("mamba2_n_groups", required, model_size_limit("mamba2_n_groups")).value_or(0));
            recurrent.d_state = root.positive_integer("mamba_d_state", required, model_size_limit("mamba_d_state")).value_or(0);
            recurrent.conv_kernel = root.positive_integer("mamba_d_conv", required, model_size_limit("mamba_d_conv")).value_or(0);
        } else if (has_mamba) {
            recurrent.kind = RecurrentKind::mamba;
            recurrent.d_state = root.positive_integer("mamba_d_state", required, model_size_limit("mamba_d_state")).value_or(0);
            recurrent.conv_kernel = root.positive_integer("mamba_d_conv", required, model_size_limit("mamba_d_conv")).value_or(0);
            recurrent.expand = root.positive_integer("mamba_expand", required, model_size_limit("mamba_expand")).value_or(0);
            recurrent.dt_rank = root.positive_integer("mamba_dt_rank", required, model_size_limit("mamba_dt_rank")).value_or(0);
        } else {
            recurrent.kind = RecurrentKind::gated_delta_net;
            recurrent.num_key_heads = static_cast<int>(root.positive_integer("linear_num_key_heads", required, model_size_limit("linear_num_key_heads")).value_or(0));
            recurrent.num_value_heads = static_cast<int>(root.positive_integer("linear_num_value_heads", required, model_size_limit("linear_num_value_heads")).value_or(0));
            recurrent.key_head_dim = root.positive_integer("linear_key_head_dim", required, model_size_limit("linear_key_head_dim")).value_or(0);
            recurrent.value_head_dim = root.positive_integer("linear_value_head_dim", required, model_size_limit("linear_value_head_dim")).value_or(0);
            recurrent.conv_kernel = root.positive_integer("linear_conv_kernel_dim", required, model_size_limit("linear_conv_kernel_dim")).value_or(0);
        }
        model.recurrent = recurrent;
    }

    if (auto block = root.map("vision", optional)) {
        VisionEncoder vision;
        vision.source = block->string("source", required).value_or("");
        vision.parameters = block->positive_number("parameters", required, kMaxParameters).value_or(0.0);
        vision.layers = static_cast<int>(block->positive_integer("layers", required, model_size_limit("num_hidden_layers")).value_or(0));
        vision.hidden_size = block->positive_integer("hidden_size", required, model_size_limit("hidden_size")).value_or(0);
        vision.patch_size = block->positive_integer("patch_size", required, 4096).value_or(0);
        vision.merge = block->positive_integer("merge", optional, 64).value_or(1);
        vision.image_size = block->positive_integer("image_size", required, 65536).value_or(0);
        vision.window_patches = block->non_negative_integer("window_patches", optional, 1 << 20).value_or(0);
        vision.tile_size = block->positive_integer("tile_size", optional, 65536).value_or(0);
        vision.max_tiles = static_cast<int>(block->positive_integer("max_tiles", vision.tile_size > 0 ? required : optional, 64).value_or(1));
        if (vision.tile_size > 0 && vision.tile_size < vision.patch_size) {
            block->error("tile_size", fmt::format("{} px is less than one {} px patch", vision.tile_size, vision.patch_size));
        }
        if (vision.tile_size == 0 && block->has("max_tiles")) {
            block->error("max_tiles", "tiles need tile_size, the pixels a side of one");
        }
        vision.full_attention_layers = static_cast<int>(
            block->non_negative_integer("full_attention_layers", vision.window_patches > 0 ? required : optional,
                                        model_size_limit("num_hidden_layers"))
                .value_or(vision.layers));
        if (vision.full_attention_layers > vision.layers) {
            block->error("full_attention_layers", fmt::format("{} of {} layers", vision.full_attention_layers, vision.layers));
        }
        if (vision.image_size < vision.patch_size * vision.merge) {
            block->error("image_size", fmt::format("{} px is less than one token's {} x {} px patch", vision.image_size,
                                                   vision.patch_size * vision.merge, vision.patch_size * vision.merge));
        }
        block->reject_unknown_keys({"source", "parameters", "layers", "hidden_size", "patch_size", "merge", "image_size",
                                    "window_patches", "full_attention_layers", "tile_size", "max_tiles"});
        model.vision = vision;
    }

    if (root.has("index_topk") || root.has("index_n_heads") || root.has("index_head_dim")) {
        SparseAttention dsa;
        dsa.index_topk = root.positive_integer("index_topk", required, model_size_limit("index_topk")).value_or(0);
        dsa.index_n_heads = static_cast<int>(root.positive_integer("index_n_heads", required, model_size_limit("index_n_heads")).value_or(0));
        dsa.index_head_dim = root.positive_integer("index_head_dim", required, model_size_limit("index_head_dim")).value_or(0);
        model.sparse_attention = dsa;
    }

    for (const std::int64_t layer : root.integers("cross_attention_layers", optional, 0, model_size_limit("num_hidden_layers"))
                                        .value_or(std::vector<std::int64_t>{})) {
        model.cross_attention_layers.push_back(static_cast<int>(layer));
    }

    if (root.has("attention_chunk_size") || root.has("chunked_attention_pattern")) {
        ChunkedAttention chunked;
        chunked.chunk = root.positive_integer("attention_chunk_size", required, model_size_limit("attention_chunk_size")).value_or(0);
        chunked.pattern = static_cast<int>(root.positive_integer("chunked_attention_pattern", optional, model_size_limit("chunked_attention_pattern")).value_or(0));
        model.chunked_attention = chunked;
    }

    root.reject_unknown_keys({"name", "source", "parameters", "num_hidden_layers", "hidden_size", "intermediate_size",
                              "hidden_act", "gated_mlp", "num_attention_heads", "num_key_value_heads", "head_dim",
                              "vocab_size", "tie_word_embeddings", "max_position_embeddings", "sliding_window",
                              "sliding_window_pattern", "n_routed_experts", "num_experts_per_tok",
                              "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
                              "first_k_dense_replace", "moe_layer_freq", "kv_lora_rank", "q_lora_rank",
                              "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "moe_layer_offset",
                              "attention_layer_period", "attention_layer_offset", "linear_num_key_heads",
                              "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
                              "linear_conv_kernel_dim", "mamba_d_state", "mamba_d_conv", "mamba_expand",
                              "mamba_dt_rank", "index_topk", "index_n_heads", "index_head_dim",
                              "attention_chunk_size", "chunked_attention_pattern", "mtp_layers", "attn_output_gate",
                              "layer_pattern", "mamba2_num_heads", "mamba2_head_dim", "mamba2_n_groups",
                              "moe_latent_size", "vision", "compress_ratios", "o_lora_rank", "o_groups", "hc_mult",
                              "cross_attention_layers"});
    if (diagnostics.empty()) check_model_consistency(
        model, [&root](const std::string& key) { return root.location_of(key); }, diagnostics);
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return model;
}

}  // namespace decodesim::profiles
