// Backends: the interface a runtime's kernels run on (core/backend.hpp), how a row states it, what
// it changes in a prediction, and that the fit recovers a backend's multiplier it was given.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "profiles/runtime_fields.hpp"
#include "engine/efficiency.hpp"
#include "engine/operating_point.hpp"
#include "profiles/benchmark_results.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "fit/calibration.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// llama.cpp's preset with every factor at the measured defaults (1, and 4 us per kernel), whose
// unified-memory factors a test then changes: the truth synthetic rows are made from.
engine::RuntimeProfile llama_cpp_at_defaults() {
    engine::RuntimeProfile preset = *testing::test_runtime("llama.cpp");
    for (auto& factors : preset.by_family) factors = engine::RuntimeFactors{};
    return preset;
}

engine::RuntimeFactors& unified(engine::RuntimeProfile& preset) {
    return preset.by_family[static_cast<std::size_t>(core::MemoryFamily::unified)];
}

// One synthetic prefill row: its prompt, the context already cached, and the backend it ran on
// (unset: the device's own).
struct PromptSpec {
    double prompt;
    std::optional<double> context;
    std::optional<core::Backend> backend;
};

// fp16 (or bf16) prefill rows of `model` under llama.cpp on strix-halo at peak clocks, each
// valued by `truth`: the rows a fit must recover `truth` from.
struct SyntheticPrompts {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    std::vector<profiles::Measurement> rows;
    std::vector<fit::CalibrationCase> cases;

    SyntheticPrompts(const std::string& model_id, const std::string& weights, const engine::RuntimeProfile& truth,
                     const std::vector<PromptSpec>& specs) {
        const auto catalog = testing::shipped_catalog();
        hardware = catalog.hardware("strix-halo");
        model = catalog.model(model_id);
        rows.resize(specs.size());  // sized once: the cases point into it
        for (std::size_t i = 0; i < specs.size(); ++i) {
            profiles::Measurement& m = rows[i];
            m.id = "row" + std::to_string(i);
            m.hardware = "strix-halo";
            m.model = model_id;
            m.weights = weights;
            m.kv = "fp16";
            m.engine = "llama.cpp";
            m.batch = 1.0;
            m.prompt = specs[i].prompt;
            m.context = specs[i].context;
            m.backend = specs[i].backend;
            m.metric = profiles::Metric::prefill_tokens_per_s;
            m.source = "synthetic";
            engine::DeploymentChoice choice;
            choice.weights = &core::named_or_throw(core::weight_formats(), weights, "--weights", "format");
            choice.kv = &core::named_or_throw(core::kv_formats(), "fp16", "--kv", "format");
            choice.runtime = testing::test_runtime("llama.cpp");
            choice.backend = m.backend;
            choice.clocks.condition = engine::ClockCondition::peak;
            const auto deployment = engine::resolve_deployment(hardware, model, choice);
            m.value = fit::predict_measurement(m, model, hardware, deployment, truth);
            cases.push_back({&m, &model, &hardware, deployment});
        }
    }

    fit::FitResult fit() const {
        return fit::fit_runtime(cases, *testing::test_runtime("llama.cpp"),
                                      {core::MemoryFamily::unified});
    }
};

}  // namespace

TEST_CASE("a device's native backend is its vendor's own interface, or the one its profile states") {
    const auto catalog = testing::shipped_catalog();
    CHECK(catalog.hardware("h100-sxm").native_backend == core::Backend::cuda);
    CHECK(catalog.hardware("mi300x").native_backend == core::Backend::rocm);
    CHECK(catalog.hardware("strix-halo").native_backend == core::Backend::rocm);
    CHECK(catalog.hardware("apple-m2-ultra").native_backend == core::Backend::metal);
    CHECK(catalog.hardware("dgx-spark").native_backend == core::Backend::cuda);
    CHECK(catalog.hardware("arc-b580").native_backend == core::Backend::sycl);
    CHECK(catalog.hardware("gaudi3").native_backend == core::Backend::other);  // backend: other (SynapseAI)
    CHECK(catalog.hardware("tpu-v5e").native_backend == core::Backend::other);

    // The keys are strict: an unknown vendor or backend names its line and the choices.
    const auto with = [](const std::string& keys) {
        return testing::write_temp("decodesim_vendor.yaml", "name: X\n" + keys +
                                                                "source: s\nmemory:\n  type: HBM3\n  capacity: 80 GiB\n"
                                                                "  bandwidth: 3.35 TB/s\ncompute:\n  bf16: 989.4 TFLOPS\n");
    };
    const auto vendor = testing::error_messages([&] { profiles::load_hardware_profile(with("vendor: nvidai\narchitecture: hopper\n")); });
    REQUIRE(vendor.size() == 1);
    CHECK(vendor[0].find(":2:9: error: vendor: unknown vendor 'nvidai' (did you mean 'nvidia'?); expected one of nvidia amd "
                         "apple intel google other") != std::string::npos);
    const auto missing = testing::error_messages([&] { profiles::load_hardware_profile(with("")); });
    REQUIRE(missing.size() == 2);
    CHECK(missing[0].find("vendor: missing required key") != std::string::npos);
    CHECK(missing[1].find("architecture: missing required key") != std::string::npos);
    const auto backend = testing::error_messages(
        [&] { profiles::load_hardware_profile(with("vendor: intel\narchitecture: gaudi\nbackend: synapse\n")); });
    REQUIRE(backend.size() == 1);
    CHECK(backend[0].find("backend: unknown backend 'synapse'") != std::string::npos);
}

TEST_CASE("a measurement states its backend as backend=NAME in its conditions, and a wrong name is an error") {
    const std::string path = testing::write_temp(
        "decodesim_backend_rows.csv",
        testing::kMeasurementHeader +
            "a,strix-halo,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,backend=vulkan,llama-bench\n"
            "b,strix-halo,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,,-o moe_backend=TRTLLM; backend=vulkan\n"
            "c,rtx-4090,llama-2-70b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,prefill_tokens_per_s,900,src,devices=2; split=layer,llama.cpp default layer split\n");
    const auto rows = profiles::load_measurements(path);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].backend == core::Backend::vulkan);
    CHECK_FALSE(rows[1].backend.has_value());  // the notes are free text, never read
    CHECK_FALSE(rows[0].layer_split);
    CHECK(rows[2].layer_split);
    CHECK(rows[2].devices == 2);

    const std::string bad = testing::write_temp("decodesim_backend_bad.csv",
                                       testing::kMeasurementHeader + "a,strix-halo,llama-2-7b,q4_0,fp16,llama.cpp,llama.cpp@2025-10,1,512,,,"
                                                 "prefill_tokens_per_s,900,src,backend=vulcan,\n");
    const auto messages = testing::error_messages([&] { profiles::load_measurements(bad); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find(":2:15:") != std::string::npos);  // line 2, the conditions column
    CHECK(messages[0].find("conditions") != std::string::npos);
    CHECK(messages[0].find("did you mean 'vulkan'") != std::string::npos);
}

TEST_CASE("llama-bench's backends column names the backend of a calibration row") {
    // Two rows of llama-bench's CSV (columns as llama-bench -o csv writes them, trimmed to the
    // ones read): a Vulkan build and a ROCm build.
    const std::string path = testing::write_temp("decodesim_llama_bench_backends.csv",
                                        "backends,model_type,n_prompt,n_gen,avg_ts\n"
                                        "Vulkan,llama 7B Q4_0,512,0,900.5\n"
                                        "ROCm,llama 7B Q4_0,512,0,1100.5\n");
    const auto results = profiles::load_benchmark_results({path}, std::nullopt);
    REQUIRE(results.rows.size() == 2);
    CHECK(results.rows[0].backend == core::Backend::vulkan);
    CHECK(results.rows[1].backend == core::Backend::rocm);
}

TEST_CASE("a backend's multiplier scales the compute rate, never past the datasheet") {
    const auto catalog = testing::shipped_catalog();
    const auto strix = catalog.hardware("strix-halo");
    engine::RuntimeProfile preset = *testing::test_runtime("llama.cpp");
    engine::RuntimeFactors& unified = preset.by_family[static_cast<std::size_t>(core::MemoryFamily::unified)];
    unified.compute = 0.5;
    unified.backend_compute[static_cast<std::size_t>(core::Backend::vulkan)] = 0.4;
    unified.backend_compute[static_cast<std::size_t>(core::Backend::metal)] = 4.0;
    // 0.80 (the measured large-GEMM fraction) x 0.5 = 0.40 on ROCm, strix-halo's own backend;
    // x 0.4 more on Vulkan = 0.16; x 4 on Metal = 1.6, held at the datasheet's 1.
    CHECK(engine::runtime_efficiency(strix, preset, core::Backend::rocm).compute == doctest::Approx(0.40).scale(0.0));
    CHECK(engine::runtime_efficiency(strix, preset, core::Backend::vulkan).compute == doctest::Approx(0.16).scale(0.0));
    CHECK(engine::runtime_efficiency(strix, preset, core::Backend::metal).compute == doctest::Approx(1.0));
    // Bandwidth and fixed costs are the family's whatever the backend.
    CHECK(engine::runtime_efficiency(strix, preset, core::Backend::vulkan).memory_bandwidth ==
          engine::runtime_efficiency(strix, preset, core::Backend::rocm).memory_bandwidth);
}

TEST_CASE("--backend moves a compute-bound prefill by the backend multiplier, and a wrong name is refused") {
    const std::vector<std::string> base{"predict", "--hardware", "strix-halo", "--model", "llama-3.1-8b", "--weights",
                                        "bf16", "--runtime", "llama.cpp", "--batch", "1", "--prompt", "1024",
                                        "--output", "1", "--json"};
    auto with = [&](const std::string& backend) {
        auto args = base;
        args.insert(args.end(), {"--backend", backend});
        return testing::run(args);
    };
    const auto rocm = with("rocm"), vulkan = with("vulkan"), native = testing::run(base);
    REQUIRE(rocm.exit_code == 0);
    REQUIRE(vulkan.exit_code == 0);
    const double ttft_rocm = nlohmann::json::parse(rocm.out)["ttft_s"].get<double>();
    const double ttft_vulkan = nlohmann::json::parse(vulkan.out)["ttft_s"].get<double>();
    CHECK(nlohmann::json::parse(native.out)["ttft_s"].get<double>() == doctest::Approx(ttft_rocm));
    // A 1k prompt of a dense 8B model is compute-bound on a 59 TFLOPS part (2 x 8e9 x 1024 = 1.6e13
    // FLOP of matrix work, 0.7 s at a quarter of the peak, against 16 GB of weights in 0.08 s at
    // ~210 GB/s), and its attention is 2% of the work (4 x 128 x 32 heads x 1024^2 / 2 pairs x 32
    // layers = 2.7e11 FLOP), so its time scales nearly as 1/compute: by the ratio of the two
    // backends' multipliers.
    const auto unified = testing::test_runtime("llama.cpp")->factors(core::MemoryFamily::unified);
    const double ratio = unified.backend_compute[static_cast<std::size_t>(core::Backend::rocm)] /
                         unified.backend_compute[static_cast<std::size_t>(core::Backend::vulkan)];
    CHECK(ttft_vulkan / ttft_rocm == doctest::Approx(ratio).epsilon(0.10).scale(0.0));

    const auto wrong = with("vulcan");
    CHECK(wrong.exit_code != 0);
    CHECK(wrong.err.find("did you mean 'vulkan'") != std::string::npos);
}

TEST_CASE("the fit gives a backend with enough prefill rows its own multiplier and recovers it") {
    // Truth: the measured defaults (every factor 1) on strix-halo, except Vulkan's kernels at 0.4
    // of ROCm's compute. 12 ROCm rows (the most: the reference, kept at 1) and 10 Vulkan rows,
    // prompts 512..6144 tokens of bf16 Llama-3.1-8B.
    engine::RuntimeProfile truth = llama_cpp_at_defaults();
    unified(truth).backend_compute[static_cast<std::size_t>(core::Backend::vulkan)] = 0.4;
    std::vector<PromptSpec> specs;
    for (int i = 0; i < 22; ++i) {
        specs.push_back({512.0 * (1 + i % 12), std::nullopt,
                         i >= 12 ? std::optional<core::Backend>(core::Backend::vulkan) : std::nullopt});
    }
    const SyntheticPrompts prompts("llama-3.1-8b", "bf16", truth, specs);
    const auto fit = prompts.fit();
    // The reference backend keeps exactly 1; the compute factor comes back to the truth's 1 (a
    // point of its 0.05 grid); Vulkan's multiplier to within the 5% step of its geometric grid.
    CHECK(fit.factors.backend_compute[static_cast<std::size_t>(core::Backend::rocm)] == 1.0);
    CHECK(fit.factors.compute_on(core::Backend::rocm) == doctest::Approx(1.0).epsilon(0.05).scale(0.0));
    CHECK(fit.factors.compute_on(core::Backend::vulkan) == doctest::Approx(0.4).epsilon(0.05).scale(0.0));
    CHECK(std::find(fit.fitted.begin(), fit.fitted.end(), "compute_on_vulkan") != fit.fitted.end());
    CHECK(fit.prefill_error_after < 0.03);
}

TEST_CASE("a backend's attention multiplier slows long prompts and leaves short decode alone") {
    // Llama-2-7B (32 layers, 32 heads of 128, 6.48e9 weights in its layers) on strix-halo, a prompt
    // of 2048 tokens after 32768 of context, every factor at 1:
    //   matrix work    2 x 6.48e9 x 2048                                 = 2.65e13 FLOP
    //   attention work 4 x 128 x 32 heads x (2048 x 32768 + 2048^2 / 2) pairs x 32 layers
    //                  = 16384 x 6.92e7 x 32                             = 3.63e13 FLOP
    // both at the same fp16 rate, so attention is 3.63 / 6.28 = 57.8% of a compute-bound pass, and
    // halving its rate makes the pass 1.578x as long: the rate falls to 1 / 1.578 = 0.634 (the
    // weights' and cache's bytes and the launches hide under the arithmetic). Batch-1 decode at a
    // 512-token context is memory-bound (about 1 FLOP of attention per KV byte against the device's
    // 230 FLOP/B balance) and must not move at all.
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("strix-halo");
    const auto model = catalog.model("llama-2-7b");
    engine::DeploymentChoice choice;
    choice.weights = &core::named_or_throw(core::weight_formats(), "q4_0", "--weights", "format");
    choice.kv = &core::named_or_throw(core::kv_formats(), "fp16", "--kv", "format");
    choice.runtime = testing::test_runtime("llama.cpp");
    const auto deployment = engine::resolve_deployment(hardware, model, choice);
    const engine::RuntimeProfile full = llama_cpp_at_defaults();
    engine::RuntimeProfile preset = full;
    unified(preset).backend_attention[static_cast<std::size_t>(core::Backend::rocm)] = 0.5;

    profiles::Measurement prompt;
    prompt.metric = profiles::Metric::prefill_tokens_per_s;
    prompt.batch = 1.0;
    prompt.prompt = 2048.0;
    prompt.context = 32768.0;
    const double long_full = fit::predict_measurement(prompt, model, hardware, deployment, full);
    const double long_half = fit::predict_measurement(prompt, model, hardware, deployment, preset);
    CHECK(long_half / long_full == doctest::Approx(0.634).epsilon(0.02).scale(0.0));

    profiles::Measurement step;
    step.metric = profiles::Metric::decode_tokens_per_s_per_stream;
    step.batch = 1.0;
    step.context = 512.0;
    step.output = 1.0;
    CHECK(fit::predict_measurement(step, model, hardware, deployment, preset) ==
          doctest::Approx(fit::predict_measurement(step, model, hardware, deployment, full)).epsilon(1e-9));
}

TEST_CASE("the fit recovers a backend's attention multiplier from its long prompts") {
    // Truth: every factor 1 except ROCm's attention kernels at 0.5 on strix-halo. 12 prompts of
    // 512 tokens without context (attention under 2% of the work: they fix compute at 1) and 12 of
    // 2048 tokens after 12k to 34k of context (attention 35 to 60% of the work: they measure it).
    engine::RuntimeProfile truth = llama_cpp_at_defaults();
    unified(truth).backend_attention[static_cast<std::size_t>(core::Backend::rocm)] = 0.5;
    std::vector<PromptSpec> specs;
    for (int i = 0; i < 24; ++i) {
        specs.push_back({i < 12 ? 512.0 : 2048.0, i >= 12 ? std::optional<double>(12288.0 + 2048.0 * (i - 12)) : std::nullopt,
                         std::nullopt});
    }
    const auto fit = SyntheticPrompts("llama-2-7b", "fp16", truth, specs).fit();
    // compute on its 0.05 grid; the attention multiplier within its 5% geometric step.
    CHECK(fit.prefill_rows == 24);
    CHECK(fit.factors.compute == doctest::Approx(1.0).epsilon(0.05).scale(0.0));
    CHECK(fit.factors.attention_on(core::Backend::rocm) == doctest::Approx(0.5).epsilon(0.05).scale(0.0));
    CHECK(std::find(fit.fitted.begin(), fit.fitted.end(), "attention_compute_on_rocm") != fit.fitted.end());
}

TEST_CASE("a backend's matrix multiplier is read off its short prompts, however few, not its long ones") {
    // Truth: every factor 1 on strix-halo, except ROCm's matrix kernels at 0.4 of Vulkan's and its
    // attention kernels at 0.3. Vulkan: 16 short fp16 prompts of Llama-2-7B (the most rows: the
    // reference). ROCm: 4 short prompts (512 to 2048 tokens, attention at most 6% of the work) and
    // 10 of 2048 tokens after 12k to 30k of context, where attention is 35 to 60% of the work at
    // full rate and most of it at 0.3. On the long prompts a slower matrix rate and a slower
    // attention rate trade against each other, so only the 4 short ones say what the matrix kernels
    // reach: 0.4; the attention multiplier is then read off the long ones given it.
    engine::RuntimeProfile truth = llama_cpp_at_defaults();
    unified(truth).backend_compute[static_cast<std::size_t>(core::Backend::rocm)] = 0.4;
    unified(truth).backend_attention[static_cast<std::size_t>(core::Backend::rocm)] = 0.3;
    std::vector<PromptSpec> specs;
    for (int i = 0; i < 30; ++i) {
        specs.push_back({i < 20 ? 512.0 * (1 + i % 4) : 2048.0,
                         i >= 20 ? std::optional<double>(12288.0 + 2048.0 * (i - 20)) : std::nullopt,
                         i < 16 ? core::Backend::vulkan : core::Backend::rocm});
    }
    const auto fit = SyntheticPrompts("llama-2-7b", "fp16", truth, specs).fit();
    // Relative to the reference, each within 10%: two steps of the 5% geometric grid, because the
    // short prompts' own attention (up to 6% of their work, slowed 3.3x in the truth) pulls the
    // matrix multiplier a step low before the attention multiplier is read. Fitted on every ROCm
    // prompt, long ones included, the pair came out 0.19 and 0.94: the long prompts' slowness
    // blamed on the matrix kernels.
    CHECK(fit.factors.backend_compute[static_cast<std::size_t>(core::Backend::vulkan)] == 1.0);
    CHECK(fit.factors.compute_on(core::Backend::rocm) / fit.factors.compute_on(core::Backend::vulkan) ==
          doctest::Approx(0.4).epsilon(0.10).scale(0.0));
    CHECK(fit.factors.attention_on(core::Backend::rocm) == doctest::Approx(0.3).epsilon(0.10).scale(0.0));
}

TEST_CASE("no preset file, however generous, predicts past the roofline bound") {
    // Every multiplier at the most a preset file accepts: bandwidths x1.5 (0.82 x 1.5 = 1.23 of the
    // datasheet), compute x1.25 and quantized compute x1.5, attention x8. Each rate stops at the
    // device's peak, so tokens/s never exceed `--runtime ideal` (the datasheet, no overheads) and
    // the time to first token is never shorter.
    const std::string preset = testing::write_temp("decodesim_generous_preset.yaml",
                                          "name: generous\nbase: vllm\nsource: test\nmeasured: false\nmeasurements: none\nfactors:\n  fitted_by: hand\n  hbm:\n"
                                          "    kernel_overhead: 0 us\n    quantized_weight_bandwidth: 1.5\n"
                                          "    quantized_compute: 1.5\n    attention_bandwidth: 1.5\n    compute: 1.25\n"
                                          "    attention_compute_on_cuda: 8\n    compute_on_cuda: 8\n");
    for (const std::string weights : {"bf16", "int4"}) {
        CAPTURE(weights);
        const std::vector<std::string> point{"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights",
                                             weights,   "--kv",       "bf16",     "--batch", "4",            "--prompt",
                                             "16384",   "--output",   "256",      "--json",  "--runtime"};
        auto generous_args = point, ideal_args = point;
        generous_args.push_back(preset);
        ideal_args.push_back("ideal");
        const auto generous = testing::run(generous_args), ideal = testing::run(ideal_args);
        REQUIRE(generous.exit_code == 0);
        REQUIRE(ideal.exit_code == 0);
        const auto g = nlohmann::json::parse(generous.out), i = nlohmann::json::parse(ideal.out);
        CHECK(g["decode"]["tokens_per_s_total"].get<double>() <= i["decode"]["tokens_per_s_total"].get<double>() * (1 + 1e-9));
        CHECK(g["ttft_s"].get<double>() >= i["ttft_s"].get<double>() * (1 - 1e-9));
    }
}

TEST_CASE("a backend unmeasured in one memory family takes the fraction its kernels reach in another, "
          "one measured nowhere the typical measured fraction") {
    // llama.cpp on discrete GPUs measured CUDA only (compute 0.50, quantized compute 0.60: CUDA's
    // quantized matrices at 0.50 x 0.60 = 0.30 of the default); on unified memory ROCm is the
    // reference at compute 0.50, quantized 0.95 (0.475) and Vulkan has its own 0.218 (0.1036).
    // Discrete ROCm then needs 0.475 / 0.30 = 1.5833 and Vulkan 0.1036 / 0.30 = 0.3452; CUDA,
    // which discrete measured, keeps 1, and unified's CUDA (measured there) is not overwritten.
    const auto index = [](core::Backend backend) { return static_cast<std::size_t>(backend); };
    fit::FitResult discrete, unified, other_runtime;
    discrete.fit_group = unified.fit_group = "llama.cpp";
    discrete.families = {core::MemoryFamily::hbm, core::MemoryFamily::gddr};
    unified.families = {core::MemoryFamily::unified};
    discrete.factors.compute = 0.50;
    discrete.factors.quantized_compute = 0.60;
    discrete.compute_measured[index(core::Backend::cuda)] = true;
    unified.factors.compute = 0.50;
    unified.factors.quantized_compute = 0.95;
    unified.factors.backend_compute[index(core::Backend::cuda)] = 0.412;
    unified.factors.backend_compute[index(core::Backend::vulkan)] = 0.218;
    for (core::Backend b : {core::Backend::rocm, core::Backend::cuda, core::Backend::vulkan}) {
        unified.compute_measured[index(b)] = true;
    }
    // Another runtime's fit is never borrowed from: its Metal 5.0 must not reach llama.cpp.
    other_runtime.fit_group = "tensorrt-llm";
    other_runtime.factors.backend_compute[index(core::Backend::metal)] = 5.0;
    other_runtime.compute_measured[index(core::Backend::metal)] = true;

    std::vector<fit::FitResult> fits{discrete, unified, other_runtime};
    fit::share_backend_kernels(fits);
    const auto& shared = fits[0].factors.backend_compute;
    CHECK(shared[index(core::Backend::cuda)] == 1.0);
    CHECK(shared[index(core::Backend::rocm)] == doctest::Approx(1.5833).epsilon(1e-4).scale(0));
    CHECK(shared[index(core::Backend::vulkan)] == doctest::Approx(0.3452).epsilon(1e-3).scale(0));
    CHECK(fits[0].borrowed == std::vector<core::Backend>{core::Backend::rocm, core::Backend::vulkan});
    CHECK(fits[1].factors.backend_compute[index(core::Backend::cuda)] == 0.412);
    CHECK(fits[1].borrowed.empty());
    // Metal, SYCL and "other" were measured by neither group: they reach the geometric mean of the
    // four measured fractions, (0.30 x 0.475 x 0.1957 x 0.10355)^(1/4) = 0.23181, not the
    // reference's: 0.23181 / 0.30 = 0.7727 on discrete GPUs, 0.23181 / 0.475 = 0.4880 on unified
    // memory.
    const std::vector<core::Backend> nowhere{core::Backend::metal, core::Backend::sycl, core::Backend::other};
    CHECK(fits[0].typical == nowhere);
    CHECK(fits[1].typical == nowhere);
    for (const core::Backend b : nowhere) {
        CHECK(shared[index(b)] == doctest::Approx(0.7727).epsilon(1e-4).scale(0));
        CHECK(fits[1].factors.backend_compute[index(b)] == doctest::Approx(0.4880).epsilon(1e-4).scale(0));
    }
    // A fraction the multiplier's range cannot reach is clamped to it (0.1 to 8).
    fits = {discrete, unified};
    fits[1].factors.backend_compute[index(core::Backend::vulkan)] = 0.001;
    fit::share_backend_kernels(fits);
    CHECK(fits[0].factors.backend_compute[index(core::Backend::vulkan)] == 0.1);
}
