// The CLI run in-process: JSON fields, exit codes and one-line errors.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::testing::run;

TEST_CASE("predict --json carries the documented keys in SI units") {
    const auto result = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    for (const char* key : {"step_time_s", "tokens_per_s_per_stream", "tokens_per_s_total", "bytes_per_step",
                            "flops_per_step", "bound", "roofline_tokens_per_s_per_stream"}) {
        CAPTURE(key);
        CHECK(json["decode"].contains(key));
    }
    for (const char* key : {"time_s", "flops"}) CHECK(json["prefill"].contains(key));
    for (const char* key : {"weights_bytes", "kv_bytes_per_token", "kv_bytes", "capacity_bytes", "fits", "max_batch"}) {
        CAPTURE(key);
        CHECK(json["memory"].contains(key));
    }
    CHECK(json.contains("ttft_s"));
    CHECK(json["decode"]["bound"] == "memory");
    CHECK(json["memory"]["kv_bytes_per_token"] == 131072.0);
    CHECK(json["memory"]["capacity_bytes"] == 80.0 * 1073741824.0);  // "80 GiB": 85,899,345,920 B
    REQUIRE(json["operators"].is_array());
    for (const auto& op : json["operators"]) {
        CHECK(op.contains("name"));
        CHECK(op.contains("flops"));
        CHECK(op.contains("bytes"));
        CHECK(op.contains("time_s"));
        CHECK(op.contains("bound"));
    }
    // Tokens per second per stream is the inverse of the step time.
    CHECK(json["decode"]["tokens_per_s_per_stream"].get<double>() ==
          doctest::Approx(1.0 / json["decode"]["step_time_s"].get<double>()));
}

TEST_CASE("predict with a request reports TTFT, time per output token and end-to-end latency") {
    const auto result = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "1000",
                             "--output", "200", "--batch", "4", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    const double ttft = json["ttft_s"];
    const double tpot = json["request"]["time_per_output_token_s"];
    CHECK(json["request"]["end_to_end_s"].get<double>() == doctest::Approx(ttft + 199 * tpot));
    CHECK(json["conditions"]["batch"] == 4.0);
}

TEST_CASE("a workload that does not fit still gets its figures, with a warning") {
    const auto result = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-70b", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["memory"]["fits"] == false);
    CHECK(json["memory"]["max_batch"] == 0);
    // Llama 3.1 70B in bf16 is 141 GB of weights: the cause is the weights, and the warning says so.
    CHECK(result.err.find("decodesim: warning: the weights alone (141.1 GB per device) do not fit") != std::string::npos);
}

TEST_CASE("an unknown id is bad input with a suggestion (exit 1)") {
    const auto result = run({"predict", "--hardware", "h100-sxn", "--model", "llama-3.1-8b"});
    CHECK(result.exit_code == 1);
    CHECK(result.err ==
          "decodesim: error: unknown hardware 'h100-sxn'; did you mean 'h100-sxm'? (list them with: decodesim profiles "
          "list hardware)\n");
    CHECK(result.out.empty());
}

TEST_CASE("an unknown format is a bad command line with a suggestion (exit 2)") {
    const auto result = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "q4_k_n"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.starts_with("decodesim: error: --weights: unknown format 'q4_k_n' (did you mean 'q4_k_m'?); expected one of"));
}

TEST_CASE("bad flags are exit code 2") {
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "0"}).exit_code == 2);
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "x"}).exit_code == 2);
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "99999999999999999999"})
              .exit_code == 2);
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "10"}).exit_code == 2);
    CHECK(run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "10", "--prompt", "10",
               "--output", "5"})
              .exit_code == 2);
    CHECK(run({"frobnicate"}).exit_code == 2);
}

TEST_CASE("tensor parallelism on a device without an interconnect is refused") {
    const auto result = run({"predict", "--hardware", "apple-m2-ultra", "--model", "llama-3.1-8b", "--tp", "2"});
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("needs an interconnect") != std::string::npos);
}

TEST_CASE("profiles list, show and validate") {
    const auto hardware = run({"profiles", "list", "hardware"});
    CHECK(hardware.exit_code == 0);
    CHECK(hardware.out.find("h100-sxm") != std::string::npos);
    const auto models = run({"profiles", "list", "models"});
    CHECK(models.out.find("deepseek-v3") != std::string::npos);
    const auto show = run({"profiles", "show", "deepseek-v3"});
    CHECK(show.exit_code == 0);
    CHECK(show.out.find("70.27 kB per token") != std::string::npos);
    const auto bad = run({"profiles", "validate", decodesim::testing::test_data("invalid/hardware_typo.yaml")});
    CHECK(bad.exit_code == 1);
    // Runtime builds: each listed with whether it was measured, the rows its factors were fitted
    // on, and its source; one shown through its bases; every shipped file validates.
    const auto runtimes = run({"profiles", "list", "runtimes"});
    CHECK(runtimes.exit_code == 0);
    for (const char* id : {"llama.cpp@2023-03", "llama.cpp@2024-06", "llama.cpp@2025-10", "vllm@0.6", "vllm@0.8", "sglang",
                           "tensorrt-llm@0.17", "tensorrt-llm@1.0", "mlx", "exllamav2", "ideal"}) {
        CAPTURE(id);
        CHECK(runtimes.out.find(id) != std::string::npos);
    }
    CHECK(runtimes.out.find("llama.cpp rows") != std::string::npos);
    CHECK(runtimes.out.find("ggml-org/llama.cpp") != std::string::npos);  // a source
    const auto era = run({"profiles", "show", "llama.cpp@2024-06"});
    CHECK(era.exit_code == 0);
    CHECK(era.out.find("kernel graph: 16 kernels an attention block, 11 a dense MLP") != std::string::npos);
    CHECK(era.out.find("attention: unfused") != std::string::npos);
    std::vector<std::string> files{"profiles", "validate"};
    for (const auto& entry : std::filesystem::directory_iterator(std::string(DECODESIM_ROOT) + "/runtime_profiles")) {
        files.push_back(entry.path().string());
    }
    const auto validated = run(files);
    CHECK(validated.exit_code == 0);
    CHECK(validated.err.empty());
}

TEST_CASE("predict --band brackets the prediction, below the roofline bound") {
    for (const char* hardware : {"h100-sxm", "rtx-4090", "apple-m2-ultra"}) {
        CAPTURE(hardware);
        const auto result = run({"predict", "--hardware", hardware, "--model", "llama-3.1-8b", "--weights", "q4_k_m",
                                 "--batch", "8", "--band", "--json"});
        REQUIRE(result.exit_code == 0);
        const auto json = nlohmann::json::parse(result.out);
        const double low = json["band"]["low"]["tokens_per_s_total"];
        const double high = json["band"]["high"]["tokens_per_s_total"];
        const double predicted = json["decode"]["tokens_per_s_total"];
        CHECK(low < predicted);
        CHECK(predicted < high);
        CHECK(high <= json["decode"]["roofline_tokens_per_s_total"].get<double>());
        CHECK(json["band"]["low"]["ttft_s"].get<double>() > json["band"]["high"]["ttft_s"].get<double>());
    }
}
