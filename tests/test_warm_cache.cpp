// A warm prefix cache (serving::WarmCache, serve --warm-up and --warm-prefix; docs/serving.md "A
// warm cache"): prompts the server saw before the timed run are in its prefix cache when the run
// starts. Checked against the tokens each request finds cached, worked by hand from the prompt,
// the block size and the rule that the prompt's last token is computed again; against the order in
// which a cache too small for them drops them; and against the refusals.

#include <doctest/doctest.h>

#include <cmath>

#include "cli_runner.hpp"
#include "core/error.hpp"
#include "engine/cost_model.hpp"
#include "engine/prediction.hpp"
#include "serving/simulation.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// One client sending `count` requests of `prompt` tokens and 8 output tokens, one after another.
serving::ServeResult one_client(const engine::Evaluator& evaluator, long long prompt, long long count,
                                serving::WarmCache warm) {
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{1, 0.0};
    config.warm = warm;
    return serving::simulate_serving(evaluator, testing::fixed_stream(1.0, prompt, 8, count), config, {});
}

// The server's TTFT of a request alone on the server whose first `cached` tokens are in the cache:
// one pass computing the rest of its prompt.
double alone_ttft(const engine::Evaluator& evaluator, long long prompt, long long cached) {
    const auto shape = engine::prefill_shape(evaluator.cost_model(), 1.0, static_cast<double>(cached),
                                             static_cast<double>(prompt - cached), true);
    return evaluator.step_time(shape).value;
}

// One replica's KV room in tokens of one sequence's cache (16-token blocks).
long long room_in_tokens(const engine::Evaluator& evaluator) {
    const double per_token = evaluator.kv_bytes_per_sequence(16.0).value / 16.0;
    return static_cast<long long>(serving::kv_room(evaluator, 16) / per_token);
}

}  // namespace

TEST_CASE("a client's warm-up leaves its first prompt cached, but for its last token's block") {
    // vLLM's 16-token blocks: of the first 1000-token prompt, sent once before the run, the cache
    // gives back the whole blocks before its last token: floor(999 / 16) x 16 = 992 tokens, so the
    // timed request computes 8. The second request was never sent before: it computes all 1000.
    const auto setup = testing::setup("h100-sxm", "llama-3.1-8b");  // the evaluator reads it: kept alive
    const auto evaluator = setup.realistic();
    const auto result = one_client(evaluator, 1000, 2, {0, 1});
    REQUIRE(result.requests.size() == 2);
    CHECK(result.requests[0].prefix_hit);
    CHECK_FALSE(result.requests[1].prefix_hit);
    CHECK(result.prefix_hits == 1);
    CHECK(result.requests[0].server_ttft() == doctest::Approx(alone_ttft(evaluator, 1000, 992)).epsilon(1e-9));
    CHECK(result.requests[1].server_ttft() == doctest::Approx(alone_ttft(evaluator, 1000, 0)).epsilon(1e-9));
    // The warm request is the faster: 8 tokens against 1000.
    CHECK(result.requests[0].server_ttft() < 0.5 * result.requests[1].server_ttft());
}

TEST_CASE("a sweep's previous run leaves every prompt's first tokens cached, in whole blocks") {
    // Prompts of 2048 tokens after a run at 1000: each finds floor(1000 / 16) x 16 = 992 tokens
    // cached and computes the other 1056; the first, sent whole once more by the client's
    // warm-up, finds 2032 (floor(2047 / 16) x 16) and computes 16.
    const auto setup = testing::setup("h100-sxm", "llama-3.1-8b");  // the evaluator reads it: kept alive
    const auto evaluator = setup.realistic();
    const auto result = one_client(evaluator, 2048, 3, {1000, 1});
    REQUIRE(result.requests.size() == 3);
    CHECK(result.prefix_hits == 3);
    CHECK(result.requests[0].server_ttft() == doctest::Approx(alone_ttft(evaluator, 2048, 2032)).epsilon(1e-9));
    for (std::size_t i = 1; i < 3; ++i) {
        CAPTURE(i);
        CHECK(result.requests[i].server_ttft() == doctest::Approx(alone_ttft(evaluator, 2048, 992)).epsilon(1e-9));
    }
    // Without prefix caching nothing is kept: every request computes its whole prompt.
    serving::ServeConfig uncached;
    uncached.closed_loop = serving::ClosedLoop{1, 0.0};
    uncached.limits.prefix_caching = false;
    uncached.warm = {1000, 1};
    const auto cold = serving::simulate_serving(evaluator, testing::fixed_stream(1.0, 2048, 8, 3), uncached, {});
    CHECK(cold.prefix_hits == 0);
    CHECK(cold.requests[0].server_ttft() == doctest::Approx(alone_ttft(evaluator, 2048, 0)).epsilon(1e-9));
}

TEST_CASE("a cache too small for the previous run drops its oldest prompts, and a sweep then misses them all") {
    // Qwen2.5-72B on two H100s leaves room for a few tens of thousands of tokens. With prompts of
    // 4096 after a run at 3072, n prefixes of 3072 tokens fit when n x 3072 does; the run's first
    // request also needs room for its other 1024 tokens.
    const auto setup = testing::setup("h100-sxm", "qwen2.5-72b", "bf16", "", 2);
    const auto evaluator = setup.realistic();
    const long long room_tokens = room_in_tokens(evaluator);
    const long long fits = room_tokens / 3072;
    REQUIRE(fits >= 3);
    // Room for every prefix and the working request's 1024 more tokens: every request finds its
    // prefix (its own blocks go back when it finishes).
    const long long small = (room_tokens - 1024) / 3072;
    const auto warm_fit = one_client(evaluator, 4096, small, {3072, 0});
    CHECK(warm_fit.prefix_hits == small);
    // One prefix more than fits: the oldest, request 0's, was dropped before the run. Request 0
    // then needs 4096 tokens of room, which drops the next oldest prefixes, request 1's first;
    // each request in turn finds its prefix gone (a scan larger than an LRU cache misses every
    // time), and leaves its own prefix, the newest, behind.
    const auto overflow = one_client(evaluator, 4096, fits + 1, {3072, 0});
    CHECK_FALSE(overflow.requests[0].prefix_hit);
    CHECK(overflow.prefix_hits == 0);
}

TEST_CASE("making room for a request's other tokens drops the oldest prefix it does not read") {
    // As many 2048-token prefixes as the cache holds, request 0's the oldest. Request 0 reads its
    // own and needs room for the rest of a prompt longer than what is left free: the room comes
    // from the oldest prefix no one reads, request 1's, never from the one request 0 is reading.
    const auto setup = testing::setup("h100-sxm", "qwen2.5-72b", "bf16", "", 2);
    const auto evaluator = setup.realistic();
    const long long room_tokens = room_in_tokens(evaluator);
    const long long links = room_tokens / 2048;
    REQUIRE(links >= 3);
    const long long prompt = 2048 + (room_tokens - links * 2048) + 64;  // more than is left free
    const auto result = one_client(evaluator, prompt, links, {2048, 0});
    REQUIRE(result.requests.size() == static_cast<std::size_t>(links));
    CHECK(result.requests[0].prefix_hit);
    CHECK(result.requests[0].server_ttft() == doctest::Approx(alone_ttft(evaluator, prompt, 2048)).epsilon(1e-9));
    CHECK_FALSE(result.requests[1].prefix_hit);
    CHECK(result.requests[1].server_ttft() == doctest::Approx(alone_ttft(evaluator, prompt, 0)).epsilon(1e-9));
}

TEST_CASE("a warm cache is refused where it cannot be placed, naming the flag") {
    const auto setup = testing::setup("h100-sxm", "llama-3.1-8b");  // the evaluator reads it: kept alive
    const auto evaluator = setup.realistic();
    const auto requests = testing::fixed_stream(1.0, 1000, 8, 4);
    serving::ServeConfig two;
    two.replicas = 2;
    two.warm = {500, 0};
    const auto replicas = testing::error_messages([&] { serving::simulate_serving(evaluator, requests, two, {}); });
    REQUIRE(replicas.size() == 1);
    CAPTURE(replicas.front());
    CHECK(replicas.front().find("warm-prefix") != std::string::npos);
    CHECK(replicas.front().find("one colocated replica") != std::string::npos);

    // A stream that names its own shared prefix: which prompts were cached before is its own.
    workload::StreamSpec spec;
    spec.prompt.first = 1000;
    spec.output.first = 8;
    spec.requests = 4;
    spec.prefix_fraction = 1.0;
    spec.prefix_tokens = 200;
    serving::ServeConfig warm_up;
    warm_up.warm = {0, 1};
    const auto shared = testing::error_messages(
        [&] { serving::simulate_serving(evaluator, workload::generate_requests(spec), warm_up, {}); });
    REQUIRE(shared.size() == 1);
    CAPTURE(shared.front());
    CHECK(shared.front().find("warm-up") != std::string::npos);
    CHECK(shared.front().find("prefixes of its own") != std::string::npos);
}

TEST_CASE("serve states a warm cache in its stream line and its JSON conditions") {
    const auto text = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency", "1",
                                    "--prompt", "2048", "--output", "8", "--requests", "3", "--warm-prefix", "1000",
                                    "--warm-up", "1"});
    REQUIRE(text.exit_code == 0);
    // The line wraps at the terminal's width: read it unwrapped.
    std::string unwrapped;
    for (std::size_t i = 0; i < text.out.size(); ++i) {
        if (text.out.compare(i, 5, "\n    ") == 0) {
            unwrapped += ' ';
            i += 4;
        } else {
            unwrapped += text.out[i];
        }
    }
    CHECK(unwrapped.find("warm cache: each prompt's first 1000 tokens, the first prompt whole") != std::string::npos);
    CHECK(unwrapped.find("3 prefix hits") != std::string::npos);
    const auto json = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency", "1",
                                    "--prompt", "2048", "--output", "8", "--requests", "3", "--warm-up", "2", "--json"});
    REQUIRE(json.exit_code == 0);
    const auto document = nlohmann::json::parse(json.out);
    CHECK(document["conditions"]["warm_cache"]["prefix_tokens"] == 0);
    CHECK(document["conditions"]["warm_cache"]["whole_prompts"] == 2);
    // A usage error (exit 2) where the flags cannot go together, before any profile is read.
    for (const std::vector<std::string>& beside : std::vector<std::vector<std::string>>{
             {"--replicas", "2"}, {"--disaggregate", "1P1D"}, {"--turns", "3", "--follow-up", "50"},
             {"--prefix-fraction", "0.5", "--prefix-tokens", "100"}}) {
        std::vector<std::string> args{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--warm-up", "1"};
        args.insert(args.end(), beside.begin(), beside.end());
        const auto refused = testing::run(args);
        CAPTURE(beside.front());
        CHECK(refused.exit_code == 2);
        CHECK(refused.err.find("--warm-up") != std::string::npos);
        CHECK(refused.err.find(beside.front()) != std::string::npos);
    }
}
