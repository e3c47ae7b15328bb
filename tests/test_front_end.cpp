// The front end takes requests in one at a time: a request's way in (the runtime's request path
// before the scheduler) is work of the front end's, so a burst reaches the engine spread out, and
// the front end caps the rate an instance can be offered.

#include <doctest/doctest.h>

#include "report/serving/launch_command.hpp"
#include "serving/plan.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

const profiles::Catalog& front_end_catalog() {
    static const profiles::Catalog shipped = testing::shipped_catalog();
    return shipped;
}

// vLLM's build with a request path of `before` ms in, nothing out and no tokenization cost, its
// front end streaming each token at `per_token` us of work; written as `file`.
std::shared_ptr<const engine::RuntimeProfile> runtime_with_path(const std::string& file, const std::string& before,
                                                                const std::string& per_token) {
    return front_end_catalog().runtime(testing::runtime_with_section(
        file, "request_path",
        "  before_scheduler: " + before + " ms\n  per_prompt_token: 0 us\n  after_step: 0 ms\n  per_output_token: " +
            per_token + " us\n"));
}
std::shared_ptr<const engine::RuntimeProfile> runtime_with_way_in(const std::string& name, const std::string& before) {
    return runtime_with_path(name + ".yaml", before, "0");
}
std::shared_ptr<const engine::RuntimeProfile> runtime_streaming_at(const std::string& name, const std::string& per_token) {
    return runtime_with_path(name + ".yaml", "0", per_token);
}

engine::Evaluator llama_8b_on_h100(const std::shared_ptr<const engine::RuntimeProfile>& runtime, int api_servers = 1) {
    // Profiles are values: the evaluator points at these, which live as long as the program.
    static const profiles::HardwareProfile h100 = front_end_catalog().hardware("h100-sxm");
    static const profiles::ModelProfile model = front_end_catalog().model("llama-3.1-8b");
    engine::DeploymentChoice choice;
    choice.runtime = runtime;
    choice.api_servers = api_servers;
    choice.weights = core::find_named(core::weight_formats(), "bf16");
    return engine::Evaluator(model, h100, engine::resolve_deployment(h100, model, choice));
}

}  // namespace

TEST_CASE("a burst reaches the engine one way in after another") {
    // 100 requests sent at once (a closed loop of 100 clients, one request each) through a way in of
    // 10 ms: the k-th (from 1) is with the scheduler at k x 10 ms, so the way in alone gives a mean
    // TTFT of 10 ms x (1 + 100) / 2 = 505 ms, against 10 ms if the front end took them side by side.
    // The engine adds its passes over prompts of 16 tokens and 2 outputs (milliseconds each).
    const engine::Evaluator evaluator = llama_8b_on_h100(runtime_with_way_in("way-in-10ms", "10"));
    const auto requests = testing::fixed_stream(1.0, 16, 2, 100);
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{100, 0.0};
    const serving::ServeResult one = serving::simulate_serving(evaluator, requests, config, {});
    CHECK(one.ttft_s.mean >= 0.505);
    CHECK(one.ttft_s.mean < 0.505 + 0.03);
    CHECK(one.ttft_s.max >= 1.0);

    // Two replicas, a front end each: they take the burst in at twice the rate, a mean of
    // 5 ms x (1 + 100) / 2 = 252.5 ms.
    config.replicas = 2;
    const serving::ServeResult two = serving::simulate_serving(evaluator, requests, config, {});
    CHECK(two.ttft_s.mean >= 0.2525);
    CHECK(two.ttft_s.mean < 0.2525 + 0.03);
}

TEST_CASE("the front end caps an instance's rate and its queue adds an M/D/1 wait") {
    // A way in of 50 ms: the front end takes at most 20 requests a second, below what the engine
    // sustains for these short requests, so it binds.
    const engine::Evaluator slow = llama_8b_on_h100(runtime_with_way_in("way-in-50ms", "50"));
    const engine::Evaluator free = llama_8b_on_h100(runtime_with_way_in("way-in-0ms", "0"));
    const serving::SchedulerLimits limits;
    serving::LoadShape load;
    load.prompt_tokens = 16.0;
    load.output_tokens = 2.0;
    load.rate_per_s = 10.0;
    const serving::SteadyState capped = serving::steady_state(slow, load, limits);
    CHECK(capped.saturation_rate_per_s == doctest::Approx(20.0).epsilon(1e-9));
    CHECK(capped.binding == std::string("front end"));
    // At 10 a second the front end is half busy: M/D/1's mean wait rho x W / (2 (1 - rho)) =
    // 0.5 x 50 ms / 1 = 25 ms, beside the 50 ms way in itself; the engine's part is the same.
    const serving::SteadyState unhurried = serving::steady_state(free, load, limits);
    REQUIRE(capped.stable);
    REQUIRE(unhurried.stable);
    CHECK(capped.ttft_s.mean - unhurried.ttft_s.mean == doctest::Approx(0.075).epsilon(1e-6));
    // At 20 a second or more there is no steady state.
    load.rate_per_s = 20.0;
    CHECK_FALSE(serving::steady_state(slow, load, limits).stable);
}

TEST_CASE("a front end that works on every token it streams caps the tokens a second it delivers") {
    // 20 clients in a closed loop, 200 requests of 16 tokens in and 101 out, through a front end
    // that spends 1 ms on each token it streams. Its work is 200 x 101 x 1 ms = 20.2 s, so it
    // delivers at most 1,000 tokens a second; the engine alone is far faster (a decode pass of 20
    // sequences of Llama-3.1-8B on an H100 reads 16 GB of weights at 3.35 TB/s, about 5 ms, for
    // 20 tokens: 4,000 a second), so the front end has work from the first pass on and the run
    // takes about those 20.2 s: at least 950 a second, the first pass and the last tokens' tail
    // aside.
    const engine::Evaluator slow = llama_8b_on_h100(runtime_streaming_at("stream-1ms", "1000"));
    const engine::Evaluator free = llama_8b_on_h100(runtime_streaming_at("stream-0", "0"));
    const auto requests = testing::fixed_stream(1.0, 16, 101, 200);
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{20, 0.0};
    const serving::ServeResult capped = serving::simulate_serving(slow, requests, config, {});
    const serving::ServeResult engine_pace = serving::simulate_serving(free, requests, config, {});
    CHECK(capped.output_tokens_per_s <= 1000.0 * (1.0 + 1e-9));
    CHECK(capped.output_tokens_per_s >= 950.0);
    CHECK(engine_pace.output_tokens_per_s > 2000.0);
    // A stream's next token is in the next pass, whose tokens the front end takes after the last
    // pass's: the client's gap is that pass's work, at most 20 streams x 1 ms = 20 ms, against the
    // engine's pass of under 10 ms. Most passes carry close to 20 streams (a client is away only
    // between its last token and its next request's first pass).
    CHECK(capped.tpot_s.mean <= 0.020 + 1e-12);
    CHECK(capped.tpot_s.mean >= 0.015);
    CHECK(engine_pace.tpot_s.mean < 0.010);
    // The server's TTFT leaves the front end out; the client's waits behind the streams before it.
    CHECK(capped.ttft_s.mean > capped.server_ttft_s.mean);

    // Two API server processes share the work: at most 2,000 tokens a second, still below the
    // engine's 4,000, so they bind there as one did at 1,000.
    const serving::ServeResult two = serving::simulate_serving(llama_8b_on_h100(runtime_streaming_at("stream-1ms", "1000"), 2),
                                                               requests, config, {});
    CHECK(two.output_tokens_per_s <= 2000.0 * (1.0 + 1e-9));
    CHECK(two.output_tokens_per_s >= 1900.0);
}

TEST_CASE("plan gives an instance the API servers its front end needs, and its launch says so") {
    // Llama-3.1-8B on a B200 through vLLM, 200 tokens in and 500 out. One API server takes a
    // request in in 5 ms + 200 x 1 us = 5.2 ms and streams its 1 + 499 decode passes' tokens in
    // 500 x 90 us = 45 ms (docs/serving.md): 1 / 45 ms = 22.2 requests a second, below what the
    // engine sustains. The plan gives each instance the fewest processes that run at 80% or less
    // of their capacity when the engine saturates, rather than replicas for them.
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("llama-3.1-8b");
    const auto b200 = catalog.hardware("b200");
    const auto runtime = testing::shipped_runtime("vllm");
    serving::PlanSpace space;
    space.runtime = [runtime](const profiles::HardwareProfile&) { return runtime; };
    space.weights = {core::find_named(core::weight_formats(), "bf16")};
    space.kv = {nullptr};
    space.tensor_parallel = {1};
    space.pipeline_parallel = {1};
    serving::PlanWorkload workload;
    workload.rate_per_s = 60.0;
    workload.prompt_tokens = 200;
    workload.output_tokens = 500;
    const serving::ServiceTargets targets{1.0, 0.05, std::nullopt};
    const auto plan = serving::plan_deployments(model, {b200}, workload, targets, space, serving::PlanOrder::cost);
    REQUIRE(plan.options.size() == 1);
    const serving::PlanOption& option = plan.options.front();

    engine::DeploymentChoice one;
    one.runtime = runtime;
    one.weights = space.weights.front();
    const engine::Evaluator single(model, b200, engine::resolve_deployment(b200, model, one));
    serving::LoadShape trickle;
    trickle.prompt_tokens = 200;
    trickle.output_tokens = 500;
    trickle.rate_per_s = 1e-9;
    const double engine_rate = serving::engine_saturation_rate(single, trickle, option.limits);
    const double per_server = 1.0 / (500 * 90e-6);
    REQUIRE(engine_rate > per_server);
    const int expected = std::min(8, static_cast<int>(std::ceil(engine_rate / (0.8 * per_server))));
    CHECK(expected >= 2);
    CHECK(option.deployment.api_servers == expected);
    const auto launch = report::launch_command(option, "meta-llama/Llama-3.1-8B", {200, 500, 60.0, std::nullopt, {}, std::nullopt});
    REQUIRE(launch.has_value());
    CHECK(launch->serve.ends_with("--api-server-count " + std::to_string(expected)));

    // Held to one (plan --api-servers 1), an instance streams for at most 22.2 requests a second:
    // 60 a second need at least ceil(60 / 22.2) = 3 of them, and the front end binds.
    space.api_servers = 1;
    const auto held = serving::plan_deployments(model, {b200}, workload, targets, space, serving::PlanOrder::cost);
    REQUIRE(held.options.size() == 1);
    CHECK(held.options.front().deployment.api_servers == 1);
    CHECK(held.options.front().replicas >= 3);
    CHECK(held.options.front().binding == std::string("front end"));
}

TEST_CASE("the steady state counts the streamed tokens as the front end's work") {
    // 101 tokens out (1 + 100 passes that give a request a token) at 1 ms each: 101 ms of the front
    // end's work a request, so it streams for at most 1 / 0.101 = 9.90 requests a second, below
    // what the engine sustains for these requests.
    const engine::Evaluator slow = llama_8b_on_h100(runtime_streaming_at("stream-1ms", "1000"));
    const engine::Evaluator free = llama_8b_on_h100(runtime_streaming_at("stream-0", "0"));
    const serving::SchedulerLimits limits;
    serving::LoadShape load;
    load.prompt_tokens = 16.0;
    load.output_tokens = 101.0;
    load.rate_per_s = 5.0;
    const serving::SteadyState capped = serving::steady_state(slow, load, limits);
    CHECK(capped.saturation_rate_per_s == doctest::Approx(1.0 / 0.101).epsilon(1e-9));
    CHECK(capped.binding == std::string("front end"));
    const serving::SteadyState unhurried = serving::steady_state(free, load, limits);
    REQUIRE(capped.stable);
    REQUIRE(unhurried.stable);
    // At 5 a second the front end streams rho = 5 x 0.101 = 0.505 of the time. A pass of B
    // streams is B ms of its work, after a wait behind the passes before of rho x B ms /
    // (2 (1 - rho)) (M/D/1): the first token arrives that much later; the pace is the engine's.
    const double rho = 5.0 * 0.101;
    const double pass_work = capped.batch * 1e-3;
    const double delay = pass_work * (1.0 + rho / (2.0 * (1.0 - rho)));
    CHECK(capped.batch == doctest::Approx(unhurried.batch).epsilon(1e-12));
    CHECK(capped.ttft_s.mean - unhurried.ttft_s.mean == doctest::Approx(delay).epsilon(1e-9));
    CHECK(capped.tpot_s.mean == doctest::Approx(unhurried.tpot_s.mean).epsilon(1e-12));
    load.rate_per_s = 10.0;
    CHECK_FALSE(serving::steady_state(slow, load, limits).stable);
}
