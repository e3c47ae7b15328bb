// Serving under load: the request-level simulation against closed forms (idle latency, Little's
// law, M/D/1), saturation, reproducibility, preemption and prefix caching; the analytic steady
// state against the simulation; plan's monotonicity and its JSON contract.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fstream>
#include <filesystem>

#include <cmath>

#include "serving/plan.hpp"
#include "serving/plan_verification.hpp"
#include "serving/scheduler_limits.hpp"
#include "workload/workload_choice.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "cli_runner.hpp"
#include "report/serving/launch_command.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

namespace {

// A request of these lengths sent at `arrival`, optionally opening with a shared prefix.
workload::Request request_at(double arrival, long long prompt, long long output, long long prefix_id = -1,
                             long long prefix_tokens = 0) {
    workload::Request request;
    request.arrival_s = arrival;
    request.prompt_tokens = prompt;
    request.output_tokens = output;
    request.prefix_id = prefix_id;
    request.prefix_tokens = prefix_tokens;
    return request;
}

// The plan the --emit cases launch: Llama-3.1-70B at 4 requests/s on H100s within a 2 s TTFT and a
// 50 ms TPOT, with `extra` flags after it.
const std::vector<std::string> kEmitPlan{"plan",     "--model",  "llama-3.1-70b", "--rate",     "4",        "--prompt",
                                         "2000",     "--output", "300",           "--hardware", "h100-sxm", "--ttft-p99",
                                         "2",        "--tpot-p99", "0.05"};

testing::CliResult run_emit_plan(const std::vector<std::string>& extra) {
    std::vector<std::string> args = kEmitPlan;
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::run(args);
}

}  // namespace

using testing::fixed_stream;

}  // namespace

TEST_CASE("a lone request sees its own prefill as TTFT and the batch-1 decode steps as TPOT") {
    // Arrivals 1000 s apart on a server that needs about 1.3 s per request: every request is alone,
    // so its TTFT is exactly one request's prefill and its TPOT the mean batch-1 step over its
    // contexts: the figures `predict` gives for one stream.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto requests = fixed_stream(0.001, 1000, 200, 20);
    const auto result = serving::simulate_serving(evaluator, requests, {}, {});
    const auto alone = evaluator.predict(engine::Workload::request(1.0, 1000.0, 200.0));
    CHECK(result.ttft_s.p50 == doctest::Approx(alone.ttft.value).epsilon(1e-9));
    CHECK(result.ttft_s.max == doctest::Approx(alone.ttft.value).epsilon(1e-9));
    CHECK(result.tpot_s.p50 == doctest::Approx(alone.request->time_per_output_token.value).epsilon(1e-9));
    CHECK(result.e2e_s.p50 == doctest::Approx(alone.request->end_to_end.value).epsilon(1e-9));
    CHECK_FALSE(result.saturated);
    CHECK(result.preemptions == 0);
}

TEST_CASE("Little's law holds on the simulation's own output") {
    // L = lambda W: the time-average number of requests in the system (running + waiting) equals
    // the completion rate times the mean time in the system.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto result = serving::simulate_serving(s.realistic(), fixed_stream(15.0, 1000, 200, 4000), {}, {});
    const double in_system = result.mean_running_batch + result.mean_waiting;
    CHECK(in_system == doctest::Approx(result.requests_per_s * result.e2e_s.mean).epsilon(0.01).scale(0.0));
}

TEST_CASE("one sequence at a time with Poisson arrivals waits as M/D/1 predicts") {
    // max_sequences = 1 makes the server a single deterministic server: service S = prefill + 99
    // decode steps, fixed. Pollaczek-Khinchine: E[W] = rho S / (2 (1 - rho)); at rho = 0.5 that
    // is S / 2. The wait is TTFT minus the prefill. 20,000 requests: the mean's standard error is
    // about 1% of S here, so 5% is a generous bound.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto alone = evaluator.predict(engine::Workload::request(1.0, 500.0, 100.0));
    const double service = alone.request->end_to_end.value;
    const double rho = 0.5;
    serving::ServeConfig config;
    config.limits.max_sequences = 1;
    const auto result = serving::simulate_serving(evaluator, fixed_stream(rho / service, 500, 100, 20000, 7), config, {});
    const double wait = result.ttft_s.mean - alone.ttft.value;
    CHECK(wait == doctest::Approx(rho * service / (2.0 * (1.0 - rho))).epsilon(0.05).scale(0.0));
}

TEST_CASE("arrivals above capacity saturate the server, and below it they do not") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    serving::LoadShape load{1.0, 1000.0, 200.0, 1.0};
    const double capacity = serving::steady_state(evaluator, load, {}).saturation_rate_per_s;
    REQUIRE(capacity > 1.0);
    const auto over = serving::simulate_serving(evaluator, fixed_stream(1.5 * capacity, 1000, 200, 3000), {}, {});
    CHECK(over.saturated);
    // A saturated server completes requests at its capacity: the steady state's saturation rate.
    CHECK(over.requests_per_s == doctest::Approx(capacity).epsilon(0.1).scale(0.0));
    const auto under = serving::simulate_serving(evaluator, fixed_stream(0.5 * capacity, 1000, 200, 3000), {}, {});
    CHECK_FALSE(under.saturated);
}

TEST_CASE("the same seed gives the same run, another seed another run") {
    const auto s = testing::setup("l4", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto a = serving::simulate_serving(evaluator, fixed_stream(0.2, 2000, 300, 500, 3), {}, {});
    const auto b = serving::simulate_serving(evaluator, fixed_stream(0.2, 2000, 300, 500, 3), {}, {});
    const auto c = serving::simulate_serving(evaluator, fixed_stream(0.2, 2000, 300, 500, 4), {}, {});
    CHECK(a.ttft_s.p99 == b.ttft_s.p99);
    CHECK(a.steps == b.steps);
    CHECK(a.ttft_s.p99 != c.ttft_s.p99);
}

TEST_CASE("when KV blocks run out, the youngest sequence is preempted and recomputed, and every request still finishes") {
    // An L4 (24 GiB) holds Llama-3.1-8B's 16 GB of weights and about 54k tokens of KV cache
    // ((0.9 x 25,769,803,776 - 16,060,522,496) B / 131,072 B = 54,415); 256 sequences of 2,000 + 500
    // tokens need 640k: preemption is forced.
    const auto s = testing::setup("l4", "llama-3.1-8b");
    const auto result = serving::simulate_serving(s.realistic(), fixed_stream(100.0, 2000, 500, 300), {}, {});
    CHECK(result.preemptions > 0);
    CHECK(result.rejected == 0);
    CHECK(result.peak_kv_fraction <= 1.0);
    CHECK(result.peak_kv_fraction > 0.9);
    for (const auto& record : result.requests) {
        CHECK(record.finish_s >= record.first_token_s);
        CHECK(record.first_token_s >= record.request.arrival_s);
    }
}

TEST_CASE("a prompt no replica can hold is rejected, not served or looped on") {
    // 24 GiB L4: 400k tokens of prompt can never fit beside the weights (room for about 54k, above).
    const auto s = testing::setup("l4", "llama-3.1-8b");
    std::vector<workload::Request> requests{request_at(0.0, 400000, 10), request_at(0.1, 100, 10)};
    const auto result = serving::simulate_serving(s.realistic(), requests, {}, {});
    CHECK(result.rejected == 1);
    CHECK(result.requests[0].rejected);
    CHECK_FALSE(result.requests[1].rejected);
}

TEST_CASE("a prompt longer than an unchunked pass is refused and named so, by serve and by plan") {
    // Without chunked prefill a prompt is one pass: at 8,192 tokens a pass, a 9,000-token prompt
    // never runs, whatever the memory; a 100-token one beside it does.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    std::vector<workload::Request> requests{request_at(0.0, 9000, 10), request_at(0.1, 100, 10)};
    serving::ServeConfig config;
    config.limits.chunked_prefill = false;
    config.limits.max_batched_tokens = 8192;
    const auto result = serving::simulate_serving(s.realistic(), requests, config, {});
    CHECK(result.rejected == 1);
    CHECK(result.rejected_longer_than_pass == 1);
    CHECK_FALSE(result.requests[1].rejected);
    // TensorRT-LLM 1.0 does not chunk by default (enable_chunked_prefill False) and keeps
    // max_num_tokens at 8192: serve says which requests it refused and why.
    const auto serve = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime",
                                     "tensorrt-llm", "--rate", "1", "--prompt", "uniform:6000:12000", "--output", "50",
                                     "--requests", "20", "--seed", "1"});
    CHECK(serve.exit_code == 0);
    CHECK(serve.out.find("whose prompt is longer than a pass of 8192 tokens without chunked") != std::string::npos);
    // plan refuses the device with the budget a fixed 16,000-token prompt needs.
    const auto plan = testing::run({"plan", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime",
                                    "tensorrt-llm", "--rate", "1", "--prompt", "16000", "--output", "50",
                                    "--ttft-p99", "5", "--tpot-p99", "0.05"});
    CHECK(plan.out.find("prompts of 16000 tokens are longer than a pass of 8192 tokens") != std::string::npos);
    CHECK(plan.out.find("--max-batched-tokens 16000 or more") != std::string::npos);
}

TEST_CASE("a shared prefix is prefilled once and then skipped") {
    // Every request starts with the same 1,500-token prefix of a 2,000-token prompt; arrivals are
    // far apart so each request is alone. After the first, each prefills only the last 500 tokens
    // (reading the cached prefix), so its TTFT is at most that of a 500-token-longer context ...
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    std::vector<workload::Request> requests;
    for (int i = 0; i < 10; ++i) requests.push_back(request_at(100.0 * i, 2000, 50, 7, 1500));
    const auto result = serving::simulate_serving(evaluator, requests, {}, {});
    CHECK(result.prefix_hits == 9);
    const double full = evaluator.prefill(1.0, 2000.0).time.value;
    CHECK(result.requests[0].ttft() == doctest::Approx(full).epsilon(1e-9));
    // ... and exactly the cost of a 500-token chunk that starts after 1,500 cached tokens.
    const double chunk = evaluator.step_time(engine::prefill_shape(evaluator.cost_model(), 1.0, 1500.0, 500.0)).value;
    CHECK(result.requests[5].ttft() == doctest::Approx(chunk).epsilon(1e-9));
    CHECK(chunk < 0.5 * full);
    serving::ServeConfig no_cache;
    no_cache.limits.prefix_caching = false;
    const auto uncached = serving::simulate_serving(evaluator, requests, no_cache, {});
    CHECK(uncached.prefix_hits == 0);
    CHECK(uncached.requests[5].ttft() == doctest::Approx(full).epsilon(1e-9));
}

TEST_CASE("a chain of blocks shares its longest cached run, as Mooncake's hash ids do") {
    // Block ids of 512 tokens, each standing for the prompt up to it. Far-apart arrivals, each
    // request alone: request 0 [1 2 3 4] prefills 2,048 tokens; request 1 [1 2 9 10] finds its first
    // two links cached and prefills 1,024 tokens after 1,024 cached; request 2 [1 2 9 11] finds
    // three (1 2 9, left by request 1) and prefills 512 after 1,536; request 3 [5 2 ...] shares
    // nothing (a chain is read from its start) and prefills all 2,048.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto request = [](double arrival, std::vector<long long> blocks) {
        workload::Request r = request_at(arrival, 2048, 20);
        r.block_ids = std::move(blocks);
        r.block_tokens = 512;
        return r;
    };
    const std::vector<workload::Request> requests{request(0.0, {1, 2, 3, 4}), request(100.0, {1, 2, 9, 10}),
                                                  request(200.0, {1, 2, 9, 11}), request(300.0, {5, 2, 9, 10})};
    const auto result = serving::simulate_serving(evaluator, requests, {}, {});
    CHECK(result.prefix_hits == 2);
    const auto chunk = [&](double cached, double tokens) {
        return evaluator.step_time(engine::prefill_shape(evaluator.cost_model(), 1.0, cached, tokens)).value;
    };
    CHECK(result.requests[0].ttft() == doctest::Approx(evaluator.prefill(1.0, 2048.0).time.value).epsilon(1e-9));
    CHECK(result.requests[1].ttft() == doctest::Approx(chunk(1024.0, 1024.0)).epsilon(1e-9));
    CHECK(result.requests[2].ttft() == doctest::Approx(chunk(1536.0, 512.0)).epsilon(1e-9));
    CHECK(result.requests[3].ttft() == doctest::Approx(result.requests[0].ttft()).epsilon(1e-9));
}

TEST_CASE("a request holds its slot while its prompt is prefilled, so every stable load has a finite TTFT") {
    // One-token prompts and two-token outputs on the ideal runtime (no request path, so no front
    // end binds): each request holds one of the 256 slots for two passes, the one that prefills its
    // prompt and gives its first token and the one that decodes its second. So at any stable rate
    // R, R x 2 x (mean pass) <= 256. Counting the decoding sequences alone, the steady state called
    // 13% more than that stable (R x 2 x pass = 289 just below its saturation) and gave an infinite
    // TTFT beside it.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "ideal");
    const auto evaluator = s.realistic();
    serving::SchedulerLimits limits;  // 256 sequences, 8,192 tokens a pass
    const double saturation = serving::steady_state(evaluator, {1.0, 1.0, 2.0, 1.0}, limits).saturation_rate_per_s;
    REQUIRE(saturation > 0.0);
    const auto near = serving::steady_state(evaluator, {0.999 * saturation, 1.0, 2.0, 1.0}, limits);
    REQUIRE(near.stable);
    CHECK(0.999 * saturation * 2.0 * near.step_s <= 256.0);
    CHECK(std::isfinite(near.ttft_s.p99));
    CHECK(std::isfinite(near.ttft_s.mean));
    CHECK_FALSE(serving::steady_state(evaluator, {1.01 * saturation, 1.0, 2.0, 1.0}, limits).stable);
}

// The analytic steady state against the request-level simulation at 25%, 50% and 75% of the
// former's saturation, Poisson arrivals of fixed lengths (1,000 in, 200 out), 6,000 requests: the
// mean batch, TPOT and TTFT within 8%, the p99s within the given shares.
namespace {
void check_steady_state_agrees(const engine::Evaluator& evaluator, const serving::ServeConfig& config,
                               double tpot_p99_share, double ttft_p99_share) {
    const serving::SchedulerLimits& limits = config.limits;
    const double capacity = serving::steady_state(evaluator, {1.0, 1000.0, 200.0, 1.0}, limits).saturation_rate_per_s;
    for (double load : {0.25, 0.5, 0.75}) {
        CAPTURE(load);
        const double rate = load * capacity;
        const auto analytic = serving::steady_state(evaluator, {rate, 1000.0, 200.0, 1.0}, limits);
        const auto simulated = serving::simulate_serving(evaluator, fixed_stream(rate, 1000, 200, 6000, 11), config, {});
        REQUIRE(analytic.stable);
        CHECK(analytic.batch == doctest::Approx(simulated.mean_running_batch).epsilon(0.08).scale(0.0));
        CHECK(analytic.tpot_s.mean == doctest::Approx(simulated.tpot_s.mean).epsilon(0.08).scale(0.0));
        CHECK(analytic.ttft_s.mean == doctest::Approx(simulated.ttft_s.mean).epsilon(0.08).scale(0.0));
        CHECK(analytic.tpot_s.p99 == doctest::Approx(simulated.tpot_s.p99).epsilon(tpot_p99_share).scale(0.0));
        CHECK(analytic.ttft_s.p99 == doctest::Approx(simulated.ttft_s.p99).epsilon(ttft_p99_share).scale(0.0));
        CHECK(analytic.loop_gain > 0.0);
        CHECK(analytic.loop_gain < 1.0);
    }
}
}  // namespace

TEST_CASE("the analytic steady state agrees with the simulation where its assumptions hold") {
    // Poisson arrivals, fixed lengths, no memory pressure, at 25% to 75% of saturation: the mean
    // batch and the mean TPOT within 8% (measured: at most 2%), the TTFT mean within 8% and its p99
    // within 12% (measured at the server: the mean within 2%, the p99 0% to 9% short; with the
    // prompts that share the request's pass counted about the mean pass rather than about the pass
    // in flight when it arrived, the p99 read 15% to 26% short), and the TPOT p99 within 8%
    // (measured: 1% to 5% short; taking each pass as independent of the one before, without the
    // fixed point's loop gain, it read 5% to 16% short: docs/serving.md has the table).
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    check_steady_state_agrees(s.realistic(), {}, 0.08, 0.12);
}

TEST_CASE("with prompts in passes of their own the steady state agrees with the simulation too") {
    // SGLang's scheduler (separate_prefill): a prompt is prefilled in a pass without the decodes,
    // taken whenever one waits, so a decode token waits for the decodes' pass and the prompts' pass
    // between it and the next. Priced as mixed passes, the steady state's mean TPOT read 6% to 31%
    // short of the simulation at 25-90% load and its p99 12% to 26% short. Held here at 25-75%: the
    // batch, the TPOT mean and the TTFT mean within 8% (measured: at most 4%), the TPOT and TTFT
    // p99 within 15% (measured: at most 10%).
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    serving::ServeConfig config;
    config.limits.separate_prefill = true;
    check_steady_state_agrees(s.realistic(), config, 0.15, 0.15);
}

TEST_CASE("spread lengths widen the steady state's TPOT tail and leave its mean") {
    // The same means, at half the saturation rate: outputs spread as an exponential's (cv^2 = 1)
    // put some requests' TPOT over few passes, prompts spread so put their own chunk's time in each
    // pass; neither moves the mean pass, which the fixed point takes at the mean lengths.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const double capacity = serving::steady_state(evaluator, {1.0, 1000.0, 200.0, 1.0}, {}).saturation_rate_per_s;
    serving::LoadShape fixed{0.5 * capacity, 1000.0, 200.0, 1.0};
    serving::LoadShape outputs = fixed, prompts = fixed;
    outputs.output_cv2 = 1.0;
    prompts.prompt_cv2 = 1.0;
    const auto at_means = serving::steady_state(evaluator, fixed, {});
    const auto spread_outputs = serving::steady_state(evaluator, outputs, {});
    const auto spread_prompts = serving::steady_state(evaluator, prompts, {});
    REQUIRE(at_means.stable);
    CHECK(spread_outputs.tpot_s.mean == at_means.tpot_s.mean);
    CHECK(spread_prompts.tpot_s.mean == at_means.tpot_s.mean);
    CHECK(spread_outputs.tpot_s.p99 > at_means.tpot_s.p99 * 1.01);
    CHECK(spread_prompts.tpot_s.p99 > at_means.tpot_s.p99 * 1.01);
    CHECK(spread_outputs.tpot_s.p90 < spread_outputs.tpot_s.p99);
}

TEST_CASE("serve and plan JSON carry the keys users script against") {
    const auto serve = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "5",
                                     "--prompt", "1000", "--output", "200", "--requests", "2000", "--seed", "1", "--json"});
    INFO(serve.err);
    REQUIRE(serve.exit_code == 0);
    const auto s = nlohmann::json::parse(serve.out);
    for (const char* key : {"ttft_s", "tpot_s", "e2e_s"}) {
        CAPTURE(key);
        CHECK(s[key]["p50"].get<double>() > 0.0);
        CHECK(s[key]["p99"].get<double>() >= s[key]["p50"].get<double>());
    }
    CHECK(s["throughput"]["output_tokens_per_s"].get<double>() > 0.0);
    CHECK(s["throughput"]["requests_per_s"].get<double>() == doctest::Approx(5.0).epsilon(0.1).scale(0.0));
    CHECK(s["saturated"] == false);
    CHECK(s["mean_running_batch"].get<double>() > 1.0);
    CHECK(s["peak_kv_fraction"].get<double>() > 0.0);
    CHECK(s["conditions"]["runtime"] == "vllm@0.8");  // the build `vllm` names
    CHECK(s["conditions"]["weights"] == "bf16");

    const auto plan = testing::run({"plan", "--model", "llama-3.1-70b", "--rate", "10", "--prompt", "2000", "--output",
                                    "500", "--ttft-p99", "2", "--tpot-p99", "0.05", "--hardware", "h100-sxm,h200-sxm,mi300x",
                                    "--verify-requests", "200", "--json"});
    INFO(plan.err);
    REQUIRE(plan.exit_code == 0);
    const auto p = nlohmann::json::parse(plan.out);
    REQUIRE(p["options"].size() == 3);
    for (const auto& option : p["options"]) {
        for (const char* key : {"hardware", "devices", "tp", "replicas", "weights", "kv", "cost_per_hour",
                                "cost_per_million_output_tokens", "joules_per_output_token", "binding",
                                "max_rate_at_targets", "best"}) {
            CAPTURE(key);
            CHECK(option.contains(key));
        }
        CHECK(option["devices"].get<int>() == option["tp"].get<int>() * option["replicas"].get<int>());
        CHECK(option["max_rate_at_targets"].get<double>() >= 10.0);
        CHECK(option["tpot_p99_s"].get<double>() <= 0.05);
        CHECK(option["ttft_p99_s"].get<double>() <= 2.0);
    }
    CHECK(p["options"][0]["best"] == true);
}

TEST_CASE("a higher rate never needs fewer devices") {
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("llama-3.1-70b");
    const std::vector<profiles::HardwareProfile> candidates{catalog.hardware("h100-sxm"), catalog.hardware("mi300x")};
    serving::PlanSpace space;
    space.runtime = [runtime = testing::test_runtime("vllm")](const profiles::HardwareProfile&) { return runtime; };
    space.weights = {core::find_named(core::weight_formats(), "bf16")};
    space.kv = {nullptr};
    space.pipeline_parallel = {1};  // tensor-parallel layouts alone: the property is the device count's
    const serving::ServiceTargets targets{2.0, 0.05, std::nullopt};
    std::map<std::string, int> previous;
    for (double rate : {0.5, 2.0, 10.0, 40.0}) {
        serving::PlanWorkload workload;
        workload.rate_per_s = rate;
        workload.prompt_tokens = 2000;
        workload.output_tokens = 500;
        const auto plan = serving::plan_deployments(model, candidates, workload, targets, space, serving::PlanOrder::cost);
        REQUIRE(plan.options.size() == 2);
        for (const auto& option : plan.options) {
            CAPTURE(option.hardware);
            CAPTURE(rate);
            CHECK(option.devices >= previous[option.hardware]);
            CHECK(option.max_rate_at_targets_per_s >= rate);
            previous[option.hardware] = option.devices;
        }
    }
}

TEST_CASE("without chunked prefill, a recomputed prompt longer than a pass is counted as rejected, not as served") {
    // An L4 fills with 1,500 + 500-token sequences and preempts; a preempted sequence's recompute
    // (prompt and generated tokens) can exceed a 2,000-token pass, which without chunking can never
    // be scheduled. Whatever the run leaves unfinished must show up as rejected.
    const auto s = testing::setup("l4", "llama-3.1-8b");
    serving::ServeConfig config;
    config.limits.chunked_prefill = false;
    config.limits.max_batched_tokens = 2000;
    const auto result = serving::simulate_serving(s.realistic(), fixed_stream(50.0, 1500, 500, 200), config, {});
    long long unfinished_or_rejected = 0;
    for (const auto& record : result.requests) {
        if (record.rejected) {
            ++unfinished_or_rejected;
            continue;
        }
        CHECK(record.finish_s > record.request.arrival_s);
        CHECK(record.first_token_s > record.request.arrival_s);
    }
    CHECK(unfinished_or_rejected == result.rejected);
}

TEST_CASE("a closed loop of one client sends each request as the last one finishes, after its think time") {
    // One client: request i arrives at request i-1's finish plus the think time, and each request is
    // alone on the server, so its end-to-end time is one request's own (predict's figure).
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{1, 0.25};
    const auto result = serving::simulate_serving(evaluator, fixed_stream(1.0, 1000, 200, 12), config, {});
    const auto alone = evaluator.predict(engine::Workload::request(1.0, 1000.0, 200.0));
    REQUIRE(result.requests.size() == 12);
    CHECK(result.requests[0].request.arrival_s == 0.0);
    for (std::size_t i = 1; i < result.requests.size(); ++i) {
        CAPTURE(i);
        CHECK(result.requests[i].request.arrival_s == doctest::Approx(result.requests[i - 1].finish_s + 0.25).epsilon(1e-12));
    }
    CHECK(result.e2e_s.max == doctest::Approx(alone.request->end_to_end.value).epsilon(1e-9));
    CHECK_FALSE(result.saturated);
}

TEST_CASE("a closed loop keeps at most its clients' requests in the server and obeys the response time law") {
    // N clients thinking Z seconds: throughput X = N / (R + Z), R the mean response time (the
    // interactive response time law, a form of Little's law over the whole loop). Over 600
    // requests the loop's start and end (all clients starting at 0, the last ones finishing alone)
    // move the ratio by a few percent at most.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{16, 0.5};
    const auto result = serving::simulate_serving(evaluator, fixed_stream(1.0, 800, 150, 600), config, {});
    REQUIRE(result.requests.size() == 600);
    // The first 16 arrive together at 0; never more than 16 in the server at an arrival.
    for (std::size_t i = 0; i < 16; ++i) CHECK(result.requests[i].request.arrival_s == 0.0);
    for (const auto& arriving : result.requests) {
        int inside = 0;
        for (const auto& other : result.requests) {
            if (other.request.arrival_s <= arriving.request.arrival_s && other.finish_s > arriving.request.arrival_s) ++inside;
        }
        CHECK(inside <= 16);
    }
    const double law = 16.0 / (result.e2e_s.mean + 0.5);
    CHECK(result.requests_per_s == doctest::Approx(law).epsilon(0.05).scale(0.0));
    CHECK_FALSE(result.saturated);
}

TEST_CASE("serve --concurrency runs the closed loop and refuses what only an open loop means") {
    const auto ok = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency", "4",
                                  "--requests", "40", "--prompt", "500", "--output", "50", "--json"});
    REQUIRE(ok.exit_code == 0);
    const auto document = nlohmann::json::parse(ok.out);
    CHECK(document["conditions"]["arrivals"] == "closed loop of 4 clients");
    const auto with_rate = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency",
                                         "4", "--rate", "2"});
    CHECK(with_rate.exit_code == 2);
    const auto think_alone = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--think-time", "1"});
    CHECK(think_alone.exit_code == 2);
    const auto with_cap = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency", "4",
                                        "--max-output", "10"});
    CHECK(with_cap.exit_code == 2);
    CHECK(with_cap.err.find("--concurrency") != std::string::npos);
}

TEST_CASE("plan = serve: serve at the planned deployment and load meets the targets for 99% of requests") {
    // The chat workload at 20 requests/s on H100s, about the most one replica serves on target.
    // Whatever plan answers, serve given the same deployment, load, request count and seed must
    // agree with it, because plan reports only what that simulation verified.
    // The pinned vLLM build (tests/data/runtime_profiles): the case's premise is that build's
    // physics, which a refit of the shipped one must not move.
    const std::string runtime = testing::test_data("runtime_profiles/pinned-vllm-0.8.yaml");
    const auto plan = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "20",
                                    "--scenario", "chat", "--verify-requests", "2000", "--runtime", runtime, "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto best = nlohmann::json::parse(plan.out)["options"][0];
    REQUIRE(best["verified_by_serve"].is_object());
    const int replicas = best["replicas"].get<int>();
    CHECK(best["verified_by_serve"]["steady_state_replicas"].get<int>() <= replicas);
    CHECK(replicas == best["verified_by_serve"]["replicas"].get<int>());
    const auto serve = testing::run({"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "20",
                                     "--scenario", "chat", "--replicas", std::to_string(replicas), "--requests", "2000",
                                     "--seed", "1", "--runtime", runtime, "--json"});
    REQUIRE(serve.exit_code == 0);
    const auto served = nlohmann::json::parse(serve.out);
    CHECK(served["goodput"]["fraction"].get<double>() >= 0.99);
    CHECK(served["goodput"]["fraction"].get<double>() ==
          doctest::Approx(best["verified_by_serve"]["share_on_target"].get<double>()).epsilon(1e-12));
    CHECK_FALSE(served["saturated"].get<bool>());
}

TEST_CASE("the serve check adds the replicas a steady state too few asks for, and no more") {
    // One H100 serves the chat workload on target up to about 17 requests/s (serve, 2000
    // requests, seed 1: 99.7% at 17, 71% at 20.8). At 30 requests/s a plan's check given one
    // replica must find that one misses, grow, and settle on the smallest count that meets the
    // targets: two serve it (15 each), and the check must say one did not.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    workload::WorkloadChoice choice;
    choice.scenario = &workload::workload_scenario_named("chat");
    serving::VerifyLoad load;
    load.lengths = workload::resolve_workload(choice, s.model.max_position_embeddings);
    load.rate_per_s = 30.0;
    const serving::ServiceTargets targets{0.45, 0.04, std::nullopt};
    const serving::SchedulerLimits limits = serving::limits_for({}, evaluator);
    const serving::PlanVerification grown = serving::verify_replicas(evaluator, 1, load, targets, limits, {2000, 1});
    CHECK(grown.passed);
    CHECK(grown.steady_state_replicas == 1);
    CHECK(grown.replicas == 2);
    CHECK(grown.met_share >= 0.99);
    const serving::PlanVerification one = serving::verify_replicas(evaluator, 1, [&] {
        serving::VerifyLoad lighter = load;
        lighter.rate_per_s = 10.0;
        return lighter;
    }(), targets, limits, {2000, 1});
    CHECK(one.passed);
    CHECK(one.replicas == 1);
}

TEST_CASE("plan = serve for every option a plan ranks, not only its best") {
    // Five devices for Llama-3.1-8B chat at 10 requests/s. Each row the plan prints says that
    // deployment meets the targets at that load; serve given the row's deployment, replicas,
    // request count and seed must agree, row by row.
    const int requests = testing::kSanitized ? 200 : 500;
    const auto plan = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm,mi300x,l40s,rtx-4090,a100-sxm-80gb",
                                    "--rate", "10", "--scenario", "chat", "--disaggregation", "off", "--verify-requests",
                                    std::to_string(requests), "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto options = nlohmann::json::parse(plan.out)["options"];
    REQUIRE(options.size() >= 3);
    // The same plan as text: its latency columns are the figures the verification decided by.
    const auto text = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm,mi300x,l40s,rtx-4090,a100-sxm-80gb",
                                    "--rate", "10", "--scenario", "chat", "--disaggregation", "off", "--verify-requests",
                                    std::to_string(requests)});
    REQUIRE(text.exit_code == 0);
    for (const auto& option : options) {
        CAPTURE(option["hardware"].get<std::string>());
        REQUIRE(option["verified_by_serve"].is_object());
        const auto serve = testing::run({"serve", "--model", "llama-3.1-8b", "--hardware", option["hardware"].get<std::string>(),
                                         "--rate", "10", "--scenario", "chat", "--weights", option["weights"].get<std::string>(),
                                         "--tp", std::to_string(option["tp"].get<int>()), "--pp",
                                         std::to_string(option["pp"].get<int>()), "--replicas",
                                         std::to_string(option["replicas"].get<int>()), "--requests",
                                         std::to_string(requests), "--seed", "1", "--json"});
        REQUIRE(serve.exit_code == 0);
        const auto served = nlohmann::json::parse(serve.out);
        CHECK(served["goodput"]["fraction"].get<double>() >= 0.99);
        CHECK(served["goodput"]["fraction"].get<double>() == option["verified_by_serve"]["share_on_target"].get<double>());
        const double ttft = served["ttft_s"]["p99"].get<double>(), tpot = served["tpot_s"]["p99"].get<double>();
        CHECK(ttft == option["verified_by_serve"]["ttft_p99_s"].get<double>());
        CHECK(tpot == option["verified_by_serve"]["tpot_p99_s"].get<double>());
        // Its row of the latency table, the one headed "... TTFT p99  TPOT p99  last token p99 ...".
        const std::string hardware = option["hardware"].get<std::string>();
        const auto latency_table = text.out.find("TTFT p99  TPOT p99");
        REQUIRE(latency_table != std::string::npos);
        const auto row_start = text.out.find("\n" + hardware + " ", latency_table);
        REQUIRE(row_start != std::string::npos);
        const std::string row = text.out.substr(row_start + 1, text.out.find('\n', row_start + 1) - row_start - 1);
        CAPTURE(row);
        CHECK(row.find(core::format_seconds(ttft)) != std::string::npos);
        CHECK(row.find(core::format_seconds(tpot)) != std::string::npos);
    }
}

TEST_CASE("plan takes --price in place of a profile's price, and the ranking and costs follow it") {
    // H200 at 1 USD a device-hour instead of its profile's 6.35: one H200 serves Llama-3.1-8B at
    // 20 requests/s of 1000 in and 200 out (as one H100 does at 2.49), so it ranks first, at
    // 1 x 1 = 1 USD/hour and 1 / (20 x 200 x 3600) x 1e6 = 0.06944 USD per million output tokens.
    const auto plan = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "20", "--prompt", "1000", "--output", "200",
                                    "--ttft-p99", "1", "--tpot-p99", "0.05", "--hardware", "h100-sxm,h200-sxm", "--price",
                                    "h200-sxm=1", "--verify-requests", "200", "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto document = nlohmann::json::parse(plan.out);
    const auto best = document["options"][0];
    CHECK(best["hardware"].get<std::string>() == "h200-sxm");
    REQUIRE(best["devices"].get<int>() == 1);
    CHECK(std::fabs(best["cost_per_hour"].get<double>() - 1.0) < 1e-12);
    CHECK(std::fabs(best["cost_per_million_output_tokens"].get<double>() - 1e6 / (20.0 * 200.0 * 3600.0)) < 1e-9);
    CHECK(document["conditions"]["given_prices_usd_per_device_hour"]["h200-sxm"].get<double>() == 1.0);
    // A price for a device the plan does not consider, a malformed one, and serve's without the
    // output cap it would price are refused by name.
    const auto stray = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "h100-sxm", "--price",
                                     "h200-sxm=3", "--verify-requests", "0"});
    CHECK(stray.exit_code == 2);
    CHECK(stray.err.find("'h200-sxm' is not among the --hardware ids") != std::string::npos);
    const auto malformed = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "h100-sxm",
                                         "--price", "h100-sxm=abc", "--verify-requests", "0"});
    CHECK(malformed.exit_code == 2);
    CHECK(malformed.err.find("ID=USD_PER_HOUR") != std::string::npos);
    const auto unused = testing::run({"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--price", "h100-sxm=2"});
    CHECK(unused.exit_code == 2);
    CHECK(unused.err.find("--max-output") != std::string::npos);
}

TEST_CASE("plan and compare take a price list file (--prices), and --price wins over its rows") {
    // The list prices H100 at 3.10 and MI300X at 2.20 (and B200, which compare does not weigh here);
    // --price sets MI300X to 1.99. compare at batch 1 of 1024 tokens: $/M tokens = price / 3600 /
    // tokens/s x 1e6 at the batch shown, so the two devices' $/M stand as their prices over their
    // tokens/s.
    const std::string list = testing::write_temp("price_list.csv", "hardware,usd_per_hour,basis,date,source\n"
                                                                   "h100-sxm,3.10,cloud on-demand,2026-11-30,a quote\n"
                                                                   "mi300x,2.20,cloud on-demand,2026-11-30,a quote\n"
                                                                   "b200,5.00,,,\n");
    const auto compare = testing::run({"compare", "--hardware", "h100-sxm,mi300x", "--model", "llama-3.1-8b", "--prices",
                                       list, "--price", "mi300x=1.99", "--json"});
    REQUIRE_MESSAGE(compare.exit_code == 0, compare.err);
    const auto rows = nlohmann::json::parse(compare.out)["rows"];
    REQUIRE(rows.size() == 2);
    for (const auto& row : rows) {
        const double price = row["hardware"] == "mi300x" ? 1.99 : 3.10;
        CHECK(row["usd_per_million_tokens"].get<double>() ==
              doctest::Approx(price / 3600.0 / row["tokens_per_s_total"].get<double>() * 1e6).epsilon(1e-9));
    }
    const auto plan = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "h100-sxm", "--prices",
                                    list, "--verify-requests", "0", "--json"});
    REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
    CHECK(nlohmann::json::parse(plan.out)["conditions"]["given_prices_usd_per_device_hour"]["h100-sxm"].get<double>() == 3.10);
    // A row naming no hardware id is refused at its line, column and key, with the id meant.
    const std::string typo = testing::write_temp("price_typo.csv", "hardware,usd_per_hour\nh100-smx,3\n");
    const auto refused = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "h100-sxm",
                                       "--prices", typo, "--verify-requests", "0"});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("price_typo.csv:2:1: error: hardware: 'h100-smx' is no hardware id; did you mean 'h100-sxm'?") !=
          std::string::npos);
}

TEST_CASE("every price states its basis, plan marks purchase and proxy prices, and --basis ranks one basis") {
    // Every shipped profile with a price says what it is (cloud, purchase or proxy).
    const auto catalog = testing::shipped_catalog();
    for (const auto& id : catalog.hardware_ids()) {
        const auto device = catalog.hardware(id);
        CAPTURE(id);
        CHECK(device.price_per_hour.has_value() == (device.price_basis != profiles::PriceBasis::unstated));
    }
    // h100-sxm rents (cloud), a30's price is the a10's (proxy), apple-m4-max's is an amortized purchase.
    const std::vector<std::string> plan{"plan", "--model", "llama-3.1-8b", "--rate", "2", "--prompt", "500", "--output", "100",
                                        "--hardware", "h100-sxm,a30,apple-m4-max", "--verify-requests", "0", "--json"};
    const auto any = testing::run(plan);
    REQUIRE_MESSAGE(any.exit_code == 0, any.err);
    std::map<std::string, std::string> basis;
    const auto any_plan = nlohmann::json::parse(any.out);
    for (const auto& option : any_plan["options"]) {
        basis[option["hardware"].get<std::string>()] =
            option["price_basis"].is_null() ? "none" : option["price_basis"].get<std::string>();
    }
    CHECK(basis["h100-sxm"] == "cloud");
    CHECK(basis["a30"] == "proxy");
    CHECK(basis["apple-m4-max"] == "purchase");
    // --basis cloud costs the cloud rate only: the others are left unpriced, ranked after it.
    auto cloud_only = plan;
    cloud_only.insert(cloud_only.end(), {"--basis", "cloud"});
    const auto cloud = testing::run(cloud_only);
    REQUIRE_MESSAGE(cloud.exit_code == 0, cloud.err);
    const auto cloud_plan = nlohmann::json::parse(cloud.out);
    for (const auto& option : cloud_plan["options"]) {
        CAPTURE(option["hardware"].get<std::string>());
        CHECK(option["cost_per_hour"].is_null() == (option["hardware"] != "h100-sxm"));
    }
    auto text = plan;
    text.pop_back();  // no --json
    const auto table = testing::run(text);
    CHECK(table.out.find("~: another device's price stands in") != std::string::npos);
    CHECK(table.out.find("p: a purchase price amortized over three years") != std::string::npos);
    // compare marks them the same way, in its table and its JSON.
    const auto compare = testing::run({"compare", "--hardware", "h100-sxm,a30", "--model", "llama-3.1-8b", "--json"});
    REQUIRE(compare.exit_code == 0);
    const auto rows = nlohmann::json::parse(compare.out)["rows"];
    for (const auto& row : rows) CHECK(row["price_basis"] == (row["hardware"] == "a30" ? "proxy" : "cloud"));
}

TEST_CASE("a plan says how to launch each option and how to check it on the hardware") {
    CHECK(report::hugging_face_repo("https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json ; model card") ==
          "Qwen/Qwen3-32B");
    CHECK_FALSE(report::hugging_face_repo("https://huggingface.co/datasets/foo/bar").has_value());
    CHECK_FALSE(report::hugging_face_repo("https://github.com/org/repo").has_value());
    for (const char* runtime : {"vllm", "sglang"}) {
        CAPTURE(runtime);
        const auto plan = testing::run({"plan", "--model", "llama-3.1-70b", "--rate", "5", "--prompt", "1000", "--output",
                                        "200", "--hardware", "h100-sxm", "--runtime", runtime, "--verify-requests", "0",
                                        "--json"});
        REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
        const auto best = nlohmann::json::parse(plan.out)["options"][0];
        const std::string serve = best["launch"]["serve"].get<std::string>();
        const std::string verify = best["launch"]["verify"].get<std::string>();
        // The layout and the scheduler limits the plan assumed, on the model's repository.
        const auto tp = std::to_string(best["tp"].get<int>());
        const auto sequences = std::to_string(best["scheduler"]["max_sequences"].get<long long>());
        // The planned lengths, fixed: vLLM's random dataset sends them as given, but outputs stop at
        // an end-of-sequence token unless told not to; SGLang's draws each from
        // randint(max(int(N x ratio), 1), N + 1), 1 to N at its default ratio 0, N alone at 1.
        if (std::string(runtime) == "vllm") {
            CHECK(serve.starts_with("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size " + tp));
            CHECK(serve.find("--max-num-seqs " + sequences) != std::string::npos);
            CHECK(verify.starts_with("vllm bench serve"));
            CHECK(verify.find("--random-input-len 1000 --random-output-len 200 --ignore-eos --request-rate 5") !=
                  std::string::npos);
        } else {
            CHECK(serve.starts_with("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp-size " + tp));
            CHECK(serve.find("--max-running-requests " + sequences) != std::string::npos);
            CHECK(verify.starts_with("python -m sglang.bench_serving"));
            CHECK(verify.find("--random-input-len 1000 --random-output-len 200 --random-range-ratio 1 --request-rate 5") !=
                  std::string::npos);
        }
        // Fixed lengths and Poisson arrivals: the load the plan was asked for, so no note says otherwise.
        for (const auto& note : best["launch"]["notes"]) CHECK(note.get<std::string>().find("simpler load") == std::string::npos);
    }
    // The roofline has no serving command.
    const auto ideal = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "h100-sxm",
                                     "--runtime", "ideal", "--verify-requests", "0", "--json"});
    REQUIRE(ideal.exit_code == 0);
    CHECK(nlohmann::json::parse(ideal.out)["options"][0]["launch"].is_null());
}

TEST_CASE("a plan's check names what of the planned load its load generator does not send") {
    // The load generators send random prompts of the mean lengths, Poisson or all at once, each
    // request on its own and no client thinking. The chat scenario draws prompt and output from
    // lognormals of mean 1155 (sd 1109) and 211 (sd 163) and arrives gamma with burstiness 0.83
    // (docs/scenarios.md): the note names both, with the figures the scenario states.
    const auto notes_of = [](std::vector<std::string> args) {
        for (const char* flag : {"--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--verify-requests", "0", "--json"}) {
            args.push_back(flag);
        }
        args.insert(args.begin(), "plan");
        const auto plan = testing::run(args);
        REQUIRE_MESSAGE(plan.exit_code == 0, plan.err);
        const nlohmann::json parsed = nlohmann::json::parse(plan.out);
        std::string joined;
        for (const auto& note : parsed["options"][0]["launch"]["notes"]) joined += note.get<std::string>() + "\n";
        return joined;
    };
    const std::string chat = notes_of({"--scenario", "chat", "--rate", "5", "--runtime", "sglang"});
    CHECK(chat.find("lengths drawn as prompt lognormal 1155 sd 1109, output lognormal 211 sd 163, sent at their means") !=
          std::string::npos);
    CHECK(chat.find("gamma (burstiness 0.83) arrivals, sent as Poisson") != std::string::npos);
    // vllm bench serve draws its gaps from a gamma of shape --burstiness: it sends the scenario's
    // arrivals, and the note leaves them out.
    const auto vllm_chat = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--verify-requests",
                                         "0", "--json", "--scenario", "chat", "--rate", "5", "--runtime", "vllm"});
    REQUIRE_MESSAGE(vllm_chat.exit_code == 0, vllm_chat.err);
    const nlohmann::json vllm_launch = nlohmann::json::parse(vllm_chat.out)["options"][0]["launch"];
    CHECK(vllm_launch["verify"].get<std::string>().ends_with("--request-rate 5 --num-prompts 1000 --burstiness 0.83"));
    REQUIRE(vllm_launch["notes"].size() == 1);
    CHECK(vllm_launch["notes"][0].get<std::string>().find("lengths drawn as prompt lognormal 1155") != std::string::npos);
    CHECK(vllm_launch["notes"][0].get<std::string>().find("gamma") == std::string::npos);
    // Users who think 2 s between requests: the check's clients send at once, so more is in flight.
    const std::string thinking =
        notes_of({"--users", "16", "--think-time", "2", "--prompt", "500", "--output", "100", "--runtime", "sglang"});
    CHECK(thinking.find("users thinking 2.000 s between requests") != std::string::npos);
    CHECK(thinking.find("lengths drawn") == std::string::npos);
    // Conversations: each turn reads the one before from the prefix cache, which random prompts cannot.
    const std::string turns = notes_of({"--users", "16", "--turns", "3", "--follow-up", "100", "--prompt", "500",
                                        "--output", "100", "--runtime", "vllm"});
    CHECK(turns.find("conversations whose turns find the turn before in the prefix cache") != std::string::npos);
    // A deployment file (llm-d's values) drops the instances' notes, not the check's.
    const auto emitted = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--verify-requests", "0",
                                       "--scenario", "chat", "--rate", "5", "--emit", "llm-d"});
    REQUIRE_MESSAGE(emitted.exit_code == 0, emitted.err);
    CHECK(emitted.out.find("# the check sends a simpler load than the plan's: lengths drawn as prompt lognormal 1155") !=
          std::string::npos);
}

TEST_CASE("plan considers datacenter parts unless asked for more, and names the caveats of the boards it was asked for") {
    // One layout a device (tp 1, no stages, colocated) keeps the search short: the test is about
    // which devices are searched. The default candidates: the shipped profiles that state `segment: datacenter`, counted here
    // from the files themselves.
    std::size_t shipped = 0, datacenter = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(DECODESIM_ROOT) + "/hardware_profiles")) {
        if (entry.path().extension() != ".yaml") continue;
        ++shipped;
        std::ifstream file(entry.path());
        const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (text.find("\nsegment: datacenter\n") != std::string::npos) ++datacenter;
    }
    REQUIRE(datacenter > 0);
    const auto plan = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--verify-requests", "0", "--tp", "1",
                                    "--pp", "1", "--disaggregation", "off", "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto document = nlohmann::json::parse(plan.out);
    CHECK(document["conditions"]["candidates"].get<std::string>() ==
          fmt::format("{} of the {} shipped devices, segments datacenter", datacenter, shipped));
    REQUIRE_FALSE(document["options"].empty());
    for (const auto& option : document["options"]) CHECK(option["segment"].get<std::string>() == "datacenter");
    // Named with --hardware, a GeForce board is planned, and the text says what it lacks.
    const auto named = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--hardware", "rtx-4090,h100-sxm",
                                     "--verify-requests", "0", "--tp", "1", "--pp", "1", "--disaggregation", "off"});
    REQUIRE(named.exit_code == 0);
    CHECK(named.out.find("consumer boards (rtx-4090): most lack ECC memory") != std::string::npos);
    // --segments picks the segments without --hardware, and is refused beside it.
    const auto consumer = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--segments", "consumer",
                                        "--verify-requests", "0", "--tp", "1", "--pp", "1", "--disaggregation", "off", "--json"});
    REQUIRE(consumer.exit_code == 0);
    const auto consumer_plan = nlohmann::json::parse(consumer.out);  // kept alive through the loop
    for (const auto& option : consumer_plan["options"]) CHECK(option["segment"].get<std::string>() == "consumer");
    const auto both = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--segments", "all", "--hardware",
                                    "h100-sxm"});
    CHECK(both.exit_code == 2);
    const auto unknown = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "5", "--segments", "server"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("unknown segment 'server'") != std::string::npos);
}

TEST_CASE("a plan without a TTFT or end-to-end target still bounds the queue, and says so") {
    // 200 users at 32k-token prompts with only a per-stream speed target: the cheapest layout by
    // the steady state alone is one replica with users waiting hours for a first token. With the
    // default bound (serving::kDefaultTtftLimitS, 60 s) the answer keeps TTFT within a minute.
    const auto plan = testing::run({"plan", "--model", "llama-3.1-70b", "--users", "200", "--think-time", "0",
                                    "--prompt", "32000", "--output", "1000", "--min-tokens-per-s-per-user", "20",
                                    "--hardware", "h100-sxm", "--formats", "fp8", "--tp", "4", "--pp", "1", "--verify-requests", "400",
                                    "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto document = nlohmann::json::parse(plan.out);
    CHECK(document["conditions"]["ttft_p99_is_default"].get<bool>());
    CHECK(document["conditions"]["ttft_p99_s"].get<double>() == serving::kDefaultTtftLimitS);
    const auto best = document["options"][0];
    CHECK(best["ttft_p99_s"].get<double>() <= 60.0);
    CHECK(best["verified_by_serve"]["ttft_p99_s"].get<double>() <= 60.0);
    const auto text = testing::run({"plan", "--model", "llama-3.1-70b", "--users", "200", "--prompt", "32000", "--output",
                                    "1000", "--min-tokens-per-s-per-user", "20", "--hardware", "h100-sxm", "--formats",
                                    "fp8", "--tp", "4", "--pp", "1", "--verify-requests", "0"});
    CHECK(text.out.find("the default bound on queues") != std::string::npos);
}

TEST_CASE("plan = serve where more replicas cannot help: the device's next layout is verified instead") {
    // Llama-3.1-70B for chat at 5 requests/s on MI300X: the steady state's cheapest layout (one
    // device a replica) cannot prefill chat's longest prompts within the 450 ms TTFT target at any
    // replica count, so plan moves to the next layout; serve at that layout and load agrees.
    const auto plan = testing::run({"plan", "--model", "llama-3.1-70b", "--hardware", "mi300x", "--rate", "5",
                                    "--scenario", "chat", "--verify-requests", "500", "--json"});
    REQUIRE(plan.exit_code == 0);
    const auto best = nlohmann::json::parse(plan.out)["options"][0];
    REQUIRE(best["verified_by_serve"].is_object());
    CHECK(best["devices_per_instance"].get<int>() > 1);
    const auto serve = testing::run({"serve", "--model", "llama-3.1-70b", "--hardware", "mi300x", "--rate", "5",
                                     "--scenario", "chat", "--weights", best["weights"].get<std::string>(),
                                     "--tp", std::to_string(best["tp"].get<int>()), "--pp",
                                     std::to_string(best["pp"].get<int>()), "--replicas",
                                     std::to_string(best["replicas"].get<int>()), "--requests", "500", "--json"});
    REQUIRE(serve.exit_code == 0);
    CHECK(nlohmann::json::parse(serve.out)["goodput"]["fraction"].get<double>() >= 0.99);
}

TEST_CASE("a client's TTFT is the server's plus the request path in and out, and a closed loop's client waits for the way out") {
    // A runtime whose request takes 10 ms plus 10 us a prompt token before the scheduler sees it and
    // 20 ms from a pass's end to the client. A lone 1000-token request: the server's TTFT is its
    // prefill, unchanged by the path; the client's is that plus 10 + 1000 x 0.01 + 20 = 40 ms; its
    // end-to-end time too. A closed loop of one client with 0.25 s think time sends its next request
    // 20 ms + 0.25 s after the last pass of the one before.
    auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto plain = s.realistic();
    engine::RuntimeProfile runtime = s.deployment.runtime_profile();
    runtime.request_path.before_scheduler = core::Seconds(0.010);
    runtime.request_path.per_prompt_token = core::Seconds(10e-6);
    runtime.request_path.after_step = core::Seconds(0.020);
    s.deployment.runtime = std::make_shared<const engine::RuntimeProfile>(runtime);
    const auto with_path = s.realistic();
    const auto lone = fixed_stream(0.001, 1000, 200, 3);
    const auto base = serving::simulate_serving(plain, lone, {}, {});
    const auto seen = serving::simulate_serving(with_path, lone, {}, {});
    CHECK(seen.server_ttft_s.mean == doctest::Approx(base.ttft_s.mean).epsilon(1e-9));
    CHECK(seen.ttft_s.mean == doctest::Approx(base.ttft_s.mean + 0.040).epsilon(1e-9));
    CHECK(seen.e2e_s.mean == doctest::Approx(base.e2e_s.mean + 0.040).epsilon(1e-9));
    CHECK(seen.tpot_s.mean == doctest::Approx(base.tpot_s.mean).epsilon(1e-9));
    CHECK(seen.requests[1].scheduled_s == doctest::Approx(seen.requests[1].request.arrival_s + 0.020).epsilon(1e-12));

    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{1, 0.25};
    const auto loop = serving::simulate_serving(with_path, fixed_stream(1.0, 1000, 200, 4), config, {});
    for (std::size_t i = 1; i < loop.requests.size(); ++i) {
        CAPTURE(i);
        CHECK(loop.requests[i].request.arrival_s ==
              doctest::Approx(loop.requests[i - 1].finish_s + 0.020 + 0.25).epsilon(1e-12));
    }

    // The steady state, which plan searches with, counts the same path: at a vanishing rate its TTFT
    // is the server's plus the 40 ms.
    serving::LoadShape load;
    load.rate_per_s = 1e-6;
    load.prompt_tokens = 1000.0;
    load.output_tokens = 200.0;
    const auto quiet = serving::steady_state(plain, load, {});
    const auto quiet_path = serving::steady_state(with_path, load, {});
    CHECK(quiet_path.ttft_s.mean == doctest::Approx(quiet.ttft_s.mean + 0.040).epsilon(1e-9));
    CHECK(quiet_path.e2e_s.p99 == doctest::Approx(quiet.e2e_s.p99 + 0.040).epsilon(1e-9));

    // A client in the engine's own process (MLPerf's LoadGen) takes no path: its TTFT is the server's.
    s.deployment.in_process = true;
    const auto in_process = s.realistic();
    const auto local = serving::simulate_serving(in_process, lone, {}, {});
    CHECK(local.ttft_s.mean == doctest::Approx(base.ttft_s.mean).epsilon(1e-12));
    CHECK(serving::steady_state(in_process, load, {}).ttft_s.mean == doctest::Approx(quiet.ttft_s.mean).epsilon(1e-12));
}

TEST_CASE("serve --in-process leaves the runtime's request path out of the client's TTFT") {
    // tensorrt-llm@0.17 states 3.5 ms in and 3.5 ms out: a lone request's client TTFT is the
    // server's + 7 ms, and with --in-process it is the server's.
    const std::vector<std::string> args{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime",
                                        "tensorrt-llm@0.17", "--rate", "0.01", "--requests", "5", "--json"};
    auto served = testing::run(args);
    auto local_args = args;
    local_args.push_back("--in-process");
    auto local = testing::run(local_args);
    REQUIRE(served.exit_code == 0);
    REQUIRE(local.exit_code == 0);
    const auto over_http = nlohmann::json::parse(served.out);
    const auto in_process = nlohmann::json::parse(local.out);
    CHECK(over_http["ttft_s"]["mean"].get<double>() ==
          doctest::Approx(over_http["server_ttft_s"]["mean"].get<double>() + 0.007).epsilon(1e-9));
    CHECK(in_process["ttft_s"]["mean"].get<double>() ==
          doctest::Approx(in_process["server_ttft_s"]["mean"].get<double>()).epsilon(1e-12));
    CHECK(in_process["server_ttft_s"]["mean"].get<double>() ==
          doctest::Approx(over_http["server_ttft_s"]["mean"].get<double>()).epsilon(1e-12));
    // The condition is stated where it applies, and only there.
    CHECK(in_process["conditions"]["client"] == "in_process");
    CHECK_FALSE(over_http["conditions"].contains("client"));
}

TEST_CASE("a runtime that prefills in passes of its own holds the decodes back for a new prompt's pass") {
    // Request A (1000-token prompt, 3 tokens out) arrives at 0; B (the same) a nanosecond later,
    // while A's prefill pass runs. Mixed passes (vLLM): pass 2 holds A's first decode and B's whole
    // prompt, so B's first token comes at T(prefill A) + T(prefill B + decode A). Separate passes
    // (SGLang): pass 2 is B's prefill alone and A waits: B's first token at 2 T(prefill 1000), and
    // A's second token one pass later than under mixed passes.
    auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const std::vector<workload::Request> requests{request_at(0.0, 1000, 3), request_at(1e-9, 1000, 3)};
    const auto& cost = evaluator.cost_model();
    const double prefill = evaluator.step_time(engine::prefill_shape(cost, 1.0, 0.0, 1000.0, true)).value;
    engine::StepShape mixed_pass = engine::prefill_shape(cost, 1.0, 0.0, 1000.0, true);
    mixed_pass += engine::decode_shape(cost, 1.0, 1001.0);
    const double mixed_second = evaluator.step_time(mixed_pass).value;

    serving::ServeConfig mixed;
    mixed.limits.separate_prefill = false;
    serving::ServeConfig separate;
    separate.limits.separate_prefill = true;
    const auto together = serving::simulate_serving(evaluator, requests, mixed, {});
    const auto apart = serving::simulate_serving(evaluator, requests, separate, {});
    REQUIRE(together.requests.size() == 2);
    REQUIRE(apart.requests.size() == 2);
    CHECK(together.requests[1].first_token_s == doctest::Approx(prefill + mixed_second).epsilon(1e-9));
    CHECK(apart.requests[1].first_token_s == doctest::Approx(2.0 * prefill).epsilon(1e-9));
    // A's second token: at the end of pass 2 when mixed, of pass 3 when separate.
    CHECK(apart.requests[0].finish_s > together.requests[0].finish_s);
    CHECK(apart.requests[0].first_token_s == doctest::Approx(prefill).epsilon(1e-9));
}

TEST_CASE("a plan's launch commands carry its layout: tensor, expert and attention-data parallelism, and prefill and decode roles") {
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("h200-sxm");
    const auto model = catalog.model("deepseek-v3");
    const auto launch_for = [&](const std::string& runtime, engine::Parallelism parallelism,
                                std::optional<serving::PoolShape> pools) {
        engine::DeploymentChoice choice;
        choice.runtime = testing::shipped_runtime(runtime);
        choice.weights = core::find_named(core::weight_formats(), "fp8");
        choice.parallelism = parallelism;
        serving::PlanOption option;
        option.hardware = hardware.id;
        option.deployment = engine::resolve_deployment(hardware, model, choice);
        option.limits.max_sequences = 256;
        option.limits.max_batched_tokens = 8192;
        option.replicas = 2;
        option.devices = 2 * parallelism.devices();
        if (pools) option.disaggregated = serving::DisaggregatedPlan{*pools, 0.0, 0.0, 0.0, "NVLink", ""};
        const auto launch = report::launch_command(option, "deepseek-ai/DeepSeek-V3", {4096, 512, 20.0, std::nullopt, {}, std::nullopt});
        REQUIRE(launch.has_value());
        return *launch;
    };
    // Tensor parallel 8 on one box.
    const auto tp = launch_for("vllm", {8, 1, 1, 1}, std::nullopt);
    CHECK(tp.serve == "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --quantization fp8 --max-num-seqs 256 "
                      "--max-num-batched-tokens 8192");
    CHECK_FALSE(tp.serve_decode.has_value());
    // Experts over 8 devices behind 8 attention replicas of tensor parallel 1: vLLM's data
    // parallelism with expert parallelism; SGLang's 8 devices a stage split into 8 attention replicas.
    const auto ep_vllm = launch_for("vllm", {1, 1, 8, 8}, std::nullopt);
    CHECK(ep_vllm.serve.find("--tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel") != std::string::npos);
    const auto ep_sglang = launch_for("sglang", {1, 1, 8, 8}, std::nullopt);
    CHECK(ep_sglang.serve.find("--tp-size 8 --enable-dp-attention --dp-size 8 --ep-size 8") != std::string::npos);
    // Disaggregated 2P3D: SGLang's roles on its two commands and its router; vLLM's connector on both.
    const auto pd_sglang = launch_for("sglang", {8, 1, 1, 1}, serving::PoolShape{2, 3});
    CHECK(pd_sglang.serve.ends_with("--disaggregation-mode prefill"));
    REQUIRE(pd_sglang.serve_decode.has_value());
    CHECK(pd_sglang.serve_decode->ends_with("--disaggregation-mode decode"));
    REQUIRE(pd_sglang.router.has_value());
    CHECK(pd_sglang.router->starts_with("python -m sglang_router.launch_router --pd-disaggregation"));
    CHECK(std::any_of(pd_sglang.notes.begin(), pd_sglang.notes.end(),
                      [](const std::string& note) { return note.find("2 of them prefill and 3 decode") != std::string::npos; }));
    const auto pd_vllm = launch_for("vllm", {8, 1, 1, 1}, serving::PoolShape{2, 3});
    CHECK(pd_vllm.serve.find(R"(--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}')") !=
          std::string::npos);
    CHECK(pd_vllm.serve_decode == pd_vllm.serve);
}

TEST_CASE("launch flags are runtime-profile data: a build states its own, each read strictly") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    // A newer vLLM whose flags were renamed: the plan's command follows its profile, not code.
    const std::string renamed = testing::write_temp(
        "vllm-renamed.yaml",
        "name: vllm\nversion: \"9.9\"\nbase: vllm@0.8\nsource: \"t\"\nmeasured: false\nmeasurements: \"t\"\n"
        "launch:\n  source: \"t\"\n  serve: \"vllm serve ${model}\"\n  flags:\n"
        "    - {when: always, text: \"--tp ${tp}\"}\n    - {when: expert_parallel, text: \"--ep ${ep}\"}\n"
        "    - {when: always, text: \"--max-seqs ${max_sequences}\"}\n"
        "  verify: \"bench ${model} ${prompt}/${output} ${load}\"\n");
    const auto hardware = catalog.hardware("h200-sxm");
    const auto model = catalog.model("deepseek-v3");
    engine::DeploymentChoice choice;
    choice.runtime = catalog.runtime(renamed);
    choice.weights = core::find_named(core::weight_formats(), "fp8");
    choice.parallelism = {8, 1, 8, 1};
    serving::PlanOption option;
    option.deployment = engine::resolve_deployment(hardware, model, choice);
    option.limits.max_sequences = 64;
    option.replicas = 1;
    const auto launch = report::launch_command(option, "deepseek-ai/DeepSeek-V3", {4096, 512, 20.0, std::nullopt, {}, std::nullopt});
    REQUIRE(launch.has_value());
    CHECK(launch->serve == "vllm serve deepseek-ai/DeepSeek-V3 --tp 8 --ep 8 --max-seqs 64");
    // A rate of 20/s for a minute is 1,200 requests (at least 1,000).
    CHECK(launch->verify == "bench deepseek-ai/DeepSeek-V3 4096/512 --request-rate 20 --num-prompts 1200");
    // Runtimes launched by their own tools state none: no command is made up for them.
    CHECK_FALSE(testing::shipped_runtime("mlx")->launch.has_value());
    CHECK_FALSE(testing::shipped_runtime("exllamav2")->launch.has_value());
    CHECK(testing::shipped_runtime("sglang")->launch.has_value());
    CHECK(testing::shipped_runtime("tensorrt-llm@1.0")->launch.has_value());  // inherited from 0.17, its base
    // profiles show states it, placeholders unfilled, conditional flags with their condition.
    const auto shown = testing::run({"profiles", "show", "sglang"});
    REQUIRE(shown.exit_code == 0);
    CHECK(shown.out.find("launch: python -m sglang.launch_server --model-path ${model}") != std::string::npos);
    CHECK(shown.out.find("[expert_parallel: --ep-size ${ep}]") != std::string::npos);
    CHECK(testing::run({"profiles", "show", "mlx"}).out.find("launch: none stated") != std::string::npos);

    // Bad launch data names its file, line and key.
    const auto messages = [&](const std::string& launch_lines) {
        return testing::error_messages([&] {
            catalog.runtime(testing::write_temp("vllm-bad-launch.yaml",
                                                "name: vllm\nversion: \"9.8\"\nbase: vllm@0.8\nsource: \"t\"\nmeasured: false\n"
                                                "measurements: \"t\"\n" + launch_lines));
        });
    };
    const auto placeholder = messages("launch:\n  source: \"t\"\n  serve: \"vllm serve ${modle}\"\n  verify: \"b\"\n");
    REQUIRE(placeholder.size() == 1);
    CHECK(placeholder[0].find("vllm-bad-launch.yaml:9:") != std::string::npos);
    CHECK(placeholder[0].find("launch.serve") != std::string::npos);
    CHECK(placeholder[0].find("unknown placeholder '${modle}'") != std::string::npos);
    const auto condition = messages("launch:\n  source: \"t\"\n  serve: \"s\"\n  flags:\n    - {when: sometimes, text: \"x\"}\n"
                                    "  verify: \"b\"\n");
    REQUIRE(condition.size() == 1);
    CHECK(condition[0].find("when") != std::string::npos);
    CHECK(condition[0].find("unknown 'sometimes'") != std::string::npos);
    const auto missing = messages("launch:\n  source: \"t\"\n  serve: \"s\"\n");
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].find("verify") != std::string::npos);
    const auto scalar = messages("launch: off\n");
    REQUIRE(scalar.size() == 1);
    CHECK(scalar[0].find("or none") != std::string::npos);
    // An orchestrator without its front end, or named twice, names the key.
    const std::string head = "launch:\n  source: \"t\"\n  serve: \"s\"\n  verify: \"b\"\n  orchestrators:\n";
    const auto no_front = messages(head + "    - {name: dynamo, source: \"t\", serve: \"w ${model}\", verify: \"v\"}\n");
    REQUIRE(no_front.size() == 1);
    CHECK(no_front[0].find("router") != std::string::npos);
    const std::string one = "    - {name: dynamo, source: \"t\", serve: \"w\", router: \"f\", verify: \"v\"}\n";
    const auto twice = messages(head + one + one);
    REQUIRE(twice.size() == 1);
    CHECK(twice[0].find("'dynamo' twice") != std::string::npos);
    const auto bad_flag = messages(head + "    - {name: d, source: \"t\", serve: \"w\", router: \"f\", verify: \"v\", "
                                          "verify_flags: [{when: open_loop, text: \"--rate ${rat}\"}]}\n");
    REQUIRE(bad_flag.size() == 1);
    CHECK(bad_flag[0].find("unknown placeholder '${rat}'") != std::string::npos);
    // A manifest (llm-d's values file) needs the file's name and what installs it; its placeholders
    // are checked like a command's, and it stands in for the worker command.
    const auto no_install = messages(head + "    - {name: m, source: \"t\", manifest: \"a: ${replicas}\", "
                                            "manifest_file: v.yaml, router: \"f\", verify: \"v\"}\n");
    REQUIRE(no_install.size() == 1);
    CHECK(no_install[0].find("install") != std::string::npos);
    const auto bad_manifest = messages(head + "    - {name: m, source: \"t\", manifest: \"a: ${replica}\", "
                                              "manifest_file: v.yaml, install: \"i\", router: \"f\", verify: \"v\"}\n");
    REQUIRE(bad_manifest.size() == 1);
    CHECK(bad_manifest[0].find("manifest") != std::string::npos);
    CHECK(bad_manifest[0].find("unknown placeholder '${replica}'") != std::string::npos);
}

TEST_CASE("plan --emit writes the best option's launch script, its flags the plan's own") {
    // The script's command lines, each continued line joined.
    const auto joined = [](const std::string& script) {
        const std::string continuation = " \\\n    ";
        std::string lines;
        std::size_t from = 0;
        for (std::size_t at = script.find(continuation); at != std::string::npos; at = script.find(continuation, from)) {
            lines += script.substr(from, at - from) + " ";
            from = at + continuation.size();
        }
        return lines + script.substr(from);
    };
    // A tensor-parallel plan: vllm serve with the plan's tp, pp and scheduler limits.
    const auto emitted = run_emit_plan({"--emit", "vllm"});
    REQUIRE(emitted.exit_code == 0);
    const auto plan = nlohmann::json::parse(run_emit_plan({"--runtime", "vllm", "--json"}).out);
    const auto& best = plan["options"][0];
    const std::string script = joined(emitted.out);
    CHECK(script.starts_with("#!/bin/sh\n"));
    std::string serve = "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size " + std::to_string(best["tp"].get<int>());
    if (best["pp"].get<int>() > 1) serve += " --pipeline-parallel-size " + std::to_string(best["pp"].get<int>());
    serve += " --max-num-seqs " + std::to_string(best["scheduler"]["max_sequences"].get<long long>()) +
             " --max-num-batched-tokens " + std::to_string(best["scheduler"]["max_batched_tokens"].get<long long>());
    CHECK(script.find(serve + "\n") != std::string::npos);
    CHECK(script.find("vllm bench serve --backend vllm --model meta-llama/Llama-3.1-70B --dataset-name random "
                      "--random-input-len 2000 --random-output-len 300 --ignore-eos --request-rate 4 --num-prompts 1000") !=
          std::string::npos);
    CHECK(script.find("of requests on target") != std::string::npos);
    // Disaggregated pools under SGLang: each pool's role on its own command, and the router.
    const auto pools = run_emit_plan({"--emit", "sglang", "--disaggregation", "only"});
    REQUIRE(pools.exit_code == 0);
    const std::string pd = joined(pools.out);
    CHECK(pd.find("# each prefill instance\npython -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B") !=
          std::string::npos);
    CHECK(pd.find("--disaggregation-mode prefill\n") != std::string::npos);
    CHECK(pd.find("--disaggregation-mode decode\n") != std::string::npos);
    CHECK(pd.find("sglang_router.launch_router --pd-disaggregation") != std::string::npos);
    // Another runtime beside --emit, or --json, is refused; so is a runtime with no launch data.
    CHECK(run_emit_plan({"--emit", "vllm", "--runtime", "sglang"}).exit_code != 0);
    CHECK(run_emit_plan({"--emit", "vllm", "--json"}).exit_code != 0);
    CHECK(run_emit_plan({"--emit", "mlx"}).exit_code != 0);

    // Under NVIDIA Dynamo: the front end once, each worker `python -m dynamo.vllm` with the same
    // vLLM flags as `vllm serve` above (they pass through), and AIPerf at the planned rate.
    const auto dynamo = run_emit_plan({"--emit", "dynamo"});
    REQUIRE(dynamo.exit_code == 0);
    const std::string under = joined(dynamo.out);
    CHECK(under.find("# the front end, once\npython -m dynamo.frontend --http-port 8000") != std::string::npos);
    std::string worker = serve;
    worker.replace(0, std::string("vllm serve meta-llama/Llama-3.1-70B").size(),
                   "python -m dynamo.vllm --model meta-llama/Llama-3.1-70B --discovery-backend file");
    CHECK(under.find(worker + "\n") != std::string::npos);
    CHECK(under.find("aiperf profile -m meta-llama/Llama-3.1-70B") != std::string::npos);
    CHECK(under.find("--request-count 1000 --request-rate 4\n") != std::string::npos);
    // Disaggregated under Dynamo with SGLang workers: Dynamo's roles and transfer backend, not
    // SGLang's router; a closed loop of users becomes AIPerf's concurrency.
    const auto dynamo_pools = run_emit_plan({"--emit", "dynamo", "--runtime", "sglang", "--disaggregation", "only"});
    REQUIRE(dynamo_pools.exit_code == 0);
    const std::string dpd = joined(dynamo_pools.out);
    CHECK(dpd.find("# each prefill instance\npython -m dynamo.sglang --model-path meta-llama/Llama-3.1-70B --tp-size") !=
          std::string::npos);
    CHECK(dpd.find("--disaggregation-mode decode --disaggregation-transfer-backend nixl\n") != std::string::npos);
    CHECK(dpd.find("sglang_router") == std::string::npos);
    std::vector<std::string> closed = kEmitPlan;
    closed[3] = "--users";
    closed[4] = "20";
    closed.insert(closed.end(), {"--emit", "dynamo"});
    const auto users = testing::run(closed);
    REQUIRE(users.exit_code == 0);
    CHECK(joined(users.out).find("--concurrency 20") != std::string::npos);
    // A runtime without a Dynamo launch in its profile is refused with the reason.
    const auto trt = run_emit_plan({"--emit", "dynamo", "--runtime", "tensorrt-llm"});
    CHECK(trt.exit_code != 0);
    CHECK(trt.err.find("launch.orchestrators") != std::string::npos);
}

TEST_CASE("plan --emit llm-d writes llm-d's Helm values for the plan, its pools and flags the plan's own") {
    // The values file between `cat > values.yaml <<'EOF'` and `EOF`, line by line.
    const auto values_of = [](const std::string& script) {
        const std::string head = "cat > values.yaml <<'EOF'\n";
        const auto from = script.find(head);
        REQUIRE(from != std::string::npos);
        const auto to = script.find("\nEOF\n", from);
        REQUIRE(to != std::string::npos);
        return script.substr(from + head.size(), to - from - head.size() + 1);
    };
    // One pool (tensor parallel, maybe pipeline stages): llm-d-modelservice's decode section holds
    // the replicas and the tensor group, the chart adds --tensor-parallel-size itself, so the args
    // are the plan's other vLLM flags; the GPU count is the instance's devices (tp x pp).
    const auto plan = nlohmann::json::parse(run_emit_plan({"--runtime", "vllm", "--json"}).out)["options"][0];
    const int tp = plan["tp"].get<int>();
    const int pp = plan["pp"].get<int>();
    const auto one_pool = run_emit_plan({"--emit", "llm-d"});
    REQUIRE(one_pool.exit_code == 0);
    const std::string values = values_of(one_pool.out);
    CHECK(values.find("  uri: \"hf://meta-llama/Llama-3.1-70B\"\n") != std::string::npos);
    CHECK(values.find("decode:\n  create: true\n  replicas: " + std::to_string(plan["replicas"].get<int>()) +
                      "\n  parallelism:\n    tensor: " + std::to_string(tp) + "\n") != std::string::npos);
    std::string args = "args: [";
    if (pp > 1) args += "\"--pipeline-parallel-size\", \"" + std::to_string(pp) + "\", ";
    args += "\"--max-num-seqs\", \"" + std::to_string(plan["scheduler"]["max_sequences"].get<long long>()) +
            "\", \"--max-num-batched-tokens\", \"" + std::to_string(plan["scheduler"]["max_batched_tokens"].get<long long>()) +
            "\"]";
    CHECK(values.find(args) != std::string::npos);
    CHECK(values.find("--tensor-parallel-size") == std::string::npos);
    CHECK(values.find("nvidia.com/gpu: \"" + std::to_string(tp * pp) + "\"") != std::string::npos);
    CHECK(values.find("prefill:\n  create: false\n  replicas: 0\n") != std::string::npos);
    CHECK(values.find("    enabled: false\n") != std::string::npos);
    CHECK(one_pool.out.find("helm install ms-decodesim llm-d-modelservice/llm-d-modelservice --version 0.4.9") !=
          std::string::npos);
    CHECK(one_pool.out.find("--base-url http://GATEWAY_IP") != std::string::npos);
    // Disaggregated: the prefill and decode pools' sizes, the routing sidecar on, and vLLM's NIXL
    // connector in both roles' args, the connector's JSON one argument.
    const auto pd_plan = nlohmann::json::parse(run_emit_plan({"--runtime", "vllm", "--disaggregation", "only", "--json"}).out)["options"][0];
    REQUIRE(pd_plan["disaggregated"].get<bool>());
    const auto pools = run_emit_plan({"--emit", "llm-d", "--disaggregation", "only"});
    REQUIRE(pools.exit_code == 0);
    const std::string pd = values_of(pools.out);
    CHECK(pd.find("decode:\n  create: true\n  replicas: " + std::to_string(pd_plan["decode_instances"].get<int>()) + "\n") !=
          std::string::npos);
    CHECK(pd.find("prefill:\n  create: true\n  replicas: " + std::to_string(pd_plan["prefill_instances"].get<int>()) +
                  "\n") != std::string::npos);
    CHECK(pd.find("    enabled: true\n    connector: nixlv2\n") != std::string::npos);
    const std::string connector = R"("--kv-transfer-config", "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}")";
    const auto first = pd.find(connector);
    REQUIRE(first != std::string::npos);
    CHECK(pd.find(connector, first + 1) != std::string::npos);  // in the prefill pool's args too
    // llm-d runs vLLM: SGLang's profile states no llm-d launch, and says so.
    const auto sglang = run_emit_plan({"--emit", "llm-d", "--runtime", "sglang"});
    CHECK(sglang.exit_code != 0);
    CHECK(sglang.err.find("launch.orchestrators") != std::string::npos);
}

TEST_CASE("shell_words and yaml_string_list keep a quoted argument one word") {
    using report::shell_words;
    CHECK(shell_words("--a 1  --b '{\"k\": \"v\"}' \"x y\"") ==
          std::vector<std::string>{"--a", "1", "--b", "{\"k\": \"v\"}", "x y"});
    CHECK(report::yaml_string_list({"--b", "{\"k\":\"v\"}", "a\\b"}) == R"(["--b", "{\"k\":\"v\"}", "a\\b"])");
    CHECK(shell_words("").empty());
}
