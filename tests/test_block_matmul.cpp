// Dequantized block matmuls (engine::BlockMatmul::dequantized): llama.cpp's CUDA builds before PR
// #8075 (June 2024) multiplied block-format weights by a pass of more than 32 tokens through a
// 16-bit copy and cuBLAS. Checked against a hand count of the copy traffic, against a measurement
// of that era that validation/measurements.csv does not hold, and through the ways a run states it.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"
#include "engine/prediction.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;
using engine::OperatorKind;

namespace {

// The two builds differ in the path alone: llama.cpp@2023-03 sends passes of more than 32 tokens
// through 16-bit copies on CUDA, llama.cpp@2024-06 multiplies the blocks as stored (MMQ); both
// run the unfused graph and unfused attention.
constexpr const char* kDequantizingBuild = "llama.cpp@2023-03";
constexpr const char* kMmqBuild = "llama.cpp@2024-06";

engine::CostModel llama2_q4_0_cost(const std::string& build) {
    return testing::llama2_llama_cpp_cost("q4_0", [&](engine::DeploymentChoice& choice) {
        choice.runtime = testing::shipped_runtime(build);
    });
}

double prefill_ms(const std::string& weights, const std::string& build) {
    const auto result = testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-2-7b", "--weights", weights,
                                      "--runtime", build, "--prompt", "512", "--output", "1", "--json"});
    REQUIRE(result.exit_code == 0);
    return 1000.0 * nlohmann::json::parse(result.out)["prefill"]["time_s"].get<double>();
}

}  // namespace

TEST_CASE("a dequantized block matmul writes and reads a 16-bit copy of every matrix, once a physical batch") {
    // Llama-2-7B (config.json: 32 layers, hidden 4096, 32 heads and 32 KV heads, intermediate
    // 11008). Weights through the products, per layer: Q, K, V 3 x 4096 x 4096 = 50,331,648; O
    // 16,777,216; gate, up, down 3 x 4096 x 11008 = 135,266,304; 202,375,168 a layer, 6,476,005,376
    // over 32 layers. Q4_0 stores 18 bytes per 32 weights (0.5625 B): 3,642,753,024 B of blocks;
    // the fp16 copy is 12,952,010,752 B. One physical batch (512 tokens) reads the blocks and writes
    // the copy: 16,594,763,776 B. The MLP's product then reads its copy, 2 x 135,266,304 x 32 =
    // 8,657,043,456 B, in place of its blocks, 2,434,793,472 B: 6,222,249,984 B more.
    const auto quantized = llama2_q4_0_cost(kMmqBuild);
    const auto dequantized = llama2_q4_0_cost(kDequantizingBuild);
    const auto prompt = engine::prefill_costs(dequantized, 1.0, 512.0);
    CHECK(prompt[OperatorKind::weight_dequantize].bytes.value == doctest::Approx(16594763776.0).epsilon(1e-9));
    CHECK(prompt[OperatorKind::mlp].bytes.value -
              engine::prefill_costs(quantized, 1.0, 512.0)[OperatorKind::mlp].bytes.value ==
          doctest::Approx(6222249984.0).epsilon(1e-9));
    CHECK(prompt[OperatorKind::mlp].on_16bit_copy);
    // 1,024 tokens run as two physical batches: the copy is made twice.
    CHECK(engine::prefill_costs(dequantized, 1.0, 1024.0)[OperatorKind::weight_dequantize].bytes.value ==
          doctest::Approx(2.0 * 16594763776.0).epsilon(1e-9));
    // Up to 32 tokens the quantized kernels run as stored, whatever the path; 33 make a copy.
    CHECK(engine::decode_step_costs(dequantized, 32.0, 1024.0)[OperatorKind::weight_dequantize].bytes.value == 0.0);
    CHECK_FALSE(engine::decode_step_costs(dequantized, 32.0, 1024.0)[OperatorKind::mlp].on_16bit_copy);
    CHECK(engine::decode_step_costs(dequantized, 33.0, 1024.0)[OperatorKind::weight_dequantize].bytes.value ==
          doctest::Approx(16594763776.0).epsilon(1e-9));
    // The quantized path never makes one.
    CHECK(engine::prefill_costs(quantized, 1.0, 512.0)[OperatorKind::weight_dequantize].bytes.value == 0.0);
}

TEST_CASE("the dequantized path costs what a llama.cpp build of January 2024 measured on an RTX 4090") {
    // llama.cpp PR #4766 (ggml-backend integration, comment by ggerganov 2024-01-10), llama-bench on
    // an RTX 4090 with "CUDA_USE_TENSOR_CORES: yes" and "GGML_CUDA_FORCE_MMQ: no": LLaMA 7B F16 pp512
    // 11,048.22 tok/s, Q4_0 pp512 7,979.85 tok/s. Not in validation/measurements.csv: no fit read it.
    // What Q4_0 costs over F16 on 512 tokens: 512 / 7979.85 - 512 / 11048.22 = 17.82 ms. By hand
    // (the case above): 16.59 GB of copying at the 4090's 1,008 GB/s, about 16.5 ms before any
    // efficiency, both products then at the same fp16 rate. The prediction must fall within 30% of
    // the measured difference; MMQ's path (the default now, at the int8 rate) makes Q4_0 the faster.
    const double measured = 512.0 / 7979.85 * 1000.0 - 512.0 / 11048.22 * 1000.0;
    CHECK(measured == doctest::Approx(17.82).epsilon(0.001).scale(0.0));
    const double fp16 = prefill_ms("fp16", kDequantizingBuild);
    const double predicted = prefill_ms("q4_0", kDequantizingBuild) - fp16;
    CHECK(predicted == doctest::Approx(measured).epsilon(0.30).scale(0.0));
    CHECK(prefill_ms("q4_0", kMmqBuild) - prefill_ms("fp16", kMmqBuild) < 0.5 * measured);
}

TEST_CASE("a run states the dequantized path through its runtime build, which has it only for CUDA block formats") {
    // A measurement names the path through its runtime profile (llama.cpp@2023-03 multiplied block
    // formats through dequantized copies): no condition states it, and the notes are not read.
    const auto path = testing::write_temp(
        "block_matmul_rows.csv",
        testing::kMeasurementHeader +
            "a,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2023-03,1,512,,,prefill_tokens_per_s,7980,src,attention=unfused,"
            "block-matmul=dequantized\n"
            "c,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,7980,src,attention=fused,plain\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].runtime == "llama.cpp@2023-03");
    CHECK(rows[1].runtime == "llama.cpp@2025-10");

    // As a condition it is an unknown key, named with the file, the line and the column.
    const auto bad = testing::write_temp(
        "block_matmul_bad.csv",
        testing::kMeasurementHeader +
            "a,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2023-03,1,512,,,prefill_tokens_per_s,7980,src,block-matmul=dequantized,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("block_matmul_bad.csv:2:15:") != std::string::npos);
    CHECK(messages[0].find("conditions") != std::string::npos);
    CHECK(messages[0].find("unknown key 'block-matmul'") != std::string::npos);

    // The path is the build's, on CUDA's block formats alone: the two builds differ in nothing else,
    // so they price fp16 weights, and Metal's kernels, alike.
    const auto prefill_s = [](const std::string& hardware, const std::string& weights, const std::string& build) {
        const auto result = testing::run({"predict", "--hardware", hardware, "--model", "llama-2-7b", "--weights", weights,
                                          "--runtime", build, "--prompt", "512", "--output", "1", "--json"});
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["prefill"]["time_s"].get<double>();
    };
    CHECK(prefill_s("rtx-4090", "q4_0", kDequantizingBuild) > 1.2 * prefill_s("rtx-4090", "q4_0", kMmqBuild));
    CHECK(prefill_s("rtx-4090", "fp16", kDequantizingBuild) == doctest::Approx(prefill_s("rtx-4090", "fp16", kMmqBuild)));
    CHECK(prefill_s("apple-m2-ultra", "q4_0", kDequantizingBuild) ==
          doctest::Approx(prefill_s("apple-m2-ultra", "q4_0", kMmqBuild)));
    // No flag chooses the path (--block-matmul is refused): the build states it.
    const auto flag = testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-2-7b", "--weights", "q4_0",
                                    "--block-matmul", "dequantized"});
    CHECK(flag.exit_code == 2);
    CHECK(flag.err.find("--block-matmul") != std::string::npos);
}
