// Robustness: absurd and extreme inputs get a clear error or finite figures, never NaN, a crash or
// a half-written file.

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.hpp"
#include "engine/model_shape.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/model_loader.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

std::string fixture(const std::string& name) { return testing::test_data("invalid/" + name); }

// Every number in a JSON document is finite (JSON cannot carry NaN; nlohmann would write null).
void check_all_finite(const nlohmann::json& value, const std::string& path) {
    if (value.is_number()) {
        CAPTURE(path);
        CHECK(std::isfinite(value.get<double>()));
    } else if (value.is_null()) {
        // Documented nulls (knee_batch etc.) are allowed; none appear in predict output.
        FAIL_CHECK("null at " << path);
    } else if (value.is_object()) {
        for (const auto& [key, item] : value.items()) check_all_finite(item, path + "." + key);
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i) check_all_finite(value[i], path + "[" + std::to_string(i) + "]");
    }
}

}  // namespace

TEST_CASE("absurd numbers are refused with the bound they broke") {
    const auto model = fixture("model_absurd.yaml");
    CHECK(testing::error_messages([&] { profiles::load_model_profile(model); }) ==
          std::vector<std::string>{
              model + ":3:13: error: parameters: expected a number greater than 0 and at most 1e+15, found '1e30'",
              model + ":4:20: error: num_hidden_layers: expected a whole number from 1 to 100000, found '1000000000000'"});
    const auto hardware = fixture("absurd_values.yaml");
    const std::string bandwidth_units = "(units: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, GBps, TBps, GiBps)";
    CHECK(testing::error_messages([&] { profiles::load_hardware_profile(hardware); }) ==
          std::vector<std::string>{
              hardware + ":5:13: error: memory.capacity: '1e300 TB' is too large",
              hardware + ":6:14: error: memory.bandwidth: '1e400' is not a finite number; expected a bandwidth such as "
                         "'3.35 TB/s' " + bandwidth_units,
              hardware + ":8:9: error: compute.bf16: 'inf TFLOPS' does not start with a finite number; expected a "
                         "compute rate such as '989.4 TFLOPS' (units: FLOPS, GFLOPS, TFLOPS, PFLOPS, OPS, GOPS, TOPS, POPS)"});
}

TEST_CASE("deeply nested YAML is refused quickly, not by a stack overflow") {
    const auto start = std::chrono::steady_clock::now();
    const auto lines = testing::error_messages([&] { profiles::load_hardware_profile(fixture("deep_nesting.yaml")); });
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].starts_with(fixture("deep_nesting.yaml") + ":1:"));
    CHECK(lines[0].find("not valid YAML/JSON") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("a file over 16 MiB is refused without being parsed") {
    const std::string path = std::string(DECODESIM_BINARY_DIR) + "/huge_profile.yaml";
    {
        std::ofstream file(path, std::ios::binary);
        const std::string line = "# " + std::string(1022, 'x') + "\n";
        for (int i = 0; i < 17 * 1024; ++i) file << line;
    }
    CHECK(testing::error_messages([&] { profiles::load_hardware_profile(path); }) ==
          std::vector<std::string>{path + ": error: the file is larger than 16 MiB; a profile or config.json is a few kB"});
    std::filesystem::remove(path);
}

TEST_CASE("a stated parameter count far from the shape's is a warning, and the profile still loads") {
    const auto model = profiles::load_model_profile(fixture("model_parameter_mismatch.yaml"));
    // The shape is Llama-3.1-8B's: 8,030,261,248 parameters, 10.8% below the stated 9.0e9.
    CHECK(engine::model_warnings(model) ==
          std::vector<std::string>{"model_parameter_mismatch: the shape implies 8.03e+09 parameters, -10.8% away from "
                                   "the stated 9e+09"});
    const auto validate = testing::run({"profiles", "validate", fixture("model_parameter_mismatch.yaml")});
    CHECK(validate.exit_code == 0);
    CHECK(validate.err.find("warning: model_parameter_mismatch: the shape implies") != std::string::npos);
}

TEST_CASE("a context beyond the model's maximum is a warning with the figures still computed") {
    const auto result = testing::run({"predict", "--hardware", "h200-sxm", "--model", "llama-3.1-8b", "--context", "200000", "--json"});
    CHECK(result.exit_code == 0);
    CHECK(result.err.find("context of 200000 tokens exceeds the model's max_position_embeddings of 131072") !=
          std::string::npos);
    check_all_finite(nlohmann::json::parse(result.out), "");
}

TEST_CASE("extreme but valid operating points give finite figures and impossible splits a clear refusal") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "10000000", "--json"},
             {"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1000000", "--json"},
             {"predict", "--hardware", "mi300x", "--model", "deepseek-v3", "--weights", "fp8", "--tp", "128", "--json"},
             {"predict", "--hardware", "apple-m1", "--model", "llama-3.1-405b", "--prompt", "1000000", "--output",
              "1000000", "--json"}}) {
        CAPTURE(args[4]);
        const auto result = testing::run(args);
        REQUIRE(result.exit_code == 0);
        check_all_finite(nlohmann::json::parse(result.out), "");
    }
    const auto refused = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tp", "1024"});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err == "decodesim: error: tp: tensor parallelism 1024 does not divide the 32 attention heads of "
                         "Llama-3.1-8B\n");
}

TEST_CASE("no shipped model on any shipped device prints a non-finite number") {
    const auto catalog = testing::shipped_catalog();
    std::mt19937 random(7);
    const auto hardware_ids = catalog.hardware_ids();
    for (const auto& model : catalog.model_ids()) {
        const auto& hardware = hardware_ids[random() % hardware_ids.size()];
        CAPTURE(model);
        CAPTURE(hardware);
        const auto result = testing::run({"predict", "--hardware", hardware, "--model", model, "--batch",
                                          std::to_string(1 + random() % 512), "--prompt",
                                          std::to_string(1 + random() % 100000), "--output", "300", "--json"});
        REQUIRE(result.exit_code == 0);
        const auto json = nlohmann::json::parse(result.out);
        check_all_finite(json, "");
        // Memory adds up: usable + reserve = capacity; fits exactly when weights + KV fit the usable part.
        const auto& memory = json["memory"];
        CHECK(memory["usable_bytes"].get<double>() + memory["reserve_bytes"].get<double>() ==
              doctest::Approx(memory["capacity_bytes"].get<double>()));
        CHECK(memory["fits"].get<bool>() == (memory["weights_bytes"].get<double>() + memory["kv_bytes"].get<double>() <=
                                             memory["usable_bytes"].get<double>()));
    }
}

TEST_CASE("more FLOPS is never slower") {
    const auto catalog = testing::shipped_catalog();
    std::mt19937 random(11);
    for (const auto& model_id : catalog.model_ids()) {
        const auto s = testing::setup("h100-sxm", model_id, "fp8");
        profiles::HardwareProfile faster = s.hardware;
        for (core::FlopRate& peak : faster.peak_ops_per_s) peak = peak * 2.0;
        const engine::Evaluator today(s.model, s.hardware, s.deployment);
        const engine::Evaluator doubled(s.model, faster, s.deployment);
        for (int sample = 0; sample < 20; ++sample) {
            const double batch = 1 + random() % 1024, context = 1 + random() % 65536;
            CHECK(doubled.decode_step_time(batch, context) <= today.decode_step_time(batch, context));
            CHECK(doubled.prefill(batch, context).time <= today.prefill(batch, context).time);
        }
    }
}

TEST_CASE("a result file is written whole or not at all") {
    const std::string folder = std::string(DECODESIM_BINARY_DIR) + "/atomic";
    std::filesystem::create_directories(folder);
    const std::string path = folder + "/curve.svg";
    {
        std::ofstream previous(path);
        previous << "previous good file";
    }
    // A failing run (bad model id) leaves the previous file untouched.
    CHECK(testing::run({"curve", "--hardware", "h100-sxm", "--model", "nope", "--svg", path}).exit_code == 1);
    std::ifstream kept(path);
    std::stringstream kept_text;
    kept_text << kept.rdbuf();
    CHECK(kept_text.str() == "previous good file");
    // A successful run replaces it whole and leaves no temporary file behind.
    CHECK(testing::run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--svg", path}).exit_code == 0);
    int files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++files;
    CHECK(files == 1);
    // A folder that does not exist is bad input, and nothing is created.
    const auto missing = testing::run({"report", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "-o",
                                       folder + "/no/such/folder/report.html"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("the folder does not exist") != std::string::npos);
}
