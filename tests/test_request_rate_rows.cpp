// Measurements taken at a request rate (qps=R in the conditions column): read from it, replayed
// through the serving simulation, and summarised apart from the rows at a stated concurrency.
// Checked where the answer is known by hand: requests too sparse to overlap are single requests,
// and below saturation a server delivers what is offered.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "fit/accuracy_run.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// Llama-3.1-8B bf16 on an H100 SXM under the ideal runtime: each decode step streams
// 2 x (8,030,261,248 - 525,336,576) = 15,009,849,344 B of weights (the input embedding table is
// gathered, not streamed), so at 3.35 TB/s a step takes 15.01e9 / 3.35e12 = 4.481 ms. A cached
// token adds 131,072 B read (0.001% of the step per token): at 16 to 80 tokens of context, 0.07%
// at most. A 16-token prompt is memory-bound too (16 x 16 GFLOP = 0.26 ms at 989 TFLOPS against
// the 4.48 ms stream), so its prefill, which yields the first token, also takes 4.48 ms.
constexpr double kStepSeconds = 15009849344.0 / 3.35e12;

profiles::Measurement served_row(std::string id, profiles::Metric metric, double rate, long long requests) {
    auto m = testing::h100_llama8b_row(std::move(id), metric, 1.0);
    m.prompt = 16.0;
    m.output = 65.0;
    m.request_rate = rate;
    m.requests = requests;
    return m;
}

fit::AccuracyResult evaluate_ideal(const std::vector<profiles::Measurement>& rows) {
    const auto catalog = testing::shipped_catalog();
    const fit::ProfileLookup lookup{[&](const std::string& id) { return catalog.hardware(id); },
                                          [&](const std::string& id) { return catalog.model(id); },
                                          [&](const std::string& id) { return catalog.runtime(id); }};
    fit::AccuracySettings settings;
    settings.runtime = testing::shipped_runtime("ideal");
    return fit::evaluate_accuracy(rows, lookup, settings);
}

}  // namespace

TEST_CASE("a request rate, a request count and the statistic are read from a row's conditions") {
    const std::string file = testing::write_temp(
        "decodesim_request_rate_rows.csv",
        testing::kMeasurementHeader +
            "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.6,,1024,128,,decode_tokens_per_s_total,291,src,qps=2.82,"
            "'the server can sustain 2.82 requests per second'\n"
            "b,h100-sxm,llama-3.1-8b,bf16,,sglang,sglang,,1024,1024,,ttft_s,0.5,src,qps=4; requests=1200; latency=median,"
            "1200 prompts; median values\n"
            "c,h100-sxm,llama-3.1-8b,bf16,,tensorrt-llm,tensorrt-llm@0.17,,467,256,,tpot_s,0.02,src,"
            "requests=500; qps=16; latency=mean; lengths=fixed,500 requests; mean values\n"
            "d,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.6,1,1024,128,,tpot_s,0.02,src,,QPS=2; 500 requests; median\n");
    const auto rows = profiles::load_measurements(file);
    REQUIRE(rows.size() == 4);
    REQUIRE(rows[0].request_rate.has_value());
    CHECK(*rows[0].request_rate == doctest::Approx(2.82));
    CHECK_FALSE(rows[0].requests.has_value());  // "2.82 requests per second" is a rate, not a count
    CHECK(*rows[1].request_rate == doctest::Approx(4.0));
    CHECK(rows[1].requests == 1200);
    CHECK(rows[1].median_latency);
    CHECK_FALSE(rows[1].fixed_lengths);
    CHECK(*rows[2].request_rate == doctest::Approx(16.0));
    CHECK(rows[2].requests == 500);
    CHECK_FALSE(rows[2].median_latency);
    CHECK(rows[2].fixed_lengths);
    CHECK_FALSE(rows[3].request_rate.has_value());  // the notes are free text, never read
    CHECK_FALSE(rows[3].requests.has_value());
    CHECK_FALSE(rows[3].median_latency);
    CHECK(profiles::metric_label(rows[0]) == "decode_tokens_per_s_total_at_request_rate");
    CHECK(profiles::metric_label(rows[3]) == "tpot_s");

    for (const char* conditions : {"qps=", "qps=0", "qps=fast", "qps=1e-3", "qps=2.5.1"}) {
        CAPTURE(conditions);
        const std::string wrong = testing::write_temp(
            "decodesim_request_rate_bad.csv", testing::kMeasurementHeader +
                                                  "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.6,,1024,128,,ttft_s,0.5,src," +
                                                  conditions + ",\n");
        const auto problems = testing::error_messages([&] { profiles::load_measurements(wrong); });
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find(":2:15: error: conditions:") != std::string::npos);
        CHECK(problems[0].find("qps=") != std::string::npos);
    }
    // A count or a statistic describes a replayed run: without its qps= or arrivals=closed it is an error.
    for (const char* conditions : {"requests=500", "latency=median"}) {
        CAPTURE(conditions);
        const std::string wrong = testing::write_temp(
            "decodesim_request_rate_bad.csv", testing::kMeasurementHeader +
                                                  "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.6,1,1024,128,,ttft_s,0.5,src," +
                                                  conditions + ",\n");
        const auto problems = testing::error_messages([&] { profiles::load_measurements(wrong); });
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find("describes a replayed serving run: state its 'qps=' or 'arrivals=closed' too") != std::string::npos);
    }
}

TEST_CASE("a request-rate row asking for more than can be replayed is refused, as is one that cannot be served") {
    const std::string many = testing::write_temp(
        "decodesim_request_rate_many.csv", testing::kMeasurementHeader +
                                               "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.6,,1024,128,,ttft_s,0.5,src,"
                                               "qps=2; requests=5000000,\n");
    const auto problems = testing::error_messages([&] { profiles::load_measurements(many); });
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find(":2:15: error: conditions:") != std::string::npos);
    CHECK(problems[0].find("at most 100000") != std::string::npos);

    // A 1,000,000-token prompt fits neither Llama-3.1-8B's 131,072-token context nor an H100's
    // KV room (131,072 B a token: 131 GB): the row is skipped with a reason, never a NaN.
    auto huge = served_row("huge", profiles::Metric::ttft_s, 1.0, 10);
    huge.prompt = 1e6;
    const auto result = evaluate_ideal({huge});
    REQUIRE(result.rows.size() == 1);
    CHECK_FALSE(result.rows[0].skipped.empty());
}

TEST_CASE("requests too sparse to overlap are single requests") {
    // 0.01 requests a second: a request lasts 0.29 s, the mean gap is 100 s, so none overlap and
    // each runs alone: its first token after one 16-token prefill (4.48 ms), then 64 steps at
    // batch 1 (4.48 ms each), 65 x 4.48 = 291 ms in all.
    const auto result = evaluate_ideal({served_row("ttft", profiles::Metric::ttft_s, 0.01, 20),
                                        served_row("tpot", profiles::Metric::tpot_s, 0.01, 20),
                                        served_row("e2e", profiles::Metric::e2e_latency_s, 0.01, 20)});
    REQUIRE(result.rows.size() == 3);
    for (const auto& row : result.rows) REQUIRE(row.skipped.empty());
    CHECK(result.rows[0].predicted == doctest::Approx(kStepSeconds).epsilon(0.02).scale(0.0));
    CHECK(result.rows[1].predicted == doctest::Approx(kStepSeconds).epsilon(0.005).scale(0.0));
    CHECK(result.rows[2].predicted == doctest::Approx(65.0 * kStepSeconds).epsilon(0.01).scale(0.0));
}

TEST_CASE("below saturation a server delivers the offered output tokens") {
    // 2 requests a second of 65 output tokens offer 130 tokens/s; one H100 serves Llama-3.1-8B far
    // faster than that, so the run's output rate is 1000 x 65 tokens over the arrival window of
    // 999 Poisson gaps (499.5 s expected, standard deviation sqrt(999) / 2 = 15.8 s, 3.2%) plus the
    // last request's 0.29 s: 130 tokens/s within 8% (2.5 standard deviations).
    const auto result = evaluate_ideal({served_row("out", profiles::Metric::decode_tokens_per_s_total, 2.0, 1000)});
    REQUIRE(result.rows.size() == 1);
    REQUIRE(result.rows[0].skipped.empty());
    CHECK(result.rows[0].predicted == doctest::Approx(130.0).epsilon(0.08).scale(0.0));

    // The replay is one draw of 1,000 Poisson arrivals and the measured run another: a row at the
    // offered 130 tokens/s is no evidence against the bound (within 3 / sqrt(1000) = 9.5% of the
    // replay), while 200 tokens/s, 54% above what was offered, is.
    auto offered = served_row("offered", profiles::Metric::decode_tokens_per_s_total, 2.0, 1000);
    offered.value = 130.0;
    auto impossible = served_row("impossible", profiles::Metric::decode_tokens_per_s_total, 2.0, 1000);
    impossible.value = 200.0;
    const auto judged = evaluate_ideal({offered, impossible});
    REQUIRE(judged.rows.size() == 2);
    CHECK_FALSE(judged.rows[0].beats_bound);
    CHECK(judged.rows[1].beats_bound);
}

TEST_CASE("a request-rate row says why it cannot be replayed") {
    auto no_lengths = served_row("sharegpt", profiles::Metric::ttft_s, 4.0, 1200);
    no_lengths.prompt.reset();  // lengths drawn from a dataset the row does not restate
    auto prefill = served_row("prefill", profiles::Metric::prefill_tokens_per_s, 4.0, 1200);
    CHECK(fit::unsupported_reason(no_lengths).find("fixed prompt and output lengths") != std::string::npos);
    CHECK(fit::unsupported_reason(prefill).find("prefill in a serving run") != std::string::npos);
    // 1,000 requests of 1,024 + 120,000 tokens: 1.21e8 tokens to simulate, over the 5e7 bound.
    auto long_run = served_row("long", profiles::Metric::tpot_s, 1.0, 1000);
    long_run.prompt = 1024.0;
    long_run.output = 120000.0;
    CHECK(fit::unsupported_reason(long_run).find("1.21e+08 tokens") != std::string::npos);
}

TEST_CASE("a closed-loop row is read from its conditions and replayed: one client's figures are one request's own") {
    // arrivals=closed with the batch column as the clients, a request count and the median.
    const std::string good = testing::write_temp(
        "decodesim_closed_loop.csv", testing::kMeasurementHeader +
                                         "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.8,1,1000,200,,ttft_s,0.5,src,"
                                         "arrivals=closed; requests=20; latency=median,\n");
    const auto rows = profiles::load_measurements(good);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].closed_loop);
    CHECK_FALSE(rows[0].staggered_arrivals);
    CHECK(rows[0].requests == 20);
    CHECK(rows[0].median_latency);
    CHECK(profiles::metric_label(rows[0]) == "ttft_s_in_closed_loop");

    // Each malformed combination is one error on the conditions cell.
    for (const std::string& bad : {std::string(",,ttft_s,0.5,src,arrivals=closed,"),             // no clients
                                   std::string("1,1000,200,,ttft_s,0.5,src,arrivals=closed; qps=2,"),  // open and closed
                                   std::string("1,1000,200,,ttft_s,0.5,src,arrivals=sometimes,")}) {
        CAPTURE(bad);
        const std::string line = bad.front() == ',' ? "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.8,,1000,200" + bad
                                                    : "a,h100-sxm,llama-3.1-8b,bf16,,vllm,vllm@0.8," + bad;
        const std::string path = testing::write_temp("decodesim_closed_loop_bad.csv", testing::kMeasurementHeader + line + "\n");
        const auto problems = testing::error_messages([&] { profiles::load_measurements(path); });
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find(":2:") != std::string::npos);
        CHECK(problems[0].find("arrivals") != std::string::npos);
    }

    // One client, no think time, requests of 1000 + 200 tokens: each request is alone on the server
    // (the pinned vLLM build states no request path), so the replayed TTFT is one request's prefill
    // and its TPOT the batch-1 decode step over its contexts: predict's figures for one stream.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto alone = s.realistic().predict(engine::Workload::request(1.0, 1000.0, 200.0));
    profiles::Measurement row = rows[0];
    row.sustained_clocks = true;
    const double ttft = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(ttft == doctest::Approx(alone.ttft.value).epsilon(1e-9));
    row.metric = profiles::Metric::tpot_s;
    const double tpot = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(tpot == doctest::Approx(alone.request->time_per_output_token.value).epsilon(1e-9));
}

TEST_CASE("a replayed row sends the lengths its run listed, in order") {
    // One client, no think time: each listed request is alone on the server (the pinned vLLM build
    // states no request path), so the run's mean TTFT is the mean of predict's TTFT for each
    // request's own lengths, and its output rate their output tokens over the sum of their times.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const std::vector<std::pair<long long, long long>> listed{{1000, 200}, {300, 50}, {4000, 20}};
    double ttft_sum = 0.0, seconds = 0.0, tokens = 0.0;
    for (const auto& [prompt, output] : listed) {
        const auto alone = s.realistic().predict(
            engine::Workload::request(1.0, static_cast<double>(prompt), static_cast<double>(output)));
        ttft_sum += alone.ttft.value;
        seconds += alone.ttft.value + (static_cast<double>(output) - 1.0) * alone.request->time_per_output_token.value;
        tokens += static_cast<double>(output);
    }
    profiles::Measurement row;
    row.hardware = "h100-sxm";
    row.model = "llama-3.1-8b";
    row.weights = "bf16";
    row.batch = 1.0;
    row.prompt = 1767.0;  // the means, which the listed lengths replace
    row.output = 90.0;
    row.closed_loop = true;
    row.sustained_clocks = true;
    row.request_lengths = listed;
    row.metric = profiles::Metric::ttft_s;
    const double ttft = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(ttft == doctest::Approx(ttft_sum / 3.0).epsilon(1e-9));
    row.metric = profiles::Metric::decode_tokens_per_s_total;
    const double rate = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(rate == doctest::Approx(tokens / seconds).epsilon(1e-6));
    // At the means alone the TTFT is one 1767-token prefill's, not the listed prompts' mean TTFT.
    row.request_lengths.clear();
    row.metric = profiles::Metric::ttft_s;
    const double at_means = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(at_means == doctest::Approx(s.realistic().predict(engine::Workload::request(1.0, 1767.0, 90.0)).ttft.value).epsilon(1e-9));
}

TEST_CASE("a replayed run on a dataset interleaves its prompts with the decodes, where fixed lengths move in step") {
    // 64 SGLang clients, 297 tokens in and 192 out on average. At fixed lengths the clients prefill
    // together and decode together: about one prompt pass a wave. With a dataset's lengths they end
    // apart, so over a request's 192 tokens the other 63 clients each send a prompt, whose pass runs
    // alone (SGLang's prompts take passes of their own) and eagerly: at least 32 layers x 14 ops x
    // 45 us = 20 ms of dispatch each, 63 x 20 / 192 = 6.6 ms a token on a decode step of about
    // 10 ms. So the mean TPOT must rise by well over a quarter; by hand, by about 60%.
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "sglang");
    profiles::Measurement row;
    row.hardware = "h100-sxm";
    row.model = "llama-3.1-8b";
    row.weights = "bf16";
    row.batch = 64.0;
    row.prompt = 297.0;
    row.output = 192.0;
    row.closed_loop = true;
    row.requests = 1000;
    row.sustained_clocks = true;
    row.metric = profiles::Metric::tpot_s;
    const double in_step = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    row.dataset_lengths = true;
    const double apart = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(apart > 1.25 * in_step);
    // Lengths drawn uniformly over a range about the same means (SGLang's random dataset) scatter
    // the clients the same way.
    row.dataset_lengths = false;
    row.prompt_range = std::pair{1.0, 593.0};
    row.output_range = std::pair{1.0, 383.0};
    const double ranged = fit::predict_measurement(row, s.model, s.hardware, s.deployment, s.deployment.runtime_profile());
    CHECK(ranged > 1.25 * in_step);
}

