// A config.json's quantization_config sets the weight format unless --weights says otherwise
// (profiles/hf_config.cpp, docs/quantization.md).

#include <doctest/doctest.h>

#include <filesystem>

#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "profiles/hf_config.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::testing::run;

namespace {

// A Llama-3.1-8B config.json with the given quantization_config (JSON text).
std::string llama_with(const std::string& quantization) {
    return R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
               "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
               "max_position_embeddings": 131072, "quantization_config": )" +
           quantization + "}";
}

std::string format_of(const std::string& quantization) {
    const auto model = decodesim::profiles::parse_hf_config(llama_with(quantization), "config.json");
    return model.checkpoint_weights ? std::string(model.checkpoint_weights->name) : "(none)";
}

}  // namespace

TEST_CASE("quantization_config methods map to the nearest weight format") {
    CHECK(format_of(R"({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]})") == "fp8_block");
    CHECK(format_of(R"({"quant_method": "fp8", "activation_scheme": "static"})") == "fp8");  // per-tensor scales
    CHECK(format_of(R"({"quant_method": "awq", "bits": 4, "group_size": 128})") == "int4");
    CHECK(format_of(R"({"quant_method": "gptq", "bits": 8})") == "int8");
    CHECK(format_of(R"({"quant_method": "bitsandbytes", "load_in_4bit": true})") == "int4");
    CHECK(format_of(R"({"quant_method": "mxfp4"})") == "mxfp4");
    CHECK(format_of(R"({"quant_method": "modelopt", "quant_algo": "NVFP4"})") == "nvfp4");
    CHECK(format_of(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
                        "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}}}})") == "fp8");
    CHECK(format_of(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
                        "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float",
                                                                   "strategy": "block"}}}})") == "fp8_block");
    CHECK(format_of(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
                        "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}}})") == "int4");
    CHECK(format_of(R"({"quant_method": "hqq", "nbits": 4})") == "(none)");
}

TEST_CASE("a config.json with an FP8 quantization_config is predicted at FP8 weights without --weights") {
    const auto config = decodesim::testing::test_data("hf_configs/deepseek-v3.json");
    const auto result = run({"predict", "--hardware", "h200-sxm", "--model", config, "--tp", "8", "--json"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    const auto point = nlohmann::json::parse(result.out);
    CHECK(point["conditions"]["weights"] == "fp8_block");  // its weight_block_size [128, 128]
    // --weights still wins.
    const auto bf16 = run({"predict", "--hardware", "h200-sxm", "--model", config, "--tp", "8", "--weights", "bf16", "--json"});
    CHECK(nlohmann::json::parse(bf16.out)["conditions"]["weights"] == "bf16");
    // About 671 B parameters: fp8 holds about half of bf16's weight bytes (embeddings stay bf16).
    const double fp8_bytes = point["memory"]["weights_bytes"].get<double>();
    const double bf16_bytes = nlohmann::json::parse(bf16.out)["memory"]["weights_bytes"].get<double>();
    CHECK(fp8_bytes / bf16_bytes == doctest::Approx(0.5).epsilon(0.02).scale(0.0));
}

TEST_CASE("a quantization_config decodesim does not read is said, not silently dropped") {
    const std::string path = std::string(DECODESIM_BINARY_DIR) + "/hqq-config.json";
    {
        std::ofstream file(path);
        file << llama_with(R"({"quant_method": "hqq", "nbits": 4})");
    }
    const auto result = run({"predict", "--hardware", "h100-sxm", "--model", path});
    CHECK(result.exit_code == 0);
    CHECK(result.err.find("quantization_config (hqq) is not a format decodesim reads") != std::string::npos);
}

TEST_CASE("a Hugging Face model folder holding config.json is a model, and a folder without one is refused") {
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(DECODESIM_BINARY_DIR) / "Llama-3.1-8B-folder";
    fs::create_directories(folder);
    fs::copy_file(decodesim::testing::test_data("hf_configs/llama-3.1-8b.json"), folder / "config.json",
                  fs::copy_options::overwrite_existing);
    const auto result = run({"predict", "--hardware", "h100-sxm", "--model", folder.string(), "--json"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    CHECK(nlohmann::json::parse(result.out)["model"] == "Llama-3.1-8B-folder");
    // The same figures as the config.json itself.
    const auto direct = run({"predict", "--hardware", "h100-sxm", "--model", (folder / "config.json").string(), "--json"});
    CHECK(nlohmann::json::parse(result.out)["decode"]["step_time_s"] ==
          nlohmann::json::parse(direct.out)["decode"]["step_time_s"]);
    const fs::path empty = fs::path(DECODESIM_BINARY_DIR) / "empty-model-folder";
    fs::create_directories(empty);
    const auto refused = run({"predict", "--hardware", "h100-sxm", "--model", empty.string()});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("a folder without a config.json") != std::string::npos);
    const auto hardware = run({"predict", "--hardware", empty.string(), "--model", "llama-3.1-8b"});
    CHECK(hardware.exit_code == 1);
    CHECK(hardware.err.find("a folder; expected a hardware profile YAML") != std::string::npos);
}

TEST_CASE("versus takes the checkpoint's format when neither side names one") {
    const auto config = decodesim::testing::test_data("hf_configs/deepseek-v3.json");
    const auto result = run({"versus", "--hardware", "h200-sxm", "--model", config, "--tp", "8", "--json"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    const auto ladder = nlohmann::json::parse(result.out);
    for (const auto& step : ladder["steps"]) CHECK(step["conditions"]["weights"] == "fp8_block");
}

TEST_CASE("DeepSeek-style FP8 block scales add one fp32 per 128 x 128 weights") {
    // 8 bits a weight and 32 bits a block of 16,384: 8 + 32/16384 = 8.001953125 bits.
    const auto* block = decodesim::core::find_named(decodesim::core::weight_formats(), "fp8_block");
    REQUIRE(block != nullptr);
    CHECK(block->bits_per_weight == doctest::Approx(8.001953125).epsilon(1e-12));
    // On Llama-3.1-8B the linear layers (6.98 B weights: 8.03 B less the 2 x 525.3 M of embedding
    // and lm_head) gain 6.98e9 x 32/16384 / 8 = 1.70 MB over per-tensor fp8.
    const auto fp8 = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "fp8", "--json"});
    const auto blocked = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "fp8_block", "--json"});
    REQUIRE_MESSAGE(blocked.exit_code == 0, blocked.err);
    const double gained = nlohmann::json::parse(blocked.out)["memory"]["weights_bytes"].get<double>() -
                          nlohmann::json::parse(fp8.out)["memory"]["weights_bytes"].get<double>();
    CHECK(gained == doctest::Approx(6.98e9 * 32.0 / 16384.0 / 8.0).epsilon(0.01).scale(0.0));
}
