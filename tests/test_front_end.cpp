// The front end takes requests in one at a time: a request's way in (the runtime's request path
// before the scheduler) is work of the front end's, so a burst reaches the engine spread out, and
// the front end caps the rate an instance can be offered.

#include <doctest/doctest.h>

#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

const profiles::Catalog& front_end_catalog() {
    static const profiles::Catalog shipped = testing::shipped_catalog();
    return shipped;
}

// vLLM's build with a request path of `before` ms in and 0 out, no tokenization cost.
std::shared_ptr<const engine::RuntimeProfile> runtime_with_way_in(const std::string& name, const std::string& before) {
    const std::string path = testing::write_temp(
        name + ".yaml", "name: " + name +
                            "\nbase: vllm@0.8\ndescription: \"t\"\nsource: \"t\"\nmeasured: false\nmeasurements: \"t\"\n"
                            "request_path:\n  source: \"t\"\n  before_scheduler: " +
                            before + " ms\n  per_prompt_token: 0 us\n  after_step: 0 ms\n");
    return front_end_catalog().runtime(path);
}

engine::Evaluator llama_8b_on_h100(const std::shared_ptr<const engine::RuntimeProfile>& runtime) {
    // Profiles are values: the evaluator points at these, which live as long as the program.
    static const profiles::HardwareProfile h100 = front_end_catalog().hardware("h100-sxm");
    static const profiles::ModelProfile model = front_end_catalog().model("llama-3.1-8b");
    engine::DeploymentChoice choice;
    choice.runtime = runtime;
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
