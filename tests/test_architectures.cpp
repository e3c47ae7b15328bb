// New architectures, each a mechanism: hybrid linear attention (Qwen3-Next Gated DeltaNet), Mamba
// hybrids (Jamba), DeepSeek sparse attention (DSA), Llama 4 chunked attention with interleaved MoE,
// and the GQA/MLA MoE variants (GLM-4.5, MiniMax-M2, Kimi K2). Each shipped profile's shape is
// counted against its published size, and each mechanism's cache or state bytes are derived by hand.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/cost_model.hpp"
#include "engine/model_shape.hpp"
#include "engine/prediction.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/model_loader.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

engine::CostModel bf16_cost(const profiles::ModelProfile& model) {
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "bf16");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    return engine::build_cost_model(model, deployment);
}

double cache_read_bytes(const engine::StepCosts& step) {
    return step[engine::OperatorKind::attention_score].bytes.value + step[engine::OperatorKind::attention_value].bytes.value;
}

struct Published {
    const char* id;
    double total;
    double active;           // 0: not published
    double total_tolerance;  // fraction
    double active_tolerance;
};

}  // namespace

// Totals within 2%, the threshold at which model_warnings() flags a profile. What the count leaves
// out, per model: MTP modules (GLM-4.5, MiniMax-M2, DeepSeek-V3.2's HF "685B"), attention biases
// and q/k norms (GLM-4.5, MiniMax-M2), Llama 4's vision
// encoder (the published 109B of Scout includes it; the text decoder is ~107.8B).
// Active figures are published rounded ("A3B", "17B", "10B") and vendors differ on whether the
// embedding table counts, so they get wider bounds, stated per row: the count includes the input
// embedding and the LM head (count_parameters' convention, as DeepSeek counts 37B).
TEST_CASE("each new profile's shape counts to its published parameters") {
    const auto catalog = testing::shipped_catalog();
    const std::vector<Published> published = {
        // Qwen3-Next: 3.9B counted vs "A3B": the A3B name excludes the 0.62B embedding and LM head
        // and rounds down; 35% covers that.
        {"qwen3-next-80b-a3b", 80.0e9, 3.0e9, 0.02, 0.35},
        {"llama-4-scout", 109.0e9, 17.0e9, 0.02, 0.03},     // model card: 17B active (17.17B counted)
        {"llama-4-maverick", 400.0e9, 17.0e9, 0.02, 0.03},  // model card: 17B active
        // GLM-4.5: 33.6B counted vs 32B: 32B leaves out the 0.78B input embedding; 6% covers it.
        {"glm-4.5", 355.0e9, 32.0e9, 0.02, 0.06},
        {"kimi-k2", 1.04e12, 32.6e9, 0.02, 0.02},            // tech report: 1.04T / 32.6B
        // DeepSeek-V3.2: 38.4B counted vs V3's 37B: V3 itself counts 37.6B, and the indexer adds 0.85B.
        {"deepseek-v3.2", 671.0e9, 37.0e9, 0.02, 0.05},
        // MiniMax-M2: 11.0B counted vs "10B": the embedding and LM head are 1.2B; 12% covers it.
        {"minimax-m2", 230.0e9, 10.0e9, 0.02, 0.12},
        {"jamba-1.5-mini", 52.0e9, 12.0e9, 0.02, 0.03},      // model card: 12B active / 52B total
        // Day one (issue 39). Qwen3.5 cards count the vision-language checkpoint (vision encoder
        // about 0.46B) and round; the counts here are the language model's with its output gate.
        // 397B-A17B: an independent enumeration of the checkpoint's text weights gives
        // 396,346,350,336 (docs/adding-a-profile.md); 17.35B active counted vs "A17B".
        {"qwen3.5-397b-a17b", 397.0e9, 17.0e9, 0.02, 0.03},
        {"qwen3.5-122b-a10b", 122.0e9, 10.0e9, 0.02, 0.03},   // 9.77B counted vs "A10B"
        // 35B-A3B: 3.46B counted vs "A3B": the embedding and LM head are 2 x 248,320 x 2,048 = 1.02B.
        {"qwen3.5-35b-a3b", 35.0e9, 3.0e9, 0.02, 0.16},
        {"qwen3.5-27b", 27.0e9, 0.0, 0.02, 0.0},
        {"qwen3.5-9b", 9.0e9, 0.0, 0.02, 0.0},
        // The small sizes, each its published safetensors total less the vision encoder and the MTP
        // layer counted by hand from the configs (a vision block: qkv d x 3d, proj d x d, fc1 and
        // fc2 d x 4d, with biases and norms; the patch embedding 3 x 2 x 16 x 16 x d; 2,304
        // position rows; the merger 4d x 4d and 4d x hidden; the MTP layer one full-attention layer,
        // its MLP and a 2 x hidden x hidden projection):
        //   0.8B: 873,438,784 - 100,592,896 (12 blocks of d = 768) - 20.5M = 0.7523B
        //   2B: 2,274,069,824 - 331,416,576 (24 blocks of d = 1,024) - 60.8M = 1.8817B
        //   4B: 4,659,865,088 - 333,514,240 (24 blocks of d = 1,024) - 120.6M = 4.2058B
        // The cards say 0.8B, 2B and 4B for the whole checkpoints.
        {"qwen3.5-0.8b", 0.7523e9, 0.0, 0.02, 0.0},
        {"qwen3.5-2b", 1.8817e9, 0.0, 0.02, 0.0},
        {"qwen3.5-4b", 4.2058e9, 0.0, 0.02, 0.0},
        {"qwen3-4b", 4.0e9, 0.0, 0.02, 0.0},                  // model card: 4.0B (3.6B non-embedding)
        {"qwen3-0.6b", 0.6e9, 0.0, 0.02, 0.0},                // model card: 0.6B (0.44B non-embedding)
        // GLM-5: 41.8B counted vs 40B: the 0.95B input embedding (154,880 x 6,144) and the
        // indexer are in the count; 5% covers it.
        {"glm-5", 744.0e9, 40.0e9, 0.02, 0.05},
        {"kimi-k2.5", 1.04e12, 32.6e9, 0.02, 0.02},           // Kimi-K2's shape, continually pre-trained: 1.04T / 32.6B
        {"minimax-m2.5", 230.0e9, 10.0e9, 0.02, 0.12},        // as MiniMax-M2: 11.0B counted vs "10B"
        // Vision-language models: the language model's share, the published checkpoint count less
        // the vision encoder counted by hand from vision_config (Qwen2.5-VL-7B: 8,292,166,656 -
        // 676,550,144 = 7.616B). Mistral-Small-3.2 and Devstral: "24B" cards, 23.57B by hand.
        {"qwen2.5-vl-7b", 7.616e9, 0.0, 0.02, 0.0},
        {"qwen2.5-vl-72b", 72.7e9, 0.0, 0.02, 0.0},
        {"mistral-small-3.2-24b", 24.0e9, 0.0, 0.02, 0.0},
        {"devstral-small", 24.0e9, 0.0, 0.02, 0.0},
        // Nemotron-3 Nano: the report's 31.6B total and 3.6B active with the embedding (3.2B
        // without); Super: 120.67B without the MTP block (safetensors header counts) and "12B" active
        // (12.77B counted, the embedding and LM head 1.07B included).
        {"nemotron-3-nano-30b-a3b", 31.6e9, 3.6e9, 0.02, 0.02},
        {"nemotron-3-super-120b-a12b", 120.67e9, 12.0e9, 0.02, 0.07},
    };
    for (const auto& row : published) {
        CAPTURE(row.id);
        const auto model = catalog.model(row.id);
        const auto count = engine::count_parameters(model);
        MESSAGE(std::string(row.id) << ": total " << count.total / 1e9 << "B (published " << row.total / 1e9 << "B), active "
                       << count.active / 1e9 << "B (published " << row.active / 1e9 << "B)");
        CHECK(count.total == doctest::Approx(row.total).epsilon(row.total_tolerance).scale(0.0));
        if (row.active > 0.0) CHECK(count.active == doctest::Approx(row.active).epsilon(row.active_tolerance).scale(0.0));
        CHECK(engine::model_warnings(model).empty());
    }
}

TEST_CASE("the layer patterns: attention, MoE and chunked layers fall where the configs put them") {
    const auto catalog = testing::shipped_catalog();
    const auto qwen = catalog.model("qwen3-next-80b-a3b");
    CHECK(engine::recurrent_layer_count(qwen) == 36);  // full_attention_interval 4: 12 full, 36 linear
    CHECK_FALSE(engine::is_recurrent_layer(qwen, 3));
    CHECK(engine::is_recurrent_layer(qwen, 0));
    const auto jamba = catalog.model("jamba-1.5-mini");
    CHECK(engine::recurrent_layer_count(jamba) == 28);  // attention at 4, 12, 20, 28
    CHECK_FALSE(engine::is_recurrent_layer(jamba, 4));
    CHECK(engine::moe_layer_count(jamba) == 16);        // odd layers
    CHECK(engine::is_moe_layer(jamba, 1));
    CHECK_FALSE(engine::is_moe_layer(jamba, 0));
    const auto maverick = catalog.model("llama-4-maverick");
    CHECK(engine::moe_layer_count(maverick) == 24);
    CHECK(engine::is_moe_layer(maverick, 1));
    CHECK(engine::chunked_layer_count(maverick) == 36);  // every 4th layer global
    CHECK_FALSE(engine::is_chunked_layer(maverick, 3));
    CHECK(engine::moe_layer_count(catalog.model("llama-4-scout")) == 48);
    CHECK(engine::moe_layer_count(catalog.model("glm-4.5")) == 89);
    CHECK(engine::moe_layer_count(catalog.model("kimi-k2")) == 60);
}

// Qwen3-Next at bf16 KV, tensor parallelism 1. A Gated DeltaNet layer keeps per sequence
//   recurrent state: 32 value heads x 128 key dim x 128 value dim x 4 B (fp32) = 2,097,152 B
//   conv window:     (2 x 16 x 128 + 32 x 128) channels x (4 - 1) taps x 2 B  =    49,152 B
// = 2,146,304 B, x 36 linear layers = 77,266,944 B, whatever the context. The 12 full-attention
// layers cache 2 (K, V) x 2 KV heads x 256 x 2 B = 2,048 B per token each: 24,576 B per token.
TEST_CASE("Qwen3-Next: a constant recurrent state per sequence beside a small growing KV cache") {
    const auto cost = bf16_cost(testing::shipped_catalog().model("qwen3-next-80b-a3b"));
    CHECK(cost.recurrent_state_bytes.value == doctest::Approx(77266944.0));
    CHECK(cost.kv_bytes_per_token().value == doctest::Approx(24576.0));
    CHECK(cost.attended_tokens(1000.0) == doctest::Approx(12.0 * 1000.0));
    CHECK(cost.kv_bytes_per_sequence(1000.0).value == doctest::Approx(24576.0 * 1000.0 + 77266944.0));
    // Decode reads the KV of the full layers and reads and writes every state once per sequence.
    for (const double context : {1000.0, 100000.0}) {
        CAPTURE(context);
        const auto step = engine::decode_step_costs(cost, 4.0, context);
        CHECK(cache_read_bytes(step) == doctest::Approx(4.0 * (24576.0 * context + 2.0 * 77266944.0)));
    }
}

// Jamba-1.5-Mini: a Mamba layer of inner width 2 x 4096 = 8192 keeps
//   SSM state:   8192 x d_state 16 x 4 B (fp32)  = 524,288 B
//   conv window: 8192 x (4 - 1) taps x 2 B       =  49,152 B
// = 573,440 B, x 28 Mamba layers = 16,056,320 B per sequence. The 4 attention layers cache
// 2 x 8 KV heads x 128 x 2 B = 4,096 B per token each: 16,384 B per token.
TEST_CASE("Jamba: Mamba state per sequence and KV for one layer in eight") {
    const auto cost = bf16_cost(testing::shipped_catalog().model("jamba-1.5-mini"));
    CHECK(cost.recurrent_layers == 28);
    CHECK(cost.recurrent_state_bytes.value == doctest::Approx(16056320.0));
    CHECK(cost.kv_bytes_per_token().value == doctest::Approx(16384.0));
    CHECK(cost.kv_bytes_per_sequence(256000.0).value == doctest::Approx(16384.0 * 256000.0 + 16056320.0));
    const auto near = engine::decode_step_costs(cost, 1.0, 1000.0);
    const auto far = engine::decode_step_costs(cost, 1.0, 2000.0);
    CHECK(cache_read_bytes(far) - cache_read_bytes(near) == doctest::Approx(16384.0 * 1000.0));
}

// DeepSeek-V3.2 at bf16 KV: each of the 61 layers caches the MLA latent, (512 + 64) x 2 B = 1,152 B,
// and the indexer's key, 128 B in fp8 + one 4 B fp32 scale = 132 B, per token: 78,324 B per token,
// all held. A decode query reads min(context, 2048) latent tokens per layer and the indexer keys
// over the whole context: at 100,000 tokens 61 x (2,048 x 1,152 + 100,000 x 132) = 949,117,056 B.
TEST_CASE("DeepSeek-V3.2 DSA: top-k latent reads, indexer keys over the whole context") {
    const auto cost = bf16_cost(testing::shipped_catalog().model("deepseek-v3.2"));
    CHECK(cost.sparse_layers == 61);
    CHECK(cost.kv_bytes_per_token().value == doctest::Approx(78324.0));
    CHECK(cost.kv_bytes_per_sequence(100000.0).value == doctest::Approx(78324.0 * 100000.0));
    CHECK(cost.attended_tokens(100000.0) == doctest::Approx(61.0 * 2048.0));
    CHECK(cost.attended_tokens(1000.0) == doctest::Approx(61.0 * 1000.0));
    CHECK(cache_read_bytes(engine::decode_step_costs(cost, 1.0, 100000.0)) == doctest::Approx(949117056.0));
    // Against dense MLA (DeepSeek-V3) the long-context read shrinks ~6x.
    const auto dense = bf16_cost(testing::shipped_catalog().model("deepseek-v3"));
    CHECK(cache_read_bytes(engine::decode_step_costs(dense, 1.0, 100000.0)) == doctest::Approx(61.0 * 1152.0 * 100000.0));
}

// Llama 4: 36 chunked layers hold and read at most 8,192 tokens, 12 global layers the whole
// context; each caches 2 x 8 KV heads x 128 x 2 B = 4,096 B per token. At 100,000 tokens:
// 4,096 x (12 x 100,000 + 36 x 8,192) = 6,123,159,552 B.
TEST_CASE("Llama 4: chunked local attention caps three layers in four at one chunk") {
    const auto cost = bf16_cost(testing::shipped_catalog().model("llama-4-maverick"));
    CHECK(cost.chunked_layers == 36);
    CHECK(cost.full_attention_layers == 12);
    CHECK(cost.kv_bytes_per_sequence(100000.0).value == doctest::Approx(6123159552.0));
    CHECK(cost.kv_bytes_per_sequence(4096.0).value == doctest::Approx(4096.0 * 48.0 * 4096.0));
    // Prefill: a token attends within its chunk so far; two whole chunks are 2 x 8,192 x 8,193 / 2 pairs.
    CHECK(engine::chunked_pairs(0.0, 16384.0, 8192.0) == doctest::Approx(67117056.0));
    CHECK(engine::chunked_pairs(8192.0, 1.0, 8192.0) == doctest::Approx(1.0));
}

TEST_CASE("hostile inputs to the new keys name the file, the line and the key") {
    const std::string base =
        "name: x\nsource: y\nnum_hidden_layers: 8\nhidden_size: 64\nhidden_act: silu\nnum_attention_heads: 4\n"
        "num_key_value_heads: 2\nhead_dim: 16\nvocab_size: 100\ntie_word_embeddings: false\nintermediate_size: 128\n";
    auto errors = [&](const std::string& extra) {
        return testing::error_messages([&] { profiles::parse_model_profile(base + extra, "hostile.yaml"); });
    };
    CHECK(errors("mamba_d_state: 16\nmamba_d_conv: 4\nmamba_expand: 2\nmamba_dt_rank: 4\n") ==
          std::vector<std::string>{"hostile.yaml:1:1: error: attention_layer_period: missing required key; expected a "
                                   "positive integer",
                                   "hostile.yaml:1:1: error: attention_layer_offset: missing required key; expected a "
                                   "whole number"});
    CHECK(errors("attention_layer_period: 4\nattention_layer_offset: 4\nlinear_num_key_heads: 2\n"
                 "linear_num_value_heads: 4\nlinear_key_head_dim: 8\nlinear_value_head_dim: 8\nlinear_conv_kernel_dim: 4\n") ==
          std::vector<std::string>{"hostile.yaml:13:25: error: attention_layer_offset: offset 4 can never equal layer % 4; "
                                   "expected less than attention_layer_period"});
    CHECK(errors("index_topk: 2048\nindex_n_heads: 4\nindex_head_dim: 16\n") ==
          std::vector<std::string>{"hostile.yaml:12:13: error: index_topk: sparse attention (index_*) selects tokens of "
                                   "an MLA latent cache or compressed rows; kv_lora_rank and the other MLA keys, or "
                                   "compress_ratios, are required"});
    CHECK(errors("attention_chunk_size: -5\n").size() == 1);
    CHECK(errors("attention_chunk_size: -5\n")[0].rfind("hostile.yaml:12:23: error: attention_chunk_size:", 0) == 0);
    CHECK(errors("linear_num_key_heads: 2\nmamba_d_state: 16\n").front().find("not both") != std::string::npos);
}

// The config.json spellings reach the same shape as the shipped profiles (the keys the profiles'
// comments name: full_attention_interval, expert/attn_layer_period and _offset, interleave_moe_layer_step).
TEST_CASE("config.json imports of the new families count like their profiles") {
    const auto catalog = testing::shipped_catalog();
    const std::string qwen =
        R"({"model_type": "qwen3_next", "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 16,
            "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936, "intermediate_size": 5120,
            "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
            "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1, "mlp_only_layers": [],
            "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
            "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
            "tie_word_embeddings": false})";
    const auto imported = profiles::parse_hf_config(qwen, "config.json");
    CHECK(engine::count_parameters(imported).total ==
          doctest::Approx(engine::count_parameters(catalog.model("qwen3-next-80b-a3b")).total));
    const std::string jamba =
        R"({"model_type": "jamba", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 65536, "intermediate_size": 14336, "num_experts": 16,
            "num_experts_per_tok": 2, "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 8,
            "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2,
            "mamba_dt_rank": 256, "tie_word_embeddings": false})";
    CHECK(engine::count_parameters(profiles::parse_hf_config(jamba, "config.json")).total ==
          doctest::Approx(engine::count_parameters(catalog.model("jamba-1.5-mini")).total));
    const std::string maverick =
        R"({"model_type": "llama4", "text_config": {"num_hidden_layers": 48, "hidden_size": 5120,
            "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 202048,
            "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 128,
            "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "attention_chunk_size": 8192,
            "tie_word_embeddings": false}})";
    const auto llama = profiles::parse_hf_config(maverick, "config.json");
    CHECK(engine::count_parameters(llama).total ==
          doctest::Approx(engine::count_parameters(catalog.model("llama-4-maverick")).total));
    CHECK(engine::chunked_layer_count(llama) == 36);
}

// Day-one models' cache bytes per token at bf16, by hand (issue 39):
//   GQA layer: 2 (K, V) x KV heads x head_dim x 2 B.
//   Qwen3.5: full attention every 4th layer, the rest Gated DeltaNet (no per-token cache):
//     397B-A17B 2 x 2 x 256 x 2 B = 2,048 B x 15 = 30,720;  122B-A10B 2,048 x 12 = 24,576;
//     35B-A3B 2,048 x 10 = 20,480;  27B 2 x 4 x 256 x 2 = 4,096 x 16 = 65,536;  9B 4,096 x 8 = 32,768.
//   Qwen3-4B 2 x 8 x 128 x 2 = 4,096 x 36 = 147,456;  Qwen3-0.6B 4,096 x 28 = 114,688.
//   MiniMax-M2.5 4,096 x 62 = 253,952;  Qwen2.5-VL-7B 2 x 4 x 128 x 2 = 2,048 x 28 = 57,344;
//   Qwen2.5-VL-72B 4,096 x 80 = 327,680;  Mistral-Small-3.2 and Devstral 4,096 x 40 = 163,840.
//   MLA: (kv_lora_rank 512 + rope 64) x 2 B = 1,152 B a layer: Kimi-K2.5 x 61 = 70,272.
//   GLM-5: MLA 1,152 x 78 = 89,856 plus the DSA indexer's fp8 keys with one fp32 scale per 128,
//     (128 + 4) x 78 = 10,296: 100,152.
TEST_CASE("day-one models: cache bytes per token derived by hand") {
    const auto catalog = testing::shipped_catalog();
    const std::vector<std::pair<const char*, double>> expected = {
        {"qwen3.5-397b-a17b", 30720.0}, {"qwen3.5-122b-a10b", 24576.0}, {"qwen3.5-35b-a3b", 20480.0},
        {"qwen3.5-27b", 65536.0},       {"qwen3.5-9b", 32768.0},        {"qwen3-4b", 147456.0},
        {"qwen3-0.6b", 114688.0},       {"minimax-m2.5", 253952.0},     {"qwen2.5-vl-7b", 57344.0},
        {"qwen2.5-vl-72b", 327680.0},   {"mistral-small-3.2-24b", 163840.0}, {"devstral-small", 163840.0},
        {"kimi-k2.5", 70272.0},         {"glm-5", 100152.0},
        // Qwen3.5 small sizes: only the full-attention layers (every 4th) cache keys and values,
        // 2 x KV heads x 256 x 2 B each: 0.8B and 2B 2 x 2 x 256 x 2 = 2,048 x 6 = 12,288;
        // 4B 2 x 4 x 256 x 2 = 4,096 x 8 = 32,768.
        {"qwen3.5-0.8b", 12288.0},      {"qwen3.5-2b", 12288.0},        {"qwen3.5-4b", 32768.0},
    };
    for (const auto& row : expected) {
        // Not a structured binding: clang 14 cannot capture one in CAPTURE's lambda.
        const char* id = row.first;
        const double bytes = row.second;
        CAPTURE(id);
        CHECK(bf16_cost(catalog.model(id)).kv_bytes_per_token().value == doctest::Approx(bytes));
    }
    // Qwen3.5-397B-A17B's 45 Gated DeltaNet layers each keep, per sequence,
    //   64 value heads x 128 x 128 x 4 B (fp32) = 4,194,304 B of state and
    //   (2 x 16 x 128 + 64 x 128) channels x (4 - 1) taps x 2 B = 73,728 B of conv window:
    // 45 x 4,268,032 = 192,061,440 B.
    CHECK(bf16_cost(catalog.model("qwen3.5-397b-a17b")).recurrent_state_bytes.value == doctest::Approx(192061440.0));
}

// Day-one config.json layouts (issue 39), each as its Hugging Face config nests it, keyed as the
// shipped profile's source states: Qwen3.5 MoE and dense in text_config (qwen3_5_moe, qwen3_5),
// GLM-5's glm_moe_dsa with DeepSeek's MLA and indexer keys, Kimi-K2.5's wrapper around a
// deepseek_v3 text_config, Mistral Small 3.2's mistral3 wrapper around a mistral text_config, and
// Qwen2.5-VL's qwen2_5_vl with its language model at the top level beside vision_config.
TEST_CASE("config.json imports of the day-one models count like their profiles") {
    const auto catalog = testing::shipped_catalog();
    const auto same_count = [&](const std::string& config, const char* profile) {
        CAPTURE(profile);
        const auto imported = profiles::parse_hf_config(config, "config.json");
        const auto shipped = catalog.model(profile);
        CHECK(engine::count_parameters(imported).total ==
              doctest::Approx(engine::count_parameters(shipped).total).epsilon(1e-12));
        CHECK(engine::count_parameters(imported).active ==
              doctest::Approx(engine::count_parameters(shipped).active).epsilon(1e-12));
        CHECK(bf16_cost(imported).kv_bytes_per_token().value == bf16_cost(shipped).kv_bytes_per_token().value);
    };
    same_count(R"({"model_type": "qwen3_5_moe", "vision_config": {"depth": 27}, "text_config": {
        "model_type": "qwen3_5_moe_text", "num_hidden_layers": 60, "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 248320, "num_experts": 512,
        "num_experts_per_tok": 10, "moe_intermediate_size": 1024, "shared_expert_intermediate_size": 1024,
        "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 64,
        "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
        "mtp_num_hidden_layers": 1, "tie_word_embeddings": false}})", "qwen3.5-397b-a17b");
    same_count(R"({"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5_text", "num_hidden_layers": 64,
        "hidden_size": 5120, "intermediate_size": 17408, "num_attention_heads": 24, "num_key_value_heads": 4,
        "head_dim": 256, "vocab_size": 248320, "full_attention_interval": 4, "linear_num_key_heads": 16,
        "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "mtp_num_hidden_layers": 1, "tie_word_embeddings": false}})", "qwen3.5-27b");
    same_count(R"({"model_type": "glm_moe_dsa", "num_hidden_layers": 78, "hidden_size": 6144,
        "intermediate_size": 12288, "num_attention_heads": 64, "num_key_value_heads": 64, "head_dim": 64,
        "vocab_size": 154880, "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
        "n_shared_experts": 1, "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 2048,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 192, "v_head_dim": 256, "index_topk": 2048,
        "index_n_heads": 32, "index_head_dim": 128, "num_nextn_predict_layers": 1,
        "tie_word_embeddings": false})", "glm-5");
    same_count(R"({"model_type": "kimi_k25", "vision_config": {}, "text_config": {"model_type": "deepseek_v3",
        "num_hidden_layers": 61, "hidden_size": 7168, "intermediate_size": 18432, "num_attention_heads": 64,
        "num_key_value_heads": 64, "vocab_size": 163840, "n_routed_experts": 384, "num_experts_per_tok": 8,
        "moe_intermediate_size": 2048, "n_shared_experts": 1, "first_k_dense_replace": 1, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
        "tie_word_embeddings": false}})", "kimi-k2.5");
    same_count(R"({"model_type": "mistral3", "vision_config": {}, "text_config": {"model_type": "mistral",
        "num_hidden_layers": 40, "hidden_size": 5120, "intermediate_size": 32768, "num_attention_heads": 32,
        "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 131072}})", "mistral-small-3.2-24b");
    same_count(R"({"model_type": "qwen2_5_vl", "vision_config": {"depth": 32}, "num_hidden_layers": 28,
        "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28, "num_key_value_heads": 4,
        "vocab_size": 152064, "tie_word_embeddings": false, "use_sliding_window": false,
        "sliding_window": 32768})", "qwen2.5-vl-7b");
}

// Nemotron-3 (Nemotron-H): every layer one block. Nano's 52 are 23 Mamba-2, 23 MoE and 6 attention
// blocks; Super's 88 are 40, 40 and 8. By hand at bf16 KV, tensor parallelism 1:
//   KV per token: 2 x 2 KV heads x 128 x 2 B = 1,024 B per attention block: Nano 6 x 1,024 = 6,144,
//   Super 8 x 1,024 = 8,192.
//   Mamba-2 state per sequence and layer: heads x head_dim x d_state in fp32 and the conv window
//   over x, B and C, (heads x head_dim + 2 x groups x d_state) x (4 - 1) taps, at 2 B:
//   Nano 64 x 64 x 128 x 4 = 2,097,152 + (4,096 + 2,048) x 3 x 2 = 36,864: x 23 = 49,082,368 B;
//   Super 128 x 64 x 128 x 4 = 4,194,304 + (8,192 + 2,048) x 3 x 2 = 61,440: x 40 = 170,229,760 B.
//   Parameters of one Nano Mamba-2 block (HF NemotronHMamba2Mixer): in_proj 2,688 x (2 x 4,096 +
//   2 x 8 x 128 + 64) = 27,697,152; conv 6,144 x 4 + 6,144 bias = 30,720; dt_bias, A_log, D 3 x 64;
//   gated norm 4,096; out_proj 4,096 x 2,688 = 11,010,048; block norm 2,688: 38,744,896.
TEST_CASE("Nemotron-3: single-block layers, Mamba-2 state and LatentMoE, by hand") {
    const auto catalog = testing::shipped_catalog();
    const auto nano = bf16_cost(catalog.model("nemotron-3-nano-30b-a3b"));
    CHECK(nano.kv_bytes_per_token().value == doctest::Approx(6144.0));
    CHECK(nano.recurrent_state_bytes.value == doctest::Approx(49082368.0));
    CHECK(nano.recurrent_layers == 23);
    CHECK(nano.moe_layers == 23);
    CHECK(nano.full_attention_layers == 6);
    CHECK(nano.dense_layers == 0);
    CHECK(nano.mixer_layers == 29);
    CHECK(nano.norm_count == 53.0);  // one a block and the final one
    const auto nano_model = catalog.model("nemotron-3-nano-30b-a3b");
    CHECK(engine::recurrent_parameters(nano_model) + 2688.0 == doctest::Approx(38744896.0));
    const auto super = bf16_cost(catalog.model("nemotron-3-super-120b-a12b"));
    CHECK(super.kv_bytes_per_token().value == doctest::Approx(8192.0));
    CHECK(super.recurrent_state_bytes.value == doctest::Approx(170229760.0));
    // One Super MoE block, by hand: 512 experts x 2 x 1,024 (latent) x 2,688 = 2,818,572,288; the
    // shared expert 2 x 4,096 x 5,376 = 44,040,192; the latent projections 2 x 4,096 x 1,024 =
    // 8,388,608; the router 512 x 4,096 = 2,097,152; the norm 4,096: 2,873,102,336.
    const auto super_model = catalog.model("nemotron-3-super-120b-a12b");
    CHECK(512.0 * engine::expert_parameters(super_model) + 44040192.0 + 8388608.0 + 2097152.0 + 4096.0 ==
          doctest::Approx(2873102336.0));
    CHECK(engine::expert_width(super_model) == 1024.0);
}

TEST_CASE("a layer pattern is checked: its length, its characters and the blocks it needs") {
    const std::string base = R"(name: x
source: test
num_hidden_layers: 3
hidden_size: 256
hidden_act: relu2
gated_mlp: false
num_attention_heads: 4
num_key_value_heads: 2
head_dim: 64
vocab_size: 1000
tie_word_embeddings: false
intermediate_size: 512
)";
    const auto messages = [&](const std::string& extra) {
        return testing::error_messages([&] { profiles::parse_model_profile(base + extra, "m.yaml"); });
    };
    CHECK(messages("layer_pattern: \"*-*-\"\n").at(0).find("4 blocks for 3 layers") != std::string::npos);
    CHECK(messages("layer_pattern: \"*x-\"\n").at(0).find("'x' at layer 1 is no block") != std::string::npos);
    CHECK(messages("layer_pattern: \"M*-\"\n").at(0).find("'M' layers need a recurrent mixer") != std::string::npos);
    CHECK(messages("layer_pattern: \"*E-\"\n").at(0).find("'E' layers need experts") != std::string::npos);
    CHECK(messages("layer_pattern: \"---\"\n").at(0).find("no mixer layer") != std::string::npos);
    CHECK(messages("layer_pattern: \"M*-\"\nmamba2_num_heads: 4\nmamba2_head_dim: 64\nmamba2_n_groups: 1\n"
                   "mamba_d_state: 16\nmamba_d_conv: 4\nmamba_expand: 2\n")
              .at(0)
              .find("mamba_expand: a Mamba-1 key") != std::string::npos);
    // A valid one: attention, MLP, attention; two norms fewer than three mixer-plus-MLP layers.
    const auto model = profiles::parse_model_profile(base + "layer_pattern: \"*-*\"\n", "m.yaml");
    CHECK(bf16_cost(model).mixer_layers == 2);
    CHECK(bf16_cost(model).dense_layers == 1);
}

TEST_CASE("config.json imports of Nemotron-H count like the Nemotron-3 profiles") {
    const auto catalog = testing::shipped_catalog();
    const std::string nano = R"({"model_type": "nemotron_h", "num_hidden_layers": 52, "hidden_size": 2688,
        "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 131072,
        "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
        "expand": 2, "n_routed_experts": 128, "num_experts_per_tok": 6, "moe_intermediate_size": 1856,
        "n_shared_experts": 1, "moe_shared_expert_intermediate_size": 3712, "moe_latent_size": null,
        "mlp_hidden_act": "relu2", "tie_word_embeddings": false, "num_nextn_predict_layers": 0})";
    const std::string super = R"({"model_type": "nemotron_h", "num_hidden_layers": 88, "hidden_size": 4096,
        "hybrid_override_pattern": "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME",
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 131072,
        "mamba_num_heads": 128, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
        "n_routed_experts": 512, "num_experts_per_tok": 22, "moe_intermediate_size": 2688, "n_shared_experts": 1,
        "moe_shared_expert_intermediate_size": 5376, "moe_latent_size": 1024, "mlp_hidden_act": "relu2",
        "tie_word_embeddings": false, "num_nextn_predict_layers": 1})";
    for (const auto& row : {std::pair{nano, "nemotron-3-nano-30b-a3b"}, std::pair{super, "nemotron-3-super-120b-a12b"}}) {
        const std::string& config = row.first;
        const char* id = row.second;
        CAPTURE(id);
        const auto imported = profiles::parse_hf_config(config, "config.json");
        const auto shipped = catalog.model(id);
        CHECK(engine::count_parameters(imported).total == doctest::Approx(engine::count_parameters(shipped).total).epsilon(1e-12));
        CHECK(engine::count_parameters(imported).active == doctest::Approx(engine::count_parameters(shipped).active).epsilon(1e-12));
        CHECK(bf16_cost(imported).recurrent_state_bytes.value == bf16_cost(shipped).recurrent_state_bytes.value);
        CHECK(bf16_cost(imported).kv_bytes_per_token().value == bf16_cost(shipped).kv_bytes_per_token().value);
        CHECK(imported.mtp_layers == shipped.mtp_layers);
    }
}

// Qwen2.5-VL's vision encoder, by hand (its vision_config and Qwen2VLImageProcessor's
// smart_resize, which rounds each side to a multiple of 14 x 2 = 28 pixels):
//   1024 px: 1024 / 28 = 36.57 rounds to 37: 37^2 = 1,369 tokens, (37 x 2)^2 = 5,476 patches.
//   448 px: 16^2 = 256 tokens, 1,024 patches.
//   FLOPs at 1024 px: 2 x 676.55e6 parameters x 5,476 patches = 7.4096e12, plus attention
//   4 x 5,476 x 1,280 x (4 full layers x 5,476 + 28 windowed layers x 64) = 6.6437e11:
//   8.0739e12 (the projector is counted at every patch, not at the 1,369 merged tokens: about 5%
//   over the 7.68e12 a layer-by-layer count gives).
TEST_CASE("vision-language models: image tokens join the prompt and the encoder adds to the first token") {
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("qwen2.5-vl-7b");
    REQUIRE(model.vision.has_value());
    CHECK(engine::image_tokens(*model.vision, 1024.0) == 1369.0);
    CHECK(engine::image_patches(*model.vision, 1024.0) == 5476.0);
    CHECK(engine::image_tokens(*model.vision, 448.0) == 256.0);
    CHECK(engine::vision_encoder_flops(*model.vision, 1024.0) == doctest::Approx(8.0739432e12).epsilon(1e-7));

    const auto run = testing::run({"predict", "--hardware", "h100-sxm", "--model", "qwen2.5-vl-7b", "--prompt", "200",
                                   "--output", "100", "--images", "2", "--json"});
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    const auto point = nlohmann::json::parse(run.out);
    CHECK(point["conditions"]["prompt_tokens"].get<double>() == 200.0 + 2.0 * 1369.0);
    const double encoder = point["vision_encoder_s"].get<double>();
    // Two images' 1.6148e13 FLOPs cannot run faster than H100's listed 989.4 TFLOPS: 16.3 ms.
    CHECK(encoder > 2.0 * 8.0739432e12 / 989.4e12);
    CHECK(point["ttft_s"].get<double>() == doctest::Approx(point["prefill"]["time_s"].get<double>() + encoder).epsilon(1e-12));
    // The encoder's weights are held beside the language model's: 2 B x 676.55e6 more.
    const auto text = testing::run({"predict", "--hardware", "h100-sxm", "--model", "qwen2.5-vl-7b", "--prompt", "200",
                                    "--output", "100", "--json"});
    CHECK(nlohmann::json::parse(text.out)["vision_encoder_s"].get<double>() == 0.0);
    CHECK(point["memory"]["weights_bytes"].get<double>() ==
          doctest::Approx(2.0 * (engine::count_parameters(model).total + 676.55e6)).epsilon(1e-3).scale(0.0));
    // A model without an encoder refuses --images by name.
    const auto refused = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--images", "1"});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--images: llama-3.1-8b has no vision encoder") != std::string::npos);
}
