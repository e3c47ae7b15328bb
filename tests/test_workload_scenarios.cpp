// Named workload scenarios, output caps, and the time to last token (docs/scenarios.md).

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "explore/context_series.hpp"
#include "workload/request_stream.hpp"
#include "serving/steady_state.hpp"
#include "workload/workload_scenario.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::workload::LengthDistribution;
using decodesim::testing::run;
using nlohmann::json;

namespace {
json run_json(std::vector<std::string> args) {
    const auto result = run(args);
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    return json::parse(result.out);
}
}  // namespace

TEST_CASE("a capped length's mean, in closed form") {
    // Uniform 100-300 capped at 200, by hand: ((200^2 - 100^2)/2 + 200 x 100) / 200 = 175.
    LengthDistribution uniform{LengthDistribution::Kind::uniform, 100, 300, 200.0};
    CHECK(uniform.mean() == doctest::Approx(175.0));
    // Normal mean 100, sd 20, capped at its mean: 100 x 0.5 - 20 x phi(0) + 100 x 0.5 = 100 - 7.979 = 92.021.
    LengthDistribution normal{LengthDistribution::Kind::normal, 100, 20, 100.0};
    CHECK(normal.mean() == doctest::Approx(92.021).epsilon(1e-4).scale(0.0));
    LengthDistribution fixed{LengthDistribution::Kind::fixed, 200, 0, 128.0};
    CHECK(fixed.mean() == 128.0);
    // Lognormal: against a sample drawn here with the standard library (not the project's sampler):
    // the chat scenario's output, mean 211, sd 163, capped at 128.
    const double sigma = std::sqrt(std::log1p((163.0 * 163.0) / (211.0 * 211.0)));
    const double mu = std::log(211.0) - sigma * sigma / 2.0;
    std::mt19937_64 random(7);
    std::lognormal_distribution<double> draw(mu, sigma);
    double sum = 0.0;
    const int samples = 400000;
    for (int i = 0; i < samples; ++i) sum += std::min(draw(random), 128.0);
    LengthDistribution lognormal{LengthDistribution::Kind::lognormal, 211, 163, 128.0};
    CHECK(lognormal.mean() == doctest::Approx(sum / samples).epsilon(0.005).scale(0.0));
    lognormal.cap.reset();
    CHECK(lognormal.mean() == 211.0);
}

TEST_CASE("dataset:MEAN draws a chat dataset's lengths: a lognormal whose deviation is its mean") {
    // kDatasetLengthCv is 1: the lengths' standard deviation equals their mean. Over 20,000 draws
    // of dataset:500 the sample mean and deviation land within a few percent of 500 (their
    // standard errors are 0.7% and, for a lognormal of sigma^2 = ln 2, under 3%).
    const LengthDistribution drawn = decodesim::workload::dataset_lengths(500.0);
    CHECK(drawn.kind == LengthDistribution::Kind::lognormal);
    CHECK(drawn.first == 500.0);
    CHECK(drawn.second == 500.0);
    decodesim::workload::StreamSpec spec;
    spec.prompt = drawn;
    spec.requests = 20000;
    const auto requests = decodesim::workload::generate_requests(spec);
    double sum = 0.0, squares = 0.0;
    for (const auto& request : requests) sum += static_cast<double>(request.prompt_tokens);
    const double mean = sum / static_cast<double>(requests.size());
    for (const auto& request : requests) squares += std::pow(static_cast<double>(request.prompt_tokens) - mean, 2.0);
    const double deviation = std::sqrt(squares / static_cast<double>(requests.size() - 1));
    CHECK(mean == doctest::Approx(500.0).epsilon(0.03).scale(0.0));
    CHECK(deviation == doctest::Approx(500.0).epsilon(0.10).scale(0.0));
    // serve takes it by name, and says what it drew from.
    const json served = run_json({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "dataset:500",
                                  "--output", "dataset:100", "--rate", "1", "--requests", "10", "--json"});
    CHECK(served["conditions"]["prompt_tokens"] == "lognormal 500 sd 500");
    CHECK(served["conditions"]["output_tokens"] == "lognormal 100 sd 100");
}

TEST_CASE("generated requests fit the model's context") {
    decodesim::workload::StreamSpec spec;
    spec.prompt = decodesim::workload::workload_scenario_named("agent").prompt;
    spec.output = decodesim::workload::workload_scenario_named("agent").output;
    spec.requests = 2000;
    spec.max_context = 131072;
    long long longest = 0;
    for (const auto& request : decodesim::workload::generate_requests(spec)) {
        CHECK(request.prompt_tokens + request.output_tokens <= 131072);
        longest = std::max(longest, request.prompt_tokens + request.output_tokens);
    }
    // About half the agent prompts (median 119k context) plus output reach the limit.
    CHECK(longest == 131072);
}

TEST_CASE("predict takes a scenario's mean request, truncated to the model's context, and records it") {
    const json chat = run_json({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chat", "--json"});
    CHECK(chat["conditions"]["prompt_tokens"] == 1155.0);
    CHECK(chat["conditions"]["output_tokens"] == 211.0);
    CHECK(chat["conditions"]["scenario"]["name"] == "chat");
    CHECK(chat["conditions"]["scenario"]["ttft_p99_s"] == 0.45);
    // agent: mean prompt 153,712 tokens does not fit Llama-3.1-8B's 131,072: 131,072 - 523 = 130,549.
    const json agent = run_json({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "agent", "--json"});
    CHECK(agent["conditions"]["prompt_tokens"] == 130549.0);
    // Explicit flags override the scenario.
    const json context = run_json({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chat",
                                   "--context", "4096", "--json"});
    CHECK(context["conditions"]["context_tokens"] == 4096.0);
    const auto unknown = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chats"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("did you mean 'chat'") != std::string::npos);
}

TEST_CASE("serve and plan run with the documented presets, and the presets appear in conditions") {
    const json served = run_json({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chat",
                                  "--rate", "4", "--requests", "300", "--json"});
    const json& given = served["conditions"];
    CHECK(given["scenario"]["name"] == "chat");
    CHECK(given["ttft_slo_s"] == 0.45);
    CHECK(given["tpot_slo_s"] == 0.04);
    CHECK(given["arrivals"].get<std::string>().starts_with("gamma (burstiness 0.83)"));
    CHECK(given["prompt_tokens"].get<std::string>().starts_with("lognormal 1155 sd 1109"));
    // An explicit flag wins.
    const json overridden = run_json({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--scenario", "chat",
                                      "--prompt", "500", "--ttft-slo", "2", "--rate", "4", "--requests", "100", "--json"});
    CHECK(overridden["conditions"]["prompt_tokens"] == "500");
    CHECK(overridden["conditions"]["ttft_slo_s"] == 2.0);

    const json planned = run_json({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--scenario", "summarize",
                                   "--rate", "1", "--verify-requests", "0", "--json"});
    CHECK(planned["conditions"]["scenario"]["name"] == "summarize");
    CHECK(planned["conditions"]["ttft_p99_s"] == 6.0);
    CHECK(planned["conditions"]["e2e_p99_s"] == 20.0);
    REQUIRE(planned["options"].size() == 1);
    // The last-token p99 is TTFT p99 plus the mean output's remaining steps at TPOT p99.
    const json& option = planned["options"][0];
    const double output = planned["conditions"]["output_tokens"].get<double>();
    CHECK(option["e2e_p99_s"].get<double>() ==
          doctest::Approx(option["ttft_p99_s"].get<double>() + (output - 1.0) * option["tpot_p99_s"].get<double>()));
    CHECK(option["e2e_p99_s"].get<double>() <= 20.0);
}

TEST_CASE("an output cap shows what it saves") {
    // Fixed 400-token outputs capped at 100: the mean output is 100 instead of 400, and each request
    // holds a replica for a quarter of the decode steps, so the device time per request falls.
    const json served = run_json({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "500", "--output",
                                  "400", "--max-output", "100", "--rate", "2", "--requests", "200", "--json"});
    const json& cap = served["output_cap"];
    CHECK(cap["mean_output_tokens_capped"] == 100.0);
    CHECK(cap["mean_output_tokens_uncapped"] == 400.0);
    CHECK(cap["device_seconds_per_request_capped"].get<double>() < cap["device_seconds_per_request_uncapped"].get<double>());
    CHECK(cap["gpu_time_saving_fraction"].get<double>() > 0.3);
    CHECK(cap["usd_per_million_requests_capped"].get<double>() < cap["usd_per_million_requests_uncapped"].get<double>());
    // Every simulated request obeyed it: mean output tokens per request is the throughput ratio.
    CHECK(served["throughput"]["output_tokens_per_s"].get<double>() / served["throughput"]["requests_per_s"].get<double>() ==
          doctest::Approx(100.0));

    const auto plan = run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--prompt", "500", "--output", "400",
                           "--max-output", "100", "--rate", "1", "--verify-requests", "0"});
    CHECK(plan.exit_code == 0);
    CHECK(plan.out.find("output cap: 100 tokens brings the mean output from 400 to 100 tokens") != std::string::npos);
}

TEST_CASE("a time-to-last-token target is checked with the others") {
    decodesim::serving::SteadyState state;
    state.ttft_s.p99 = 1.0;
    state.tpot_s.p99 = 0.05;
    state.e2e_s.p99 = 11.0;
    CHECK(decodesim::serving::missed_target(state, {2.0, 0.1, 10.0}) == std::string("e2e target"));
    CHECK(decodesim::serving::missed_target(state, {2.0, 0.1, 12.0}) == nullptr);
    CHECK(decodesim::serving::missed_target(state, {0.5, 0.1, 12.0}) == std::string("ttft target"));
}

TEST_CASE("compare shows the time to last token of a request, as predict computes it") {
    const json compared = run_json({"compare", "--hardware", "h100-sxm,rtx-4090", "--model", "llama-3.1-8b", "--prompt",
                                    "2000", "--output", "300", "--json"});
    for (const auto& row : compared["rows"]) {
        const json point = run_json({"predict", "--hardware", row["hardware"].get<std::string>(), "--model", "llama-3.1-8b",
                                     "--prompt", "2000", "--output", "300", "--json"});
        // TTFT plus 299 decode steps at the mean step time.
        const double expected = point["ttft_s"].get<double>() + 299.0 * point["request"]["time_per_output_token_s"].get<double>();
        CHECK(row["time_to_last_token_s"].get<double>() == doctest::Approx(expected));
    }
}

TEST_CASE("the context levels run at 8k, 32k and 128k, the last cut to the model's context") {
    const auto setup = decodesim::testing::shipped_catalog();
    decodesim::engine::DeploymentChoice vllm;
    vllm.runtime = setup.runtime("vllm");
    const auto point = decodesim::engine::resolve_operating_point(setup.hardware("h100-sxm"), setup.model("llama-3.1-8b"),
                                                                  vllm, decodesim::engine::Workload::step(1, 1024));
    const decodesim::engine::Evaluator evaluator(point);
    const auto levels = decodesim::explore::context_levels(evaluator, 1.0, 256.0, 131072);
    REQUIRE(levels.size() == 3);
    CHECK(levels[0].context == 8192.0);
    CHECK_FALSE(levels[0].requested.has_value());
    CHECK(levels[2].context == 131072.0 - 256.0);
    CHECK(levels[2].requested.value_or(0.0) == 131072.0);
    // Longer prompts: slower first token and slower streams.
    CHECK(levels[0].ttft < levels[1].ttft);
    CHECK(levels[1].ttft < levels[2].ttft);
    CHECK(levels[0].tokens_per_s_per_stream > levels[2].tokens_per_s_per_stream);
}

TEST_CASE("curve and check-claim show the time to last token of a request") {
    const json point = run_json({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "2000",
                                 "--output", "200", "--json"});
    const double expected = point["ttft_s"].get<double>() + 199.0 * point["request"]["time_per_output_token_s"].get<double>();
    const json curve = run_json({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "2000",
                                 "--output", "200", "--json"});
    CHECK(curve["points"][0]["time_to_last_token_s"].get<double>() == doctest::Approx(expected));
    const json claim = run_json({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "2000",
                                 "--output", "200", "--tokens-per-s", "100", "--per", "stream", "--json"});
    CHECK(claim["time_to_last_token_s"].get<double>() == doctest::Approx(expected));
    // A decode step has no last token.
    const json step = run_json({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--json"});
    CHECK(step["points"][0]["time_to_last_token_s"].is_null());
}
