// Rules that belong to a runtime or to a measurement's stated conditions rather than to the
// kernels: how each runtime sizes its KV cache (engine::KvCacheSizing), which rows a fit may read
// (speculative runs never; the attention bandwidth only from long contexts), and what a runtime
// pays per kernel on a multi-die package.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/memory.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/runtime_fields.hpp"
#include "engine/operating_point.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "fit/calibration.hpp"
#include "serving/scheduler_limits.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// `decodesim accuracy FILE`'s prediction for each row of FILE, by the row's id.
std::map<std::string, double> accuracy_predictions(const std::string& path) {
    const auto result = testing::run({"accuracy", path, "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    std::map<std::string, double> predicted;
    for (const auto& row : document["rows"]) predicted[row["id"].get<std::string>()] = row["predicted"].get<double>();
    return predicted;
}

nlohmann::json predict_json(const std::string& runtime) {
    const auto result = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--weights", "fp8",
                                      "--kv", "fp8", "--runtime", runtime, "--prompt", "128", "--output", "128", "--json"});
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out);
}

// Single-stream decode rows of Llama-3.1-8B (bf16) under llama.cpp on a unified-memory device
// (strix-halo unless named), valued by a preset whose every factor is at the measured defaults
// except the unified-memory attention bandwidth and cross-die cost, at the contexts given.
struct SyntheticRows {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    std::vector<profiles::Measurement> rows;
    std::vector<fit::CalibrationCase> cases;

    SyntheticRows(const std::vector<double>& contexts, double attention_bandwidth,
                  const std::string& device = "strix-halo", core::Seconds cross_die = core::Seconds(0.0)) {
        const auto catalog = testing::shipped_catalog();
        hardware = catalog.hardware(device);
        model = catalog.model("llama-3.1-8b");
        engine::RuntimeProfile truth = *testing::test_runtime("llama.cpp");
        for (auto& factors : truth.by_family) factors = engine::RuntimeFactors{};
        truth.by_family[static_cast<std::size_t>(core::MemoryFamily::unified)].attention_bandwidth = attention_bandwidth;
        truth.by_family[static_cast<std::size_t>(core::MemoryFamily::unified)].cross_die_kernel_overhead = cross_die;
        rows.reserve(contexts.size());
        for (std::size_t i = 0; i < contexts.size(); ++i) {
            profiles::Measurement m;
            m.id = device + "-row" + std::to_string(i);
            m.hardware = device;
            m.model = "llama-3.1-8b";
            m.weights = "bf16";
            m.kv = "fp16";
            m.engine = "llama.cpp";
            m.batch = 1.0;
            m.context = contexts[i];
            m.metric = profiles::Metric::decode_tokens_per_s_per_stream;
            m.source = "synthetic";
            rows.push_back(m);
        }
        for (auto& m : rows) {
            engine::DeploymentChoice choice;
            choice.weights = &core::named_or_throw(core::weight_formats(), "bf16", "--weights", "format");
            choice.kv = &core::named_or_throw(core::kv_formats(), "fp16", "--kv", "format");
            choice.runtime = testing::test_runtime("llama.cpp");
            choice.clocks.condition = engine::ClockCondition::peak;
            const auto deployment = engine::resolve_deployment(hardware, model, choice);
            m.value = fit::predict_measurement(m, model, hardware, deployment, truth);
            cases.push_back({&m, &model, &hardware, deployment});
        }
    }
};

bool searched(const fit::FitResult& fit, std::string_view key) {
    return std::find(fit.fitted.begin(), fit.fitted.end(), key) != fit.fitted.end();
}

}  // namespace

TEST_CASE("TensorRT-LLM sizes its KV cache from the memory its weights leave free, vLLM from the total") {
    // Llama-3.1-70B in FP8 with bf16 embedding and output tables: 68.45e9 weights at 1 byte plus
    // 2 x 1.0507e9 at 2 bytes = 72.65e9 B. FP8 KV: 80 layers x 8 KV heads x 128 x 2 (K and V) x 1 B
    // = 163,840 B a token, 41.94 MB for 256 tokens (128 + 128). An H100 holds 80 GiB = 85.90e9 B.
    // vLLM: 0.9 x 85.90e9 - 1.48 GiB (1.589e9, its memory profiling's workspace) - 72.66e9 = 3.064e9 B
    // for the cache: floor(3.064e9 / 41.94e6) = 73.
    // TensorRT-LLM: (85.90e9 - 2.08 GiB (2.233e9) - 72.66e9) x 0.9 = 9.905e9 B: 236.
    const auto vllm = predict_json("vllm");
    const auto trt = predict_json("tensorrt-llm");
    CHECK(vllm["memory"]["weights_bytes"].get<double>() == doctest::Approx(72.65e9).epsilon(0.002).scale(0.0));
    CHECK(vllm["memory"]["max_batch"].get<long long>() == 73);
    CHECK(trt["memory"]["max_batch"].get<long long>() == 236);
    // usable = weights + 0.9 x (pool - weights): 72.66e9 + 9.905e9 = 82.57e9 B.
    CHECK(trt["memory"]["usable_bytes"].get<double>() == doctest::Approx(82.57e9).epsilon(0.001).scale(0.0));
    // usable = 0.9 x 85.90e9 - 1.589e9 = 75.72e9 B.
    CHECK(vllm["memory"]["usable_bytes"].get<double>() == doctest::Approx(0.9 * 85.899e9 - 1.589e9).epsilon(0.001).scale(0.0));
}

TEST_CASE("an offline TensorRT-LLM run is predicted at the batch its cache holds") {
    // TensorRT-LLM v0.17's perf-overview (the TensorRT-LLM repository's perf-overview.md at commit
    // 258c7540): Llama-3.1-70B FP8 on one H100, 128 in / 128 out, offline max throughput:
    // 3,378.03 tok/s (validation/measurements.csv, trt017-l31-70b-tp1-h100-128-128). At vLLM's
    // sizing the batch would be 110 and the prediction 2,395 tok/s, 29% short of it.
    const std::string row_file = testing::measurement_subset(
        "decodesim_trt_offline_row.csv", [](const std::string& line) { return line.rfind("trt017-l31-70b-tp1-h100-128-128,", 0) == 0; });
    const auto result = testing::run({"accuracy", row_file, "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    bool found = false;
    for (const auto& row : document["rows"]) {
        if (row["id"] != "trt017-l31-70b-tp1-h100-128-128") continue;
        found = true;
        CHECK(row["measured"].get<double>() == 3378.03);
        CHECK(row["predicted"].get<double>() == doctest::Approx(3378.03).epsilon(0.15).scale(0.0));
    }
    CHECK(found);
}

TEST_CASE("a speculative run, a row split and an eager launch are named in their conditions and read by no fit") {
    const std::string path = testing::write_temp(
        "decodesim_speculative_rows.csv",
        testing::kMeasurementHeader +
            "a,strix-halo,llama-3.1-8b,bf16,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,decode_tokens_per_s_per_stream,30,src,"
            "speculative=mtp,MTP 3\n"
            "b,strix-halo,llama-3.1-8b,bf16,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,decode_tokens_per_s_per_stream,30,src,,"
            "speculative=mtp\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].speculative == "mtp");
    CHECK(rows[1].speculative.empty());  // the notes are free text, never read

    const std::string bad = testing::write_temp("decodesim_speculative_bad.csv",
                                       testing::kMeasurementHeader + "a,strix-halo,llama-3.1-8b,bf16,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,"
                                                 "decode_tokens_per_s_per_stream,30,src,speculative=,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find(":2:15:") != std::string::npos);
    CHECK(messages[0].find("speculative") != std::string::npos);

    // Twelve rows a fit would read, every one of them speculative: none is read.
    SyntheticRows synthetic(std::vector<double>(12, 1024.0), 1.0);
    for (auto& m : synthetic.rows) m.speculative = "mtp";
    const auto fit = fit::fit_runtime(synthetic.cases, *testing::test_runtime("llama.cpp"),
                                            {core::MemoryFamily::unified});
    CHECK(fit.single_stream_rows == 0);
    CHECK(fit.decode_rows == 0);

    // llama.cpp's row split and an eager (graph-less) launch: named by their own keys and kept out
    // of every fit; the split is predicted as tensor parallelism (unmodelled), the eager launch
    // with every pass dispatched op by op (modelled: test_eager_passes.cpp).
    const std::string stated = testing::write_temp(
        "decodesim_unmodelled_rows.csv",
        testing::kMeasurementHeader +
            "r,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,decode_tokens_per_s_per_stream,30,src,"
            "devices=2; split=row,\n"
            "l,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,decode_tokens_per_s_per_stream,30,src,"
            "devices=2; split=layer,\n"
            "e,a100-sxm-80gb,llama-2-7b,fp16,fp16,vllm,vllm@0.6,1,,128,512,decode_tokens_per_s_per_stream,30,src,graphs=off,\n"
            "g,a100-sxm-80gb,llama-2-7b,fp16,fp16,vllm,vllm@0.6,1,,128,512,decode_tokens_per_s_per_stream,30,src,graphs=on,\n");
    const auto stated_rows = profiles::load_measurements(stated);
    REQUIRE(stated_rows.size() == 4);
    CHECK(stated_rows[0].row_split);
    CHECK_FALSE(stated_rows[0].layer_split);
    CHECK(stated_rows[1].layer_split);
    CHECK_FALSE(stated_rows[1].row_split);
    CHECK(stated_rows[2].eager_launch);
    CHECK_FALSE(stated_rows[3].eager_launch);
    REQUIRE(profiles::unmodelled_conditions(stated_rows[0]).size() == 1);
    CHECK(profiles::unmodelled_conditions(stated_rows[0])[0].find("row split") != std::string::npos);
    CHECK(profiles::unmodelled_conditions(stated_rows[1]).empty());
    CHECK(profiles::unmodelled_conditions(stated_rows[2]).empty());
    CHECK_FALSE(fit::read_by_fits(stated_rows[2]));
    CHECK(profiles::unmodelled_conditions(stated_rows[3]).empty());

    for (const char* conditions : {"split=rows", "graphs=eager"}) {
        const std::string wrong = testing::write_temp(
            "decodesim_unmodelled_bad.csv", testing::kMeasurementHeader +
                                                "a,rtx-4090,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,,128,512,"
                                                "decode_tokens_per_s_per_stream,30,src," + std::string(conditions) + ",\n");
        const auto problems = testing::error_messages([&] { profiles::load_measurements(wrong); });
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find(":2:15: error: conditions:") != std::string::npos);
        CHECK(problems[0].find(std::string(conditions).substr(0, std::string(conditions).find('='))) != std::string::npos);
    }

    SyntheticRows split_rows(std::vector<double>(12, 1024.0), 1.0);
    for (std::size_t i = 0; i < split_rows.rows.size(); ++i) (i % 2 == 0 ? split_rows.rows[i].row_split : split_rows.rows[i].eager_launch) = true;
    const auto split_fit = fit::fit_runtime(split_rows.cases, *testing::test_runtime("llama.cpp"),
                                                  {core::MemoryFamily::unified});
    CHECK(split_fit.decode_rows == 0);

    // decodesim calibrate says why such rows move nothing.
    const auto calibrated = testing::run({"calibrate", stated, "--hardware", "a100-sxm-80gb", "--model", "llama-2-7b"});
    CHECK(calibrated.exit_code == 0);
    // A graphs-off row is modelled (every pass eager) but read by no fit: the host sets its rate.
    CHECK(calibrated.err.find("e: kernels launched one by one from the host (graphs off): the host, not the kernels, "
                              "sets its rate; predicted, not fitted") != std::string::npos);
    CHECK(calibrated.err.find("warning: g:") == std::string::npos);
}

TEST_CASE("the attention bandwidth is read off long contexts only") {
    // Short contexts (512 tokens: the cache is 64 MiB against 16 GB of weights) cannot tell an
    // attention bandwidth of 0.5 from 1: the fit leaves it at the default.
    SyntheticRows short_rows(std::vector<double>(12, 512.0), 0.5);
    const auto short_fit = fit::fit_runtime(short_rows.cases, *testing::test_runtime("llama.cpp"),
                                                  {core::MemoryFamily::unified});
    CHECK(short_fit.single_stream_rows == 12);
    CHECK_FALSE(searched(short_fit, "attention_bandwidth"));
    CHECK(short_fit.factors.attention_bandwidth == 1.0);

    // Contexts of 16k to 38k tokens (2 to 5 GB of cache a step) measure it: 0.5 comes back, to a
    // step of its 0.05 grid.
    std::vector<double> contexts;
    for (int i = 0; i < 12; ++i) contexts.push_back(16384.0 + 2048.0 * i);
    SyntheticRows long_rows(contexts, 0.5);
    const auto long_fit = fit::fit_runtime(long_rows.cases, *testing::test_runtime("llama.cpp"),
                                                 {core::MemoryFamily::unified});
    CHECK(searched(long_fit, "attention_bandwidth"));
    CHECK(long_fit.factors.attention_bandwidth == doctest::Approx(0.5).epsilon(0.1).scale(0.0));
}

TEST_CASE("a closed loop's first token waits for its own prefill, a batch that arrives together for all of it") {
    // Two rows alike but for the arrivals: Llama-3.1-8B bf16 on an H100 under vLLM, 8 streams of
    // 20,000-token prompts. Arriving together, each first token waits for the 8 prefills; in a
    // closed loop (a request arrives as another finishes) for its own: the same figure as
    // predict's "TTFT (one request, idle)" under the row's build at its (peak) clocks. A 20k-token prefill of an
    // 8B model is compute-bound (2 x 7.5e9 x 20,000 = 3.0e14 FLOP of matrix work, each sequence's
    // attention its own), so eight cost eight times one, less the weight reads and kernel launches
    // they share (about 8 ms against 0.5 s each): within 1% of 8x.
    const std::string path = testing::write_temp(
        "decodesim_arrivals_rows.csv",
        testing::kMeasurementHeader +
            "together,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,8,20000,2000,,ttft_s,1,src,,all at once\n"
            "staggered,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,8,20000,2000,,ttft_s,1,src,arrivals=staggered,150 requests\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 2);
    CHECK_FALSE(rows[0].staggered_arrivals);
    CHECK(rows[1].staggered_arrivals);

    const std::map<std::string, double> predicted = accuracy_predictions(path);
    const auto one = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", "vllm@0.6",
                                   "--prompt", "20000", "--output", "2000", "--clocks", "peak", "--json"});
    REQUIRE(one.exit_code == 0);
    const double own_prefill = nlohmann::json::parse(one.out)["ttft_s"].get<double>();
    CHECK(predicted.at("staggered") == doctest::Approx(own_prefill).epsilon(1e-9));
    CHECK(predicted.at("together") == doctest::Approx(8.0 * own_prefill).epsilon(0.01).scale(0.0));
    CHECK(predicted.at("together") < 8.0 * own_prefill);

    const std::string bad = testing::write_temp("decodesim_arrivals_bad.csv",
                                       testing::kMeasurementHeader + "a,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,8,20000,2000,,ttft_s,1,src,"
                                                 "arrivals=random,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find(":2:15:") != std::string::npos);
    CHECK(messages[0].find("arrivals") != std::string::npos);
}

TEST_CASE("a prompt after a cached context is one pass of its own tokens, never faster than with nothing cached") {
    // llama-bench's pp512 @ d1024 fills 1,024 tokens first, untimed, then times one 512-token pass
    // that reads their keys and values. That pass does the fresh pass's matrix work and reads its
    // weights (for an MoE model, the same experts for the same 512 tokens), plus attention over
    // 1,024 more keys: for gpt-oss-20b, 512 x 1,024 x 4 x 64 heads x 64 x 12 full-attention layers
    // = 1.0e11 FLOP beside the experts' 2 x 3.6e9 x 512 = 3.7e12. So its rate is at most the fresh
    // pass's, and within a few percent of it; lhl/strix-halo-testing measured 1,387.58 against
    // 1,472.01 tok/s on Strix Halo (0.94). Priced as the difference of a 1,536- and a 1,024-token
    // prefill, the experts' per-pass cost cancelled and the deeper prompt came out faster than the
    // fresh one (2.2x here; 25% in lhl's rows held out).
    const std::string path = testing::write_temp(
        "decodesim_depth_rows.csv",
        testing::kMeasurementHeader +
            "fresh,strix-halo,gpt-oss-20b,mxfp4,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,1472.01,src,,pp512\n"
            "deep,strix-halo,gpt-oss-20b,mxfp4,fp16,llama.cpp,llama.cpp@2025-10,1,512,,1024,prefill_tokens_per_s,1387.58,src,,"
            "pp512 @ d1024\n"
            "dense_fresh,strix-halo,llama-3.2-1b,q4_k_m,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,4703.28,src,,"
            "pp512\n"
            "dense_deep,strix-halo,llama-3.2-1b,q4_k_m,fp16,llama.cpp,llama.cpp@2025-10,1,512,,4096,prefill_tokens_per_s,2936.89,"
            "src,,pp512 @ d4096\n");
    const std::map<std::string, double> predicted = accuracy_predictions(path);
    CHECK(predicted.at("deep") <= predicted.at("fresh"));
    CHECK(predicted.at("deep") >= 0.85 * predicted.at("fresh"));
    // A dense model's prompt after 4,096 cached tokens also pays only the attention: never faster.
    CHECK(predicted.at("dense_deep") < predicted.at("dense_fresh"));
}

TEST_CASE("a closed loop's passes also prefill the prompts that replace finished requests") {
    // The same 8 streams of Llama-3.1-8B (20,000-token prompts, 2,000 output tokens) on an H100.
    // Arriving together, the rate at the stated concurrency is the decode passes' alone: 8 / tpot.
    // In a closed loop each finished request is replaced, 8 / 2,000 = 0.004 prompts a pass, whose
    // prefill rides on the passes. That costs more than nothing, and at most what those prompts
    // cost on their own (0.004 x one prompt's prefill a pass): on a pass already streaming the
    // weights, their tokens' matrix work hides partly under the reads. So
    //     8 / (tpot + 0.004 x own prefill) <= closed-loop rate < 8 / tpot.
    const std::string path = testing::write_temp(
        "decodesim_closed_loop_rows.csv",
        testing::kMeasurementHeader +
            "together,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,8,20000,2000,,decode_tokens_per_s_total,1,src,,all at once\n"
            "staggered,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,8,20000,2000,,decode_tokens_per_s_total,1,src,"
            "arrivals=staggered,150 requests\n"
            "own,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,1,20000,2000,,ttft_s,1,src,arrivals=staggered,\n"
            // vLLM's FP8 KV-cache post (2026-04-22): gpt-oss-20b with fp8 KV on an H100, 150
            // requests of about 20k + 2k tokens at concurrency 8, 853 output tokens/s.
            "gptoss,h100-sxm,gpt-oss-20b,mxfp4,fp8,vllm,vllm@0.6,8,20000,2000,,decode_tokens_per_s_total,853,src,"
            "arrivals=staggered,150 requests\n");
    const std::map<std::string, double> predicted = accuracy_predictions(path);
    const double tpot = 8.0 / predicted.at("together");
    const double own_prefill = predicted.at("own");
    CHECK(predicted.at("staggered") < predicted.at("together"));
    CHECK(predicted.at("staggered") >= 8.0 / (tpot + 0.004 * own_prefill));
    // Priced as decode alone the row came out 58% too fast; with its prompts, within 30%.
    CHECK(std::fabs(predicted.at("gptoss") / 853.0 - 1.0) < 0.30);
}

TEST_CASE("a static batch timed whole pays for its prefill") {
    // TensorRT-LLM v0.6.1's performance page: Llama-2-7B fp16 on an A100 SXM 80GB, batch 52,
    // 2,048-token prompts and 128 output tokens, 591 output tokens/s. Its gptSessionBenchmark
    // times each generate() call whole, so the figure is 52 x 128 / (context phase + 128 steps).
    // Bounds by hand (A100: 312 TFLOPS fp16 dense, 2,039 GB/s):
    //   prefill: the layers' 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6.476e9 weights, 2 FLOP each
    //     for 52 x 2,048 = 106,496 tokens, 1.3794e15; causal attention 2 x 2048^2 x 4096 FLOP a
    //     layer and sequence, x 32 x 52 = 5.72e13; 1.4366e15 FLOP at 312e12 = 4.604 s at least.
    //   decode: each step streams the layers and the head (13.21 GB) and the cache, 2 x 32 x 4096
    //     x 2 B = 524,288 B a token at a mean context of 2,111.5, x 52 = 57.56 GB: 70.77 GB at
    //     2,039 GB/s = 34.71 ms a step at least, 4.443 s for 128.
    // So the whole run cannot beat 52 x 128 / (4.604 + 4.443) s = 735.7 tokens/s, while the decode
    // passes alone could reach 52 / 34.71 ms = 1,498 tokens/s. The measured 591 is 80% of the first.
    const std::string path = testing::write_temp(
        "decodesim_whole_run_rows.csv",
        testing::kMeasurementHeader +
            "run,a100-sxm-80gb,llama-2-7b,fp16,fp16,tensorrt-llm,tensorrt-llm@0.17,52,2048,128,,decode_tokens_per_s_total,591,"
            "src,timed=run,gptSessionBenchmark\n"
            "decode,a100-sxm-80gb,llama-2-7b,fp16,fp16,tensorrt-llm,tensorrt-llm@0.17,52,2048,128,,decode_tokens_per_s_total,591,"
            "src,timed=decode,\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].whole_run_throughput);
    CHECK_FALSE(rows[1].whole_run_throughput);
    const std::map<std::string, double> predicted = accuracy_predictions(path);
    CHECK(predicted.at("run") <= 735.7);
    CHECK(std::fabs(predicted.at("run") / 591.0 - 1.0) < 0.25);
    // The decode passes alone: above what the whole run allows, within what the bandwidth does.
    CHECK(predicted.at("decode") > 735.7);
    CHECK(predicted.at("decode") <= 1498.0);

    // The key names one of its two values, describes total throughput only, and is not a closed loop.
    const auto bad_value = testing::write_temp(
        "decodesim_whole_run_bad.csv", testing::kMeasurementHeader +
                                           "a,a100-sxm-80gb,llama-2-7b,fp16,fp16,tensorrt-llm,tensorrt-llm@0.17,52,2048,128,,"
                                           "decode_tokens_per_s_total,591,src,timed=all,\n"
                                           "b,a100-sxm-80gb,llama-2-7b,fp16,fp16,tensorrt-llm,tensorrt-llm@0.17,52,2048,128,,"
                                           "ttft_s,1,src,timed=run,\n"
                                           "c,a100-sxm-80gb,llama-2-7b,fp16,fp16,tensorrt-llm,tensorrt-llm@0.17,52,2048,128,,"
                                           "decode_tokens_per_s_total,591,src,timed=run; arrivals=staggered,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad_value); });
    REQUIRE(messages.size() == 3);
    CHECK(messages[0] == bad_value + ":2:15: error: conditions: unknown timed 'all' in 'timed='; expected run or decode");
    CHECK(messages[1] == bad_value + ":3:15: error: conditions: 'timed=run' describes a decode_tokens_per_s_total row, "
                                     "not this metric");
    CHECK(messages[2].find(":4:15: error: conditions:") != std::string::npos);
    CHECK(messages[2].find("arrivals=staggered") != std::string::npos);
}

TEST_CASE("check-claim judges a static batch timed whole against the whole run's bound") {
    // The same run as above: by hand the whole run of 52 requests of 2,048 + 128 tokens on an A100
    // cannot beat 735.7 tokens/s, while the decode passes alone could reach 1,498. A claim of 1,000
    // is therefore possible as a decode rate and impossible as a whole run; 591, measured, is
    // possible either way.
    const std::vector<std::string> common{"check-claim", "--hardware", "a100-sxm-80gb", "--model", "llama-2-7b",
                                          "--weights", "fp16", "--kv", "fp16", "--runtime", "tensorrt-llm",
                                          "--per", "total", "--batch", "52", "--prompt", "2048", "--output", "128",
                                          "--json"};
    auto check = [&](const char* tokens, std::vector<std::string> extra) {
        std::vector<std::string> args = common;
        args.insert(args.end(), {"--tokens-per-s", tokens});
        args.insert(args.end(), extra.begin(), extra.end());
        return testing::run(args);
    };
    const auto whole = check("1000", {"--timed", "run"});
    CHECK(whole.exit_code == 4);
    const auto whole_json = nlohmann::json::parse(whole.out);
    CHECK(whole_json["timed"] == "run");
    CHECK(whole_json["bound_tokens_per_s"].get<double>() <= 735.7);
    // The run's last token: the batch's prefill and its steps, so batch x output over it is the rate.
    const double last = whole_json["time_to_last_token_s"].get<double>();
    CHECK(52.0 * 128.0 / last == doctest::Approx(whole_json["predicted_tokens_per_s"].get<double>()).epsilon(1e-9));
    const auto decode = check("1000", {});
    CHECK(decode.exit_code == 0);
    const auto decode_json = nlohmann::json::parse(decode.out);
    CHECK(decode_json["timed"] == "decode");
    CHECK(decode_json["bound_tokens_per_s"].get<double>() > 735.7);
    CHECK(decode_json["bound_tokens_per_s"].get<double>() <= 1498.0);
    CHECK(check("591", {"--timed", "run"}).exit_code == 0);
    // Unstated batch: the smallest whose whole run reaches the claim, larger than a decode rate needs.
    std::vector<std::string> unstated{"check-claim", "--hardware", "a100-sxm-80gb", "--model", "llama-2-7b",
                                      "--weights", "fp16", "--kv", "fp16", "--tokens-per-s", "700", "--per", "total",
                                      "--prompt", "2048", "--output", "128", "--json"};
    const auto run_search = testing::run([&] { auto a = unstated; a.insert(a.end(), {"--timed", "run"}); return a; }());
    const auto decode_search = testing::run(unstated);
    REQUIRE(run_search.exit_code == 5);
    REQUIRE(decode_search.exit_code == 5);
    CHECK(nlohmann::json::parse(run_search.out)["min_batch"].get<long long>() >
          nlohmann::json::parse(decode_search.out)["min_batch"].get<long long>());
    // A whole run is a total over a stated request.
    const auto refused = testing::run({"check-claim", "--hardware", "a100-sxm-80gb", "--model", "llama-2-7b",
                                       "--tokens-per-s", "10", "--per", "stream", "--prompt", "5", "--output", "5",
                                       "--timed", "run"});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--timed run") != std::string::npos);
}

TEST_CASE("a batched MoE row above the bound is explained by routing only where routing could matter") {
    // Qwen3-30B-A3B routes each token to 8 of 128 experts. Independent uniform routing (what the
    // engine assumes) reads 128 x (1 - (120/128)^8) = 51.6 experts a layer at 8 streams: a batch
    // whose sequences route alike reads fewer, so a row above the bound there may be real. At 256
    // streams it reads 128 x (1 - (120/128)^256) = 128.0: every expert, whatever the routing.
    const std::string path = testing::write_temp(
        "decodesim_routing_rows.csv",
        testing::kMeasurementHeader +
            "b8,h100-sxm,qwen3-30b-a3b,bf16,bf16,vllm,vllm@0.6,8,,,1024,decode_tokens_per_s_total,1e6,src,,\n"
            "b256,h100-sxm,qwen3-30b-a3b,bf16,bf16,vllm,vllm@0.6,256,,,1024,decode_tokens_per_s_total,1e7,src,,\n");
    const auto result = testing::run({"accuracy", path, "--worst", "0"});
    REQUIRE(result.exit_code == 0);
    const std::size_t b8 = result.out.find("b8 (line 2)");
    const std::size_t b256 = result.out.find("b256 (line 3)");
    REQUIRE(b8 != std::string::npos);
    REQUIRE(b256 != std::string::npos);
    const std::string b8_text = result.out.substr(b8, result.out.find('\n', result.out.find('\n', b8) + 1) - b8);
    const std::string b256_text = result.out.substr(b256, result.out.find('\n', result.out.find('\n', b256) + 1) - b256);
    CHECK(b8_text.find("expert routing") != std::string::npos);
    CHECK(b256_text.find("expert routing") == std::string::npos);
    CHECK(b256_text.find("data error") != std::string::npos);
}

TEST_CASE("a workspace larger than a small device's memory leaves no room, never a negative one") {
    // TensorRT-LLM holds 2.08 GiB before it sizes its cache; on a device of 2 GiB nothing is left:
    // the pool is 0, not -0.08 GiB, so "usable" and the messages never show a negative size.
    auto s = testing::setup("h100-sxm", "llama-3.2-1b");
    s.hardware.memory_capacity = core::Bytes(2.0 * 1073741824.0);
    s.deployment.runtime = testing::shipped_runtime("tensorrt-llm");
    const engine::Evaluator evaluator = s.realistic();
    const auto memory = engine::memory_footprint(evaluator.cost_model(), s.hardware, 1.0, 1024.0);
    CHECK(memory.pool.value == 0.0);
    CHECK(memory.usable.value == 0.0);
    CHECK_FALSE(memory.fits);
    CHECK(memory.max_batch == 0);
    const auto problem = engine::memory_problem(memory, 1.0);
    REQUIRE(problem.has_value());
    CHECK(problem->find("-0") == std::string::npos);
}

TEST_CASE("a multi-die package pays the cross-die cost on every kernel, and only there") {
    // apple-m2-ultra states dies: 2; the same file without that line is one die. Llama-2-7B in
    // Q4_0 at batch 1 under llama.cpp on unified memory: 2 us a kernel, nothing a sequence, 4 us a
    // kernel for the second die (runtime.hpp). The one-die step's overhead is its kernels x 2 us,
    // so its kernels are overhead / 2 us; the second die adds those kernels x 4 us.
    // llama.cpp's graph (engine/kernel_graph.hpp) launches 13 kernels an attention block and 5 a
    // dense MLP block, so the 7B's 32 layers and the embedding, final norm and lm_head make
    // 32 x 18 + 3 = 579 launches: 2.316 ms on the second die.
    std::ifstream shipped(std::string(DECODESIM_ROOT) + "/hardware_profiles/apple-m2-ultra.yaml");
    std::string text, line;
    while (std::getline(shipped, line)) {
        if (line.rfind("dies:", 0) != 0) text += line + "\n";
    }
    const std::string one_die = testing::write_temp("decodesim_m2_ultra_one_die.yaml", text);
    const auto decode_of = [](const std::string& hardware) {
        const auto result = testing::run({"predict", "--hardware", hardware, "--model", "llama-2-7b", "--weights", "q4_0",
                                          "--runtime", "llama.cpp", "--batch", "1", "--context", "128", "--json"});
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["decode"];
    };
    const auto two = decode_of("apple-m2-ultra");
    const auto one = decode_of(one_die);
    const double one_step = one["step_time_s"].get<double>();
    const double kernels = one["time_fraction"]["overhead"].get<double>() * one_step / 2e-6;
    CHECK(kernels == doctest::Approx(579.0).epsilon(0.001).scale(0.0));
    CHECK(two["step_time_s"].get<double>() - one_step == doctest::Approx(579.0 * 4e-6).epsilon(1e-6));

    // A one-die device is untouched: the cross-die cost multiplies dies - 1 = 0.
    const auto max = decode_of("apple-m2-max");
    const auto max_again = testing::run({"predict", "--hardware", "apple-m2-max", "--model", "llama-2-7b", "--weights",
                                         "q4_0", "--runtime", "llama.cpp", "--batch", "1", "--context", "128", "--json"});
    CHECK(nlohmann::json::parse(max_again.out)["decode"]["step_time_s"] == max["step_time_s"]);
}

TEST_CASE("the fit reads the cross-die cost off the multi-die rows, given one die's factors") {
    // Twelve one-die rows (strix-halo) and twelve on a two-die package (apple-m2-ultra) valued
    // with a cross-die cost of 20 us a kernel: the one-die rows fix the per-kernel cost at the
    // default 4 us, the multi-die rows then give 20 us back, to its 1 us grid.
    SyntheticRows one_die(std::vector<double>(12, 1024.0), 1.0);
    SyntheticRows two_dies(std::vector<double>(12, 1024.0), 1.0, "apple-m2-ultra", core::Seconds(20e-6));
    std::vector<fit::CalibrationCase> cases = one_die.cases;
    cases.insert(cases.end(), two_dies.cases.begin(), two_dies.cases.end());
    const auto preset = *testing::test_runtime("llama.cpp");
    const auto fit = fit::fit_runtime(cases, preset, {core::MemoryFamily::unified});
    CHECK(fit.multi_die_rows == 12);
    CHECK(fit.single_stream_rows == 24);
    CHECK(fit.factors.kernel_overhead.value == doctest::Approx(4e-6).epsilon(0.01).scale(0.0));
    CHECK(searched(fit, "cross_die_kernel_overhead"));
    CHECK(fit.factors.cross_die_kernel_overhead.value == doctest::Approx(20e-6).epsilon(0.01).scale(0.0));

    // Only multi-die rows (a user calibrating on their own Mac Studio): the per-kernel cost is
    // read off them whole, 4 + 20 = 24 us, and no cross-die cost is split out of it.
    const auto alone = fit::fit_runtime(two_dies.cases, preset, {core::MemoryFamily::unified});
    CHECK(alone.multi_die_rows == 0);
    CHECK(alone.factors.kernel_overhead.value == doctest::Approx(24e-6).epsilon(0.01).scale(0.0));
    CHECK(alone.factors.cross_die_kernel_overhead.value == 0.0);
}

TEST_CASE("a profile's dies is a whole number from 1 to 8, and anything else names the file, line and key") {
    const std::string base = "name: Two-die test device\nsource: test\nmemory:\n  type: LPDDR5\n  capacity: 64 GiB\n"
                             "  bandwidth: 800 GB/s\ncompute:\n  fp16: 27 TFLOPS\nvendor: apple\narchitecture: m2\n";
    CHECK(profiles::parse_hardware_profile(base, "two.yaml").dies == 1);
    CHECK(profiles::parse_hardware_profile(base + "dies: 2\n", "two.yaml").dies == 2);
    for (const std::string value : {"0", "2.5", "9", "two"}) {
        CAPTURE(value);
        const auto messages = testing::error_messages(
            [&] { profiles::parse_hardware_profile(base + "dies: " + value + "\n", "two.yaml"); });
        REQUIRE(messages.size() == 1);
        CHECK(messages[0].rfind("two.yaml:11:7: error: dies: ", 0) == 0);
    }
}

TEST_CASE("the fit reads a weight tile's staging off the MoE prompts, and shares it with a family that has none") {
    // Prompts of two MoE models (MXFP4) and one dense model (Q8_0, so quantized compute is pinned
    // by rows the staging does not touch) on Strix Halo under llama.cpp, valued by the
    // measured defaults with a tile's staging worth 40 rows. gpt-oss-20b (32 experts, top-4) gives
    // each expert 64 rows at a 512-token prompt, gpt-oss-120b (128, top-4) 16: the staging weighs
    // (64 + 40) / 64 = 1.63 and (16 + 40) / 16 = 3.5 on their experts, nothing on the dense
    // model, so the MoE prompts pin it. The grid's step is 4 rows.
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("strix-halo");
    const std::vector<std::string> ids{"gpt-oss-20b", "gpt-oss-120b", "llama-3.1-8b"};
    std::vector<profiles::ModelProfile> models;
    for (const auto& id : ids) models.push_back(catalog.model(id));
    engine::RuntimeProfile truth = *testing::test_runtime("llama.cpp");
    for (auto& factors : truth.by_family) factors = engine::RuntimeFactors{};
    truth.by_family[static_cast<std::size_t>(core::MemoryFamily::unified)].tile_setup_rows = 40.0;
    std::vector<profiles::Measurement> rows;
    rows.reserve(18);
    std::vector<std::pair<const profiles::ModelProfile*, std::string>> row_models;
    for (std::size_t k = 0; k < models.size(); ++k) {
        const auto& model = models[k];
        const std::string weights = model.moe ? "mxfp4" : "q8_0";
        for (double prompt : {256.0, 512.0, 1024.0, 2048.0, 3072.0, 4096.0}) {
            profiles::Measurement m;
            m.id = ids[k] + "-pp" + std::to_string(static_cast<int>(prompt));
            m.hardware = "strix-halo";
            m.model = ids[k];
            m.weights = weights;
            m.kv = "fp16";
            m.engine = "llama.cpp";
            m.batch = 1.0;
            m.prompt = prompt;
            m.metric = profiles::Metric::prefill_tokens_per_s;
            m.source = "synthetic";
            rows.push_back(m);
            row_models.emplace_back(&model, weights);
        }
    }
    std::vector<fit::CalibrationCase> cases;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        engine::DeploymentChoice choice;
        choice.weights = &core::named_or_throw(core::weight_formats(), row_models[i].second, "--weights", "format");
        choice.kv = &core::named_or_throw(core::kv_formats(), "fp16", "--kv", "format");
        choice.runtime = testing::test_runtime("llama.cpp");
        choice.clocks.condition = engine::ClockCondition::peak;
        const auto deployment = engine::resolve_deployment(hardware, *row_models[i].first, choice);
        rows[i].value = fit::predict_measurement(rows[i], *row_models[i].first, hardware, deployment, truth);
        cases.push_back({&rows[i], row_models[i].first, &hardware, deployment});
    }
    const auto preset = *testing::test_runtime("llama.cpp");
    auto fit = fit::fit_runtime(cases, preset, {core::MemoryFamily::unified});
    CHECK(fit.tile_setup_measured);
    CHECK(searched(fit, "tile_setup_rows"));
    CHECK(fit.factors.tile_setup_rows == doctest::Approx(40.0).epsilon(4.0 / 40.0).scale(0.0));

    // A group of the runtime with no MoE prompts (the discrete GPUs here) takes the measured value.
    fit::FitResult discrete;
    discrete.fit_group = "llama.cpp";
    discrete.families = {core::MemoryFamily::hbm, core::MemoryFamily::gddr};
    std::vector<fit::FitResult> fits{discrete, fit};
    fit::share_backend_kernels(fits);
    CHECK(fits[0].tile_setup_borrowed);
    CHECK(fits[0].factors.tile_setup_rows == fit.factors.tile_setup_rows);
    CHECK_FALSE(fits[1].tile_setup_borrowed);

    // Nine MoE prompts are too few to read it (fit_runtime's 10 of a kind): it keeps 0.
    std::vector<fit::CalibrationCase> few;
    int moe_kept = 0;
    for (const auto& c : cases) {
        if (c.model->moe && ++moe_kept > 9) continue;
        few.push_back(c);
    }
    REQUIRE(std::count_if(few.begin(), few.end(), [](const auto& c) { return c.model->moe.has_value(); }) == 9);
    const auto sparse = fit::fit_runtime(few, preset, {core::MemoryFamily::unified});
    CHECK_FALSE(sparse.tile_setup_measured);
    CHECK(sparse.factors.tile_setup_rows == 0.0);
}

TEST_CASE("the conditions column is read strictly: unknown, repeated and malformed keys and bad values are errors") {
    const auto load_errors = [](const std::string& conditions, const std::string& metric = "decode_tokens_per_s_per_stream") {
        const std::string path = testing::write_temp(
            "decodesim_conditions_bad.csv",
            testing::kMeasurementHeader + "a,h100-sxm,llama-3.1-8b,bf16,bf16,vllm,vllm@0.6,1,,128,,"
                                          + metric + ",100,src," + conditions + ",free text: n_gpus=8; QPS=2\n");
        return std::make_pair(path, testing::error_messages([&] { profiles::load_measurements(path); }));
    };
    {
        const auto [path, messages] = load_errors("devcies=8");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: unknown key 'devcies' (did you mean 'devices'?); expected one "
                                    "of devices ep dp-attention clocks backend split speculative arrivals timed graphs "
                                    "attention qps requests latency lengths gpu-cores client");
    }
    {
        const auto [path, messages] = load_errors("client=loadgen");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: unknown client 'loadgen' in 'client='; expected in_process "
                                    "or http");
    }
    {
        const auto [path, messages] = load_errors("devices=8; ep=2; devices=4");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: 'devices' is stated twice");
    }
    {
        const auto [path, messages] = load_errors("clocks=fast");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: unknown clocks 'fast' in 'clocks='; expected sustained or peak");
    }
    {
        const auto [path, messages] = load_errors("devices=two");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: 'devices=two' must be a whole number of devices, at least 1");
    }
    {
        const auto [path, messages] = load_errors("timed=run");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: 'timed=run' describes a decode_tokens_per_s_total row, not "
                                    "this metric");
    }
    {
        // Pairs are separated by "; ", exactly.
        const auto [path, messages] = load_errors("devices=8;ep=2");
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + ":2:15: error: conditions: 'devices=8;ep=2' is not a key=value pair; pairs are "
                                    "separated by '; ' (devices=8; ep=2)");
    }
    // Every problem is named, not only the first.
    CHECK(load_errors("devices=8; ep=3; graphs=maybe; lengths=drawn").second.size() == 3);
    // The notes are free text: nothing in them is read.
    {
        const auto [path, messages] = load_errors("");
        CHECK(messages == std::vector<std::string>{"(no error)"});
        const auto rows = profiles::load_measurements(path);
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].devices == 1);
        CHECK_FALSE(rows[0].request_rate.has_value());
        CHECK(rows[0].runtime == "vllm@0.6");
    }
    // The runtime is required, as an id.
    for (const char* runtime : {"", "vllm 0.6"}) {
        const std::string path = testing::write_temp(
            "decodesim_runtime_bad.csv", testing::kMeasurementHeader + "a,h100-sxm,llama-3.1-8b,bf16,bf16,vllm," + runtime +
                                             ",1,,128,,decode_tokens_per_s_per_stream,100,src,,\n");
        const auto messages = testing::error_messages([&] { profiles::load_measurements(path); });
        REQUIRE(messages.size() == 1);
        CHECK(messages[0].find(path + ":2:7: error: runtime: ") == 0);
    }
}

// vLLM's EngineArgs.get_batch_defaults for `vllm serve`: a device of at least 70 GiB whose name does
// not contain "a100" starts with max_num_seqs 1024 and max_num_batched_tokens 8192; every other
// device with 256 and 2048 (docs/evidence/runtime-defaults.md). An H100 SXM holds 80 GB = 74.5 GiB,
// an A100 80 GB the same but is named out, an L40S 48 GB = 44.7 GiB is below the line.
TEST_CASE("serve takes vLLM's scheduler defaults per device, and a profile's own scheduler section replaces its base's") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    const auto vllm = catalog.runtime("vllm@0.8");
    auto limits_on = [&](const engine::RuntimeProfile& runtime, const std::string& device) {
        return serving::resolve_scheduler({}, runtime, catalog.hardware(device), 131072);
    };
    CHECK(limits_on(*vllm, "h100-sxm").max_sequences == 1024);
    CHECK(limits_on(*vllm, "h100-sxm").max_batched_tokens == 8192);
    CHECK(limits_on(*vllm, "a100-sxm-80gb").max_sequences == 256);
    CHECK(limits_on(*vllm, "a100-sxm-80gb").max_batched_tokens == 2048);
    CHECK(limits_on(*vllm, "l40s").max_sequences == 256);
    CHECK(limits_on(*vllm, "l40s").max_batched_tokens == 2048);
    CHECK(limits_on(*vllm, "h100-sxm").block_tokens == 16);

    // A flag wins over the device's default.
    serving::SchedulerChoice choice;
    choice.max_sequences = 64;
    choice.chunked_prefill = false;
    const serving::SchedulerLimits chosen = serving::resolve_scheduler(choice, *vllm, catalog.hardware("h100-sxm"), 131072);
    CHECK(chosen.max_sequences == 64);
    CHECK_FALSE(chosen.chunked_prefill);
    // Without chunked prefill vLLM raises its budget to the model's context (max_model_len), so a
    // prompt of the whole context fits one pass; a budget the user sets stays.
    CHECK(chosen.max_batched_tokens == 131072);
    choice.max_batched_tokens = 4096;
    CHECK(serving::resolve_scheduler(choice, *vllm, catalog.hardware("h100-sxm"), 131072).max_batched_tokens == 4096);
    // TensorRT-LLM 0.x keeps its engine's max_num_tokens: a longer prompt is refused.
    CHECK(limits_on(*catalog.runtime("tensorrt-llm@0.17"), "h100-sxm").max_batched_tokens == 8192);

    // SGLang chunks prompts by its GPU's memory (server_args.py): 2048 tokens below 35 GiB (an RTX
    // 4090's 24 GB), 8192 below 160 GiB (an H200's 141 GB = 131 GiB), 16384 from 160 GiB (an
    // MI300X's 192 GB = 179 GiB).
    const auto sglang = catalog.runtime("sglang");
    CHECK(limits_on(*sglang, "rtx-4090").max_batched_tokens == 2048);
    CHECK(limits_on(*sglang, "h200-sxm").max_batched_tokens == 8192);
    CHECK(limits_on(*sglang, "mi300x").max_batched_tokens == 16384);
    CHECK(limits_on(*sglang, "mi300x").max_sequences == 256);  // a tier that sets one limit keeps the other

    // A profile on vLLM with a scheduler section of its own, written to NAME.yaml: `tail` starts
    // on the file's line 14, inside the section.
    auto scheduler_profile = [](const std::string& name, int block_tokens, bool chunked, const std::string& tail) {
        return testing::write_temp(name + ".yaml", "name: " + name +
                                                       "\nbase: vllm@0.8\ndescription: \"t\"\nsource: \"t\"\nmeasured: false\n"
                                                       "measurements: \"t\"\nscheduler:\n  source: \"t\"\n  max_sequences: 256\n"
                                                       "  max_batched_tokens: 8192\n  block_tokens: " +
                                                       std::to_string(block_tokens) + "\n  chunked_prefill: " +
                                                       (chunked ? "true" : "false") + "\n  prefix_caching: true\n" + tail);
    };

    // A build on top of vLLM that states its own scheduler (SGLang's 256 running requests) keeps it on
    // an H100: the base's device tiers are not inherited.
    const std::string path = scheduler_profile("scheduler-child", 1, true, "");
    const auto child = catalog.runtime(path);
    CHECK(limits_on(*child, "h100-sxm").max_sequences == 256);
    CHECK(limits_on(*child, "h100-sxm").block_tokens == 1);

    // A tier that sets neither limit is an error naming the file, the line and the key.
    const std::string empty_tier = scheduler_profile(
        "scheduler-tier", 16, true, "  device_tiers:\n    source: \"t\"\n    tiers:\n      - {min_memory: 70 GiB}\n");
    const auto problems = testing::error_messages([&] { catalog.runtime(empty_tier); });
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find("scheduler-tier.yaml:17:") != std::string::npos);
    CHECK(problems[0].find("sets max_sequences, max_batched_tokens or both") != std::string::npos);

    // An unknown budget rule names its key and line.
    const std::string unknown_budget = scheduler_profile("scheduler-budget", 16, false, "  unchunked_budget: model\n");
    const auto budget = testing::error_messages([&] { catalog.runtime(unknown_budget); });
    REQUIRE(budget.size() == 1);
    CHECK(budget[0].find("scheduler-budget.yaml:14:") != std::string::npos);
    CHECK(budget[0].find("unchunked_budget") != std::string::npos);

    // SGLang prefills in passes of its own ("run prefill first if possible"); vLLM mixes. A profile
    // that says neither mixes, and an unknown value names its key and line.
    CHECK(limits_on(*sglang, "h100-sxm").separate_prefill);
    CHECK_FALSE(limits_on(*vllm, "h100-sxm").separate_prefill);
    CHECK_FALSE(limits_on(*child, "h100-sxm").separate_prefill);
    const std::string separate = scheduler_profile("scheduler-separate", 16, true, "  prefill_passes: separate\n");
    CHECK(limits_on(*catalog.runtime(separate), "h100-sxm").separate_prefill);
    // A scheduler line with an unknown value (line 14 of the profile) is one error naming the file,
    // the line, the key and what it takes.
    auto refuses = [&](const std::string& file, const std::string& line, const std::string& message) {
        const std::string path = scheduler_profile(file, 16, true, "  " + line + "\n");
        const auto errors = testing::error_messages([&] { catalog.runtime(path); });
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].find(file + ".yaml:14:") != std::string::npos);
        CHECK(errors[0].find(message) != std::string::npos);
    };
    refuses("scheduler-passes", "prefill_passes: alternate", "prefill_passes: unknown 'alternate'; expected mixed or separate");

    // TensorRT-LLM reserves each request's whole cache at admission (GUARANTEED_NO_EVICT); a profile
    // that says nothing grows it as it decodes, and an unknown admission names its key and line.
    CHECK_FALSE(limits_on(*child, "h100-sxm").reserve_whole_request);
    const std::string whole = scheduler_profile("scheduler-whole", 16, true, "  admission: whole_request\n");
    CHECK(limits_on(*catalog.runtime(whole), "h100-sxm").reserve_whole_request);
    refuses("scheduler-admission", "admission: evict", "admission: unknown 'evict'; expected incremental or whole_request");

    // vLLM's limits are each data-parallel rank's; an unknown scope names its key and line.
    CHECK(limits_on(*vllm, "h100-sxm").limits_per_attention_replica);
    CHECK_FALSE(limits_on(*sglang, "h100-sxm").limits_per_attention_replica);
    refuses("scheduler-scope", "limits_per: node", "limits_per: unknown 'node'; expected stage or attention_replica");

    // Speculating, SGLang runs 48 requests at once unless told (ServerArgs._handle_speculative_decoding
    // sets max_running_requests = 48 for EAGLE, EAGLE3, NEXTN and STANDALONE); a flag still wins, and
    // vLLM, which states no such limit, keeps its own.
    CHECK(serving::resolve_scheduler({}, *sglang, catalog.hardware("h200-sxm"), 131072, true).max_sequences == 48);
    CHECK(serving::resolve_scheduler({}, *sglang, catalog.hardware("h200-sxm"), 131072, false).max_sequences == 256);
    serving::SchedulerChoice sixty_four;
    sixty_four.max_sequences = 64;
    CHECK(serving::resolve_scheduler(sixty_four, *sglang, catalog.hardware("h200-sxm"), 131072, true).max_sequences == 64);
    CHECK(serving::resolve_scheduler({}, *vllm, catalog.hardware("h100-sxm"), 131072, true).max_sequences == 1024);
    const std::string zero = scheduler_profile("scheduler-speculative", 16, true, "  speculative_max_sequences: 0\n");
    const auto speculative = testing::error_messages([&] { catalog.runtime(zero); });
    REQUIRE(speculative.size() == 1);
    CHECK(speculative[0].find("scheduler-speculative.yaml:14:") != std::string::npos);
    CHECK(speculative[0].find("speculative_max_sequences") != std::string::npos);

    // A cap sized from the cache (SGLang's) travels with the limits until a deployment sizes it, and
    // is dropped where speculation or a flag sets the cap; its bounds are read strictly.
    CHECK(serving::resolve_scheduler({}, *sglang, catalog.hardware("h200-sxm"), 131072, false).sequences_from_cache);
    CHECK_FALSE(serving::resolve_scheduler({}, *sglang, catalog.hardware("h200-sxm"), 131072, true).sequences_from_cache);
    CHECK_FALSE(serving::resolve_scheduler(sixty_four, *sglang, catalog.hardware("h200-sxm"), 131072).sequences_from_cache);
    auto sized_rule = [&](const std::string& name, const std::string& at_least, const std::string& share) {
        return scheduler_profile(name, 16, true,
                                 "  sequences_from_cache:\n    source: \"t\"\n    per_context: 512\n    at_least: " + at_least +
                                     "\n    at_most: 4096\n    cache_share: " + share + "\n");
    };
    const auto sized = catalog.runtime(sized_rule("scheduler-sized", "2048", "0.5"));
    REQUIRE(sized->scheduler.sequences_from_cache);
    CHECK(sized->scheduler.sequences_from_cache->running_cap(684635.0, 163840.0) == 2139);
    const auto inverted = testing::error_messages([&] { catalog.runtime(sized_rule("scheduler-inverted", "8192", "0.5")); });
    REQUIRE(inverted.size() == 1);
    CHECK(inverted[0].find("scheduler-inverted.yaml:18:") != std::string::npos);
    CHECK(inverted[0].find("at_most") != std::string::npos);
    const auto no_share = testing::error_messages([&] { catalog.runtime(sized_rule("scheduler-share", "2048", "0")); });
    REQUIRE(no_share.size() == 1);
    CHECK(no_share[0].find("scheduler-share.yaml:19:") != std::string::npos);
    CHECK(no_share[0].find("cache_share") != std::string::npos);
}

TEST_CASE("a runtime's request path is read strictly: each bad time names the file, line and key") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    auto profile_with = [](const std::string& path_lines) {
        return testing::write_temp("request-path.yaml", "name: request-path\nbase: vllm@0.8\ndescription: \"t\"\nsource: \"t\"\n"
                                                        "measured: false\nmeasurements: \"t\"\nrequest_path:\n  source: \"t\"\n" +
                                                            path_lines);
    };
    const auto good = catalog.runtime(profile_with("  before_scheduler: 2 ms\n  per_prompt_token: 0 us\n  after_step: 3 ms\n"));
    CHECK(good->request_path.before(1000.0).value == doctest::Approx(0.002));
    CHECK(good->request_path.after_step.value == doctest::Approx(0.003));

    const auto negative = testing::error_messages(
        [&] { catalog.runtime(profile_with("  before_scheduler: -2 ms\n  per_prompt_token: 1 us\n  after_step: 3 ms\n")); });
    REQUIRE(negative.size() == 1);
    CHECK(negative[0].find("request-path.yaml:9:") != std::string::npos);
    CHECK(negative[0].find("before_scheduler") != std::string::npos);

    const auto unitless = testing::error_messages(
        [&] { catalog.runtime(profile_with("  before_scheduler: 2 ms\n  per_prompt_token: 1\n  after_step: 3 ms\n")); });
    REQUIRE(unitless.size() == 1);
    CHECK(unitless[0].find(":10:") != std::string::npos);
    CHECK(unitless[0].find("per_prompt_token") != std::string::npos);

    const auto missing =
        testing::error_messages([&] { catalog.runtime(profile_with("  before_scheduler: 2 ms\n  per_prompt_token: 1 us\n")); });
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].find("after_step") != std::string::npos);
    CHECK(missing[0].find("missing") != std::string::npos);

    // The front end's work per streamed token is optional (none: zero) and read as strictly.
    CHECK(good->request_path.per_output_token.value == 0.0);
    const auto streaming = catalog.runtime(
        profile_with("  before_scheduler: 2 ms\n  per_prompt_token: 0 us\n  after_step: 3 ms\n  per_output_token: 90 us\n"));
    CHECK(streaming->request_path.per_output_token.value == doctest::Approx(90e-6).epsilon(1e-12));
    const auto negative_token = testing::error_messages([&] {
        catalog.runtime(profile_with("  before_scheduler: 2 ms\n  per_prompt_token: 0 us\n  after_step: 3 ms\n  per_output_token: -1 us\n"));
    });
    REQUIRE(negative_token.size() == 1);
    CHECK(negative_token[0].find("request-path.yaml:12:") != std::string::npos);
    CHECK(negative_token[0].find("per_output_token") != std::string::npos);
}

TEST_CASE("a build's own factor over its base survives a refit of its group") {
    // vllm@0.6 states vLLM V0's host time a sequence, 100 us (runtime_profiles/vllm-0.6.yaml), over
    // the vLLM-class fit it otherwise shares with vllm@0.8, whose per-sequence time is 0.
    const auto v0 = testing::shipped_runtime("vllm@0.6");
    const auto v1 = testing::shipped_runtime("vllm@0.8");
    const auto hbm = core::MemoryFamily::hbm;
    CHECK(v0->factors(hbm).sequence_overhead.value == doctest::Approx(100e-6).epsilon(1e-12));
    CHECK(v1->factors(hbm).sequence_overhead.value == 0.0);
    CHECK(v0->own_factors[static_cast<std::size_t>(hbm)] != 0U);
    CHECK(v1->own_factors[static_cast<std::size_t>(hbm)] == 0U);  // a root's factors are the fit's own
    // A refit's factors (here 9 us a kernel and no per-sequence time) take every field but the
    // build's own: the kernel time is the fit's, the per-sequence time stays 100 us.
    engine::RuntimeFactors refit{};
    refit.kernel_overhead = core::Seconds(9e-6);
    const engine::RuntimeFactors merged = profiles::with_own_factors(*v0, hbm, refit);
    CHECK(merged.kernel_overhead.value == doctest::Approx(9e-6).epsilon(1e-12));
    CHECK(merged.sequence_overhead.value == doctest::Approx(100e-6).epsilon(1e-12));
    CHECK(profiles::with_own_factors(*v1, hbm, refit).sequence_overhead.value == 0.0);
    // The held-out figures predict each row under its build refitted with its group
    // (fit::fitted_preset): the group's factors, the build's own kept.
    std::vector<fit::FitResult> fits;
    for (const fit::FitGroup& group : fit::fit_groups()) {
        if (group.fit_group != "vllm") continue;
        fit::FitResult result;
        result.fit_group = group.fit_group;
        result.families = group.families;
        result.factors = refit;
        fits.push_back(result);
    }
    REQUIRE_FALSE(fits.empty());
    CHECK(fit::fitted_preset(*v0, fits).factors(hbm).kernel_overhead.value == doctest::Approx(9e-6).epsilon(1e-12));
    CHECK(fit::fitted_preset(*v0, fits).factors(hbm).sequence_overhead.value == doctest::Approx(100e-6).epsilon(1e-12));
    CHECK(fit::fitted_preset(*v1, fits).factors(hbm).sequence_overhead.value == 0.0);
    // A static batch of 128 on eight MI300X (ROCm/vllm's dev-docker latency table, a V0 build):
    // each of its 2,047 decode steps pays 128 x 100 us = 12.8 ms of host time, 26.2 s in all, so the
    // run under vllm@0.6 is that much longer than under the same build without its own factor.
    const std::string without = testing::write_temp(
        "vllm-0.6-without-host.yaml",
        "name: vllm\nversion: \"0.6-test\"\nbase: vllm@0.6\nsource: \"t\"\nmeasured: false\nmeasurements: \"t\"\n"
        "factors:\n  fitted_by: \"t\"\n  hbm:\n    sequence_overhead: 0 us\n");
    const auto e2e = [](const std::string& runtime) {
        const auto result = testing::run({"predict", "--hardware", "mi300x", "--model", "llama-3.1-70b", "--weights", "fp8",
                                          "--runtime", runtime, "--tp", "8", "--batch", "128", "--prompt", "128",
                                          "--output", "2048", "--json"});
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["request"]["end_to_end_s"].get<double>();
    };
    CHECK(e2e("vllm@0.6") - e2e(without) == doctest::Approx(2047 * 128 * 100e-6).epsilon(0.01).scale(0.0));
}
