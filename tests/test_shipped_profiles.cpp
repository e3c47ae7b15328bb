// Every shipped profile loads, names its source, and (models) states a parameter count within
// 2% of the count its shape implies; every config.json fixture imports to the same shape as
// the hand-written profile of that model.

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>

#include "engine/model_shape.hpp"
#include "engine/prediction.hpp"
#include "profiles/hf_config.hpp"
#include "test_support.hpp"

using namespace decodesim;

TEST_CASE("every shipped hardware profile loads and lists a 16-bit or fp32 rate") {
    const auto catalog = testing::shipped_catalog();
    const auto ids = catalog.hardware_ids();
    CHECK(ids.size() >= 75);
    for (const auto& id : ids) {
        CAPTURE(id);
        const auto hardware = catalog.hardware(id);
        CHECK_FALSE(hardware.source.empty());
        CHECK(engine::effective_peak(hardware, core::Datatype::bf16).value > 0.0);
        // Every shipped device says where it is bought and run: plan's default candidates depend on it.
        CHECK(hardware.segment != profiles::DeviceSegment::unstated);
    }
}

TEST_CASE("every shipped model profile loads and its stated parameter count matches its shape") {
    const auto catalog = testing::shipped_catalog();
    const auto ids = catalog.model_ids();
    CHECK(ids.size() >= 31);
    for (const auto& id : ids) {
        CAPTURE(id);
        const auto model = catalog.model(id);
        CHECK_FALSE(model.source.empty());
        REQUIRE(model.parameters.has_value());
        CHECK(engine::count_parameters(model).total == doctest::Approx(*model.parameters).epsilon(0.02).scale(0.0));
        CHECK(engine::model_warnings(model).empty());
    }
}

TEST_CASE("published totals and active counts of MoE models") {
    const auto catalog = testing::shipped_catalog();
    // DeepSeek-V3 report: 671B total, 37B activated per token.
    const auto deepseek = engine::count_parameters(catalog.model("deepseek-v3"));
    CHECK(deepseek.total == doctest::Approx(671e9).epsilon(0.005).scale(0.0));
    CHECK(deepseek.active == doctest::Approx(37e9).epsilon(0.03).scale(0.0));
    // Mixtral-8x7B: 46.7B total, 12.9B active (Mistral AI announcement).
    const auto mixtral = engine::count_parameters(catalog.model("mixtral-8x7b"));
    CHECK(mixtral.total == doctest::Approx(46.7e9).epsilon(0.005).scale(0.0));
    CHECK(mixtral.active == doctest::Approx(12.9e9).epsilon(0.01).scale(0.0));
    // Qwen3-30B-A3B: 30.5B total, 3.3B active (model card).
    const auto qwen = engine::count_parameters(catalog.model("qwen3-30b-a3b"));
    CHECK(qwen.total == doctest::Approx(30.5e9).epsilon(0.005).scale(0.0));
    CHECK(qwen.active == doctest::Approx(3.3e9).epsilon(0.03).scale(0.0));
}

TEST_CASE("config.json imports match the hand-written profiles") {
    const auto catalog = testing::shipped_catalog();
    struct Pair {
        const char* config;
        const char* profile;
    };
    for (const Pair pair : {Pair{"llama-3.1-8b.json", "llama-3.1-8b"}, Pair{"mistral-7b-v0.1.json", "mistral-7b"},
                            Pair{"mixtral-8x7b.json", "mixtral-8x7b"}, Pair{"qwen2.5-7b.json", "qwen2.5-7b"},
                            Pair{"qwen3-8b.json", "qwen3-8b"}, Pair{"qwen3-30b-a3b.json", "qwen3-30b-a3b"},
                            Pair{"gemma-2-9b.json", "gemma-2-9b"}, Pair{"gemma-3-27b.json", "gemma-3-27b"},
                            Pair{"deepseek-v3.json", "deepseek-v3"}, Pair{"gpt-oss-20b.json", "gpt-oss-20b"}}) {
        CAPTURE(pair.config);
        const auto imported = profiles::load_hf_config(testing::test_data(std::string("hf_configs/") + pair.config));
        const auto profile = catalog.model(pair.profile);
        CHECK(imported.num_hidden_layers == profile.num_hidden_layers);
        CHECK(imported.hidden_size == profile.hidden_size);
        CHECK(imported.num_attention_heads == profile.num_attention_heads);
        CHECK(imported.num_key_value_heads == profile.num_key_value_heads);
        CHECK(imported.head_dim == profile.head_dim);
        CHECK(imported.vocab_size == profile.vocab_size);
        CHECK(imported.tie_word_embeddings == profile.tie_word_embeddings);
        CHECK(imported.sliding_window.has_value() == profile.sliding_window.has_value());
        if (imported.sliding_window && profile.sliding_window) {
            CHECK(imported.sliding_window->window == profile.sliding_window->window);
            CHECK(imported.sliding_window->pattern == profile.sliding_window->pattern);
        }
        CHECK(imported.moe.has_value() == profile.moe.has_value());
        CHECK(imported.mla.has_value() == profile.mla.has_value());
        CHECK(engine::count_parameters(imported).total ==
              doctest::Approx(engine::count_parameters(profile).total).epsilon(1e-9));
    }
}

TEST_CASE("a binned Apple part keeps its full part's memory and clock, and loses GPU rate by cores") {
    // Binning fuses GPU cores off one die design: each core still runs 128 FP32 lanes at the same
    // clock, so the GPU rate scales with the cores left (M1 Pro: Apple's 5.2 TFLOPS for 16 cores,
    // 4.55 for 14); the memory bus is the die's, so the bandwidth is the full part's wherever
    // Apple states one figure for both (all but the M3 Max and M4 Max, whose binned parts have a
    // narrower bus and say so in their own figures).
    const auto catalog = testing::shipped_catalog();
    const auto ids = catalog.hardware_ids();
    int binned = 0;
    for (const auto& id : ids) {
        const auto part = catalog.hardware(id);
        const auto at = part.name.find("-core GPU, binned)");
        if (at == std::string::npos) continue;
        CAPTURE(id);
        ++binned;
        const auto open = part.name.rfind('(', at);
        const int cores = std::stoi(part.name.substr(open + 1, at - open - 1));
        const std::string chip = part.name.substr(0, open);  // "Apple M1 Pro "
        // The full part: the same chip's profile without "binned".
        std::optional<profiles::HardwareProfile> full;
        for (const auto& other : ids) {
            const auto candidate = catalog.hardware(other);
            if (candidate.name.rfind(chip + "(", 0) == 0 && candidate.name.find("binned") == std::string::npos) {
                full = candidate;
            }
        }
        REQUIRE(full.has_value());
        const auto full_at = full->name.find("-core GPU)");
        const int full_cores = std::stoi(full->name.substr(chip.size() + 1, full_at - chip.size() - 1));
        CHECK(cores < full_cores);
        CHECK(part.listed_peak(core::Datatype::fp32).value ==
              doctest::Approx(full->listed_peak(core::Datatype::fp32).value * cores / full_cores).epsilon(0.002).scale(0.0));
        CHECK(part.memory_bandwidth.value <= full->memory_bandwidth.value);
        CHECK(part.dies == full->dies);
        // A clock block where the full part has one (the M1 Ultra's profile carries none).
        REQUIRE(part.clocks.has_value() == full->clocks.has_value());
        if (part.clocks) CHECK(part.clocks->peak.value == full->clocks->peak.value);
    }
    // M1 (7), M1 Pro (14), M1 Max (24), M1 Ultra (48), M2 (8), M2 Pro (16), M2 Max (30), M2 Ultra
    // (60), M3 Pro (14), M3 Max (30), M3 Ultra (60), M4 Pro (16), M4 Max (32), M5 Pro (16), M5 Max (32).
    CHECK(binned == 15);
    // By hand: M1 Pro 14-core, 5.2 x 14/16 = 4.55 TFLOPS over Apple's one 200 GB/s.
    const auto m1_pro_14 = catalog.hardware("apple-m1-pro-14c");
    CHECK(m1_pro_14.listed_peak(core::Datatype::fp16).value == doctest::Approx(4.55e12));
    CHECK(m1_pro_14.memory_bandwidth.value == doctest::Approx(200e9));
}
