// plan --cuda-graphs off: a plan for a deployment that dispatches every pass op by op (vLLM
// --enforce-eager, SGLang --disable-cuda-graph), priced and launched as serve prices and states it.

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace decodesim {
namespace {

// Llama-3.1-8B at 5 requests/s on one H100, within a 2 s TTFT and a 100 ms TPOT, checked by a
// short serve run, with `extra` flags after it.
testing::CliResult run_plan(const std::string& graphs, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"plan",      "--model",    "llama-3.1-8b", "--hardware",       "h100-sxm",
                                  "--rate",    "5",          "--ttft-p99",   "2",                "--tpot-p99",
                                  "0.1",       "--verify-requests", "300",  "--cuda-graphs",    graphs};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run(args);
}

}  // namespace

TEST_CASE("plan --cuda-graphs off prices every decode pass at the host's dispatch and launches it eager") {
    // The floor of an eager decode step, by hand from runtime_profiles/vllm-0.6.yaml's
    // eager_passes: each of Llama-3.1-8B's 32 layers dispatches an attention block of 8 ops and a
    // dense MLP block of 6, at 45 us an op: 32 x 14 x 45 us = 20.16 ms, whatever the batch. With
    // graphs the same step is the weights' read, 16.06 GB at H100 SXM's 3.35 TB/s: about 4.8 ms
    // before efficiencies, far below that floor.
    constexpr double kEagerFloor = 32 * 14 * 45e-6;

    const auto eager = run_plan("off", {"--runtime", "vllm@0.6", "--json"});
    REQUIRE_MESSAGE(eager.exit_code == 0, eager.err);
    const auto eager_plan = nlohmann::json::parse(eager.out);
    CHECK(eager_plan["conditions"]["cuda_graphs"] == "off");
    REQUIRE_FALSE(eager_plan["options"].empty());
    for (const auto& option : eager_plan["options"]) {
        CHECK(option["tpot_p99_s"].get<double>() >= kEagerFloor);
    }

    const auto graphed = run_plan("on", {"--runtime", "vllm@0.6", "--json"});
    REQUIRE_MESSAGE(graphed.exit_code == 0, graphed.err);
    const auto graphed_plan = nlohmann::json::parse(graphed.out);
    CHECK_FALSE(graphed_plan["conditions"].contains("cuda_graphs"));
    CHECK(graphed_plan["options"][0]["tpot_p99_s"].get<double>() < kEagerFloor);

    // The launch carries the runtime's own flag for it, and only when the plan turned graphs off.
    const auto script = run_plan("off", {"--runtime", "vllm@0.6", "--emit", "vllm"});
    REQUIRE_MESSAGE(script.exit_code == 0, script.err);
    CHECK(script.out.find("--enforce-eager") != std::string::npos);
    const auto graphed_script = run_plan("on", {"--runtime", "vllm@0.6", "--emit", "vllm"});
    REQUIRE_MESSAGE(graphed_script.exit_code == 0, graphed_script.err);
    CHECK(graphed_script.out.find("--enforce-eager") == std::string::npos);
    const auto sglang_script = run_plan("off", {"--emit", "sglang"});
    REQUIRE_MESSAGE(sglang_script.exit_code == 0, sglang_script.err);
    CHECK(sglang_script.out.find("--disable-cuda-graph") != std::string::npos);
}

TEST_CASE("plan --cuda-graphs off refuses a runtime that states no host time an op, and says why") {
    // vLLM's V1 build states no eager_passes: there is nothing to price its dispatch by.
    const auto refused = run_plan("off", {"--runtime", "vllm@0.8"});
    CHECK(refused.exit_code != 0);
    CHECK(refused.err.find("eager_passes") != std::string::npos);
    CHECK(run_plan("sometimes", {"--runtime", "vllm@0.6"}).exit_code != 0);
}

}  // namespace decodesim
