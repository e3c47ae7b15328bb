// DeepSeek-V4's compressed attention (profiles::CompressedAttention): parameters, cache and
// attention reads derived by hand from the shapes in its inference/model.py (docs/model.md,
// "Compressed attention"), and the checks on profiles that describe it.

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_runner.hpp"
#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "engine/cost_model.hpp"
#include "engine/model_shape.hpp"
#include "engine/prediction.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/model_loader.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

engine::CostModel compressed_cost(const profiles::ModelProfile& model, const char* weights, const char* kv) {
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), weights);
    deployment.kv = core::find_named(core::kv_formats(), kv);
    return engine::build_cost_model(model, deployment);
}

// A valid V4-shaped profile with two layers, for the loader's checks.
std::string small_compressed_profile(const std::string& changes) {
    return "name: tiny-v4\nsource: test\nnum_hidden_layers: 2\nhidden_size: 256\nhidden_act: silu\n"
           "num_attention_heads: 8\nnum_key_value_heads: 1\nhead_dim: 64\nvocab_size: 1000\n"
           "tie_word_embeddings: false\nsliding_window: 16\nq_lora_rank: 64\no_lora_rank: 64\no_groups: 2\n"
           "intermediate_size: 512\n" +
           changes;
}

}  // namespace

// Flash (d 4,096, 64 heads of 512, q_lora 1,024, o_lora 1,024 in 8 groups, 256 experts of 2,048,
// vocabulary 129,280, 4 hyper-connection copies). A layer's attention:
//   wq_a 4,096 x 1,024 + q_norm 1,024 + wq_b 1,024 x 32,768 + wkv 4,096 x 512 + kv_norm 512
//   + wo_a 32,768 x 1,024 + wo_b 8,192 x 4,096 + 64 sinks                           = 106,956,352
//   ratio 128 adds a compressor: ape 128 x 512 + wkv, wgate 512 x 4,096 each + norm 512 = 4,260,352
//   ratio 4 adds an overlapping one: 4 x 1,024 + 2 x 1,024 x 4,096 + 512             = 8,393,216
//     and the indexer: wq_b 1,024 x 8,192 + weights_proj 4,096 x 64
//     + its compressor 4 x 256 + 2 x 256 x 4,096 + 128                               = 10,749,056
// Layers 0-1 ratio 0, 21 of ratio 4, 20 of ratio 128: 5,086,317,888. Hyper-connections a layer:
// 2 x (24 x 16,384 + 24 + 3) = 786,486; the head's 4 x 16,384 + 5 = 65,541. Norms 2 x 4,096 a
// layer; router 4,096 x 256; experts 256 + 1 shared of 3 x 4,096 x 2,048 = 25,165,824; embedding
// and LM head 129,280 x 4,096 each; the final norm. Total 284,332,230,231 (the shapes sum to the
// checkpoint's total_size with the MTP block; gate biases, 10,240, are not counted). Active: less
// 250 unpicked experts a layer x 43 = 13,799,622,231; less the input embedding, 13,270,091,351.
// Pro by the same rules (d 7,168, 128 heads, q_lora 1,536, 16 groups, 384 experts of 3,072; 30
// layers of ratio 4 and 31 of 128): 1,572,997,179,491 total, 48,852,379,747 active less the embedding.
TEST_CASE("deepseek-v4: parameters counted by hand from inference/model.py") {
    const auto catalog = testing::shipped_catalog();
    const auto flash = catalog.model("deepseek-v4-flash");
    CHECK(engine::compressed_attention_parameters(flash, 0) == 106956352.0);
    CHECK(engine::compressed_attention_parameters(flash, 128) == 111216704.0);
    CHECK(engine::compressed_attention_parameters(flash, 4) == 126098624.0);
    const auto flash_count = engine::count_parameters(flash);
    CHECK(flash_count.total == 284332230231.0);
    CHECK(flash_count.active == 13799622231.0);
    const auto pro = engine::count_parameters(catalog.model("deepseek-v4-pro"));
    CHECK(pro.total == 1572997179491.0);
    const double pro_embedding = 129280.0 * 7168.0;
    CHECK(pro.active - pro_embedding == 48852379747.0);
    // The model cards round: 284B total and 13B activated (Flash), 1.6T and 49B (Pro); DeepSeek's
    // activated figures leave the input embedding out.
    const double flash_embedding = 129280.0 * 4096.0;
    CHECK(flash_count.total == doctest::Approx(284.0e9).epsilon(0.005).scale(0.0));
    CHECK(flash_count.active - flash_embedding >= 12.5e9);
    CHECK(flash_count.active - flash_embedding < 13.5e9);
    CHECK(pro.total >= 1.55e12);
    CHECK(pro.total < 1.65e12);
    CHECK(pro.active - pro_embedding == doctest::Approx(49.0e9).epsilon(0.01).scale(0.0));
    for (const char* id : {"deepseek-v4-flash", "deepseek-v4-pro"}) {
        CAPTURE(id);
        CHECK(engine::model_warnings(catalog.model(id)).empty());
    }
}

// Pro's checkpoint index gives 864,704,792,696 B, of which its MTP block is 13,956,587,692 B (an
// independent audit of the shards agrees): 850,748,205,004 B for the main model. In the format the
// checkpoint states (fp8 blocks with an 8-bit E8M0 scale per 128 x 128, routed experts MXFP4 at
// 4.25 bits, embedding and LM head bf16, compressors bf16, hyper-connections fp32), the count
// above comes within the few tensors it leaves out (norms' share of scales, sinks, ape): 0.01%.
TEST_CASE("deepseek-v4: the fp8_mxfp4_moe format weighs Pro's checkpoint as published") {
    const auto catalog = testing::shipped_catalog();
    const auto cost = compressed_cost(catalog.model("deepseek-v4-pro"), "fp8_mxfp4_moe", "fp8");
    CHECK(cost.weight_bytes().value == doctest::Approx(850748205004.0).epsilon(1e-4).scale(0.0));
}

// Flash's cache, fp8 rows of the one 512-wide head (512 B), indexer keys of 128 fp8 values and an
// fp32 scale (132 B), for one sequence of 1,024 tokens:
//   windows: 43 layers x 128 tokens x 512 B                       =  2,818,048
//   ratio 4: 21 x 256 rows x (512 + 132) B                        =  3,462,144
//   ratio 128: 20 x 8 rows x 512 B                                =     81,920
//   compressors' fp32 state: ratio 4, 2 x 8 x 1,024 x 4 B and its indexer's 2 x 8 x 256 x 4 B,
//   21 x 81,920; ratio 128, 2 x 128 x 512 x 4 B, 20 x 524,288    = 12,206,080
//                                                           total   18,568,192
// What a further token keeps past the windows, at 16-bit rows of 1,024 B: 21 x (1,024 + 132) / 4
// + 20 x 1,024 / 128 = 6,229 B (vLLM's fp8_ds_mla rows, with the rotary dims in bf16, take 584 B
// where these take 512).
TEST_CASE("deepseek-v4: a sequence's cache by hand") {
    const auto catalog = testing::shipped_catalog();
    const auto flash = catalog.model("deepseek-v4-flash");
    const auto cost = compressed_cost(flash, "fp8_mxfp4_moe", "fp8");
    CHECK(cost.kv_bytes_per_sequence(1024.0).value == doctest::Approx(18568192.0));
    const auto bf16 = compressed_cost(flash, "bf16", "bf16");
    const double from = 1 << 20;
    CHECK((bf16.kv_bytes_per_sequence(from + 4096.0) - bf16.kv_bytes_per_sequence(from)).value / 4096.0 ==
          doctest::Approx(6229.0));
    // A shared prefix of 1,024 tokens keeps its compressed rows and keys, not the windows:
    // 3,462,144 + 81,920 B.
    CHECK(cost.shared_prefix_bytes(1024.0).value == doctest::Approx(3544064.0));
}

// At 1M (1,048,576) tokens a decode step of one Flash sequence reads, layer-summed:
//   windows 43 x 128 = 5,504 rows; ratio 4: 21 x the top 512 of 262,144 rows = 10,752;
//   ratio 128: 20 x 8,192 = 163,840 rows: 180,096 rows of 512 B at fp8 = 92,209,152 B,
// and its indexers scan 21 x 262,144 = 5,505,024 keys of 132 B = 726,663,168 B.
// A 1,024-token prompt scores, per layer, its window's pairs 128 x 129 / 2 + 896 x 128 = 122,944,
// a ratio-4 layer's compressed rows (1,024 x 1,025 / 2) / 4 = 131,200 (all under the top 512) and
// a ratio-128 layer's 524,800 / 128 = 4,100: 43 x 122,944 + 21 x 131,200 + 20 x 4,100 = 8,123,792;
// its indexers 21 x 131,200 = 2,755,200.
TEST_CASE("deepseek-v4: what decode and prefill attend to") {
    const auto catalog = testing::shipped_catalog();
    const auto cost = compressed_cost(catalog.model("deepseek-v4-flash"), "fp8_mxfp4_moe", "fp8");
    const double million = 1048576.0;
    CHECK(cost.attended_tokens(million) == doctest::Approx(180096.0));
    CHECK(cost.indexed_tokens(million) == doctest::Approx(5505024.0));
    const auto step = engine::decode_step_costs(cost, 1.0, million);
    const double cache_read = step[engine::OperatorKind::attention_score].bytes.value;
    CHECK(cache_read == doctest::Approx(92209152.0 + 726663168.0));
    const auto prompt = engine::prefill_shape(cost, 1.0, 0.0, 1024.0);
    CHECK(prompt.prefill_pairs == doctest::Approx(8123792.0));
    CHECK(prompt.prefill_index_pairs == doctest::Approx(2755200.0));
}

TEST_CASE("deepseek-v4: a profile of compressed attention is checked against its layers") {
    const auto messages = [](const std::string& text) {
        return testing::error_messages([&] { profiles::parse_model_profile(text, "tiny.yaml"); });
    };
    const auto joined = [&](const std::string& text) {
        std::string all;
        for (const auto& message : messages(text)) all += message + "\n";
        return all;
    };
    CHECK_NOTHROW(profiles::parse_model_profile(small_compressed_profile("compress_ratios: [0, 128]\n"), "tiny.yaml"));
    CHECK(joined(small_compressed_profile("compress_ratios: [0, 128, 4]\n")).find("compress_ratios") != std::string::npos);
    CHECK(joined(small_compressed_profile("compress_ratios: [0, 128, 4]\n")).find("3 ratios for 2 layers") != std::string::npos);
    // A ratio-4 layer without its indexer's keys.
    CHECK(joined(small_compressed_profile("compress_ratios: [4, 128]\n")).find("index_topk") != std::string::npos);
    // Indexer keys with no ratio-4 layer to use them.
    CHECK(joined(small_compressed_profile("compress_ratios: [0, 128]\nindex_topk: 8\nindex_n_heads: 2\nindex_head_dim: 32\n"))
              .find("no layer has that ratio") != std::string::npos);
    CHECK(joined(small_compressed_profile("compress_ratios: [0, -1]\n")).find("compress_ratios[1]") != std::string::npos);
    const std::string two_heads = small_compressed_profile("compress_ratios: [0, 128]\n");
    std::string replaced = two_heads;
    replaced.replace(replaced.find("num_key_value_heads: 1"), 22, "num_key_value_heads: 2");
    CHECK(joined(replaced).find("one key-value head") != std::string::npos);
    CHECK(joined(small_compressed_profile("compress_ratios: [0, 128]\nsliding_window_pattern: 2\n"))
              .find("sliding_window_pattern") != std::string::npos);
}

// DeepSeek-V4-Flash's config.json as published (its keys, tests/data/hf_configs; the 44th ratio
// is the MTP block's), imported as the shipped profile counts it, its checkpoint format included.
TEST_CASE("deepseek-v4: config.json imports like the shipped profile") {
    const auto imported = profiles::load_hf_config(testing::test_data("hf_configs/deepseek-v4-flash.json"));
    const auto shipped = testing::shipped_catalog().model("deepseek-v4-flash");
    CHECK(engine::count_parameters(imported).total == engine::count_parameters(shipped).total);
    CHECK(engine::count_parameters(imported).active == engine::count_parameters(shipped).active);
    REQUIRE(imported.checkpoint_weights != nullptr);
    CHECK(imported.checkpoint_weights->name == "fp8_mxfp4_moe");
    CHECK_FALSE(imported.sliding_window.has_value());
    const auto imported_cost = compressed_cost(imported, "fp8_mxfp4_moe", "fp8");
    const auto shipped_cost = compressed_cost(shipped, "fp8_mxfp4_moe", "fp8");
    CHECK(imported_cost.kv_bytes_per_sequence(50000.0).value == shipped_cost.kv_bytes_per_sequence(50000.0).value);
}

// DeepSeek-V4's model card: at 1M tokens V4-Pro "requires only 27% of single-token inference
// FLOPs and 10% of KV cache compared with DeepSeek-V3.2". Not fitted: both follow from the shapes.
// By hand at fp8 (1-byte rows): V4-Pro keeps 30 x (512 + 132) / 4 + 31 x 512 / 128 = 4,954 B a
// token, V3.2 61 x (576 + 132) = 43,188 B: 11.5%. A token's FLOPs at 1M: V3.2's indexer scans
// 61 x 1M keys at 64 x 128 multiply-adds (1.05 TFLOP) beside 2 x 37B weights; V4-Pro's scans a
// quarter of the rows on 30 layers: about 25%. The card's own counting is not published, so the
// bounds leave it room.
TEST_CASE("deepseek-v4: the model card's cache and FLOPs against DeepSeek-V3.2 at 1M tokens") {
    const auto catalog = testing::shipped_catalog();
    const auto v4 = compressed_cost(catalog.model("deepseek-v4-pro"), "fp8_mxfp4_moe", "fp8");
    const auto v32 = compressed_cost(catalog.model("deepseek-v3.2"), "fp8_block", "fp8");
    const double million = 1048576.0;
    const double cache_ratio = v4.kv_bytes_per_sequence(million).value / v32.kv_bytes_per_sequence(million).value;
    CHECK(cache_ratio == doctest::Approx(4954.0 / 43188.0).epsilon(0.01).scale(0.0));
    CHECK(cache_ratio > 0.08);
    CHECK(cache_ratio < 0.13);
    const auto flops = [&](const engine::CostModel& cost) {
        return engine::decode_step_costs(cost, 1.0, million).total_flops().value;
    };
    const double flops_ratio = flops(v4) / flops(v32);
    MESSAGE("V4-Pro / V3.2 at 1M tokens: cache " << cache_ratio << ", FLOPs " << flops_ratio);
    CHECK(flops_ratio > 0.20);
    CHECK(flops_ratio < 0.34);
}

// predict says what a token writes and what it keeps. Flash at 32,768 tokens with fp8 rows: every
// layer writes the token's 512 B row into its window (43 x 512 = 22,016 B) and the compressed
// layers a row and a key per ratio (21 x 644 / 4 + 20 x 512 / 128 = 3,461 B): 25,477 B written;
// past the windows it keeps 3,461 B.
TEST_CASE("deepseek-v4: predict names the bytes a token writes and keeps") {
    const auto result = testing::run({"predict", "--hardware", "b200", "--model", "deepseek-v4-flash", "--weights",
                                      "fp8_mxfp4_moe", "--kv", "fp8", "--tp", "4", "--context", "32768", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["memory"]["kv_bytes_per_token"].get<double>() == doctest::Approx(25477.0));
    CHECK(json["memory"]["kv_growth_bytes_per_token"].get<double>() == doctest::Approx(3461.0));
}
