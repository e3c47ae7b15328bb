#include "profiles/model_loader.hpp"

#include <fmt/format.h>

#include "profiles/model_limits.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

bool any_dense_layer(const ModelProfile& model) {
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
        if (moe.first_k_dense_replace >= model.num_hidden_layers) {
            fail("first_k_dense_replace", "every layer would be dense; expected fewer than num_hidden_layers");
        }
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

    if (root.has("sliding_window") || root.has("sliding_window_pattern")) {
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
                         root.has("shared_expert_intermediate_size");
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
        model.moe = moe;
    }

    const bool has_mla = root.has("kv_lora_rank") || root.has("q_lora_rank") || root.has("qk_rope_head_dim") ||
                         root.has("qk_nope_head_dim") || root.has("v_head_dim");
    if (has_mla) {
        LatentAttention mla;
        mla.kv_lora_rank = root.positive_integer("kv_lora_rank", required, model_size_limit("kv_lora_rank")).value_or(0);
        mla.q_lora_rank = root.non_negative_integer("q_lora_rank", required, model_size_limit("q_lora_rank")).value_or(0);
        mla.qk_rope_head_dim = root.positive_integer("qk_rope_head_dim", required, model_size_limit("qk_rope_head_dim")).value_or(0);
        mla.qk_nope_head_dim = root.positive_integer("qk_nope_head_dim", required, model_size_limit("qk_nope_head_dim")).value_or(0);
        mla.v_head_dim = root.positive_integer("v_head_dim", required, model_size_limit("v_head_dim")).value_or(0);
        model.mla = mla;
    }

    root.reject_unknown_keys({"name", "source", "parameters", "num_hidden_layers", "hidden_size", "intermediate_size",
                              "hidden_act", "gated_mlp", "num_attention_heads", "num_key_value_heads", "head_dim",
                              "vocab_size", "tie_word_embeddings", "max_position_embeddings", "sliding_window",
                              "sliding_window_pattern", "n_routed_experts", "num_experts_per_tok",
                              "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
                              "first_k_dense_replace", "moe_layer_freq", "kv_lora_rank", "q_lora_rank",
                              "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"});
    if (diagnostics.empty()) check_model_consistency(
        model, [&root](const std::string& key) { return root.location_of(key); }, diagnostics);
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return model;
}

}  // namespace decodesim::profiles
