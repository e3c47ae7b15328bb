// One operating point, one physics: every command that evaluates the same point reports the same
// conditions and the same numbers, for every shipped runtime build.

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using decodesim::testing::run;
using nlohmann::json;

json json_of(const std::vector<std::string>& args) {
    const auto result = run(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

// The shared flags of one point, appended to a command.
std::vector<std::string> with_point(std::vector<std::string> command, const std::string& runtime) {
    for (const char* flag : {"--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "fp8", "--batch", "8",
                             "--context", "4096", "--json"}) {
        command.emplace_back(flag);
    }
    command.insert(command.end(), {"--runtime", runtime});
    return command;
}

}  // namespace

TEST_CASE("predict, why, compare, curve, sweep and check-claim agree on one point for every runtime") {
    int runtimes = 0;
    for (const std::string& runtime : decodesim::testing::shipped_catalog().runtime_ids()) {
        CAPTURE(runtime);
        ++runtimes;
        const json predict = json_of(with_point({"predict"}, runtime));
        const json& conditions = predict["conditions"];
        CHECK(conditions["runtime"] == runtime);
        CHECK(conditions["weights"] == "fp8");
        CHECK(conditions["activation"] == "bf16");
        CHECK(conditions["batch"] == 8.0);
        CHECK(conditions["context_tokens"] == 4096.0);
        const double per_stream = predict["decode"]["tokens_per_s_per_stream"].get<double>();

        // why: the same conditions block, and the same prediction at the same batch (it fits).
        const json why = json_of(with_point({"why"}, runtime));
        CHECK(why["conditions"] == conditions);
        CHECK(why["evaluated_batch"] == 8.0);
        CHECK(why["tokens_per_s_per_stream"].get<double>() == per_stream);
        CHECK(why["ttft_s"].get<double>() == predict["ttft_s"].get<double>());

        // compare with one device: the row carries the same conditions and the same speed.
        const json compare = json_of(with_point({"compare"}, runtime));
        REQUIRE(compare["rows"].size() == 1);
        CHECK(compare["rows"][0]["conditions"] == conditions);
        CHECK(compare["rows"][0]["tokens_per_s_per_stream"].get<double>() == per_stream);
        CHECK(compare["rows"][0]["ttft_s"].get<double>() == predict["ttft_s"].get<double>());

        // curve: its point at batch 8.
        const json curve = json_of(with_point({"curve", "--max-batch", "8"}, runtime));
        CHECK(curve["conditions"]["runtime"] == runtime);
        CHECK(curve["points"][7]["batch"] == 8);
        CHECK(curve["points"][7]["tokens_per_s_per_stream"].get<double>() == per_stream);

        // sweep (JSON lines): the runtime and every condition in the row, and the same figures.
        const auto sweep = run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "fp8",
                                "--batch", "8", "--context", "4096", "--runtime", runtime, "--format", "jsonl"});
        REQUIRE(sweep.exit_code == 0);
        const json row = json::parse(sweep.out);
        CHECK(row["runtime"] == runtime);
        CHECK(row["activation"] == "bf16");
        // Sweeps write nine significant digits (core/fast_number.hpp).
        CHECK(row["decode.tokens_per_s_per_stream"].get<double>() == doctest::Approx(per_stream).epsilon(1e-8));
        CHECK(row["ttft_s"].get<double>() == doctest::Approx(predict["ttft_s"].get<double>()).epsilon(1e-8));

        // check-claim of exactly the predicted figure at the stated point: the same prediction.
        auto claim_args = with_point({"check-claim", "--per", "stream", "--tokens-per-s"}, runtime);
        claim_args.insert(claim_args.begin() + 4, std::to_string(per_stream * 0.999));
        const auto claim = run(claim_args);
        INFO(claim.err);
        const json check = json::parse(claim.out);
        CHECK(check["conditions"] == conditions);
        CHECK(check["predicted_tokens_per_s"].get<double>() == per_stream);
    }
    CHECK(runtimes >= 10);
}

TEST_CASE("the ideal runtime is the roofline bound in every command") {
    const json ideal = json_of(with_point({"predict"}, "ideal"));
    CHECK(ideal["decode"]["tokens_per_s_per_stream"].get<double>() ==
          ideal["decode"]["roofline_tokens_per_s_per_stream"].get<double>());
    const json vllm = json_of(with_point({"predict"}, "vllm"));
    CHECK(vllm["decode"]["tokens_per_s_per_stream"].get<double>() <
          ideal["decode"]["tokens_per_s_per_stream"].get<double>());
}

TEST_CASE("every command that evaluates a point accepts the same point flags") {
    for (const char* command : {"predict", "curve", "why", "compare", "report", "check-claim", "sweep"}) {
        CAPTURE(command);
        const auto help = run({command, "--help"});
        CHECK(help.exit_code == 0);
        for (const char* flag : {"--hardware", "--model", "--weights", "--kv", "--activation", "--runtime", "--tp",
                                 "--batch", "--context", "--prompt", "--output"}) {
            CAPTURE(flag);
            CHECK(help.out.find(flag) != std::string::npos);
        }
    }
}
