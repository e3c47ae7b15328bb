// Speculative decoding under load in `serve`: each pass verifies k drafts per decoding sequence
// and keeps a random accepted prefix. A lone request's TPOT against the engine's draft and
// verification times, the edge acceptances 0 and 1 exactly, the law of large numbers on the
// tokens per verification, the KV room the draft takes, the analytic steady state, and the CLI.

#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include "engine/memory.hpp"
#include "engine/speculative.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

using testing::fixed_stream;

// Llama-3.1-8B on one h100-sxm, drafted by Llama-3.2-1B (same 128,256-token vocabulary). The
// evaluator points into the operating point, so the two live together and never move.
struct Speculating {
    engine::OperatingPoint point;
    engine::Evaluator evaluator;

    explicit Speculating(engine::OperatingPoint resolved) : point(std::move(resolved)), evaluator(point) {}
};

std::unique_ptr<Speculating> speculating(int length, double acceptance, const std::string& draft = "llama-3.2-1b",
                                         const std::string& runtime = "vllm") {
    const auto catalog = testing::shipped_catalog();
    engine::DeploymentChoice choice;
    choice.runtime = testing::test_runtime(runtime);
    choice.speculation = {length, acceptance, false};
    return std::make_unique<Speculating>(engine::resolve_operating_point(
        catalog.hardware("h100-sxm"), catalog.model("llama-3.1-8b"), choice, engine::Workload::request(1.0, 1000.0, 200.0),
        catalog.model(draft)));
}

// E = (1 - a^(k+1)) / (1 - a).
double expected_tokens(int length, double acceptance) {
    return (1.0 - std::pow(acceptance, length + 1.0)) / (1.0 - acceptance);
}

}  // namespace

TEST_CASE("speculation at a trickle: a lone request's TPOT is (draft + verify) / E") {
    // Requests 1000 s apart (each takes about 2 s): every request is alone, batch 1. Its passes
    // after the prefill each cost the draft's 4 decode steps plus one verification of 5 positions,
    // and yield E tokens on average: k = 4, a = 0.7, E = (1 - 0.7^5) / 0.3 = 0.83193 / 0.3 =
    // 2.7731. The engine prices one such pass at the request's mean context (prompt 1000 plus
    // half the 400-token output, (1001 + 1399) / 2 = 1200). On the H100 under the default preset
    // (2.747 TB/s achievable for weights and KV alike, 7 us per kernel):
    //   draft step, Llama-3.2-1B bf16: 131 kernels x 7 us + 2.4716e9 B of weights / 2.747e12 +
    //     1200 x 32,768 B of KV / 2.747e12 = 0.917 + 0.900 + 0.014 = 1.831 ms; four: 7.324 ms;
    //   verification, Llama-3.1-8B bf16, 5 positions: 259 x 7 us + 15.01e9 / 2.747e12 +
    //     1200 x 131,072 / 2.747e12 = 1.813 + 5.464 + 0.057 = 7.334 ms (plus the 5 positions'
    //     activations, under 0.5%);
    // so TPOT = (7.324 + 7.334) / 2.7731 = 5.286 ms. The step time is affine in the context, so
    // the mean over the passes is the step at the mean context.
    // Sampling: T (tokens per pass) has Var(T) = 10.1119 - 2.7731^2 = 2.42, so one request's
    // TPOT spreads by sqrt(2.42 / (399 x 2.7731)) = 4.7%, the mean of 200 by 0.33%. The output's
    // end cuts the last pass short: a request needs n / E + (E[T^2] + E) / (2 E^2) = n / E + 0.84
    // passes (renewal theory), +0.6% on 144 passes. 3% covers both.
    const auto s = speculating(4, 0.7);
    const double e = expected_tokens(4, 0.7);
    CHECK(e == doctest::Approx(2.7731).epsilon(1e-4).scale(0.0));
    const auto prediction = s->evaluator.predict(engine::Workload::request(1.0, 1000.0, 400.0));
    REQUIRE(prediction.speculative.has_value());
    const engine::SpeculativeResult& pass = *prediction.speculative;
    CHECK(pass.step_time.value == doctest::Approx(pass.draft_time.value + pass.verify_time.value));
    CHECK(pass.verify_time.value == doctest::Approx(7.334e-3).epsilon(5e-3).scale(0.0));
    CHECK(pass.draft_time.value == doctest::Approx(7.324e-3).epsilon(2e-3).scale(0.0));
    const double tpot = pass.step_time.value / e;
    CHECK(tpot == doctest::Approx(5.286e-3).epsilon(5e-3).scale(0.0));

    const auto result = serving::simulate_serving(s->evaluator, fixed_stream(0.001, 1000, 400, 200, 3), {}, {});
    REQUIRE(result.speculation.has_value());
    CHECK(result.mean_running_batch < 0.01);
    CHECK(result.tpot_s.mean == doctest::Approx(tpot).epsilon(0.03).scale(0.0));
    // TTFT is the prefill alone: speculation starts with the first decode pass.
    CHECK(result.ttft_s.p50 == doctest::Approx(prediction.ttft.value).epsilon(1e-9));
    // Against plain decoding on the same devices: fewer passes, each dearer.
    const auto plain_setup = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto plain = plain_setup.realistic();
    const auto without = serving::simulate_serving(plain, fixed_stream(0.001, 1000, 400, 200, 3), {}, {});
    CHECK(result.tpot_s.mean < without.tpot_s.mean);
    CHECK(result.tpot_s.mean * pass.speedup == doctest::Approx(without.tpot_s.mean).epsilon(0.03).scale(0.0));

    // The analytic steady state at the same trickle: TPOT = step / E, the same figure.
    const serving::SteadyState state = serving::steady_state(s->evaluator, {0.001, 1000.0, 400.0, 1.0}, {});
    REQUIRE(state.stable);
    CHECK(state.tpot_s.mean == doctest::Approx(tpot).epsilon(0.01).scale(0.0));
}

TEST_CASE("acceptance 0: one token per verification, each pass costing the draft and the verification") {
    // No draft is ever accepted, so each pass yields the model's own token only: a lone request of
    // prompt P = 1000 and output N = 100 decodes its N - 1 = 99 tokens in 99 passes, the i-th
    // (i = 0 .. 98) verifying 5 positions after P + i cached tokens and drafting 4 steps from
    // there. TPOT = sum_i (verify(P + i) + draft(P + i)) / 99, exactly, from the engine's calls.
    const auto s = speculating(4, 0.0);
    const engine::CostModel& cost = s->evaluator.cost_model();
    double passes = 0.0;
    for (int i = 0; i < 99; ++i) {
        const double context = 1000.0 + i;
        passes += s->evaluator.step_time(engine::verification_shape(cost, 4, 1.0, context)).value +
                  engine::draft_round_time(s->evaluator, s->evaluator.draft(), 4, 1.0, context).value;
    }
    const auto result = serving::simulate_serving(s->evaluator, fixed_stream(0.001, 1000, 100, 10, 5), {}, {});
    REQUIRE(result.speculation.has_value());
    CHECK(result.speculation->mean_tokens_per_verification == 1.0);
    CHECK(result.speculation->verifications == 10 * 99);
    CHECK(result.speculation->expected_tokens_per_verification == 1.0);
    CHECK(result.tpot_s.p50 == doctest::Approx(passes / 99.0).epsilon(1e-9));
    CHECK(result.tpot_s.max == doctest::Approx(passes / 99.0).epsilon(1e-9));
    // The drafter's share of the passes is its 4 steps over the whole: between 0 and 1.
    CHECK(result.speculation->draft_time_fraction > 0.1);
    CHECK(result.speculation->draft_time_fraction < 0.9);
}

TEST_CASE("a runtime's host work a speculative round adds to every round: predict, serve and the steady state") {
    // A build on vLLM's kernels whose rounds each spend 2 ms on the host between the passes, not
    // overlapped (as SGLang's speculation without its overlap scheduler, runtime_profiles/sglang.yaml
    // `speculation:`), against the same build without. At acceptance 0 each pass yields one token,
    // so a lone request's 99 decode passes each cost 2 ms more and its TPOT is 2 ms longer, exactly;
    // so is the steady state's at a trickle (E = 1), and predict's round.
    const std::string host = testing::runtime_with_section("speculation-host.yaml", "speculation", "  round_host_time: 2 ms\n");
    const auto with = speculating(4, 0.0, "llama-3.2-1b", host);
    const auto without = speculating(4, 0.0, "llama-3.2-1b", "vllm@0.8");
    const auto predicted = with->evaluator.predict(engine::Workload::request(1.0, 1000.0, 100.0));
    const auto plain = without->evaluator.predict(engine::Workload::request(1.0, 1000.0, 100.0));
    REQUIRE(predicted.speculative.has_value());
    REQUIRE(plain.speculative.has_value());
    CHECK(predicted.speculative->host_time.value == doctest::Approx(2e-3).epsilon(1e-12));
    CHECK(plain.speculative->host_time.value == 0.0);
    CHECK(predicted.speculative->step_time.value ==
          doctest::Approx(plain.speculative->step_time.value + 2e-3).epsilon(1e-12));

    const auto stream = fixed_stream(0.001, 1000, 100, 10, 5);
    const auto served = serving::simulate_serving(with->evaluator, stream, {}, {});
    const auto served_plain = serving::simulate_serving(without->evaluator, stream, {}, {});
    CHECK(served.tpot_s.p50 == doctest::Approx(served_plain.tpot_s.p50 + 2e-3).epsilon(1e-9));
    // The host work is no draft: the drafter's share of the busy time falls.
    CHECK(served.speculation->draft_time_fraction < served_plain.speculation->draft_time_fraction);

    const serving::SteadyState state = serving::steady_state(with->evaluator, {0.001, 1000.0, 100.0, 1.0}, {});
    const serving::SteadyState state_plain = serving::steady_state(without->evaluator, {0.001, 1000.0, 100.0, 1.0}, {});
    REQUIRE(state.stable);
    REQUIRE(state_plain.stable);
    CHECK(state.tpot_s.mean == doctest::Approx(state_plain.tpot_s.mean + 2e-3).epsilon(1e-6));

    // A negative time and a missing one name their key.
    for (const std::string& lines : {std::string("  round_host_time: -1 ms\n"), std::string("  other: 1\n")}) {
        const auto messages = testing::error_messages([&] {
            testing::shipped_catalog().runtime(testing::runtime_with_section("speculation-bad.yaml", "speculation", lines));
        });
        REQUIRE_FALSE(messages.empty());
        CHECK(messages[0].find("round_host_time") != std::string::npos);
    }
}

TEST_CASE("acceptance 1: k + 1 tokens per verification until the output's end") {
    // Every draft is accepted: each pass yields all 4 drafts and the model's own token, 5. An
    // output of N = 203 tokens has 202 after the first: 40 passes of 5 (200 tokens) and a 41st
    // cut to the 2 left, never past the end. Mean per verification 202 / 41 = 4.9268.
    const auto s = speculating(4, 1.0);
    const auto result = serving::simulate_serving(s->evaluator, fixed_stream(0.001, 500, 203, 8, 2), {}, {});
    REQUIRE(result.speculation.has_value());
    CHECK(result.speculation->expected_tokens_per_verification == 5.0);
    CHECK(result.speculation->verifications == 8 * 41);
    CHECK(result.speculation->mean_tokens_per_verification == doctest::Approx(202.0 / 41.0).epsilon(1e-12));
    CHECK(result.rejected == 0);
    for (const auto& record : result.requests) CHECK(record.finish_s > record.first_token_s);
}

TEST_CASE("over a long run the tokens per verification average to E, and a seed gives the same run") {
    // k = 3, a = 0.6: E = (1 - 0.6^4) / 0.4 = 0.8704 / 0.4 = 2.176. 400 requests of 1000 output
    // tokens at 10/s are about 400 x 999 / 2.176 = 184,000 verifications; the per-verification
    // spread (Var(T) = 6.0064 - 2.176^2 = 1.271) makes the mean's standard error
    // sqrt(1.271 / 184,000) = 0.0026, 0.1% of E; the cut last pass of each output costs under
    // 1 / 459 = 0.2%. So 3% is a safe bound, and the run is at load (batches of several).
    const auto s = speculating(3, 0.6);
    const double e = expected_tokens(3, 0.6);
    CHECK(e == doctest::Approx(2.176));
    const auto requests = fixed_stream(10.0, 500, 1000, 400, 11);
    serving::ServeConfig config;
    config.seed = 42;
    const auto result = serving::simulate_serving(s->evaluator, requests, config, {});
    REQUIRE(result.speculation.has_value());
    CHECK(result.mean_running_batch > 2.0);
    CHECK(result.speculation->verifications > 150000);
    CHECK(result.speculation->mean_tokens_per_verification == doctest::Approx(e).epsilon(0.03).scale(0.0));
    CHECK(result.speculation->mean_tokens_per_verification < e);
    // The same seed, the same run; another seed, other draws.
    const auto again = serving::simulate_serving(s->evaluator, requests, config, {});
    CHECK(again.tpot_s.p99 == result.tpot_s.p99);
    CHECK(again.speculation->verifications == result.speculation->verifications);
    config.seed = 43;
    const auto other = serving::simulate_serving(s->evaluator, requests, config, {});
    CHECK(other.speculation->verifications != result.speculation->verifications);
}

TEST_CASE("the draft model's weights and cache take their share of the KV room") {
    // Capacity in tokens = (usable - target weights - draft weights) / (target + draft KV per
    // token), the footprint the engine reports with the draft (engine::with_draft).
    const auto s = speculating(4, 0.7);
    const auto& hardware = s->point.hardware;
    const engine::MemoryFootprint target = engine::memory_footprint(s->evaluator.cost_model(), hardware, 1.0, 1.0);
    const engine::MemoryFootprint draft = engine::memory_footprint(s->evaluator.draft()->cost_model(), hardware, 1.0, 1.0);
    const double room = (target.usable - target.weights - draft.weights).value;
    const double per_token = (s->evaluator.cost_model().kv_bytes_per_sequence(1.0) +
                              s->evaluator.draft()->cost_model().kv_bytes_per_sequence(1.0))
                                 .value;
    const auto result = serving::simulate_serving(s->evaluator, fixed_stream(1.0, 100, 10, 3), {}, {});
    CHECK(result.kv_capacity_tokens == doctest::Approx(room / per_token).epsilon(1e-12));
    const auto plain_setup = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto plain = plain_setup.realistic();
    CHECK(result.kv_capacity_tokens < serving::simulate_serving(plain, fixed_stream(1.0, 100, 10, 3), {}, {}).kv_capacity_tokens);
}

TEST_CASE("serve --draft reports the speculation, and refuses a draft of another vocabulary") {
    const auto run = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--draft", "llama-3.2-1b",
                                   "--acceptance", "0.7", "--rate", "2", "--requests", "50", "--json"});
    REQUIRE(run.exit_code == 0);
    const auto document = nlohmann::json::parse(run.out);
    const auto& speculation = document.at("speculation");
    CHECK(speculation.at("draft") == "llama-3.2-1b");
    CHECK(speculation.at("length") == 4);
    CHECK(speculation.at("acceptance") == 0.7);
    CHECK(speculation.at("expected_tokens_per_verification").get<double>() == doctest::Approx(2.7731).epsilon(1e-4).scale(0.0));
    CHECK(speculation.at("mean_tokens_per_verification").get<double>() > 1.0);
    CHECK(speculation.at("verifications").get<long long>() > 0);

    const auto text = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--draft",
                                    "llama-3.2-1b", "--acceptance", "0.7", "--rate", "2", "--requests", "50"});
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find("speculation   draft llama-3.2-1b, 4 draft tokens per verification, acceptance 0.7: ") !=
          std::string::npos);

    // Under SGLang a speculating server runs 48 requests at once unless told (its server_args.py);
    // the run states the limit it used, and --max-seqs still sets it.
    const auto sglang_limit = [](const std::vector<std::string>& extra) {
        std::vector<std::string> args{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", "sglang",
                                      "--draft", "llama-3.2-1b", "--acceptance", "0.7", "--rate", "2", "--requests", "20",
                                      "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto result = testing::run(args);
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["conditions"]["scheduler"]["max_sequences"].get<long long>();
    };
    CHECK(sglang_limit({}) == 48);
    CHECK(sglang_limit({"--max-seqs", "100"}) == 100);

    // Mistral-7B's 32,000-token vocabulary against Llama-3.1-8B's 128,256: the engine's message.
    const auto refused = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--draft",
                                       "mistral-7b", "--acceptance", "0.7", "--requests", "10"});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("a draft must share the model's tokenizer") != std::string::npos);
    CHECK(refused.err.find("does not simulate speculative decoding") == std::string::npos);
}

TEST_CASE("--accept-length states the acceptance as serving logs print it: the mean tokens a verification yields") {
    // SGLang's sgl-cookbook DeepSeek-V3 run on eight MI300X prints "Accept length: 2.61" for MTP
    // with 3 draft tokens a step. E(a) = 1 + a + a^2 + a^3 = 2.61 at a = 0.71960: 1 + 0.71960 +
    // 0.51782 + 0.37263 = 2.61005, and at 0.7195 the sum is 2.60971, below 2.61.
    const auto acceptance = engine::acceptance_for_tokens_per_verification(3, 2.61);
    REQUIRE(acceptance.has_value());
    CHECK(*acceptance == doctest::Approx(0.71960).epsilon(2e-5).scale(0.0));
    // The two ends: 1 token a step is a = 0, k + 1 tokens is a = 1; outside them, none.
    CHECK(engine::acceptance_for_tokens_per_verification(4, 1.0).value() == doctest::Approx(0.0).epsilon(1e-9).scale(1.0));
    CHECK(engine::acceptance_for_tokens_per_verification(4, 5.0).value() == doctest::Approx(1.0).epsilon(1e-9));
    CHECK_FALSE(engine::acceptance_for_tokens_per_verification(4, 5.5).has_value());
    CHECK_FALSE(engine::acceptance_for_tokens_per_verification(4, 0.9).has_value());

    // The command line: the same prediction as --acceptance at that value, stated in its conditions.
    const auto predict = [](const std::vector<std::string>& speculation) {
        std::vector<std::string> args{"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--draft",
                                      "llama-3.2-1b", "--spec-length", "3", "--batch", "4", "--json"};
        args.insert(args.end(), speculation.begin(), speculation.end());
        return testing::run(args);
    };
    const auto by_length = predict({"--accept-length", "2.61"});
    REQUIRE(by_length.exit_code == 0);
    const auto by_rate = predict({"--acceptance", fmt::format("{:.17g}", *acceptance)});
    REQUIRE(by_rate.exit_code == 0);
    const auto length_json = nlohmann::json::parse(by_length.out);
    const auto rate_json = nlohmann::json::parse(by_rate.out);
    CHECK(length_json["conditions"]["speculation"]["acceptance"].get<double>() == doctest::Approx(0.71960).epsilon(2e-5).scale(0.0));
    CHECK(length_json["decode"]["tokens_per_s_per_stream"].get<double>() ==
          doctest::Approx(rate_json["decode"]["tokens_per_s_per_stream"].get<double>()).epsilon(1e-12));

    // A length no verification of 3 drafts can yield, both flags at once, and no draft: usage errors.
    const auto beyond = predict({"--accept-length", "4.5"});
    CHECK(beyond.exit_code == 2);
    CHECK(beyond.err.find("--accept-length") != std::string::npos);
    CHECK(beyond.err.find("yields 1 to 4 tokens") != std::string::npos);
    CHECK(predict({"--accept-length", "2.61", "--acceptance", "0.7"}).exit_code == 2);
    const auto no_draft = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--accept-length", "2"});
    CHECK(no_draft.exit_code == 2);
    CHECK(no_draft.err.find("--draft") != std::string::npos);
}
