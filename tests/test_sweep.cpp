// Lists, ranges and the sweep command.

#include <doctest/doctest.h>

#include <sstream>

#include "core/error.hpp"
#include "core/value_range.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::core::parse_integer_list;
using decodesim::core::UsageError;

TEST_CASE("ranges multiply or add, and include the stop when reached") {
    CHECK(parse_integer_list("1:256:x2", "--batch", 1, 1000) ==
          std::vector<long long>{1, 2, 4, 8, 16, 32, 64, 128, 256});
    const auto contexts = parse_integer_list("0:131072:+4096", "--prompt", 0, 1000);
    CHECK(contexts.size() == 33);  // 0, 4096, ..., 131072
    CHECK(contexts.back() == 131072);
    CHECK(parse_integer_list("1,3,5:9:2", "--batch", 1, 1000) == std::vector<long long>{1, 3, 5, 7, 9});
    CHECK(parse_integer_list("3:10:x3", "--batch", 1, 1000) == std::vector<long long>{3, 9});
}

TEST_CASE("bad lists and ranges are refused with the flag named") {
    CHECK_THROWS_WITH_AS(parse_integer_list("1:0:+1", "--batch", 1, 1000), "--batch: range '1:0:+1' is empty (stop below start)",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_integer_list("1:8:x1", "--batch", 1, 1000),
                         "--batch: range '1:8:x1' needs a step of at least x2 ", UsageError);
    CHECK_THROWS_WITH_AS(parse_integer_list("a", "--batch", 1, 1000), "--batch: 'a' in 'a' is not a whole number (decimal digits only: no fraction, exponent, hex or spaces inside)",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_integer_list("0", "--batch", 1, 1000), "--batch: 0 in '0' is below the minimum of 1",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_integer_list("99999999999999999999", "--batch", 1, 1000),
                         "--batch: '99999999999999999999' in '99999999999999999999' is not a whole number (too large: the limit is "
                         "2^53 = 9007199254740992)",
                         UsageError);
    CHECK_THROWS_AS(parse_integer_list("1,,2", "--batch", 1, 1000), UsageError);
    CHECK_THROWS_AS(parse_integer_list("1:1000000:+1", "--batch", 1, 1000), UsageError);
}

TEST_CASE("sweep streams the cross product with the predict fields") {
    const auto result = decodesim::testing::run({"sweep", "--hardware", "h100-sxm,rtx-4090", "--model", "llama-3.1-8b",
                                                 "--batch", "1:8:x2", "--context", "1024,4096", "--quiet"});
    REQUIRE(result.exit_code == 0);
    std::istringstream lines(result.out);
    std::string header, line;
    std::getline(lines, header);
    // Every condition, runtime and activation included, leads each row.
    CHECK(header.starts_with("hardware,model,weights,kv,activation,runtime,tensor_parallel,"));
    CHECK(header.find("decode.tokens_per_s_total") != std::string::npos);
    CHECK(header.find("memory.max_batch") != std::string::npos);
    int rows = 0;
    while (std::getline(lines, line)) ++rows;
    CHECK(rows == 2 * 4 * 2);  // 2 devices x 4 batches x 2 contexts
}

TEST_CASE("sweep rows agree with predict") {
    const auto sweep = decodesim::testing::run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch",
                                                "8", "--context", "4096", "--format", "jsonl", "--quiet"});
    const auto predict = decodesim::testing::run(
        {"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "8", "--context", "4096", "--json"});
    const auto row = nlohmann::json::parse(sweep.out);
    const auto point = nlohmann::json::parse(predict.out);
    // Sweeps write nine significant digits (core/fast_number.hpp).
    CHECK(row["decode.step_time_s"].get<double>() == doctest::Approx(point["decode"]["step_time_s"].get<double>()).epsilon(1e-8));
    CHECK(row["memory.max_batch"] == point["memory"]["max_batch"]);
    CHECK(row["ttft_s"].get<double>() == doctest::Approx(point["ttft_s"].get<double>()).epsilon(1e-8));
}

TEST_CASE("every row of a sweep agrees with predict at its own point, in both modes") {
    // The writer formats the context and prefill columns once per context and reuses them across
    // batches (report/sweep_writer.cpp); each row must still be the point predict computes.
    using nlohmann::json;
    auto close = [](const json& a, const json& b) {
        if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
        return a.get<double>() == doctest::Approx(b.get<double>()).epsilon(1e-8);
    };
    SUBCASE("step mode") {
        const auto sweep = decodesim::testing::run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                                    "--batch", "1,8,3", "--context", "1024,4096,300", "--format",
                                                    "jsonl", "--quiet"});
        REQUIRE(sweep.exit_code == 0);
        std::istringstream lines(sweep.out);
        std::string line;
        int rows = 0;
        while (std::getline(lines, line)) {
            const json row = json::parse(line);
            const std::string batch = std::to_string(row["batch"].get<long long>());
            const std::string context = std::to_string(row["context_tokens"].get<long long>());
            const json point = json::parse(decodesim::testing::run({"predict", "--hardware", "h100-sxm", "--model",
                                                                    "llama-3.1-8b", "--batch", batch, "--context",
                                                                    context, "--json"})
                                               .out);
            CAPTURE(line);
            CHECK(close(row["ttft_s"], point["ttft_s"]));
            CHECK(close(row["prefill.flops"], point["prefill"]["flops"]));
            CHECK(close(row["decode.step_time_s"], point["decode"]["step_time_s"]));
            CHECK(close(row["batch_prefill.time_s"], point["batch_prefill"]["time_s"]));
            CHECK(close(row["memory.kv_bytes"], point["memory"]["kv_bytes"]));
            ++rows;
        }
        CHECK(rows == 9);
    }
    SUBCASE("request mode") {
        const auto sweep = decodesim::testing::run({"sweep", "--hardware", "rtx-4090", "--model", "llama-3.1-8b",
                                                    "--weights", "q4_k_m", "--batch", "1,4", "--prompt", "100,2000",
                                                    "--output", "50,300", "--format", "jsonl", "--quiet"});
        REQUIRE(sweep.exit_code == 0);
        std::istringstream lines(sweep.out);
        std::string line;
        int rows = 0;
        while (std::getline(lines, line)) {
            const json row = json::parse(line);
            const json point = json::parse(
                decodesim::testing::run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--weights",
                                         "q4_k_m", "--batch", std::to_string(row["batch"].get<long long>()),
                                         "--prompt", std::to_string(row["prompt_tokens"].get<long long>()),
                                         "--output", std::to_string(row["output_tokens"].get<long long>()), "--json"})
                    .out);
            CAPTURE(line);
            CHECK(close(row["ttft_s"], point["ttft_s"]));
            CHECK(close(row["context_tokens"], point["decode"]["context_tokens"]));
            CHECK(close(row["request.end_to_end_s"], point["request"]["end_to_end_s"]));
            CHECK(close(row["decode.step_time_s"], point["decode"]["step_time_s"]));
            ++rows;
        }
        CHECK(rows == 8);
    }
}

TEST_CASE("an enormous sweep is refused up front with its size") {
    const auto result = decodesim::testing::run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch",
                                                 "1:1000000:+1", "--context", "1:1000000:+1"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("the sweep has 1e+12 points, more than --max-points 1e+08") != std::string::npos);
}
