// The held-out figures of `decodesim accuracy`: leave one source (or hardware family) out, refit,
// predict the source's rows. A hand-made measurement set whose fits follow from the data: each
// expected residual is derived in the comments.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "engine/operating_point.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy_run.hpp"
#include "fit/calibration.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;
namespace fs = std::filesystem;

namespace {

// Llama-3.1-8B bf16 on an H100 SXM under llama.cpp, single stream at context 1: a row the fit of
// the (llama.cpp, HBM+GDDR) factors reads.
profiles::Measurement decode_row(const std::string& id, const std::string& source) {
    profiles::Measurement m;
    m.id = id;
    m.hardware = "h100-sxm";
    m.model = "llama-3.1-8b";
    m.weights = "bf16";
    m.kv = "bf16";
    m.engine = "llama.cpp";
    m.batch = 1.0;
    m.context = 1.0;
    m.metric = profiles::Metric::decode_tokens_per_s_per_stream;
    m.source = source;
    return m;
}

// The llama.cpp preset with every factor at the measured defaults but the kernel overhead.
engine::RuntimeProfile llama_cpp_with_overhead(double seconds) {
    engine::RuntimeProfile preset = *testing::test_runtime("llama.cpp");
    for (auto& factors : preset.by_family) {
        factors = engine::RuntimeFactors{};
        factors.kernel_overhead = core::Seconds(seconds);
    }
    return preset;
}

// Three sources on one device, every row under the same conditions, so one prediction per preset:
// p10 with a 10 us kernel overhead (a point of the fit's 1 us grid), p4 with the measured defaults
// (4 us). Source a: 10 rows measured at exactly p10; b: 1 row at p10; c: 1 row at p10 / 1.25.
// a's rows are cited with different notes, which source_key folds into one publication.
struct ThreeSources {
    profiles::Catalog catalog = testing::shipped_catalog();
    profiles::HardwareProfile hardware = catalog.hardware("h100-sxm");
    profiles::ModelProfile model = catalog.model("llama-3.1-8b");
    engine::Deployment deployment;
    double p10 = 0.0, p4 = 0.0;
    std::vector<profiles::Measurement> rows;

    ThreeSources() {
        engine::DeploymentChoice choice;
        choice.weights = &core::named_or_throw(core::weight_formats(), "bf16", "--weights", "format");
        choice.kv = &core::named_or_throw(core::kv_formats(), "bf16", "--kv", "format");
        choice.runtime = testing::test_runtime("llama.cpp");
        choice.clocks.condition = engine::ClockCondition::peak;  // as accuracy runs a row without clocks=sustained
        deployment = engine::resolve_deployment(hardware, model, choice);
        const auto probe = decode_row("probe", "");
        p10 = fit::predict_measurement(probe, model, hardware, deployment, llama_cpp_with_overhead(10e-6));
        p4 = fit::predict_measurement(probe, model, hardware, deployment, llama_cpp_with_overhead(4e-6));
        for (int i = 0; i < 10; ++i) {
            rows.push_back(decode_row(fmt::format("a{}", i), fmt::format("https://a.example/t (table {})", i)));
        }
        rows.push_back(decode_row("b", "https://b.example/t; read via a transcription"));
        rows.push_back(decode_row("c", "https://c.example/t"));
        for (auto& row : rows) row.value = p10;
        rows.back().value = p10 / 1.25;
    }
};

}  // namespace

TEST_CASE("a fit's prediction from a cost model built once is the one built afresh") {
    // A fit builds each row's cost model once and evaluates it under every preset of its grid
    // (fit::PredictionCache); the cost model depends on the model and deployment alone, so each
    // figure must be the one predict_measurement computes from scratch, bit for bit, whatever the
    // factors. A decode row at its context and a 2,048-token prompt, under two kernel overheads.
    const ThreeSources data;
    const engine::CostModel cost = engine::Evaluator::text_cost_model(data.model, data.hardware, data.deployment);
    auto prompt = decode_row("prompt", "");
    prompt.metric = profiles::Metric::prefill_tokens_per_s;
    prompt.context.reset();
    prompt.prompt = 2048.0;
    for (const profiles::Measurement& row : {decode_row("decode", ""), prompt}) {
        for (const double overhead : {4e-6, 10e-6}) {
            const auto preset = llama_cpp_with_overhead(overhead);
            const double afresh = fit::predict_measurement(row, data.model, data.hardware, data.deployment, preset);
            const double reused = fit::predict_measurement(row, data.model, data.hardware, data.deployment, preset, &cost);
            CHECK(afresh > 0.0);
            CHECK(reused == afresh);
        }
    }
    // The two overheads give two figures, so the reuse is not one cached answer.
    CHECK(data.p10 < data.p4);
    // And the figure is the given cost model's: fp8 weights' cost model (half the bytes a step)
    // under the bf16 deployment streams faster, so a constructor that ignored it would fail here.
    engine::DeploymentChoice fp8;
    fp8.weights = &core::named_or_throw(core::weight_formats(), "fp8", "--weights", "format");
    fp8.kv = &core::named_or_throw(core::kv_formats(), "bf16", "--kv", "format");
    fp8.runtime = testing::test_runtime("llama.cpp");
    fp8.clocks.condition = engine::ClockCondition::peak;
    const engine::CostModel fp8_cost = engine::Evaluator::text_cost_model(
        data.model, data.hardware, engine::resolve_deployment(data.hardware, data.model, fp8));
    const auto preset = llama_cpp_with_overhead(4e-6);
    const auto decode = decode_row("decode", "");
    CHECK(fit::predict_measurement(decode, data.model, data.hardware, data.deployment, preset, &fp8_cost) >
          1.2 * fit::predict_measurement(decode, data.model, data.hardware, data.deployment, preset));
}

TEST_CASE("leave one source out: each source's rows are predicted by a fit that never saw them") {
    const ThreeSources data;
    const auto& [hardware, model, deployment, rows] = std::tie(data.hardware, data.model, data.deployment, data.rows);
    const double p10 = data.p10, p4 = data.p4;
    // Less overhead per kernel, a shorter step: the defaults predict faster.
    REQUIRE(p4 > p10);

    std::vector<fit::CalibrationCase> cases;
    for (const auto& row : rows) cases.push_back({&row, &model, &hardware, deployment});
    const auto by_source = fit::leave_one_group_out(cases, "source", [](const fit::CalibrationCase& c) {
        return fit::source_key(c.measurement->source);
    });
    CHECK(by_source.groups == 3);
    REQUIRE(by_source.rows.size() == rows.size());
    CHECK(by_source.group_of_row[0] == "https://a.example/t");
    CHECK(by_source.group_of_row[10] == "https://b.example/t");

    // a held out: b and c are 2 rows, under the 10 a fit needs, so the factors stay at the
    // measured defaults (never the shipped ones) and a's rows get p4 / p10 - 1.
    const double a_residual = p4 / p10 - 1.0;
    for (int i = 0; i < 10; ++i) CHECK(by_source.rows[i].error == doctest::Approx(a_residual).epsilon(1e-9));
    // b held out: a's 10 rows and c make 11; at 10 us ten of them are exact, the median |error| is
    // 0, and no other grid point reaches it: the fit is 10 us and b's residual p10 / p10 - 1 = 0.
    CHECK(std::fabs(by_source.rows[10].error) < 1e-9);
    // c held out: a and b, all exact at 10 us, fit 10 us; c measured p10 / 1.25 gives +25%.
    CHECK(by_source.rows[11].error == doctest::Approx(0.25).epsilon(1e-9));

    // Per metric: 12 rows from 3 sources; sorted |error| are 0, 0.25 and ten times a_residual, so
    // the median (6th and 7th) is a_residual and the mean (10 a_residual + 0.25) / 12.
    REQUIRE(by_source.by_metric.size() == 1);
    const auto& summary = by_source.by_metric[0];
    CHECK(summary.errors.name == "decode_tokens_per_s_per_stream");
    CHECK(summary.errors.rows == 12);
    CHECK(summary.groups == 3);
    CHECK(summary.errors.median_absolute_error == doctest::Approx(a_residual).epsilon(1e-9));
    CHECK(summary.errors.mean_absolute_error == doctest::Approx((10 * a_residual + 0.25) / 12).epsilon(1e-9));

    // In sample the fit sees all 12 rows (11 exact at 10 us): a and b are exact, c is +25%.
    const auto in_sample = fit::in_sample(cases);
    CHECK(std::fabs(in_sample.rows[0].error) < 1e-9);
    CHECK(in_sample.rows[11].error == doctest::Approx(0.25).epsilon(1e-9));
    REQUIRE(in_sample.by_metric.size() == 1);
    CHECK(in_sample.by_metric[0].errors.median_absolute_error < 1e-9);

    // Every row here is one hardware family: holding it out leaves nothing to fit on, so every
    // row is predicted under the measured defaults.
    const auto by_family =
        fit::leave_one_group_out(cases, "hardware family", [](const fit::CalibrationCase& c) {
            return c.hardware->family();
        });
    CHECK(by_family.groups == 1);
    CHECK(by_family.group_of_row[0] == "nvidia-hopper");
    CHECK(by_family.rows[11].error == doctest::Approx(p4 / (p10 / 1.25) - 1.0).epsilon(1e-9));
}

TEST_CASE("leave one source out: a source is the source column up to the first space-parenthesis or semicolon") {
    CHECK(fit::source_key(
              "https://github.com/ggml-org/llama.cpp/discussions/4167 (first-post summary table; read via "
              "a transcription)") == "https://github.com/ggml-org/llama.cpp/discussions/4167");
    CHECK(fit::source_key(
              "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md (commit 00dd2bd), LLaMA 2 tables") ==
          "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md");
    // A parenthesis inside the URL is part of it: only " (" ends the key.
    CHECK(fit::source_key(
              "https://llm-tracker.info/AMD-Strix-Halo-(Ryzen-AI-Max+-395)-GPU-Performance (2025-05-17; x)") ==
          "https://llm-tracker.info/AMD-Strix-Halo-(Ryzen-AI-Max+-395)-GPU-Performance");
    CHECK(fit::source_key("https://example.org/a; b (c)") == "https://example.org/a");
    CHECK(fit::source_key("plain source, ") == "plain source");
    CHECK(fit::source_key("") == "");
}

TEST_CASE("leave one family out: a profile's vendor and architecture name its family") {
    // The profiles state them (hardware_profiles/*.yaml); the families are chip generations.
    const auto catalog = testing::shipped_catalog();
    const auto family = [&](const std::string& id) { return catalog.hardware(id).family(); };
    CHECK(family("h100-sxm") == "nvidia-hopper");
    CHECK(family("gh200") == "nvidia-hopper");
    CHECK(family("rtx-4090") == "nvidia-ada");
    // "rtx-50..." is not always Blackwell: the RTX 5000 Ada is Ada.
    CHECK(family("rtx-5000-ada") == "nvidia-ada");
    CHECK(family("rtx-5090") == "nvidia-blackwell");
    CHECK(family("dgx-spark") == "nvidia-blackwell");
    CHECK(family("a100-sxm-80gb") == "nvidia-ampere");
    CHECK(family("apple-m2-ultra") == "apple-m2");
    CHECK(family("strix-halo") == "amd-rdna");
    CHECK(family("mi300x") == "amd-cdna");
}

TEST_CASE("accuracy --held-out: the headline first in text, its three blocks in JSON") {
    const ThreeSources data;
    const fs::path folder = fs::path(DECODESIM_BINARY_DIR) / "leave_one_out";
    fs::create_directories(folder);
    const std::string file = (folder / "three-sources.csv").string();
    {
        std::ofstream csv(file);
        csv << "id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,metric,value,source,conditions,notes\n";
        for (const auto& m : data.rows) {
            csv << fmt::format(
                "{},h100-sxm,llama-3.1-8b,bf16,bf16,llama.cpp,llama.cpp@2025-10,1,,,1,decode_tokens_per_s_per_stream,{:.17g},\"{}\",,\n",
                m.id, m.value, m.source);
        }
    }
    const auto text = testing::run({"accuracy", file, "--held-out", "--worst", "0"});
    REQUIRE(text.exit_code == 0);
    const auto headline = text.out.find("Headline:");
    REQUIRE(headline != std::string::npos);
    CHECK(headline < text.out.find("split and metric"));
    CHECK(text.out.find("source | decode_tokens_per_s_per_stream") != std::string::npos);

    const auto json = testing::run({"accuracy", file, "--held-out", "--json"});
    REQUIRE(json.exit_code == 0);
    const auto document = nlohmann::json::parse(json.out);
    // The same figures as the scenario above: a's 10 rows at p4 / p10 - 1 lead the median.
    const auto& by_source = document["leave_one_source_out"];
    CHECK(by_source["held_out"] == "source");
    CHECK(by_source["groups"] == 3);
    REQUIRE(by_source["by_metric"].size() == 1);
    CHECK(by_source["by_metric"][0]["metric"] == "decode_tokens_per_s_per_stream");
    CHECK(by_source["by_metric"][0]["rows"] == 12);
    CHECK(by_source["by_metric"][0]["median_absolute_error"].get<double>() ==
          doctest::Approx(data.p4 / data.p10 - 1.0).epsilon(1e-9));
    CHECK(document["leave_one_family_out"]["groups"] == 1);
    CHECK(document["in_sample"]["by_metric"][0]["median_absolute_error"].get<double>() < 1e-9);
    // One row per (source, metric): c's +25% alone.
    bool found = false;
    for (const auto& group : by_source["by_group"]) {
        if (group["subset"] != "https://c.example/t | decode_tokens_per_s_per_stream") continue;
        found = true;
        CHECK(group["median_absolute_error"].get<double>() == doctest::Approx(0.25).epsilon(1e-9));
    }
    CHECK(found);
    // Without the flag, no headline.
    CHECK_FALSE(nlohmann::json::parse(testing::run({"accuracy", file, "--json"}).out).contains("leave_one_source_out"));
}
