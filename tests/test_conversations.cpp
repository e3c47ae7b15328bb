// Multi-turn conversations (serve --turns; docs/serving.md, "Conversations"): each later turn's
// prompt is the conversation so far, sent after the previous reply and a think time, and it starts
// with the cache the previous turn left: its prompt and its reply.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "core/error.hpp"
#include "serving/served_stream.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "test_support.hpp"
#include "workload/request_stream.hpp"

using namespace decodesim;

namespace {

// Conversations of `turns` turns: a first prompt of 100 tokens, replies of 50, 20 tokens added at
// each later turn, `think` seconds between a reply and the next turn; `count` requests in all.
workload::StreamSpec talk_spec(long long turns, long long count, double think) {
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = 1.0;
    spec.prompt.first = 100.0;
    spec.output.first = 50.0;
    spec.requests = count;
    workload::Conversations talk;
    talk.turns.first = static_cast<double>(turns);
    talk.follow_up.first = 20.0;
    talk.think_time_s = think;
    spec.conversations = talk;
    return spec;
}

workload::Request lone_request(double arrival, long long prompt, long long output) {
    workload::Request request;
    request.arrival_s = arrival;
    request.prompt_tokens = prompt;
    request.output_tokens = output;
    return request;
}

}  // namespace

TEST_CASE("a conversation's turns grow by the reply and the user's message and name their blocks by position") {
    // Turns of 3, 7 requests: conversations 0 and 1 whole, conversation 2 cut after its first turn.
    // Prompts 100, 100 + 50 + 20 = 170, 170 + 50 + 20 = 240, each named by its conversation's chain
    // in 16-token blocks (what a turn finds of the one before is the next test's).
    const auto requests = workload::generate_requests(talk_spec(3, 7, 2.0));
    REQUIRE(requests.size() == 7);
    const std::vector<long long> prompts{100, 170, 240, 100, 170, 240, 100};
    const std::vector<long long> follows{-1, 0, 1, -1, 3, 4, -1};
    for (std::size_t i = 0; i < requests.size(); ++i) {
        CAPTURE(i);
        CHECK(requests[i].prompt_tokens == prompts[i]);
        CHECK(requests[i].output_tokens == 50);
        CHECK(requests[i].follows == follows[i]);
        CHECK(requests[i].think_s == (follows[i] >= 0 ? 2.0 : 0.0));
        CHECK(requests[i].block_tokens == 16);
    }
    // One chain a conversation, named by its base: a turn's chain starts with the previous turn's.
    CHECK(requests[0].chain_base >= 0);
    CHECK(requests[1].chain_base == requests[0].chain_base);
    CHECK(requests[2].chain_base == requests[0].chain_base);
    CHECK(requests[3].chain_base != requests[0].chain_base);
    CHECK(requests[0].block_ids.empty());
    // Conversations start at the stream's rate over the mean turns: about 1/3 per second; the later
    // turns' arrivals are set as the conversation runs.
    CHECK(requests[3].arrival_s > requests[0].arrival_s);
}

TEST_CASE("a conversation stops at the turn that would pass the model's context") {
    // A 400-token context: turn 1 takes 150 tokens, turn 2 220, turn 3 (240 + 50 = 290) fits, turn 4
    // (310 + 50 = 360) fits, turn 5 (380 + 50 = 430) would not: each conversation has 4 turns.
    auto spec = talk_spec(6, 8, 0.0);
    spec.max_context = 400;
    const auto requests = workload::generate_requests(spec);
    REQUIRE(requests.size() == 8);
    CHECK(requests[3].prompt_tokens == 310);
    CHECK(requests[4].follows == -1);
    CHECK(requests[4].prompt_tokens == 100);
}

TEST_CASE("a later turn is sent after the reply and a think time and reads the previous turn's prompt and reply from the cache") {
    // One conversation of two turns, alone on the server. Turn 2 (170 tokens) finds 144 tokens in
    // the cache: turn 1's 6 prompt blocks and the 3 blocks its reply completed. It prefills the
    // other 26 tokens in one pass over 144 cached, and is sent 2 s after the client has turn 1's
    // last token.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto requests = workload::generate_requests(talk_spec(2, 2, 2.0));
    const auto result = serving::simulate_serving(evaluator, requests, {}, {});
    REQUIRE(result.requests.size() == 2);
    const auto& first = result.requests[0];
    const auto& second = result.requests[1];
    CHECK(second.request.arrival_s == doctest::Approx(first.finish_s + first.delivery_s + 2.0).epsilon(1e-12));
    CHECK(result.prefix_hits == 1);
    CHECK(second.prefix_hit);
    const double chunk = evaluator.step_time(engine::prefill_shape(evaluator.cost_model(), 1.0, 144.0, 26.0)).value;
    CHECK(second.server_ttft() == doctest::Approx(chunk).epsilon(1e-9));
    // Without prefix caching the whole 170-token prompt is prefilled.
    serving::ServeConfig uncached;
    uncached.limits.prefix_caching = false;
    const auto cold = serving::simulate_serving(evaluator, requests, uncached, {});
    CHECK(cold.requests[1].server_ttft() == doctest::Approx(evaluator.prefill(1.0, 170.0).time.value).epsilon(1e-9));
    CHECK(chunk < cold.requests[1].server_ttft());
}

TEST_CASE("in a closed loop a client finishes its conversation before it starts the next") {
    // One client, conversations of two turns: it sends turn 2 of a conversation 2 s after turn 1's
    // reply (the turn's think time), then the next conversation 0.5 s after turn 2's (the loop's).
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    serving::ServeConfig config;
    config.closed_loop = serving::ClosedLoop{1, 0.5};
    const auto result = serving::simulate_serving(evaluator, workload::generate_requests(talk_spec(2, 6, 2.0)), config, {});
    REQUIRE(result.requests.size() == 6);
    CHECK(result.requests[0].request.arrival_s == 0.0);
    for (std::size_t i = 1; i < 6; ++i) {
        CAPTURE(i);
        const auto& before = result.requests[i - 1];
        const double think = i % 2 == 1 ? 2.0 : 0.5;
        CHECK(result.requests[i].request.arrival_s ==
              doctest::Approx(before.finish_s + before.delivery_s + think).epsilon(1e-12));
    }
    CHECK(result.prefix_hits == 3);
}

TEST_CASE("a later turn goes to the replica that served the turn before it, not the least loaded one") {
    // Two replicas. A (turn 1, 2 tokens out) goes to replica 0 and B (long) to replica 1; A finishes
    // at once. D and E arrive at 1 s: D to replica 0 (empty), E to replica 0 too (1 each, ties go to
    // the lowest index). A's second turn, sent 2 s after A's reply, finds replica 0 with two
    // requests and replica 1 with one, and still goes to replica 0, where its cache is.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    workload::Request a = lone_request(0.0, 100, 2);
    a.block_ids = {1, 2, 3, 4, 5, 6};
    a.block_tokens = 16;
    workload::Request a_next = lone_request(0.0, 130, 10);
    a_next.block_ids = {1, 2, 3, 4, 5, 6, 7, 8};
    a_next.block_tokens = 16;
    a_next.follows = 0;
    a_next.think_s = 2.0;
    const std::vector<workload::Request> requests{a, lone_request(0.0, 100, 3000), a_next, lone_request(1.0, 100, 3000),
                                                  lone_request(1.0, 100, 3000)};
    serving::ServeConfig config;
    config.replicas = 2;
    const auto result = serving::simulate_serving(evaluator, requests, config, {});
    CHECK(result.requests[0].replica == 0);
    CHECK(result.requests[1].replica == 1);
    CHECK(result.requests[3].replica == 0);
    CHECK(result.requests[4].replica == 0);
    CHECK(result.requests[2].request.arrival_s > 1.0);
    CHECK(result.requests[2].replica == 0);
    CHECK(result.requests[2].prefix_hit);
}

TEST_CASE("a turn that follows a later request, or a turn with two next turns, is refused") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    std::vector<workload::Request> forward{lone_request(0.0, 100, 10), lone_request(0.0, 100, 10)};
    forward[0].follows = 1;
    CHECK_THROWS_AS(serving::simulate_serving(evaluator, forward, {}, {}), core::InputError);
    std::vector<workload::Request> forked{lone_request(0.0, 100, 10), lone_request(0.0, 100, 10), lone_request(0.0, 100, 10)};
    forked[1].follows = 0;
    forked[2].follows = 0;
    CHECK_THROWS_AS(serving::simulate_serving(evaluator, forked, {}, {}), core::InputError);
}

TEST_CASE("serve --turns simulates conversations, and refuses what they cannot mean") {
    // 40 requests in conversations of 4 turns: 10 conversations, whose 30 later turns each find the
    // conversation's start in the cache (4,000 tokens at most fit the model's context many times).
    const auto ok = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2",
                                  "--requests", "40", "--prompt", "1000", "--output", "200", "--turns", "4",
                                  "--follow-up", "100", "--think-time", "3", "--json"});
    REQUIRE(ok.exit_code == 0);
    const auto document = nlohmann::json::parse(ok.out);
    CHECK(document["prefix_hits"] == 30);
    CHECK(document["conditions"]["arrivals"].get<std::string>().find("conversations of 4 turns 3 s apart") == 0);
    // The same conversations, each opening with one shared 500-token system prompt: every request but
    // the very first finds something in the cache, 39.
    const auto shared = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2",
                                      "--requests", "40", "--prompt", "1000", "--output", "200", "--turns", "4",
                                      "--follow-up", "100", "--prefix-fraction", "1", "--prefix-tokens", "500", "--json"});
    REQUIRE(shared.exit_code == 0);
    CHECK(nlohmann::json::parse(shared.out)["prefix_hits"] == 39);
    const auto no_follow_up = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--turns", "4"});
    CHECK(no_follow_up.exit_code == 2);
    CHECK(no_follow_up.err.find("--follow-up") != std::string::npos);
    const auto follow_up_alone =
        testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--follow-up", "100"});
    CHECK(follow_up_alone.exit_code == 2);
    CHECK(follow_up_alone.err.find("--follow-up has no effect") != std::string::npos);
    const auto pools = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--turns", "4",
                                     "--follow-up", "100", "--disaggregate", "1P1D"});
    CHECK(pools.exit_code == 2);
    const auto zero = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--turns", "0",
                                    "--follow-up", "100"});
    CHECK(zero.exit_code == 2);
    CHECK(zero.err.find("(turns)") != std::string::npos);
}

TEST_CASE("the steady state computes only a prompt's uncached tokens, after the cached ones") {
    // At a vanishing rate the pass that carries a prompt is that prompt's prefill alone: with 1,500
    // of 2,000 tokens in the cache, a 500-token chunk after 1,500 cached, as the simulation prices a
    // hit (test "a shared prefix is prefilled once and then skipped").
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    serving::LoadShape load{1e-6, 2000.0, 200.0, 1.0, 1500.0};
    CHECK(load.computed_prompt_tokens() == 500.0);
    const auto cached = serving::steady_state(evaluator, load, {});
    const double chunk = evaluator.step_time(engine::prefill_shape(evaluator.cost_model(), 1.0, 1500.0, 500.0)).value;
    CHECK(cached.prompt_step_s == doctest::Approx(chunk).epsilon(0.01).scale(0.0));
    load.cached_prompt_tokens = 0.0;
    CHECK(serving::steady_state(evaluator, load, {}).prompt_step_s > 2.0 * cached.prompt_step_s);
}

TEST_CASE("the steady state agrees with the simulation on conversations") {
    // Conversations of 4 turns (1,000 tokens first, 100 more a turn, replies of 200, 5 s apart) at
    // a quarter and half of saturation: the mean batch and TPOT within 10%, the mean TTFT within
    // 35%, as for independent requests (test "the analytic steady state agrees with the
    // simulation where its assumptions hold").
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    workload::StreamSpec spec;
    spec.prompt.first = 1000.0;
    spec.output.first = 200.0;
    spec.requests = 4000;
    spec.conversations = workload::Conversations{};
    spec.conversations->turns.first = 4.0;
    spec.conversations->follow_up.first = 100.0;
    spec.conversations->think_time_s = 5.0;
    workload::ResolvedWorkload lengths;
    lengths.prompt = spec.prompt;
    lengths.output = spec.output;
    spec.arrivals.rate_per_s = 1.0;
    const serving::LoadShape shape = serving::generated_stream(lengths, spec, std::nullopt).load;
    serving::LoadShape at_one = shape;
    const double capacity = serving::steady_state(evaluator, at_one, {}).saturation_rate_per_s;
    for (double share : {0.25, 0.5}) {
        CAPTURE(share);
        spec.arrivals.rate_per_s = share * capacity;
        const serving::ServedStream stream = serving::generated_stream(lengths, spec, std::nullopt);
        const auto analytic = serving::steady_state(evaluator, stream.load, {});
        const auto simulated = serving::simulate_serving(evaluator, stream.requests, {}, {});
        REQUIRE(analytic.stable);
        CHECK(analytic.batch == doctest::Approx(simulated.mean_running_batch).epsilon(0.10).scale(0.0));
        CHECK(analytic.tpot_s.mean == doctest::Approx(simulated.tpot_s.mean).epsilon(0.10).scale(0.0));
        CHECK(analytic.ttft_s.mean == doctest::Approx(simulated.ttft_s.mean).epsilon(0.35).scale(0.0));
    }
}

TEST_CASE("plan --turns plans for conversations, and serve at the planned replicas meets the targets") {
    // plan = serve for conversations: the verification runs the stream serve --turns generates
    // with the same flags, count and seed, so serve at the planned replicas meets the targets for
    // at least 99% of requests.
    const std::vector<std::string> load{"--rate", "30", "--prompt", "1000", "--output", "200", "--turns", "4",
                                        "--follow-up", "100", "--think-time", "5"};
    std::vector<std::string> plan_args{"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--ttft-p99", "1",
                                       "--tpot-p99", "0.05", "--json"};
    plan_args.insert(plan_args.end(), load.begin(), load.end());
    const auto planned = testing::run(plan_args);
    REQUIRE(planned.exit_code == 0);
    const auto plan = nlohmann::json::parse(planned.out);
    REQUIRE(!plan["options"].empty());
    const int replicas = plan["options"][0]["replicas"].get<int>();
    // Turns 2 to 4 find the turn before in the cache: 1,184, 1,488 and 1,792 tokens (the previous
    // prompt and its reply but the last token, in whole 16-token blocks), over 4 requests: 1,116.
    CHECK(plan["conditions"]["conversations"]["turns"] == "4");
    CHECK(plan["conditions"]["conversations"]["cached_prompt_tokens"].get<double>() == doctest::Approx(1116.0));
    std::vector<std::string> serve_args{"serve", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--replicas",
                                        std::to_string(replicas), "--requests", "2000", "--seed", "1", "--ttft-slo", "1",
                                        "--tpot-slo", "0.05", "--json"};
    serve_args.insert(serve_args.end(), load.begin(), load.end());
    const auto served = testing::run(serve_args);
    REQUIRE(served.exit_code == 0);
    CHECK(nlohmann::json::parse(served.out)["goodput"]["fraction"].get<double>() >= 0.99);
    // The same mean prompt without the reuse needs at least as many replicas.
    const auto cold = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--ttft-p99", "1",
                                    "--tpot-p99", "0.05", "--rate", "30", "--prompt", "1450", "--output", "200", "--json"});
    REQUIRE(cold.exit_code == 0);
    CHECK(nlohmann::json::parse(cold.out)["options"][0]["replicas"].get<int>() >= replicas);
    const auto no_follow_up = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "3", "--turns", "4"});
    CHECK(no_follow_up.exit_code == 2);
    CHECK(no_follow_up.err.find("--follow-up") != std::string::npos);
    const auto alone = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "3", "--follow-up", "50"});
    CHECK(alone.exit_code == 2);
}
