// Attention tiles (engine/attention_tile.hpp): a fused prompt kernel reloads each head's keys and
// values once per tile of query rows. Checked against a hand count of the reloads, against the
// kernels' own constants, and against a public long-context measurement whose time the reloads,
// not the arithmetic, set.

#include <doctest/doctest.h>

#include "engine/attention_tile.hpp"
#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

testing::Setup llama2_on_strix_halo(core::Backend backend, const std::string& runtime = "llama.cpp") {
    return testing::setup_on("strix-halo", "llama-2-7b", "q4_0", runtime, backend);
}

engine::CostModel llama2_cost(core::Backend backend) {
    const auto s = llama2_on_strix_halo(backend);
    return engine::build_cost_model(s.model, s.deployment);
}

}  // namespace

TEST_CASE("a 16-row attention tile reloads the keys and values once a tile: counted by hand for Llama-2-7B") {
    // Llama-2-7B: 32 layers, 32 query heads and 32 key/value heads of head_dim 128, fp16 cache.
    // A 2,048-token prompt: 2,048 x 2,049 / 2 = 2,098,176 causal (query, key) pairs a head a layer.
    // llama.cpp's Vulkan kernel holds 16 query rows of one head a tile, so each pair's key (128
    // elements of 2 B) is loaded 1/16 times; the first of the 2,048 / 16 = 128 loads is the one read
    // counted with the cache, so 127/128 of them are reloads:
    //   2,098,176 x 32 layers x 32 heads x 128 x 2 B / 16 x 127/128 = 34,107,949,056 B of keys,
    // as many of values. HIP's 64-row tiles are served on chip (kOnChipTileRows): no reloads.
    const auto vulkan = engine::prefill_costs(llama2_cost(core::Backend::vulkan), 1.0, 2048.0);
    const auto rocm = engine::prefill_costs(llama2_cost(core::Backend::rocm), 1.0, 2048.0);
    using engine::OperatorKind;
    CHECK(vulkan[OperatorKind::attention_score].bytes.value - rocm[OperatorKind::attention_score].bytes.value ==
          doctest::Approx(34107949056.0).epsilon(1e-12));
    CHECK(vulkan[OperatorKind::attention_value].bytes.value - rocm[OperatorKind::attention_value].bytes.value ==
          doctest::Approx(34107949056.0).epsilon(1e-12));
    // A chunk no taller than a tile (a speculative verification of a few tokens) loads once.
    CHECK(engine::prefill_costs(llama2_cost(core::Backend::vulkan), 1.0, 16.0)[OperatorKind::attention_score]
              .bytes.value ==
          engine::prefill_costs(llama2_cost(core::Backend::rocm), 1.0, 16.0)[OperatorKind::attention_score].bytes.value);
    // The arithmetic does not change with the tile.
    CHECK(vulkan[OperatorKind::attention_score].flops.value == rocm[OperatorKind::attention_score].flops.value);
    // Decode reads each sequence's cache once, whatever the prompt kernel's tile.
    CHECK(engine::decode_step_costs(llama2_cost(core::Backend::vulkan), 1.0, 4096.0)[OperatorKind::attention_score]
              .bytes.value ==
          engine::decode_step_costs(llama2_cost(core::Backend::rocm), 1.0, 4096.0)[OperatorKind::attention_score]
              .bytes.value);
}

TEST_CASE("the tiles are the kernels' own constants, and only short ones load from memory") {
    using core::Backend;
    // llama.cpp: Vulkan coopmat1 16 rows, Metal 8 queries a threadgroup, CUDA's mma kernel 64
    // columns (docs/model.md, "Attention tiles", for the files), as its profile states them.
    const auto tile = [](const std::string& runtime, Backend backend) {
        return testing::shipped_runtime(runtime)->tile_rows_on(backend);
    };
    CHECK(tile("llama.cpp", Backend::vulkan) == 16.0);
    CHECK(tile("llama.cpp", Backend::metal) == 8.0);
    CHECK(tile("llama.cpp", Backend::cuda) == 64.0);
    CHECK(tile("vllm", Backend::cuda) == 128.0);
    CHECK(tile("ideal", Backend::vulkan) == 0.0);
    CHECK(engine::rows_per_memory_load(16.0) == 16.0);
    CHECK(engine::rows_per_memory_load(32.0) == 32.0);
    CHECK(engine::rows_per_memory_load(64.0) == 0.0);
    CHECK(engine::rows_per_memory_load(128.0) == 0.0);
    CHECK(engine::rows_per_memory_load(0.0) == 0.0);
}

TEST_CASE("a long Vulkan prompt on Strix Halo runs no faster than its tile reloads allow, as measured") {
    // kyuz0/amd-strix-halo-toolboxes benchmark/results (commit d1a34bee), file
    // llama-2-7b.Q4_0__vulkan_radv__fa1__longctx65536.log: pp2048 at depth 65,536 with flash
    // attention on, Mesa RADV, measured 79.73 tok/s. The 2,048 new tokens attend to
    // 2,048 x 65,536 + 2,048 x 2,049 / 2 = 136,315,904 pairs a head a layer; with 16-row tiles the
    // keys and values load 136,315,904 x 32 layers x 32 heads x 256 x 2 B / 16 = 4.4668e12 B, 17.45 s
    // at the 256 GB/s datasheet: at most 2,048 / 17.45 = 117.4 tok/s, whatever the arithmetic.
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("strix-halo");
    const auto model = catalog.model("llama-2-7b");
    profiles::Measurement row;
    row.metric = profiles::Metric::prefill_tokens_per_s;
    row.batch = 1.0;
    row.prompt = 2048.0;
    row.context = 65536.0;
    const double bound = 2048.0 / (136315904.0 * 32.0 * 32.0 * 256.0 * 2.0 / 16.0 / 256e9);
    CHECK(bound == doctest::Approx(117.4).epsilon(0.001).scale(0.0));
    CHECK(79.73 < bound);

    const auto vulkan = llama2_on_strix_halo(core::Backend::vulkan).deployment;
    const auto& shipped = vulkan.runtime_profile();
    // With every attention multiplier at 1, as a fit that never saw a long Vulkan prompt leaves
    // them, the reloads alone hold the prediction under the bound and near the measurement.
    engine::RuntimeProfile unfitted = shipped;
    for (auto& factors : unfitted.by_family) factors.backend_attention.fill(1.0);
    const double predicted = fit::predict_measurement(row, model, hardware, vulkan, unfitted);
    CHECK(predicted < bound);
    CHECK(predicted == doctest::Approx(79.73).epsilon(0.25).scale(0.0));
    CHECK(fit::predict_measurement(row, model, hardware, vulkan, shipped) < bound);
    // The ideal kernel reads the cache once: its bound is the arithmetic's, far above.
    const auto ideal = llama2_on_strix_halo(core::Backend::vulkan, "ideal").deployment;
    CHECK(fit::predict_measurement(row, model, hardware, ideal, ideal.runtime_profile()) >
          2.0 * bound);
}
