// The users' questions: what-ifs, the concurrency curve, claim checks and comparisons, with
// expected values derived by hand in the comments.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "explore/claim_check.hpp"
#include "explore/compare.hpp"
#include "explore/concurrency_curve.hpp"
#include "explore/context_series.hpp"
#include "explore/what_if.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {
// Llama-3.1-8B bf16: every weight but the input embedding table is streamed each step:
// 2 x (8,030,261,248 - 525,336,576) = 15,009,849,344 B.
constexpr double kStreamedWeights = 15009849344.0;
constexpr double kKvPerToken = 131072.0;
// Kernels per step: 32 layers x (qkv, attention, kv write, output, 2 MLP, 2 norms) + final norm,
// embedding, lm_head = 259; at the default (vllm) preset's 7 us each on HBM, fitted on
// single-stream rows (docs/model.md, "Runtime presets").
constexpr double kOverhead = 259 * 7e-6;
// The same preset streams the KV cache at the full achievable bandwidth (its fit keeps the default:
// too few long-context rows to read another value off, docs/validation.md).
constexpr double kAttentionBandwidth = 1.0;
}  // namespace

TEST_CASE("bandwidth-bound point: 2x bandwidth helps, 2x FLOPS does nothing") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto explanation = explore::explain(s.point(engine::Workload::step(1, 1024)));
    // Memory time: weights / (3.35 TB/s x 0.82 achievable) = 5.464 ms, plus 1024 tokens of KV
    // (134.2 MB) at the same rate = 0.049 ms: 5.513 ms; the fixed overhead 1.813 ms does not scale.
    // 2x bandwidth: (5.513 + 1.813) / (2.756 + 1.813) = 1.603. Memory is 5.513 / 7.326 = 75% of the step.
    const double memory = (kStreamedWeights + 1024 * kKvPerToken / kAttentionBandwidth) / (3.35e12 * 0.82);
    CHECK(explanation.what_if.bandwidth_x2 == doctest::Approx((memory + kOverhead) / (memory / 2 + kOverhead)).epsilon(0.005).scale(0.0));
    CHECK(explanation.what_if.flops_x2 == doctest::Approx(1.0).epsilon(1e-3).scale(0.0));
    CHECK(explanation.what_if.capacity_x2 == 1.0);      // batch 1 fits: capacity does not count
    CHECK(explanation.what_if.interconnect_x2 == 1.0);  // no tensor parallelism
    CHECK(explanation.prediction.decode.memory_fraction == doctest::Approx(0.753).epsilon(0.01).scale(0.0));
}

TEST_CASE("a long prompt: 2x FLOPS does nothing for decode and halves the wait for the first token") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto explanation = explore::explain(s.point(engine::Workload::request(1, 8000, 200)));
    // The prompt: 8,000 tokens x 2 FLOPs x 7.5e9 weights = 120 TFLOP (and the attention's
    // 2 x 2 x 32 layers x 4,096 x 8,000^2 / 2 = 16.8 TFLOP), at 0.86 x 0.8 x 989.4 TFLOPS: about
    // 0.2 s of compute, against 15 GB of weights read once (5.5 ms): compute-bound, so twice the
    // FLOPS leaves little more than half the time (the fixed overheads and the weight reads stay).
    CHECK(explanation.prediction.prefill.bound == engine::Bound::compute);
    CHECK(explanation.what_if.flops_x2_ttft > 0.5);
    CHECK(explanation.what_if.flops_x2_ttft < 0.56);
    CHECK(explanation.what_if.bandwidth_x2_ttft > 0.95);  // bandwidth barely moves it
    // Decode stays bandwidth-bound: 2x FLOPS leaves its tokens/s, 2x bandwidth raises it.
    CHECK(explanation.what_if.flops_x2 == doctest::Approx(1.0).epsilon(1e-3).scale(0.0));
    CHECK(explanation.what_if.bandwidth_x2 > 1.5);
    // The whole request (first token, then 199 decode steps of about 7.6 ms, 1.5 s) is mostly
    // decode: 2x bandwidth shortens it far more than 2x FLOPS.
    CHECK(explanation.what_if.bandwidth_x2_request < explanation.what_if.flops_x2_request);
    CHECK(explanation.what_if.flops_x2_request < 1.0);
}

TEST_CASE("beyond the knee: 2x FLOPS helps, 2x bandwidth much less") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto explanation = explore::explain(s.point(engine::Workload::step(1024, 128)));
    // 1024 tokens x 2 FLOPs x 7.5e9 weights = 15.4 TFLOP at 0.8 x 989.4 TFLOPS = 19.4 ms of compute
    // against 5.5 ms to stream the weights; the KV reads (1024 x 128 x 131,072 B = 17.2 GB, 6.2 ms)
    // stay memory-bound. Doubling FLOPS saves ~9.7 of ~27 ms (+55%); doubling bandwidth ~3 ms (+13%).
    CHECK(explanation.what_if.flops_x2 > 1.4);
    CHECK(explanation.what_if.bandwidth_x2 < 1.2);
    CHECK(explanation.prediction.decode.compute_fraction > 0.5);
    // The knee at 128 tokens: intensity B x 2 x 7.5e9 / (15.0e9 + B x 16.8 MB) reaches 989.4/3.35 = 295
    // FLOP/byte near B = 530.
    REQUIRE(explanation.compute_bound_batch.has_value());
    CHECK(*explanation.compute_bound_batch == doctest::Approx(530).epsilon(0.02).scale(0.0));
}

TEST_CASE("capacity counts only when memory caps the batch") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    // 8192-token sequences: 57 fit ((0.9 x 80 GiB - 16.06e9) / (8192 x 131072) = (77.31e9 - 16.06e9)
    // / 1.074e9 = 57.04); asking for 200 is capped.
    const auto explanation = explore::explain(s.point(engine::Workload::step(200, 8192)));
    CHECK(explanation.capped_by_memory);
    CHECK(explanation.effective_batch == 57.0);
    // Twice the capacity: (2 x 77.31e9 - 16.06e9) / 1.074e9 = 138.56e9 / 1.074e9 = 129.04: 129
    // sequences. Each step streams the weights and 1.074 GB of KV per sequence at 2.747 TB/s, plus
    // the fixed overhead:
    // 57 streams: 15.01e9 / 2.747e12 + 57 x 1.074e9 / 2.747e12 + 1.813 ms = 29.56 ms -> 1928 tokens/s;
    // 129 streams: 5.46 ms + 129 x 1.074e9 / 2.747e12 + 1.813 ms = 57.72 ms -> 2235 tokens/s: x1.159.
    CHECK(*explanation.max_batch_with_capacity_x2 == 129);
    const double sequence = 8192 * kKvPerToken, bandwidth = 3.35e12 * 0.82;
    const double today = 57 / ((kStreamedWeights + 57 * sequence / kAttentionBandwidth) / bandwidth + kOverhead);
    const double doubled = 129 / ((kStreamedWeights + 129 * sequence / kAttentionBandwidth) / bandwidth + kOverhead);
    CHECK(explanation.what_if.capacity_x2 == doctest::Approx(doubled / today).epsilon(0.01).scale(0.0));
}

TEST_CASE("the curve: total rises and per-stream falls with concurrency, up to the memory wall") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto evaluator = s.realistic();
    const auto curve = explore::concurrency_curve(evaluator, engine::Workload::step(1, 8192), {});
    CHECK(curve.max_batch == 57);  // (0.9 x 80 GiB - 16.06e9) / (8192 x 131,072 B) = 57.04 (test_engine_physics.cpp)
    CHECK(curve.max_batch == evaluator.predict(engine::Workload::step(1, 8192)).memory.max_batch);
    REQUIRE(curve.points.size() == 57);
    for (std::size_t i = 1; i < curve.points.size(); ++i) {
        CHECK(curve.points[i].tokens_per_s_total > curve.points[i - 1].tokens_per_s_total);
        CHECK(curve.points[i].tokens_per_s_per_stream <= curve.points[i - 1].tokens_per_s_per_stream);
        CHECK(curve.points[i].fits);
    }
    // Past the wall, points are marked as not fitting.
    explore::CurveOptions past;
    past.last_batch = 60;
    const auto extended = explore::concurrency_curve(evaluator, engine::Workload::step(1, 8192), past);
    CHECK(extended.points[56].fits);        // batch 57, the wall
    CHECK_FALSE(extended.points[57].fits);  // batch 58
}

TEST_CASE("500 tokens/s per stream for Llama-3.1-70B bf16 on one H100 is impossible") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-70b");
    explore::Claim claim;
    claim.tokens_per_s = 500;
    claim.per_stream = true;
    claim.weights_stated = true;
    const auto check = explore::check_claim(s.point(), claim);
    // Bound: 3.35e12 B/s over the streamed weights, 2 x (70.55e9 - 128256 x 8192) = 139.0 GB: 24.1 tokens/s.
    const double streamed = 2.0 * (70553706496.0 - 128256.0 * 8192.0);
    CHECK(check.bound_tokens_per_s == doctest::Approx(3.35e12 / (streamed + 1024 * 327680.0)).epsilon(0.01).scale(0.0));
    CHECK(check.verdict == explore::Verdict::impossible);
    CHECK_FALSE(check.speculative_decoding_could_explain);  // 500 / 24 = 21x, far past EAGLE-2's 4.26x
}

TEST_CASE("a total claim that batching explains names the smallest batch") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    explore::Claim claim;
    claim.tokens_per_s = 3000;
    claim.per_stream = false;
    const auto check = explore::check_claim(s.point(), claim);
    CHECK(check.verdict == explore::Verdict::needs_conditions);
    // Bound at batch B and 1024 tokens: B x 3.35e12 / (15.01e9 + B x 134.35e6) >= 3000
    // <=> B >= 3000 x 15.01e9 / (3.35e12 - 3000 x 134.35e6) = 15.3, so 16 streams.
    REQUIRE(check.min_batch.has_value());
    CHECK(*check.min_batch == 16);
    CHECK(*check.min_batch_fits);
}

TEST_CASE("claims within the bound are plausible, or conservative well below the prediction") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    explore::Claim claim;
    claim.per_stream = true;
    claim.tokens_per_s = 150;  // bound 221, prediction 153
    CHECK(explore::check_claim(s.point(), claim).verdict == explore::Verdict::plausible);
    claim.tokens_per_s = 50;
    CHECK(explore::check_claim(s.point(), claim).verdict == explore::Verdict::conservative);
    // 400 per stream at batch 1: 1.8x the bound, which speculative decoding or fp8 weights could explain.
    claim.tokens_per_s = 400;
    const auto check = explore::check_claim(s.point(), claim);
    CHECK(check.verdict == explore::Verdict::needs_conditions);
    CHECK(check.speculative_decoding_could_explain);
    CHECK(check.precision_needed.has_value());
}

TEST_CASE("check-claim exit codes and JSON") {
    const auto impossible = testing::run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--weights",
                                          "bf16", "--tokens-per-s", "500", "--per", "stream", "--json"});
    CHECK(impossible.exit_code == 4);
    const auto json = nlohmann::json::parse(impossible.out);
    CHECK(json["verdict"] == "impossible");
    for (const char* key : {"bound_tokens_per_s", "predicted_tokens_per_s", "implied_bandwidth_utilization"}) {
        CHECK(json.contains(key));
    }
    const auto batching = testing::run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                        "--tokens-per-s", "3000", "--per", "total", "--json"});
    CHECK(batching.exit_code == 5);
    CHECK(nlohmann::json::parse(batching.out)["min_batch"] == 16);
    CHECK(testing::run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tokens-per-s", "150",
                        "--per", "stream"})
              .exit_code == 0);
}

TEST_CASE("compare ranks devices and prices tokens") {
    const auto catalog = testing::shipped_catalog();
    const auto model = catalog.model("llama-3.1-8b");
    auto priced_h100 = catalog.hardware("h100-sxm");
    priced_h100.price_per_hour = 2.0;  // as --price h100-sxm=2.0 sets it
    std::vector<explore::Candidate> candidates{{catalog.hardware("rtx-4090"), 1, nullptr}, {priced_h100, 1, nullptr}};
    explore::CompareOptions options;
    options.workload = engine::Workload::step(1, 2048);
    engine::DeploymentChoice vllm;
    vllm.runtime = testing::test_runtime("vllm");
    const auto rows = explore::compare(model, vllm, candidates, options,
                                         explore::CompareOrder::total);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].hardware == "h100-sxm");  // 3.35 TB/s and 80 GB beat 1 TB/s and 24 GB on total
    const auto& h100 = rows[0];
    // USD per million tokens = price x devices / (tokens/s x 3600) x 1e6; tokens per joule = tokens/s / watts.
    CHECK(*h100.usd_per_million_tokens == doctest::Approx(2.0 / (h100.tokens_per_s_total * 3600.0) * 1e6));
    CHECK(*h100.tokens_per_joule == doctest::Approx(h100.tokens_per_s_total / 700.0));
    CHECK(h100.throughput_batch == h100.max_batch);
    // With a per-stream target, the batch shrinks to keep every stream at that speed.
    options.target_tokens_per_s_per_stream = 100.0;
    const auto targeted = explore::compare(model, vllm, candidates, options,
                                             explore::CompareOrder::total);
    int quoted = 0;
    for (const auto& row : targeted) {
        CAPTURE(row.hardware);
        if (row.throughput_batch == 0) continue;
        ++quoted;
        CHECK(row.tokens_per_s_total / static_cast<double>(row.throughput_batch) >= 100.0);
    }
    // The H100 (about 150 tok/s per stream at batch 1 here) meets the target at some batch.
    CHECK(quoted >= 1);
}

TEST_CASE("the context series slows every stream as the KV cache grows, down to the bandwidth it needs") {
    const auto s = testing::setup("h200-sxm", "llama-3.1-8b");
    const auto series = explore::context_series(s.realistic(), 16.0, 131072.0);
    REQUIRE(series.contexts.size() >= 40);  // 128 to 131072 at 4 per octave: 41 points
    CHECK(series.contexts.front() == 128.0);
    for (std::size_t i = 1; i < series.contexts.size(); ++i) {
        CHECK(series.tokens_per_s_per_stream[i] <= series.tokens_per_s_per_stream[i - 1]);
        CHECK(series.tokens_per_s_total[i] == doctest::Approx(16.0 * series.tokens_per_s_per_stream[i]));
    }
    // At the last context each step reads 16 x c x 131,072 B of KV cache at the default preset's
    // 0.82 x 4.8 TB/s (docs/model.md): a ceiling on tokens/s per stream.
    const double context = series.contexts.back();
    const double kv_seconds = 16.0 * context * 131072.0 / (kAttentionBandwidth * 0.82 * 4.8e12);
    CHECK(series.tokens_per_s_per_stream.back() < 1.0 / kv_seconds);
    CHECK(series.tokens_per_s_per_stream.back() > 0.5 / kv_seconds);  // and the KV reads are most of the step
}
