// Whole-request admission (SchedulerLimits::reserve_whole_request, TensorRT-LLM's default
// GUARANTEED_NO_EVICT capacity scheduler): a request is admitted only with room in the cache for its
// prompt and its whole output, so nothing admitted is ever preempted; the incremental scheduler
// (vLLM, SGLang) admits on the prompt alone and preempts when the cache runs out.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "serving/scheduler_limits.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

const profiles::Catalog& admission_catalog() {
    static const profiles::Catalog shipped = testing::shipped_catalog();
    return shipped;
}

engine::Evaluator admission_llama_8b() {
    static const testing::Setup llama = testing::setup("h100-sxm", "llama-3.1-8b");
    return llama.realistic();
}

// vLLM's limits with prefix caching off, so that no finished prompt stays in the cache, and the
// admission under test.
serving::SchedulerLimits admission_limits(bool whole_request) {
    serving::SchedulerLimits limits;
    limits.max_sequences = 256;
    limits.max_batched_tokens = 8192;
    limits.block_tokens = 16;
    limits.chunked_prefill = true;
    limits.prefix_caching = false;
    limits.reserve_whole_request = whole_request;
    return limits;
}

// A request of a ninth of the cache's tokens in all, half prompt and half output, in whole blocks:
// the cache holds four whole requests (4 x 2/9 = 8/9 of it) and not five (10/9).
long long admission_half_of_a_ninth(double capacity_tokens) { return static_cast<long long>(capacity_tokens / 9.0 / 16.0) * 16; }

// `clients` clients sending `requests` one after another, each request admitted whole or not.
serving::ServeResult run_admitting(const engine::Evaluator& evaluator, const std::vector<workload::Request>& requests,
                                 long long clients, bool whole_request) {
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{clients, 0.0};
    config.limits = admission_limits(whole_request);
    return serving::simulate_serving(evaluator, requests, config, {});
}

long long most_running_admitted(const serving::ServeResult& result) {
    long long most = 0;
    for (const auto& sample : result.timeline) most = std::max(most, sample.running);
    return most;
}

}  // namespace

TEST_CASE("whole-request admission runs no more requests than the cache holds whole, and preempts none") {
    const engine::Evaluator evaluator = admission_llama_8b();
    const double capacity = serving::kv_capacity_tokens(evaluator);
    const long long half = admission_half_of_a_ninth(capacity);
    REQUIRE(half > 1000);
    // Eight clients at once, each request 2 x half tokens whole: 4 fit (8 half-requests = 8/9 of the
    // cache), a fifth does not (10/9).
    const auto requests = testing::fixed_stream(1.0, half, half, 24);
    const serving::ServeResult whole = run_admitting(evaluator, requests, 8, true);
    CHECK(whole.rejected == 0);
    CHECK(whole.preemptions == 0);
    CHECK(most_running_admitted(whole) == 4);
    // Four reserved requests hold 4 x 2 x half tokens of the cache at most: 8/9 of it.
    CHECK(whole.peak_kv_fraction <= 8.0 * static_cast<double>(half) / capacity + 1e-9);

    // The incremental scheduler admits all eight on their prompts (8 x half = 8/9 of the cache) and,
    // as their outputs grow past what the cache holds, preempts the youngest.
    const serving::ServeResult incremental = run_admitting(evaluator, requests, 8, false);
    CHECK(incremental.rejected == 0);
    CHECK(most_running_admitted(incremental) == 8);
    CHECK(incremental.preemptions > 0);
}

TEST_CASE("whole-request admission refuses a request whose prompt and output the cache cannot hold") {
    const engine::Evaluator evaluator = admission_llama_8b();
    const double capacity = serving::kv_capacity_tokens(evaluator);
    // A prompt of half the cache fits; with an output of another 60% the request does not, so the
    // whole-request scheduler can never start it, where the incremental one starts it and the
    // request alone outgrows the cache.
    const auto prompt = static_cast<long long>(capacity * 0.5 / 16.0) * 16;
    const auto output = static_cast<long long>(capacity * 0.6 / 16.0) * 16;
    const auto requests = testing::fixed_stream(1.0, prompt, output, 1);
    const serving::ServeResult whole = run_admitting(evaluator, requests, 1, true);
    CHECK(whole.rejected == 1);
    CHECK(whole.steps == 0);  // refused at admission: not one pass ran
    // The incremental scheduler prefills it and decodes until the cache is full, then finds it can
    // never finish here.
    const serving::ServeResult incremental = run_admitting(evaluator, requests, 1, false);
    CHECK(incremental.rejected == 1);
    CHECK(incremental.steps > 1000);
}

TEST_CASE("the steady state holds each request's whole cache under whole-request admission") {
    const engine::Evaluator evaluator = admission_llama_8b();
    const double capacity = serving::kv_capacity_tokens(evaluator);
    serving::LoadShape load;
    load.rate_per_s = 0.1;
    load.prompt_tokens = 2000.0;
    load.output_tokens = 2000.0;
    serving::SchedulerLimits limits = admission_limits(true);
    limits.max_sequences = 1'000'000;
    // Memory binds at capacity / (prompt + output) sequences whole: 4,000 tokens each.
    const serving::SteadyState whole = serving::steady_state(evaluator, load, limits);
    CHECK(whole.max_batch == doctest::Approx(capacity / 4000.0).epsilon(0.01).scale(0.0));
    // The incremental scheduler holds a sequence's mean over its decode, the prompt and half the
    // output, about 3,000 tokens: a third more sequences.
    limits.reserve_whole_request = false;
    const serving::SteadyState incremental = serving::steady_state(evaluator, load, limits);
    CHECK(incremental.max_batch == doctest::Approx(capacity / 3000.0).epsilon(0.01).scale(0.0));
}

TEST_CASE("TensorRT-LLM's profiles admit whole requests, vLLM's and SGLang's grow the cache as they decode") {
    const profiles::HardwareProfile& h100 = admission_catalog().hardware("h100-sxm");
    for (const char* trt : {"tensorrt-llm", "tensorrt-llm@0.17"}) {
        CAPTURE(trt);
        CHECK(serving::resolve_scheduler({}, *testing::shipped_runtime(trt), h100, 131072).reserve_whole_request);
    }
    for (const char* other : {"vllm", "sglang"}) {
        CAPTURE(other);
        CHECK_FALSE(serving::resolve_scheduler({}, *testing::shipped_runtime(other), h100, 131072).reserve_whole_request);
    }
    // --admission incremental (MLPerf's 'max_util') replaces the profile's.
    serving::SchedulerChoice incremental;
    incremental.reserve_whole_request = false;
    CHECK_FALSE(serving::resolve_scheduler(incremental, *testing::shipped_runtime("tensorrt-llm"), h100, 131072)
                    .reserve_whole_request);
}

TEST_CASE("a TensorRT-LLM plan's launch carries its chunking and an admission other than the default") {
    // Llama-3.1-8B at 2 requests/s on one H100 under TensorRT-LLM: the default admits whole requests
    // and prefills prompts whole, so the launch needs neither flag nor note.
    const std::vector<std::string> plan{"plan",     "--model",       "llama-3.1-8b", "--hardware", "h100-sxm",
                                        "--runtime", "tensorrt-llm", "--rate",       "2",          "--prompt",
                                        "1000",      "--output",     "200",          "--verify-requests", "0",
                                        "--json"};
    const auto launch_of = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args = plan;
        args.insert(args.end(), extra.begin(), extra.end());
        const testing::CliResult result = testing::run(args);
        REQUIRE_MESSAGE(result.exit_code == 0, result.err);
        const nlohmann::json best = nlohmann::json::parse(result.out)["options"][0];
        std::string notes;
        for (const auto& note : best["launch"]["notes"]) notes += note.get<std::string>() + "\n";
        return std::make_tuple(best["launch"]["serve"].get<std::string>(), notes,
                               best["scheduler"]["admission"].get<std::string>());
    };
    const auto [serve, notes, admission] = launch_of({});
    CHECK(admission == "whole_request");
    CHECK(serve.find("--enable_chunked_prefill") == std::string::npos);
    CHECK(notes.find("MAX_UTILIZATION") == std::string::npos);
    // Chunked and admitting incrementally: trtllm-serve's flag, and the scheduler_config the
    // --extra_llm_api_options file must set.
    const auto [chunked_serve, incremental_notes, incremental] = launch_of({"--chunked-prefill", "--admission", "incremental"});
    CHECK(incremental == "incremental");
    CHECK(chunked_serve.find("--enable_chunked_prefill") != std::string::npos);
    CHECK(incremental_notes.find("capacity_scheduler_policy: MAX_UTILIZATION") != std::string::npos);
}
