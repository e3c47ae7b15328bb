// `decodesim calibrate` and `--runtime path.yaml`: benchmark formats, the held-out rule, recovery
// of known factors, the preset file's round trip and its errors (docs/cli.md, "calibrate").

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "cli/runtime_option.hpp"
#include "profiles/runtime_fields.hpp"
#include "engine/operating_point.hpp"
#include "profiles/benchmark_results.hpp"
#include "fit/accuracy.hpp"
#include "fit/user_calibration.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;
using testing::run;
using testing::test_data;

std::string scratch(const std::string& name) {
    const std::filesystem::path folder = std::filesystem::path(DECODESIM_BINARY_DIR) / "calibrate";
    std::filesystem::create_directories(folder);
    return (folder / name).string();
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = scratch(name);
    std::ofstream(path) << text;
    return path;
}

const engine::RuntimeFactors& gddr(const engine::RuntimeProfile& preset) {
    return preset.factors(core::MemoryFamily::gddr);
}

}  // namespace

TEST_CASE("llama-bench model_type names map to weight formats") {
    using profiles::llama_bench_weight_format;
    // llama.cpp writes model_type as "<arch> <size> <file type>" (llama_model_ftype_name).
    CHECK(llama_bench_weight_format("llama 8B Q4_K - Medium") == "q4_k_m");
    CHECK(llama_bench_weight_format("qwen2 7B Q4_0") == "q4_0");
    CHECK(llama_bench_weight_format("llama 70B Q8_0") == "q8_0");
    CHECK(llama_bench_weight_format("llama 8B F16") == "fp16");
    CHECK(llama_bench_weight_format("llama 8B BF16") == "bf16");
    CHECK(llama_bench_weight_format("llama 8B Q6_K") == "q6_k");
    CHECK(llama_bench_weight_format("llama 8B Q5_K - Medium") == "q5_k_m");
    CHECK(llama_bench_weight_format("llama 8B Q2_K - Medium") == "q2_k");
    CHECK(llama_bench_weight_format("qwen3moe 30B.A3B Q4_K - Medium") == "q4_k_m");
    CHECK_FALSE(llama_bench_weight_format("llama 8B IQ2_XXS - 2.0625 bpw"));
    CHECK_FALSE(llama_bench_weight_format("llama 8B Q4_K - Small"));
    // Every name the table gives is a format --weights accepts.
    for (const auto& row : profiles::kLlamaBenchWeightFormats) {
        INFO(row.file_type);
        CHECK(core::find_named(core::weight_formats(), row.weights) != nullptr);
    }
}

TEST_CASE("each benchmark format is detected from its content and read into rows") {
    using profiles::BenchmarkFormat;
    struct Case {
        const char* file;
        BenchmarkFormat format;
    };
    // The three llama-bench fixtures hold the same five tests: pp512, tg128, pp512 @ d4096,
    // tg128 @ d4096, and a pg test (prompt and generation together), which is not used.
    for (const Case c : {Case{"llama_bench.csv", BenchmarkFormat::llama_bench_csv},
                         Case{"llama_bench.json", BenchmarkFormat::llama_bench_json},
                         Case{"llama_bench.jsonl", BenchmarkFormat::llama_bench_jsonl}}) {
        INFO(c.file);
        const auto results = profiles::load_benchmark_results({test_data(std::string("calibrate/") + c.file)}, std::nullopt);
        CHECK(results.format == c.format);
        REQUIRE(results.rows.size() == 4);
        CHECK(results.skipped.size() == 1);
        const auto& pp = results.rows[0];
        CHECK(pp.metric == profiles::Metric::prefill_tokens_per_s);
        CHECK(pp.prompt == 512.0);
        CHECK_FALSE(pp.context);
        CHECK(pp.value == doctest::Approx(11001.3));
        CHECK(pp.weights == "q4_k_m");  // "llama 8B Q4_K - Medium"
        CHECK(pp.kv == "fp16");         // type_k f16
        CHECK(pp.engine == "llama.cpp");
        const auto& tg = results.rows[1];
        CHECK(tg.metric == profiles::Metric::decode_tokens_per_s_per_stream);
        CHECK(tg.output == 128.0);
        CHECK_FALSE(tg.context);
        CHECK(results.rows[2].context == 4096.0);  // pp512 after 4096 tokens in the cache
        // tg128 after 4096 tokens: its steps run at contexts 4096..4223, mean 4096 + 128 / 2.
        CHECK(results.rows[3].context == 4160.0);
        // --weights replaces what model_type says.
        const auto forced =
            profiles::load_benchmark_results({test_data(std::string("calibrate/") + c.file)}, std::string("q8_0"));
        CHECK(forced.rows[0].weights == "q8_0");
    }

    const auto vllm = profiles::load_benchmark_results({test_data("calibrate/vllm_serve.json")}, std::nullopt);
    CHECK(vllm.format == BenchmarkFormat::vllm_bench_serve);
    REQUIRE(vllm.rows.size() == 3);  // total decode rate, TPOT, TTFT
    CHECK(vllm.rows[0].metric == profiles::Metric::decode_tokens_per_s_total);
    CHECK(vllm.rows[0].value == 1721.0);
    CHECK(vllm.rows[0].batch == 32.0);     // max_concurrency
    CHECK(vllm.rows[0].prompt == 1024.0);  // random_input_len
    CHECK(vllm.rows[0].output == 256.0);   // random_output_len
    CHECK(vllm.rows[0].weights == "bf16"); // --metadata weights=bf16
    CHECK(vllm.rows[0].sustained_clocks);  // a 95 s run: past the 60 s a clock takes to settle
    CHECK(vllm.rows[1].metric == profiles::Metric::tpot_s);
    CHECK(vllm.rows[1].value == doctest::Approx(0.0176));  // median_tpot_ms 17.6
    CHECK(vllm.rows[2].metric == profiles::Metric::ttft_s);
    CHECK(vllm.rows[2].value == doctest::Approx(0.1981));  // median_ttft_ms 198.1

    const auto table = profiles::load_benchmark_results({test_data("calibrate/measurements.csv")}, std::nullopt);
    CHECK(table.format == BenchmarkFormat::measurements_csv);
    CHECK(table.rows.size() == 3);

    // Not a benchmark: a hardware profile.
    const auto messages = testing::error_messages(
        [] { profiles::load_benchmark_results({std::string(DECODESIM_ROOT) + "/hardware_profiles/rtx-4090.yaml"}, std::nullopt); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("rtx-4090.yaml:1:1: error: not a benchmark result") != std::string::npos);
}

TEST_CASE("AIPerf and GenAI-Perf profile exports are read as closed-loop runs") {
    using profiles::BenchmarkFormat;
    // tests/data/calibrate/aiperf_export.json: 16 clients, 160 requests over 75.3 s; measured
    // lengths 512 in and 127.6 out (rounded: 128); medians stated (p50), so they are read: TTFT
    // 85.2 ms, inter-token latency 12.4 ms; output tokens/s 1234.5.
    const auto aiperf = profiles::load_benchmark_results({test_data("calibrate/aiperf_export.json")}, std::string("bf16"));
    CHECK(aiperf.format == BenchmarkFormat::profile_export);
    REQUIRE(aiperf.rows.size() == 3);
    for (const auto& row : aiperf.rows) {
        CHECK(row.closed_loop);
        CHECK(row.batch == 16.0);
        CHECK(row.prompt == 512.0);
        CHECK(row.output == 128.0);
        CHECK(row.requests == 160);
        CHECK(row.median_latency);
        CHECK(row.sustained_clocks);  // 75.3 s: past the 60 s a clock takes to settle
        CHECK(row.engine.empty());    // the export does not say what served it
        CHECK(row.weights == "bf16");
    }
    CHECK(aiperf.rows[0].metric == profiles::Metric::decode_tokens_per_s_total);
    CHECK(aiperf.rows[0].value == doctest::Approx(1234.5));
    CHECK(aiperf.rows[1].metric == profiles::Metric::tpot_s);
    CHECK(aiperf.rows[1].value == doctest::Approx(0.0124));
    CHECK(aiperf.rows[2].metric == profiles::Metric::ttft_s);
    CHECK(aiperf.rows[2].value == doctest::Approx(0.0852));

    // tests/data/calibrate/genai_perf_export.json: GenAI-Perf's layout, statistics written as text,
    // means only (no p50): TTFT 231.5 ms, inter-token latency 16.3 ms, 465.4 output tokens/s; 8
    // clients; no measured prompt length, so the configured 1024; output measured 255.6 -> 256; no
    // request count (the replay's default) and no duration (not taken as sustained).
    const auto genai = profiles::load_benchmark_results({test_data("calibrate/genai_perf_export.json")}, std::string("fp8"));
    CHECK(genai.format == BenchmarkFormat::profile_export);
    REQUIRE(genai.rows.size() == 3);
    CHECK(genai.rows[0].batch == 8.0);
    CHECK(genai.rows[0].prompt == 1024.0);
    CHECK(genai.rows[0].output == 256.0);
    CHECK_FALSE(genai.rows[0].requests);
    CHECK_FALSE(genai.rows[0].median_latency);
    CHECK_FALSE(genai.rows[0].sustained_clocks);
    CHECK(genai.rows[0].value == doctest::Approx(465.4));
    CHECK(genai.rows[1].value == doctest::Approx(0.0163));
    CHECK(genai.rows[2].value == doctest::Approx(0.2315));

    // The weight format is not in either export: without --weights, an error naming the file.
    const auto unweighted = testing::error_messages(
        [] { profiles::load_benchmark_results({test_data("calibrate/aiperf_export.json")}, std::nullopt); });
    REQUIRE(unweighted.size() == 1);
    CHECK(unweighted[0].find("aiperf_export.json:") != std::string::npos);
    CHECK(unweighted[0].find("pass --weights") != std::string::npos);
}

TEST_CASE("a profile export at a request rate, with an unknown time unit or no stated engine is refused by name") {
    // A small export, one field a line: the TTFT's unit on line 2, the load generator on line 7.
    const auto export_file = [](const std::string& name, const std::string& ttft_unit, const std::string& loadgen) {
        return write_file(name, "{\n"
                                "  \"time_to_first_token\": {\"unit\": \"" + ttft_unit + "\", \"avg\": 50},\n"
                                "  \"inter_token_latency\": {\"unit\": \"ms\", \"avg\": 10},\n"
                                "  \"output_token_throughput\": {\"unit\": \"tokens/sec\", \"avg\": 100},\n"
                                "  \"input_sequence_length\": {\"unit\": \"tokens\", \"avg\": 100},\n"
                                "  \"output_sequence_length\": {\"unit\": \"tokens\", \"avg\": 10},\n"
                                "  \"input_config\": {\"loadgen\": {" + loadgen + "}}\n"
                                "}\n");
    };
    // A request-rate run is open loop: the error is on the line of request_rate (line 7).
    const std::string rated = export_file("rated_aiperf.json", "ms", "\"request_rate\": 4.0");
    const auto rate = testing::error_messages([&] { profiles::load_benchmark_results({rated}, std::string("bf16")); });
    REQUIRE(rate.size() == 1);
    CHECK(rate[0].find("rated_aiperf.json:7:1: error: input_config.loadgen.request_rate:") != std::string::npos);

    // A time in minutes is not read as milliseconds: the error names the unit's line (2) and key.
    const std::string minutes = export_file("minutes_aiperf.json", "min", "\"concurrency\": 4");
    const auto unit = testing::error_messages([&] { profiles::load_benchmark_results({minutes}, std::string("bf16")); });
    REQUIRE(unit.size() == 1);
    CHECK(unit[0].find("minutes_aiperf.json:2:1: error: time_to_first_token.unit:") != std::string::npos);

    // calibrate cannot guess the stack an endpoint ran: without --runtime it is a usage error.
    const auto result = run({"calibrate", test_data("calibrate/aiperf_export.json"), "--hardware", "h100-sxm", "--model",
                             "llama-3.1-8b", "--weights", "bf16"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("pass --runtime") != std::string::npos);
    const auto named = run({"calibrate", test_data("calibrate/aiperf_export.json"), "--hardware", "h100-sxm", "--model",
                            "llama-3.1-8b", "--weights", "bf16", "--runtime", "vllm", "--json"});
    INFO(named.err);
    CHECK(named.exit_code == 0);
}

TEST_CASE("an unknown llama-bench file type is an error naming the row and the value") {
    const std::string path = write_file(
        "iq2.csv", "model_type,n_prompt,n_gen,avg_ts\n\"llama 8B IQ2_XXS - 2.0625 bpw\",512,0,900.0\n");
    const auto messages = testing::error_messages([&] { profiles::load_benchmark_results({path}, std::nullopt); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] == path + ":2:1: error: model_type: row 2: no weight format known for 'llama 8B IQ2_XXS - "
                                "2.0625 bpw'; pass --weights");
}

TEST_CASE("the held-out rows are every fourth after a stable sort by metric and shape") {
    // Twelve prefill rows given with prompts 12, 11, ..., 1: sorted by prompt they run 1..12, and
    // positions 3, 7 and 11 (0-based) are the prompts 4, 8 and 12, given at indices 8, 4 and 0.
    std::vector<profiles::Measurement> rows(12);
    std::vector<fit::CalibrationCase> cases;
    for (int i = 0; i < 12; ++i) {
        rows[i].metric = profiles::Metric::prefill_tokens_per_s;
        rows[i].prompt = 12.0 - i;
        cases.push_back({&rows[i], nullptr, nullptr, {}});
    }
    const std::vector<bool> held_out = fit::held_out_rows(cases);
    std::vector<int> indices;
    for (int i = 0; i < 12; ++i) {
        if (held_out[i]) indices.push_back(i);
    }
    CHECK(indices == std::vector<int>{0, 4, 8});
}

TEST_CASE("calibrate recovers known factors from a synthetic llama-bench run and writes a preset predict reads") {
    // An RTX 4090 (GDDR) running Llama 3.1 8B Q4_K_M under llama.cpp whose true factors are
    // kernel overhead 7 us, quantized weight bandwidth 0.80, compute 0.55, quantized compute 0.70
    // and attention bandwidth 1.0: all on the fit's grids (calibration.cpp). llama.cpp's shipped
    // GDDR factors are not these, so it is off on these rows.
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("rtx-4090");
    const auto model = catalog.model("llama-3.1-8b");
    engine::RuntimeProfile truth = *testing::test_runtime("llama.cpp");
    truth.by_family[static_cast<std::size_t>(core::MemoryFamily::gddr)] =
        engine::RuntimeFactors{core::Seconds(7e-6), 0.80, 0.70, 1.0, 0.55, core::Seconds(0.0)};
    engine::DeploymentChoice choice;
    choice.weights = core::find_named(core::weight_formats(), "q4_k_m");
    choice.kv = core::find_named(core::kv_formats(), "fp16");
    choice.runtime = testing::test_runtime("llama.cpp");
    choice.clocks.condition = engine::ClockCondition::peak;  // llama-bench runs are short
    const engine::Deployment deployment = engine::resolve_deployment(hardware, model, choice);

    // 21 prefill rows (7 prompts x 3 depths) and 21 decode rows (3 lengths x 7 depths): after a
    // quarter is held out, 16 of each kind are fitted, above fit_runtime's 10.
    std::string csv = "model_type,type_k,n_prompt,n_gen,n_depth,avg_ts\n";
    auto add = [&](double prompt, double generated, double depth) {
        profiles::Measurement m;
        m.engine = "llama.cpp";
        m.weights = "q4_k_m";
        m.batch = 1.0;
        if (prompt > 0) {
            m.metric = profiles::Metric::prefill_tokens_per_s;
            m.prompt = prompt;
            if (depth > 0) m.context = depth;
        } else {
            m.metric = profiles::Metric::decode_tokens_per_s_per_stream;
            m.output = generated;
            if (depth > 0) m.context = depth + generated / 2.0;
        }
        const double rate = fit::predict_measurement(m, model, hardware, deployment, truth);
        csv += fmt::format("\"llama 8B Q4_K - Medium\",f16,{},{},{},{:.10g}\n", prompt, generated, depth, rate);
    };
    for (double prompt : {128, 256, 512, 1024, 2048, 4096, 8192}) {
        for (double depth : {0, 2048, 8192}) add(prompt, 0, depth);
    }
    for (double generated : {32, 128, 512}) {
        for (double depth : {0, 512, 1024, 2048, 4096, 8192, 16384}) add(0, generated, depth);
    }
    const std::string bench = write_file("synthetic.csv", csv);
    const std::string preset = scratch("synthetic-preset.yaml");
    std::filesystem::remove(preset);

    const auto result = run({"calibrate", bench, "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--output", preset,
                             "--name", "my-4090", "--json"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["rows"] == 42);
    // Sorted, the 21 decode rows take positions 0..20 and the 21 prefill rows 21..41: positions
    // 3, 7, ..., 39 are held out, 5 of each.
    CHECK(json["held_out_rows"] == 10);
    CHECK(json["in_sample"] == false);
    // The data are the model's own under the true factors, so the fit finds them to within a grid step.
    const auto& fitted = json["factors"];
    CHECK(fitted["kernel_overhead_s"].get<double>() == doctest::Approx(7e-6).epsilon(1e-6 / 7e-6).scale(0.0));
    CHECK(fitted["quantized_weight_bandwidth"].get<double>() == doctest::Approx(0.80).epsilon(0.02 / 0.80).scale(0.0));
    CHECK(fitted["attention_bandwidth"].get<double>() == doctest::Approx(1.0).epsilon(0.05).scale(0.0));
    // Prefill: the quantized matmuls see compute x quantized compute, the attention matmuls
    // compute alone, so the pair is determined; grid steps 0.05 and 0.05.
    CHECK(fitted["compute"].get<double>() == doctest::Approx(0.55).epsilon(0.05 / 0.55).scale(0.0));
    CHECK(fitted["quantized_compute"].get<double>() == doctest::Approx(0.70).epsilon(0.05 / 0.70).scale(0.0));
    // Never fitted (fit_runtime does not search it): llama.cpp's 0.
    CHECK(fitted["sequence_overhead_s"].get<double>() == 0.0);
    for (const auto& errors : json["errors"]) {
        INFO(errors["metric"]);
        CHECK(errors["median_abs_error_after"].get<double>() < 0.01);
        // The shipped factors are not the truth, so the fit can only improve on them.
        CHECK(errors["median_abs_error_before"].get<double>() > errors["median_abs_error_after"].get<double>());
    }

    // The file reads back with the same factors (rounded to 0.01 us and 4 decimals when written).
    const auto loaded = testing::shipped_catalog().runtime(preset);
    CHECK(loaded->name == "my-4090");
    CHECK(loaded->fit_group == "llama.cpp");
    CHECK(loaded->measured);
    for (const auto& field : profiles::kRuntimeFactorFields) {
        INFO(field.key);
        const double written = fitted[std::string(field.key) + (field.unit == core::FactorUnit::duration ? "_s" : "")].get<double>();
        CHECK(std::fabs(field.get(gddr(*loaded)) - written) <= 1e-4 * std::fabs(written));
    }
    // Families it does not state keep the base's factors.
    const auto base_hbm = testing::test_runtime("llama.cpp")->factors(core::MemoryFamily::hbm);
    CHECK(loaded->factors(core::MemoryFamily::hbm).compute == base_hbm.compute);

    // predict reads it, names it, and its decode speed is the truth's (the fit's error < 1%).
    const auto predicted = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--weights", "q4_k_m",
                                "--kv", "fp16", "--clocks", "peak", "--runtime", preset, "--context", "1024", "--json"});
    REQUIRE(predicted.exit_code == 0);
    const auto prediction = nlohmann::json::parse(predicted.out);
    CHECK(prediction["conditions"]["runtime"] == "my-4090");
    const double truth_rate = engine::Evaluator(model, hardware, deployment, engine::runtime_efficiency(hardware, truth, deployment.backend))
                                  .predict(engine::Workload::step(1, 1024))
                                  .decode.tokens_per_s_per_stream;
    CHECK(prediction["decode"]["tokens_per_s_per_stream"].get<double>() == doctest::Approx(truth_rate).epsilon(0.01).scale(0.0));
}

TEST_CASE("a bad runtime preset file is one error naming the file, line and key, and exits 1") {
    struct Case {
        const char* name;
        const char* text;
        const char* expected;  // after "PATH:"
    };
    const char* header = "name: mine\nbase: llama.cpp\nsource: by hand\nmeasured: false\nmeasurements: none\n";
    const std::vector<Case> cases{
        {"unknown-key.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    compute: 0.5\n    computer: 0.5\n",
         "10:5: error: factors.gddr.computer: unknown key; did you mean 'compute'?"},
        {"unknown-family.yaml", "factors:\n  fitted_by: hand\n  ddr:\n    compute: 0.5\n",
         "8:3: error: factors.ddr: unknown key; did you mean 'gddr'?"},
        {"zero.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    compute: 0\n",
         "9:14: error: factors.gddr.compute: expected a number greater than 0 and at most 1.5, found '0'"},
        {"too-large.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    compute: 1.6\n",
         "9:14: error: factors.gddr.compute: expected a number greater than 0 and at most 1.5, found '1.6'"},
        // A hundredth of the measured defaults is a typo: 1e-300 would price a pass at 1e298 s.
        {"tiny.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    quantized_weight_bandwidth: 1e-300\n",
         "9:33: error: factors.gddr.quantized_weight_bandwidth: 1e-300 is below 0.01, a hundredth of the measured "
         "defaults; expected a multiplier from 0.01 to 1.5"},
        {"nan.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    compute: .nan\n",
         "9:14: error: factors.gddr.compute: expected a finite number, found '.nan'"},
        {"negative.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    kernel_overhead: -1 us\n",
         "9:22: error: factors.gddr.kernel_overhead: expected a time from 0 us to 1000 us"},
        // A count of rows: 0 is no staging cost (accepted), below 0 or past four 256-row tiles is not.
        {"negative-rows.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    tile_setup_rows: -4\n",
         "9:22: error: factors.gddr.tile_setup_rows: expected a number from 0 to 1024, found '-4'"},
        {"too-many-rows.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    tile_setup_rows: 5000\n",
         "9:22: error: factors.gddr.tile_setup_rows: expected a number from 0 to 1024, found '5000'"},
        {"rows-with-unit.yaml", "factors:\n  fitted_by: hand\n  gddr:\n    tile_setup_rows: 80 rows\n",
         "9:22: error: factors.gddr.tile_setup_rows: expected a number from 0 to 1024, found '80 rows'"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string path = write_file(c.name, std::string(header) + c.text);
        const auto result = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", path});
        CHECK(result.exit_code == 1);
        CHECK(result.err == path + ":" + c.expected + "\n");
    }
    // The header's own keys: an unknown base, and a missing name.
    const std::string base =
        write_file("base.yaml", "name: mine\nbase: llama-cpp\nsource: by hand\nmeasured: false\nmeasurements: none\n");
    const auto unknown_base = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", base});
    CHECK(unknown_base.exit_code == 1);
    CHECK(unknown_base.err == base + ":2:7: error: base: unknown runtime 'llama-cpp' (did you mean 'llama.cpp'?) (list them "
                                     "with: decodesim profiles list runtimes)\n");
    // 0 rows is a valid setting (a runtime without the staging cost), not "at least 1".
    const std::string zero_rows = write_file("zero-rows.yaml", std::string(header) +
                                                                   "factors:\n  fitted_by: hand\n  gddr:\n    tile_setup_rows: 0\n");
    CHECK(run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", zero_rows}).exit_code == 0);
    const std::string nameless = write_file("nameless.yaml", "base: vllm\nsource: by hand\nmeasured: false\nmeasurements: none\n");
    const auto no_name = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", nameless});
    CHECK(no_name.exit_code == 1);
    CHECK(no_name.err == nameless + ":1:1: error: name: missing required key; expected a text value\n");
}

TEST_CASE("--runtime names a build, a name with a version, a bare name or a file, else it is a usage error") {
    const auto missing = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", "missing.yaml"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("missing.yaml") != std::string::npos);
    const auto typo = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", "vlm"});
    CHECK(typo.exit_code == 2);
    CHECK(typo.err.find("unknown runtime 'vlm' (did you mean 'vllm'?)") != std::string::npos);
    // A version names the newest build not later than it; the bare name, the build marked current.
    const auto runtime_of = [](const std::string& runtime) {
        const auto result = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", runtime, "--json"});
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["conditions"]["runtime"].get<std::string>();
    };
    CHECK(runtime_of("llama.cpp@2024-09") == "llama.cpp@2024-06");
    CHECK(runtime_of("llama.cpp@2024-06") == "llama.cpp@2024-06");
    CHECK(runtime_of("llama.cpp@2026-01") == "llama.cpp@2025-10");
    CHECK(runtime_of("llama.cpp") == "llama.cpp@2025-10");
    CHECK(runtime_of("vllm@0.7") == "vllm@0.6");
    CHECK(runtime_of("vllm@0.11") == "vllm@0.8");   // 0.11 sorts above 0.8: versions compare as numbers
    CHECK(runtime_of("sglang") == "sglang");
    // A version before every build is refused, with the builds.
    const auto early = run({"predict", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--runtime", "llama.cpp@2022-01"});
    CHECK(early.exit_code == 2);
    CHECK(early.err.find("no profile of llama.cpp covers version 2022-01; the builds are llama.cpp@2023-03, "
                         "llama.cpp@2024-06, llama.cpp@2025-10") != std::string::npos);
}

TEST_CASE("a preset file that halves compute doubles a compute-bound prefill") {
    // vllm's HBM compute factor is 1.0 (the measured 0.80 of the peak); a file that sets it to 0.5
    // leaves 0.40. An 8192-token prompt of Llama 3.1 8B on an H100 is compute-bound, and its
    // kernel overheads are a small share, so its TTFT grows by close to 0.80 / 0.40 = 2.
    REQUIRE(testing::test_runtime("vllm")->factors(core::MemoryFamily::hbm).compute == 1.0);
    const std::string path = write_file("half-compute.yaml",
                                        "name: half-compute\nbase: vllm\nsource: test\nmeasured: false\nmeasurements: none\n"
                                        "factors:\n  fitted_by: hand\n  hbm:\n    compute: 0.5\n");
    auto ttft = [](const std::string& runtime) {
        const auto result = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--prompt", "8192",
                                 "--output", "1", "--runtime", runtime, "--json"});
        REQUIRE(result.exit_code == 0);
        return nlohmann::json::parse(result.out)["ttft_s"].get<double>();
    };
    const double ratio = ttft(path) / ttft("vllm");
    CHECK(ratio > 1.85);
    CHECK(ratio <= 2.0);
    // plan, curve and check-claim accept the same file.
    CHECK(run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", path}).exit_code == 0);
    CHECK(run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", path, "--tokens-per-s",
               "100", "--per", "stream"})
              .exit_code == 0);
}

TEST_CASE("calibrate with fewer than 8 rows says its errors are in sample") {
    const std::string out = scratch("few.yaml");
    const auto result = run({"calibrate", test_data("calibrate/llama_bench.csv"), "--hardware", "rtx-4090", "--model",
                             "llama-3.1-8b", "--output", out});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("IN SAMPLE") != std::string::npos);
    // Four usable rows: fewer than fit_runtime's 10 of a kind, so the preset is llama.cpp's own.
    const auto loaded = testing::shipped_catalog().runtime(out);
    const auto base = testing::test_runtime("llama.cpp")->factors(core::MemoryFamily::gddr);
    CHECK(gddr(*loaded).compute == doctest::Approx(base.compute));
    CHECK(gddr(*loaded).kernel_overhead.value == doctest::Approx(base.kernel_overhead.value));
}

TEST_CASE("calibrate recovers a serving stack's per-sequence cost and request path from SGLang bench_serving runs") {
    // Llama 3.1 8B on an H100 served by a stack whose true serving costs are 60 us of host time per
    // sequence in every pass and a request path of 12 ms in and 12 ms out, with the pinned vLLM
    // factors for the kernels. Six closed-loop runs (3 concurrencies x 2 shapes), each read as
    // SGLang's bench_serving writes them, one JSON object a line with its throughput, median TPOT
    // and median TTFT: 18 rows, of which 4 are held out. The base (the pinned vLLM build: no
    // per-sequence cost, no request path) is off on all three metrics; the fit finds both costs
    // to within its grid (1 us and 2 ms), the TTFT and TPOT within 1%.
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("h100-sxm");
    const auto model = catalog.model("llama-3.1-8b");
    const auto base = testing::test_runtime("vllm");
    engine::RuntimeProfile truth = *base;
    truth.by_family[static_cast<std::size_t>(core::MemoryFamily::hbm)].sequence_overhead = core::Seconds(60e-6);
    truth.request_path.before_scheduler = core::Seconds(0.012);
    truth.request_path.after_step = core::Seconds(0.012);
    engine::DeploymentChoice choice;
    choice.weights = core::find_named(core::weight_formats(), "bf16");
    choice.runtime = std::make_shared<const engine::RuntimeProfile>(truth);
    const engine::Deployment deployment = engine::resolve_deployment(hardware, model, choice);

    std::string jsonl;
    for (const auto& [prompt, output] : std::vector<std::pair<int, int>>{{512, 128}, {256, 64}}) {
        for (const int clients : {4, 16, 64}) {
            profiles::Measurement m;
            m.engine = "sglang";
            m.weights = "bf16";
            m.batch = clients;
            m.prompt = prompt;
            m.output = output;
            m.closed_loop = true;
            m.requests = 100;
            m.median_latency = true;
            m.sustained_clocks = true;
            auto value = [&](profiles::Metric metric) {
                m.metric = metric;
                return fit::predict_measurement(m, model, hardware, deployment, truth);
            };
            jsonl += fmt::format(
                "{{\"backend\": \"sglang\", \"max_concurrency\": {}, \"completed\": 100, \"duration\": 120.0, "
                "\"total_input_tokens\": {}, \"total_output_tokens\": {}, \"output_throughput\": {:.10g}, "
                "\"median_ttft_ms\": {:.10g}, \"mean_ttft_ms\": 1.0, \"median_tpot_ms\": {:.10g}, \"random_input_len\": {}, "
                "\"random_output_len\": {}}}\n",
                clients, 100 * prompt, 100 * output, value(profiles::Metric::decode_tokens_per_s_total),
                value(profiles::Metric::ttft_s) * 1e3, value(profiles::Metric::tpot_s) * 1e3, prompt, output);
        }
    }
    const std::string bench = write_file("sglang-runs.jsonl", jsonl);
    const auto loaded = profiles::load_benchmark_results({bench}, std::string("bf16"));
    CHECK(loaded.format == profiles::BenchmarkFormat::sglang_bench_serving);
    REQUIRE(loaded.rows.size() == 18);
    CHECK(loaded.rows[0].engine == "sglang");
    CHECK(loaded.rows[0].closed_loop);
    CHECK(loaded.rows[0].requests == 100);
    CHECK(loaded.rows[0].median_latency);  // median_ttft_ms is stated, so the medians are read

    const auto result = run({"calibrate", bench, "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "bf16",
                             "--runtime", testing::test_data("runtime_profiles/pinned-vllm-0.8.yaml"), "--json"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["rows"] == 18);
    CHECK(json["closed_loop_rows"] == 18);
    CHECK(json["held_out_rows"] == 4);
    CHECK(json["request_path_fitted"] == true);
    // Absolute tolerances: doctest's Approx adds a scale of 1 to its epsilon, so a relative
    // epsilon on a time in seconds would pass anything under about its own size.
    CHECK(std::fabs(json["factors"]["sequence_overhead_s"].get<double>() - 60e-6) <= 1e-6);
    const double path = json["request_path"]["before_scheduler_s"].get<double>() + json["request_path"]["after_step_s"].get<double>();
    CHECK(std::fabs(path - 0.024) <= 0.002);
    for (const auto& errors : json["errors"]) {
        INFO(errors["metric"]);
        CHECK(errors["median_abs_error_after"].get<double>() < 0.01);
        CHECK(errors["median_abs_error_before"].get<double>() > 0.02);
    }
}

TEST_CASE("a serving run's lengths are replayed as its result states them") {
    // SGLang's bench_serving writes its arguments into every result, the random dataset's default
    // lengths (1024) included on a ShareGPT run: the lengths are the totals over the requests, and
    // a ShareGPT run's are drawn about them as a dataset's (the replay's dataset_lengths).
    const auto rows_of = [](const std::string& name, const std::string& fields, const std::string& backend = "sglang") {
        const std::string path = write_file(name, "{\"backend\": \"" + backend +
                                                      "\", \"max_concurrency\": 16, \"completed\": 100, "
                                                      "\"output_throughput\": 900.0, \"median_ttft_ms\": 50, " +
                                                      fields + "}\n");
        return profiles::load_benchmark_results({path}, std::string("bf16")).rows;
    };
    const auto sharegpt = rows_of("sharegpt-run.jsonl", "\"dataset_name\": \"sharegpt\", \"random_input_len\": 1024, "
                                                        "\"random_output_len\": 1024, \"random_range_ratio\": 0.0, "
                                                        "\"total_input_tokens\": 29700, \"total_output_tokens\": 19200");
    REQUIRE_FALSE(sharegpt.empty());
    CHECK(sharegpt[0].prompt == 297.0);  // 29700 / 100, not the unused 1024
    CHECK(sharegpt[0].output == 192.0);
    CHECK(sharegpt[0].dataset_lengths);
    CHECK_FALSE(sharegpt[0].prompt_range);
    // The random dataset at range ratio r draws each length from randint(max(int(N r), 1), N + 1):
    // 1 to N at SGLang's default 0, N/2 to N at 0.5, N alone at 1.
    const std::string totals = "\"total_input_tokens\": 50050, \"total_output_tokens\": 40050";
    const auto at_zero = rows_of("random-0.jsonl", "\"dataset_name\": \"random\", \"random_input_len\": 1000, "
                                                   "\"random_output_len\": 800, \"random_range_ratio\": 0.0, " + totals);
    REQUIRE_FALSE(at_zero.empty());
    CHECK(at_zero[0].prompt == 501.0);  // 50050 / 100, rounded: (1 + 1000) / 2 as drawn
    CHECK(at_zero[0].prompt_range == std::pair{1.0, 1000.0});
    CHECK(at_zero[0].output_range == std::pair{1.0, 800.0});
    CHECK_FALSE(at_zero[0].dataset_lengths);
    const auto at_half = rows_of("random-half.jsonl", "\"dataset_name\": \"random\", \"random_input_len\": 1000, "
                                                      "\"random_output_len\": 800, \"random_range_ratio\": 0.5, " + totals);
    REQUIRE_FALSE(at_half.empty());
    CHECK(at_half[0].prompt_range == std::pair{500.0, 1000.0});
    CHECK(at_half[0].output_range == std::pair{400.0, 800.0});
    const auto fixed = rows_of("random-1.jsonl", "\"dataset_name\": \"random\", \"random_input_len\": 1000, "
                                                 "\"random_output_len\": 800, \"random_range_ratio\": 1.0, "
                                                 "\"total_input_tokens\": 100000, \"total_output_tokens\": 80000");
    REQUIRE_FALSE(fixed.empty());
    CHECK_FALSE(fixed[0].prompt_range);
    CHECK_FALSE(fixed[0].dataset_lengths);
    CHECK(fixed[0].prompt == 1000.0);
    // --output-details lists each request's lengths in the order sent: those are replayed.
    // (Totals of a token or more a request, as every run's are: 100 completed.)
    const auto listed = rows_of("listed.jsonl",
                                "\"dataset_name\": \"sharegpt\", \"total_input_tokens\": 6000, "
                                "\"total_output_tokens\": 1800, \"input_lens\": [10, 20, 30], "
                                "\"output_lens\": [5, 6, 7]");
    REQUIRE_FALSE(listed.empty());
    CHECK(listed[0].request_lengths == std::vector<std::pair<long long, long long>>{{10, 5}, {20, 6}, {30, 7}});
    CHECK_FALSE(listed[0].dataset_lengths);
    // vllm bench serve saves no arguments: a run says its dataset through --metadata, and its random
    // dataset's ratio, whose meaning its builds changed, is not read (the lengths stay fixed).
    const std::string vllm_totals = "\"total_input_tokens\": 29700, \"total_output_tokens\": 19200, ";
    const auto vllm_sharegpt = rows_of("vllm-sharegpt.json", vllm_totals + "\"dataset_name\": \"sharegpt\"", "vllm");
    REQUIRE_FALSE(vllm_sharegpt.empty());
    CHECK(vllm_sharegpt[0].engine == "vllm");
    CHECK(vllm_sharegpt[0].dataset_lengths);
    const auto vllm_random = rows_of("vllm-random.json",
                                     vllm_totals + "\"dataset_name\": \"random\", \"random_input_len\": 297, "
                                                   "\"random_output_len\": 192, \"random_range_ratio\": 0.5",
                                     "vllm");
    REQUIRE_FALSE(vllm_random.empty());
    CHECK_FALSE(vllm_random[0].prompt_range);
    CHECK_FALSE(vllm_random[0].dataset_lengths);
    // Lists that do not pair up, or hold something other than token counts, are errors naming the list.
    const auto refusal_of = [](const std::string& name, const std::string& lists) {
        const std::string path = write_file(name, "{\"backend\": \"sglang\", \"max_concurrency\": 4, \"completed\": 3, "
                                                  "\"total_input_tokens\": 60, \"total_output_tokens\": 18, "
                                                  "\"output_throughput\": 10.0, " +
                                                      lists + "}\n");
        const auto messages = testing::error_messages([&] { profiles::load_benchmark_results({path}, std::string("bf16")); });
        REQUIRE(messages.size() == 1);
        return messages[0];
    };
    CHECK(refusal_of("uneven.jsonl", "\"input_lens\": [10, 20, 30], \"output_lens\": [5, 6]")
              .find("uneven.jsonl:1:1: error: input_lens: lists 3 prompt lengths against 2 output lengths") !=
          std::string::npos);
    CHECK(refusal_of("words.jsonl", "\"input_lens\": [10, \"many\"], \"output_lens\": [5, 6]")
              .find("input_lens: item 2 'many' is not a whole number of tokens up to 1e9") != std::string::npos);
}

TEST_CASE("a broken line of a JSON-lines benchmark is named by its own line number, and a run past the replay bound is refused") {
    // The first run is whole; the second line breaks off: the error is on line 2, not line 1.
    const std::string bench = write_file(
        "broken-runs.jsonl",
        "{\"backend\": \"sglang\", \"max_concurrency\": 4, \"completed\": 10, \"total_input_tokens\": 1000, "
        "\"total_output_tokens\": 500, \"output_throughput\": 100.0, \"median_ttft_ms\": 50}\n"
        "{\"backend\": \"sglang\", oops\n");
    const auto messages = testing::error_messages([&] { profiles::load_benchmark_results({bench}, std::string("bf16")); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("broken-runs.jsonl:2:") != std::string::npos);

    // Every request of a run is replayed: a count past the bound is an error naming the field,
    // never a simulation of 1e300 requests.
    const std::string huge = write_file(
        "huge-run.jsonl",
        "{\"backend\": \"sglang\", \"max_concurrency\": 4, \"completed\": 1e300, \"total_input_tokens\": 1000, "
        "\"total_output_tokens\": 500, \"output_throughput\": 100.0, \"median_ttft_ms\": 50}\n");
    const auto refused = testing::error_messages([&] { profiles::load_benchmark_results({huge}, std::string("bf16")); });
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].find("huge-run.jsonl:1:1: error: completed:") != std::string::npos);
}

namespace {

// The vllm bench serve fixture (one field a line) with `from` replaced by `to`, written as `name`.
std::string serve_run_with(const std::string& name, const std::string& from, const std::string& to) {
    std::string text = testing::read_file(test_data("calibrate/vllm_serve.json"));
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return write_file(name, text.replace(at, from.size(), to));
}

// A profile export, one field a line: `ttft` the value of time_to_first_token on line 2, then the
// inter-token latency (3), the output throughput with `throughput_unit` (4), the lengths with
// `prompt_avg` and `output_avg` (5, 6) and 4 clients (7).
std::string profile_export_with(const std::string& name, const std::string& ttft, const std::string& throughput_unit,
                                const std::string& prompt_avg = "100", const std::string& output_avg = "10") {
    return write_file(name,
                      "{\n"
                      "  \"time_to_first_token\": " +
                          ttft +
                          ",\n"
                          "  \"inter_token_latency\": {\"unit\": \"ms\", \"avg\": 10},\n"
                          "  \"output_token_throughput\": {\"unit\": \"" +
                          throughput_unit +
                          "\", \"avg\": 100},\n"
                          "  \"input_sequence_length\": {\"unit\": \"tokens\", \"avg\": " +
                          prompt_avg +
                          "},\n"
                          "  \"output_sequence_length\": {\"unit\": \"tokens\", \"avg\": " +
                          output_avg +
                          "},\n"
                          "  \"input_config\": {\"loadgen\": {\"concurrency\": 4}}\n"
                          "}\n");
}

std::vector<std::string> benchmark_errors(const std::string& path) {
    return testing::error_messages([&] { profiles::load_benchmark_results({path}, std::string("bf16")); });
}

}  // namespace

TEST_CASE("a serving run or profile export whose mean lengths are under one token is refused by key") {
    // 0 input tokens over 640 requests: a mean prompt of 0 tokens, on line 12.
    const auto no_input = benchmark_errors(
        serve_run_with("zero-input.json", "\"total_input_tokens\": 655360", "\"total_input_tokens\": 0"));
    REQUIRE(no_input.size() == 1);
    CHECK(no_input[0].find("zero-input.json:12:1: error: total_input_tokens: a mean prompt length of 0 tokens (0 over "
                           "640 requests)") != std::string::npos);
    // A listed prompt of 0 tokens (the lists on line 2).
    const auto listed = benchmark_errors(
        serve_run_with("zero-listed.json", "{\n", "{\n  \"input_lens\": [0, 5], \"output_lens\": [3, 4],\n"));
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].find("zero-listed.json:2:1: error: input_lens: item 1 '0' is not a whole number of tokens up to "
                         "1e9 (a prompt has 1 or more)") != std::string::npos);
    // AIPerf's measured means: 0 in (line 5), 0.4 out (line 6), each below a token.
    const auto aiperf = benchmark_errors(
        profile_export_with("zero-aiperf.json", "{\"unit\": \"ms\", \"avg\": 50}", "tokens/sec", "0", "0.4"));
    REQUIRE(aiperf.size() == 2);
    CHECK(aiperf[0].find("zero-aiperf.json:5:1: error: input_sequence_length.avg: a mean length of 0 tokens") !=
          std::string::npos);
    CHECK(aiperf[1].find("zero-aiperf.json:6:1: error: output_sequence_length.avg: a mean length of 0.4 tokens") !=
          std::string::npos);
    // GenAI-Perf's configured mean prompt (line 12 of its fixture).
    std::string genai = testing::read_file(test_data("calibrate/genai_perf_export.json"));
    genai.replace(genai.find("\"synthetic_input_tokens_mean\": 1024"), 35, "\"synthetic_input_tokens_mean\": 0");
    const auto configured = benchmark_errors(write_file("zero-genai.json", genai));
    REQUIRE(configured.size() == 1);
    CHECK(configured[0].find("zero-genai.json:12:1: error: input_config.synthetic_input_tokens_mean: a mean length of "
                             "0 tokens") != std::string::npos);
}

TEST_CASE("a TPOT over an hour or a TTFT over a day is refused by key, and calibrate writes no preset") {
    const auto tpot =
        benchmark_errors(serve_run_with("slow-tpot.json", "\"median_tpot_ms\": 17.6", "\"median_tpot_ms\": 1e308"));
    REQUIRE(tpot.size() == 1);
    // 1e308 ms = 1e305 s, past the hour (line 23).
    CHECK(tpot[0].find("slow-tpot.json:23:1: error: median_tpot_ms: '1e+308 ms' is 1e+305 s, beyond any benchmark's "
                       "(at most 3600 s: an hour a token)") != std::string::npos);
    const auto ttft =
        benchmark_errors(serve_run_with("slow-ttft.json", "\"median_ttft_ms\": 198.1", "\"median_ttft_ms\": 1e308"));
    REQUIRE(ttft.size() == 1);
    CHECK(ttft[0].find("slow-ttft.json:19:1: error: median_ttft_ms: '1e+308 ms' is 1e+305 s, beyond any benchmark's "
                       "(at most 86400 s: a day to the first token)") != std::string::npos);
    // The bounds themselves are read: 3,600,000 ms is an hour.
    CHECK(profiles::load_benchmark_results(
              {serve_run_with("hour-tpot.json", "\"median_tpot_ms\": 17.6", "\"median_tpot_ms\": 3600000")},
              std::string("bf16"))
              .rows.size() == 3);
    // A profile export's TTFT in its own unit: 1e308 s.
    const auto exported =
        benchmark_errors(profile_export_with("slow-aiperf.json", "{\"unit\": \"s\", \"avg\": 1e308}", "tokens/sec"));
    REQUIRE(exported.size() == 1);
    CHECK(exported[0].find("slow-aiperf.json:2:1: error: time_to_first_token.avg: '1e308' is 1e+308 s") !=
          std::string::npos);
    const std::string preset = scratch("slow-tpot-preset.yaml");
    std::filesystem::remove(preset);
    const auto result = run({"calibrate", scratch("slow-tpot.json"), "--hardware", "h100-sxm", "--model",
                             "llama-3.1-8b", "--weights", "bf16", "--output", preset});
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("median_tpot_ms:") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(preset));
}

TEST_CASE("a profile export's metric in another shape, of another unit or with no unit is refused by key") {
    const std::string ms = "{\"unit\": \"ms\", \"avg\": 50}";
    const std::vector<std::pair<std::string, std::string>> cases{
        {profile_export_with("ttft-list.json", "[1, 2]", "tokens/sec"),
         ":2:1: error: time_to_first_token: expected an object of its unit and statistics ({\"unit\": ..., \"avg\": "
         "...}), found a list"},
        {profile_export_with("ttft-number.json", "90", "tokens/sec"),
         ":2:1: error: time_to_first_token: expected an object of its unit and statistics ({\"unit\": ..., \"avg\": "
         "...}), found a single value"},
        {profile_export_with("throughput-ms.json", ms, "ms"),
         ":4:1: error: output_token_throughput.unit: unknown unit 'ms'; expected tokens/sec"},
        {profile_export_with("ttft-no-unit.json", "{\"avg\": 50}", "tokens/sec"),
         ":2:1: error: time_to_first_token.unit: missing; expected a time unit: ms, s, us or ns"},
    };
    // Not a structured binding: clang 14 will not let doctest's CAPTURE take one into its lambda.
    for (const auto& [file, expected] : cases) {
        const std::string path = file;
        const std::string message = expected;
        CAPTURE(path);
        const auto messages = benchmark_errors(path);
        REQUIRE(messages.size() == 1);
        CHECK(messages[0] == path + message);
    }
    CHECK(benchmark_errors(profile_export_with("export-ok.json", ms, "tokens/sec")) ==
          std::vector<std::string>{"(no error)"});
}

TEST_CASE("a key given twice in a serving run's JSON is refused at its second line") {
    // "duration": 95.2 on line 10, then "duration": 1 on line 11.
    const auto messages = benchmark_errors(
        serve_run_with("twice.json", "\"duration\": 95.2,\n", "\"duration\": 95.2,\n  \"duration\": 1,\n"));
    REQUIRE(messages.size() == 1);
    CHECK(messages[0] == scratch("twice.json") + ":11:1: error: duration: duplicate key; each key may appear once");
}
