// Unfused attention (engine::AttentionKernels::unfused): the score matrix goes through device
// memory, the masked half of each query block is computed, and the softmax is a kernel of its own.
// Checked against a hand count of the traffic, against llama.cpp's flash-attention on/off pairs
// in discussion #15013, and through the three ways a run states it (conditions, llama-bench, CLI).

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"
#include "profiles/benchmark_results.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

engine::CostModel llama2_cost(engine::AttentionKernels attention) {
    return testing::llama2_llama_cpp_cost("fp16", [&](engine::DeploymentChoice& choice) { choice.attention = attention; });
}

// llama.cpp@2025-10 with flash attention off: a runtime file that changes that alone (as a user
// would write one for a build run with -fa 0).
std::string unfused_build() {
    return testing::write_temp("decodesim_llama_cpp_fa_off.yaml",
                               "name: llama.cpp-fa-off\n"
                               "base: llama.cpp@2025-10\n"
                               "source: \"llama.cpp@2025-10 run with -fa 0\"\n"
                               "measured: false\n"
                               "measurements: \"none: a test's build\"\n"
                               "attention:\n"
                               "  source: \"-fa 0\"\n"
                               "  kernels: unfused\n");
}

double prefill_seconds(const std::string& hardware, const std::string& attention) {
    const std::string runtime = attention == "unfused" ? unfused_build() : std::string("llama.cpp@2025-10");
    const auto result = testing::run({"predict", "--hardware", hardware, "--model", "llama-2-7b", "--weights", "q4_0",
                                      "--runtime", runtime, "--prompt", "512", "--output", "1", "--clocks", "peak",
                                      "--json"});
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out)["prefill"]["time_s"].get<double>();
}

}  // namespace

TEST_CASE("unfused attention moves the score matrix through memory: counted by hand for Llama-2-7B") {
    // Llama-2-7B: 32 layers, 32 query heads of head_dim 128 (model_profiles/llama-2-7b.yaml).
    // A 1,024-token prompt runs as two blocks of 512 queries: the first scores 512 x 512 keys, the
    // second 512 x 1,024 (the masked future keys included), 786,432 pairs a head a layer, against
    // 1,024 x 1,025 / 2 = 524,800 causal pairs when fused.
    // Traffic: 16 B x 786,432 pairs x 32 heads x 32 layers = 12,884,901,888 B, one softmax kernel a layer.
    // Extra Q.K work: 2 x 128 x 32 heads x 32 layers x (786,432 - 524,800) = 68,585,259,008 FLOP.
    const auto fused = llama2_cost(engine::AttentionKernels::fused);
    const auto unfused = llama2_cost(engine::AttentionKernels::unfused);
    const auto fused_prefill = engine::prefill_costs(fused, 1.0, 1024.0);
    const auto unfused_prefill = engine::prefill_costs(unfused, 1.0, 1024.0);
    using engine::OperatorKind;
    const auto& softmax = unfused_prefill[OperatorKind::attention_softmax];
    CHECK(softmax.bytes.value == doctest::Approx(12884901888.0).epsilon(1e-12));
    CHECK(softmax.kernels == 32.0);
    CHECK(fused_prefill[OperatorKind::attention_softmax].bytes.value == 0.0);
    CHECK(fused_prefill[OperatorKind::attention_softmax].kernels == 0.0);
    CHECK(unfused_prefill[OperatorKind::attention_score].flops.value -
              fused_prefill[OperatorKind::attention_score].flops.value ==
          doctest::Approx(68585259008.0).epsilon(1e-12));
    // The value product runs over the same rectangle (value_width = head_dim = 128 too).
    CHECK(unfused_prefill[OperatorKind::attention_value].flops.value -
              fused_prefill[OperatorKind::attention_value].flops.value ==
          doctest::Approx(68585259008.0).epsilon(1e-12));

    // Decode: each of 2 sequences at 4,096 tokens writes one score row a head a layer:
    // 16 B x 4,096 x 2 x 32 heads x 32 layers = 134,217,728 B.
    const auto decode = engine::decode_step_costs(unfused, 2.0, 4096.0);
    CHECK(decode[OperatorKind::attention_softmax].bytes.value == doctest::Approx(134217728.0).epsilon(1e-12));
    CHECK(engine::decode_step_costs(fused, 2.0, 4096.0)[OperatorKind::attention_softmax].bytes.value == 0.0);
}

TEST_CASE("unfused attention costs what llama.cpp's flash-attention off/on pairs measured, to within their spread") {
    // llama.cpp discussion #15013 (validation/measurements.csv, ids lcpp15013-*-fa0/fa1-pp512):
    // Llama-2-7B Q4_0, pp512 with -fa 0 and -fa 1 on one build per card. The time flash attention
    // saves on 512 tokens, 512/fa0 - 512/fa1, in ms:
    //   RTX 3060 (2137.50 / 2407.67 tok/s) 26.9, RTX 3090 (5174.69 / 5560.06) 6.9,
    //   RTX 4090 (11992.7 / 14770.63) 8.0, RTX 5090 (14073.41 / 14970.15) 2.2,
    //   RTX A6000 (4913.93 / 5662.39) 13.8, RTX PRO 6000 (14854.63 / 16618.98) 3.7,
    //   A100 SXM 80GB (4849.53 / 5285.96) 8.7, H100 SXM (9918.34 / 11263.29) 6.2.
    // The model charges 4.29 GB of score traffic (16 B x 512 x 512 x 32 heads x 32 layers), the
    // masked half of the products and 32 softmax kernels: a few ms on each card. Every card must
    // see a cost, and the median of predicted / measured must sit within [0.4, 1.5]: no unfused
    // path (0) or one that counted each score once (16 B -> 4 B) or ignored the block's masked
    // half would fall outside it. (On the HBM parts the model charges a third of what was
    // measured: llama.cpp's small batched products reach less of those devices' peaks.)
    struct Pair {
        const char* hardware;
        double unfused_rate, fused_rate;
    };
    const std::vector<Pair> pairs{{"rtx-3060", 2137.50, 2407.67},      {"rtx-3090", 5174.69, 5560.06},
                                  {"rtx-4090", 11992.7, 14770.63},     {"rtx-5090", 14073.41, 14970.15},
                                  {"rtx-a6000", 4913.93, 5662.39},     {"rtx-pro-6000", 14854.63, 16618.98},
                                  {"a100-sxm-80gb", 4849.53, 5285.96}, {"h100-sxm", 9918.34, 11263.29}};
    std::vector<double> ratios;
    for (const Pair& pair : pairs) {
        CAPTURE(pair.hardware);
        const double measured = 512.0 / pair.unfused_rate - 512.0 / pair.fused_rate;
        const double predicted = prefill_seconds(pair.hardware, "unfused") - prefill_seconds(pair.hardware, "fused");
        CHECK(predicted > 0.0);
        ratios.push_back(predicted / measured);
    }
    std::sort(ratios.begin(), ratios.end());
    const double median = (ratios[3] + ratios[4]) / 2.0;
    CHECK(median >= 0.4);
    CHECK(median <= 1.5);
}

TEST_CASE("a run states unfused attention in its conditions, in llama-bench's flash_attn column, or through its build") {
    const std::string path = testing::write_temp(
        "decodesim_attention_rows.csv",
        testing::kMeasurementHeader +
            "a,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,attention=unfused,-fa 0\n"
            "b,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,attention=fused,-fa 1\n"
            "c,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,,"
            "nothing stated; attention=unfused\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].flash_attention == false);
    CHECK(rows[1].flash_attention == true);
    CHECK_FALSE(rows[2].flash_attention.has_value());  // the runtime's default; the notes are not read
    // Accuracy and calibrate both turn a row into its deployment through stated_deployment.
    CHECK(fit::stated_deployment(rows[0], testing::test_runtime("llama.cpp")).attention == engine::AttentionKernels::unfused);
    CHECK(fit::stated_deployment(rows[1], testing::test_runtime("llama.cpp")).attention == engine::AttentionKernels::fused);
    // Unstated, the build's own: flash attention off by default in 2024-06, on (auto) in 2025-10.
    const auto deployment = [&](const std::string& build) {
        const auto catalog = testing::shipped_catalog();
        const auto hardware = catalog.hardware("rtx-4090");
        const auto model = catalog.model("llama-2-7b");
        return engine::resolve_deployment(hardware, model, fit::stated_deployment(rows[2], testing::shipped_runtime(build)));
    };
    CHECK(deployment("llama.cpp@2024-06").attention == engine::AttentionKernels::unfused);
    CHECK(deployment("llama.cpp@2025-10").attention == engine::AttentionKernels::fused);

    const std::string bad = testing::write_temp("decodesim_attention_bad.csv",
                                                testing::kMeasurementHeader +
                                                    "a,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,"
                                                    "prefill_tokens_per_s,900,src,attention=flash,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find(":2:15:") != std::string::npos);  // line 2, the conditions column
    CHECK(messages[0].find("unknown attention 'flash'") != std::string::npos);

    // llama-bench -o csv: flash_attn 0 (its old default), 1, and a value it never writes.
    const std::string bench = testing::write_temp("decodesim_llama_bench_fa.csv",
                                                  "model_type,n_prompt,n_gen,flash_attn,avg_ts\n"
                                                  "llama 7B Q4_0,512,0,0,900.5\n"
                                                  "llama 7B Q4_0,512,0,1,1100.5\n");
    const auto results = profiles::load_benchmark_results({bench}, std::nullopt);
    REQUIRE(results.rows.size() == 2);
    CHECK(results.rows[0].flash_attention == false);
    CHECK(results.rows[1].flash_attention == true);
    const std::string bench_bad = testing::write_temp("decodesim_llama_bench_fa_bad.csv",
                                                      "model_type,n_prompt,n_gen,flash_attn,avg_ts\n"
                                                      "llama 7B Q4_0,512,0,maybe,900.5\n");
    const auto bench_messages = testing::error_messages([&] { profiles::load_benchmark_results({bench_bad}, std::nullopt); });
    REQUIRE_FALSE(bench_messages.empty());
    CHECK(bench_messages[0].find("flash_attn") != std::string::npos);
    CHECK(bench_messages[0].find("maybe") != std::string::npos);

    // The CLI: a build whose attention is unfused says so, and no flag chooses it.
    const auto unfused = testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-2-7b", "--weights", "q4_0",
                                       "--runtime", "llama.cpp@2024-06", "--prompt", "4096", "--output", "64", "--json"});
    REQUIRE(unfused.exit_code == 0);
    CHECK(nlohmann::json::parse(unfused.out)["conditions"]["attention"] == "unfused");
    const auto text = testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-2-7b", "--weights", "q4_0",
                                    "--runtime", "llama.cpp@2024-06"});
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find("attention unfused") != std::string::npos);
    CHECK(text.out.find("attention_softmax") != std::string::npos);
    const auto flag = testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-2-7b", "--attention", "unfused"});
    CHECK(flag.exit_code == 2);
    CHECK(flag.err.find("--attention") != std::string::npos);
}
