// Llama 3.2 Vision's cross-attention layers (ModelProfile::cross_attention_layers) and its tiled
// vision encoder: parameters, cache, the work images add, and the checks on profiles that
// describe them, each derived by hand from transformers' modeling_mllama.py shapes (docs/model.md,
// "Cross-attention to images").

#include <doctest/doctest.h>

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

engine::CostModel bf16_cross_cost(const profiles::ModelProfile& model, double cross_states) {
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "bf16");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    return engine::build_cost_model(model, deployment, cross_states);
}

std::string tiny_vision_profile(const std::string& changes) {
    return "name: tiny-vision\nsource: test\nnum_hidden_layers: 4\nhidden_size: 256\nintermediate_size: 512\n"
           "hidden_act: silu\nnum_attention_heads: 8\nnum_key_value_heads: 2\nhead_dim: 32\nvocab_size: 1000\n"
           "tie_word_embeddings: false\n" +
           changes;
}

const std::string kTiledVision =
    "vision:\n  source: test\n  parameters: 1.0e8\n  layers: 4\n  hidden_size: 128\n  patch_size: 14\n"
    "  tile_size: 56\n  max_tiles: 4\n  image_size: 112\n";

}  // namespace

// 11B (d 4,096, 32 heads and 8 KV heads of 128, MLP 14,336, vocabulary 128,256, untied):
//   a self-attention layer: q, o 4,096^2 + k, v 4,096 x 1,024 = 41,943,040; MLP 3 x 4,096 x
//     14,336 = 176,160,768; two norms 8,192: 218,112,000, x 32 = 6,979,584,000
//   a cross-attention layer adds q_norm and k_norm (128 each) and two gates: 218,112,258, x 8 =
//     1,744,898,064
//   embedding and LM head 2 x 128,256 x 4,096 = 1,050,673,152; final norm 4,096
//   total 9,775,159,312 (the self-attention part is Llama-3.1-8B's 8,030,261,248 with the tables).
// 90B (d 8,192, 64 heads, MLP 28,672; 80 + 20 layers): 855,654,400 x 80 + 855,654,658 x 20
//   + 2 x 128,256 x 8,192 + 8,192 = 87,666,799,656.
// With their encoders and projectors (0.895B and 0.926B, counted by hand in the profiles' vision
// sources) the checkpoints count 10.67B and 88.59B; the model card says 10.6B and 88.8B.
TEST_CASE("llama-3.2-vision: parameters counted by hand") {
    const auto catalog = testing::shipped_catalog();
    const auto small = catalog.model("llama-3.2-11b-vision");
    const auto large = catalog.model("llama-3.2-90b-vision");
    CHECK(engine::count_parameters(small).total == 9775159312.0);
    CHECK(engine::count_parameters(large).total == 87666799656.0);
    CHECK(engine::count_parameters(small).total + small.vision->parameters ==
          doctest::Approx(10.6e9).epsilon(0.01).scale(0.0));
    CHECK(engine::count_parameters(large).total + large.vision->parameters ==
          doctest::Approx(88.8e9).epsilon(0.01).scale(0.0));
    CHECK(engine::model_warnings(small).empty());
    CHECK(engine::model_warnings(large).empty());
}

// A token's cache is the 32 self-attention layers' alone: 2 x 8 x 128 x 2 B x 32 = 131,072 B (the
// cross-attention layers keep none). An image of 1,120 px takes 2 x 2 tiles of 560 px, each 40 x
// 40 patches and a class token: 6,404 states, cached by each of the 8 cross-attention layers at
// 2 x 8 x 128 x 2 B = 4,096 B: 209,846,272 B. One of 500 px takes one tile: 1,601 states.
TEST_CASE("llama-3.2-vision: the cache of tokens and of images by hand") {
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("llama-3.2-11b-vision");
    CHECK(engine::image_states(*model.vision, 1120.0) == 6404.0);
    CHECK(engine::image_states(*model.vision, 500.0) == 1601.0);
    CHECK(engine::image_states(*model.vision, 4000.0) == 6404.0);  // at most 4 tiles
    const auto text = bf16_cross_cost(model, 0.0);
    CHECK(text.kv_bytes_per_token().value == 131072.0);
    CHECK(text.kv_bytes_per_sequence(1000.0).value == 131072000.0);
    const auto imaged = bf16_cross_cost(model, 6404.0);
    CHECK(imaged.kv_bytes_per_token().value == 131072.0);
    CHECK(imaged.kv_bytes_per_sequence(1000.0).value == 131072000.0 + 209846272.0);
}

// Without images the 8 cross-attention layers are skipped: their weights (8 x (41,943,040 +
// 176,160,768) x 2 B = 3,489,660,928 B, and two norms of 4,096 x 2 B each, 131,072 B) are only
// held, with the encoder's 0.895028755e9 x 2 B. With
// an image a decode step reads their q, o and MLP, 8 x (2 x 4,096^2 + 3 x 4,096 x 14,336) x 2 B =
// 3,355,443,200 B, and the 6,404 states' cache, 209,846,272 B; the prompt's first pass projects
// the states' keys and values, 2 x 6,404 x 8 x 2 x 4,096 x 1,024 = 859,530,412,032 FLOPs, and each of
// its 1,000 tokens attends to them in the 8 layers: 51,232,000 more pairs.
TEST_CASE("llama-3.2-vision: what images add to a step") {
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("llama-3.2-11b-vision");
    const auto text = bf16_cross_cost(model, 0.0);
    const auto imaged = bf16_cross_cost(model, 6404.0);
    CHECK(text.encoder_weight_bytes.value == doctest::Approx(3489792000.0 + 2.0 * 0.895028755e9));
    CHECK(imaged.weight_bytes().value - text.weight_bytes().value == doctest::Approx(3489792000.0));
    const auto read = [](const engine::CostModel& cost) {
        const auto step = engine::decode_step_costs(cost, 1.0, 1000.0);
        double weights_and_cache = 0.0;
        for (const auto kind : {engine::OperatorKind::qkv_projection, engine::OperatorKind::output_projection,
                                engine::OperatorKind::mlp, engine::OperatorKind::attention_score,
                                engine::OperatorKind::attention_value}) {
            weights_and_cache += step[kind].bytes.value;
        }
        return weights_and_cache;
    };
    // Activations add a few hundred kB beside the 3.57 GB.
    CHECK(read(imaged) - read(text) == doctest::Approx(3355443200.0 + 209846272.0).epsilon(1e-3).scale(0.0));
    const auto prompt = engine::prefill_shape(imaged, 1.0, 0.0, 1000.0);
    CHECK(prompt.encoded_states == 6404.0);
    CHECK(prompt.prefill_pairs - engine::prefill_shape(text, 1.0, 0.0, 1000.0).prefill_pairs == 51232000.0);
    const auto first = engine::step_costs(imaged, prompt);
    const auto plain = engine::step_costs(text, engine::prefill_shape(text, 1.0, 0.0, 1000.0));
    const double projection = first[engine::OperatorKind::qkv_projection].flops.value -
                              plain[engine::OperatorKind::qkv_projection].flops.value;
    // The cross layers' own q projection on the 1,000 tokens: 2 x 1,000 x 8 x 4,096^2.
    CHECK(projection == doctest::Approx(859530412032.0 + 2.0 * 1000.0 * 8.0 * 4096.0 * 4096.0));
    // A later chunk of the same prompt projects nothing again.
    CHECK(engine::prefill_shape(imaged, 1.0, 1000.0, 500.0).encoded_states == 0.0);
}

// The encoder over one 560 px tile: 1,600 patches through 0.895e9 parameters at 2 FLOPs each,
// 2,864,092,016,000, and 40 layers of attention over the tile's patches at 4 x 1,600^2 x 1,280,
// 524,288,000,000: 3,388,380,016,000 FLOPs.
TEST_CASE("llama-3.2-vision: the tiled encoder's FLOPs by hand") {
    const auto model = testing::shipped_catalog().model("llama-3.2-11b-vision");
    CHECK(engine::vision_encoder_flops(*model.vision, 500.0) == doctest::Approx(3388380016000.0));
    CHECK(engine::image_patches(*model.vision, 1120.0) == 6400.0);
}

TEST_CASE("llama-3.2-vision: predict with an image names its states and reads them") {
    const auto text = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.2-11b-vision", "--prompt",
                                    "1000", "--output", "200"});
    const auto image = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.2-11b-vision", "--prompt",
                                     "1000", "--output", "200", "--images", "1"});
    REQUIRE(text.exit_code == 0);
    REQUIRE(image.exit_code == 0);
    CHECK(image.out.find("6404 states each, read by the cross-attention layers") != std::string::npos);
    CHECK(image.out.find("context       1000 prompt") != std::string::npos);  // no image tokens in the prompt
}

TEST_CASE("llama-3.2-vision: cross-attention layers are checked against the layers and the encoder") {
    const auto joined = [](const std::string& text) {
        std::string all;
        for (const auto& message : testing::error_messages([&] { profiles::parse_model_profile(text, "tiny.yaml"); })) {
            all += message + "\n";
        }
        return all;
    };
    CHECK_NOTHROW(profiles::parse_model_profile(tiny_vision_profile("cross_attention_layers: [1, 3]\n" + kTiledVision),
                                                "tiny.yaml"));
    CHECK(joined(tiny_vision_profile("cross_attention_layers: [1, 4]\n" + kTiledVision)).find("layer 4 of 4") !=
          std::string::npos);
    CHECK(joined(tiny_vision_profile("cross_attention_layers: [3, 1]\n" + kTiledVision)).find("increasing order") !=
          std::string::npos);
    CHECK(joined(tiny_vision_profile("cross_attention_layers: [1]\n")).find("tile_size") != std::string::npos);
    CHECK(joined(tiny_vision_profile(kTiledVision)).find("cross_attention_layers is required") != std::string::npos);
    CHECK(joined(tiny_vision_profile("cross_attention_layers: [0, 1, 2, 3]\n" + kTiledVision))
              .find("nothing attends to the tokens") != std::string::npos);
    std::string no_tiles = kTiledVision;
    no_tiles.replace(no_tiles.find("max_tiles: 4"), 12, "max_tiles: 0");
    CHECK(joined(tiny_vision_profile("cross_attention_layers: [1]\n" + no_tiles)).find("max_tiles") != std::string::npos);
}

// Llama-3.2-11B-Vision-Instruct's config.json keys (convert_mllama_weights_to_hf.py writes them;
// a published copy's values; tests/data/hf_configs), imported as the shipped profile counts it. Its vision encoder by
// hand: patch convolution 1,280 x 3 x 14 x 14 = 752,640; class embedding 1,280; position
// embeddings 1,601 x 1,280 + 9 rows x 4 tiles x 1,601 x 1,280 + a gate = 75,823,361; pre- and
// post-tile embeddings 2 x (9 x 4 x 1,280 + 1) = 92,162; two LayerNorms 5,120; 32 local layers of
// 4 x 1,280^2 + 2 x 1,280 x 5,120 + 5,120 + 1,280 + 5,120 = 19,672,320 and 8 global ones with two
// gates more: 786,892,816; the projector 7,680 x 4,096 + 4,096 = 31,461,376. Total 895,028,755.
TEST_CASE("llama-3.2-vision: config.json imports like the shipped profile") {
    const std::string config = testing::read_file(testing::test_data("hf_configs/llama-3.2-11b-vision.json"));
    const auto imported = profiles::parse_hf_config(config, "config.json");
    const auto shipped = testing::shipped_catalog().model("llama-3.2-11b-vision");
    CHECK(engine::count_parameters(imported).total == engine::count_parameters(shipped).total);
    CHECK(imported.cross_attention_layers == shipped.cross_attention_layers);
    REQUIRE(imported.vision.has_value());
    CHECK(imported.vision->parameters == 895028755.0);
    CHECK(imported.vision->parameters == shipped.vision->parameters);
    CHECK(engine::image_states(*imported.vision, 1120.0) == 6404.0);
    CHECK(imported.vision->image_size == 1120);
    // A mllama config without its cross-attention layers names the key.
    std::string missing = config;
    const std::string layers = "\"cross_attention_layers\":";
    missing.replace(missing.find(layers), layers.size(), "\"unused\":");
    const auto messages = testing::error_messages([&] { profiles::parse_hf_config(missing, "config.json"); });
    REQUIRE_FALSE(messages.empty());
    CHECK(messages[0].find("cross_attention_layers") != std::string::npos);
}
