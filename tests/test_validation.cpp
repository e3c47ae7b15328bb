// The validation suite: predicts every public measurement in validation/measurements.csv and fails
// when the held-out error grows past the tolerances justified in docs/validation.md.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "profiles/measurements.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

TEST_CASE("held-out error stays within the documented tolerances") {
    const auto result = decodesim::testing::run({"accuracy", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    std::map<std::string, bool> lower_is_better;
    for (const auto& m : decodesim::profiles::load_measurements(std::string(DECODESIM_ROOT) + "/validation/measurements.csv")) {
        lower_is_better[m.id] = decodesim::profiles::metric_info(m.metric).lower_is_better;
    }
    int evaluated = 0;
    for (const auto& row : document["rows"]) {
        if (!row.contains("error")) continue;
        ++evaluated;
        const double error = row["error"].get<double>();
        REQUIRE(std::isfinite(error));
        // The prediction is never better than the roofline bound: no faster rate, no shorter time.
        CAPTURE(row["id"].get<std::string>());
        const double predicted = row["predicted"].get<double>(), bound = row["bound"].get<double>();
        if (lower_is_better.at(row["id"].get<std::string>())) {
            CHECK(predicted >= bound * (1 - 1e-9));
        } else {
            CHECK(predicted <= bound * (1 + 1e-9));
        }
    }
    CHECK(evaluated >= 600);
    // Tolerances: docs/validation.md ("Tolerances"). Each subset must be there: a renamed subset
    // fails here instead of silently skipping its check.
    // Regression guards at the figures of 1678 rows from 67 publications, not targets: the rows
    // added in issue 10 (Strix Halo, Arc, DGX Spark prefill; vLLM-class engines) raised them; prefill came back
    // to 11.5% with the backend multipliers (docs/model.md, "Backends"), per stream to 13.7% with
    // the vllm preset fitted on its single-stream rows, then 15.2% once attention bandwidths were
    // read off long contexts only (the discrete llama.cpp rows of this split had liked the 0.50 a
    // search over short contexts had settled on; the held-out figures did not move, see the case
    // below). Decode total came to 16.0% with TensorRT-LLM's own KV-cache sizing, then 18.9%
    // when the 35 "GH200 480GB" rows moved to the 96 GB profile, whose id hashes into the test
    // split: the training split's TensorRT-LLM fit lost them and this split gained them (the
    // held-out figure improved, 15.3% -> 14.3%). Per stream fell to 12.2% with the cross-die
    // per-kernel cost (docs/model.md, "Multi-die packages"): the Ultras' ids hash into this split.
    // Prefill fell to 9.8% once a backend unmeasured on discrete GPUs took the fraction of peak
    // its kernels reach on unified memory (fit::share_backend_kernels). Both rose a point
    // (per stream 12.2% -> 13.1%, prefill 9.8% -> 11.2%) once the 413 rows whose runs had flash
    // attention off were predicted unfused (docs/model.md, "Unfused attention"): this split's long
    // prompts on GeForce cards improved (RTX 4090 pp4096 +93% -> +36%), its many short rows moved
    // a few points each with the refitted per-kernel costs; the held-out prefill figure fell.
    // Prefill rose from 11.3% to 11.8% with the expert tiles (docs/model.md, "Expert tiles"): the
    // training split's MoE prompts set 80 rows, where most held-out folds find 12, and this split's
    // MoE prompts come out slower; the held-out prefill figure fell from 28.2% to 24.5%.
    // Per stream 13.3% -> 8.3% and prefill 11.8% -> 9.9% once measured rows ran on the part that
    // ran them (binned Apple GPUs, the A100 PCIe board without NVLink bridge), with the binned
    // M-series rows, MLC's formats and 8-card PCIe rigs evaluated and the presets refitted.
    // Prefill 9.9% -> 10.1% with the attention tiles, 10.7% with llama.cpp's kernel graph; per
    // stream 8.3% -> 9.5% with the kernel graph (docs/model.md, "Kernel graphs"): the training
    // split's discrete llama.cpp rows now fit 3 us a launch over 18 launches a layer where they had
    // fitted 8 us over 8, and this split's GeForce rows (llama.cpp, 37) moved from 8.6% to 11.1%,
    // while every held-out figure improved (per stream 8.2% -> 7.9% leaving one source out, 8.4% ->
    // 7.7% leaving one family out). The guard moved from 9.5% to 10.5% with it.
    // Prefill 10.7% -> 9.7% with the issue-bound quantized matmuls and the dequantized block
    // matmuls of llama.cpp's 2023-24 CUDA builds (docs/model.md, "Issue-bound quantized matmuls",
    // "Dequantized block matmuls"). Decode total 18.2% -> 17.3% once the static-batch benchmarks
    // that time the whole run were predicted so ("timed=run", docs/validation.md).
    const std::map<std::string, double> tolerances{{"test decode_tokens_per_s_per_stream", 0.105},
                                                   {"test prefill_tokens_per_s", 0.11},
                                                   {"test decode_tokens_per_s_total", 0.19}};
    std::map<std::string, double> medians;
    for (const auto& subset : document["by_split_and_metric"]) {
        medians[subset["subset"].get<std::string>()] = subset["median_absolute_error"].get<double>();
    }
    for (const auto& [name, tolerance] : tolerances) {
        const std::string& subset = name;  // clang 14 cannot capture a structured binding (CAPTURE is a lambda)
        CAPTURE(subset);
        REQUIRE(medians.count(name) == 1);
        CHECK(medians[name] <= tolerance);
    }
}

TEST_CASE("leave-one-source-out error stays within its regression guards" * doctest::skip(decodesim::testing::kSanitized)) {
    // The headline figures (docs/validation.md, "Current figures"): each source's rows
    // predicted by presets fitted without that source. Guards a point or two above the figures
    // measured when they were set, so that a change which destabilises a fit (as fitting the
    // attention bandwidth on short contexts did: TPOT 6% -> 31%) fails here.
    const auto result = decodesim::testing::run({"accuracy", "--held-out", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    // Per stream: 11.2% when set, 10.5% with the cross-die per-kernel cost, 10.6% with unfused
    // attention, 8.7% once rows under a condition the engine does not model (llama.cpp's row split,
    // eager launches) were kept out of the fits. Prefill: 40.6% when set, 34.0% once backends share
    // their measured kernels across memory families, 32.2% with unfused attention where the runs
    // had flash attention off, 28.7% with those rows out of the fits, 28.2% with a backend measured
    // nowhere at the typical measured fraction, 24.5% with a weight tile's staging on routed
    // experts (docs/model.md, "Expert tiles"). Per stream 8.2% and prefill 20.1% with the eighth
    // session's rows (binned Apple parts, MLC formats, 8-card PCIe rigs: 90 easy rows, most of the
    // gain; on the seventh session's rows 8.9% and 24.2%, docs/validation.md). Prefill 17.2% with
    // the attention tiles (docs/model.md, "Attention tiles"); per stream 7.9% and prefill 17.1%
    // with llama.cpp's kernel graph ("Kernel graphs"); prefill 16.6% with the issue-bound quantized
    // matmuls ("Issue-bound quantized matmuls"), 13.6% with the dequantized block matmuls of the
    // runs that used them ("Dequantized block matmuls"). Decode total 15.5% -> 13.8% once the
    // static-batch benchmarks that time the whole run, prefill included, were predicted so
    // ("timed=run": gptSessionBenchmark, lmdeploy's profile_generation, optimum-habana). Prefill
    // 14.1% once a prompt after a cached context was one pass. Per stream 6.8% and prefill 15.9%
    // once the rows of builds before llama.cpp's 2025 fusions ran their unfused kernel graph
    // ("kernel-graph=unfused"): the per-kernel time refitted from 3 to 2 us, and the held-out
    // prompt fits, which no new physics touched, moved with it (docs/validation.md). Prefill
    // 12.5% with three llama.cpp pull requests' CUDA tables (#4766 of 2024-01, #7860 of 2024-06,
    // #24216 of 2026-06): their 16-bit and dequantized prompts measure the cuBLAS path when
    // XiongjieDai's rows, until then its only measurement, are held out (19.4% -> 10.6%). 11.3%
    // with two 2025 CUDA publications (lhl's RTX PRO 6000 page, jeffbolznv's RTX 5090 sweep in
    // ik_llama.cpp discussion #562): the MMQ rate no longer rests on #15013 alone (held out
    // 36% -> 11%). Per stream 6.8% -> 6.9% with the RTX PRO 6000's single streams (-7% to -15%).
    const std::map<std::string, double> guards{{"decode_tokens_per_s_per_stream", 0.075},
                                               {"decode_tokens_per_s_total", 0.15},
                                               {"prefill_tokens_per_s", 0.13},
                                               {"tpot_s", 0.08}};
    std::map<std::string, double> medians;
    for (const auto& metric : document["leave_one_source_out"]["by_metric"]) {
        medians[metric["metric"].get<std::string>()] = metric["median_absolute_error"].get<double>();
    }
    for (const auto& [name, guard] : guards) {
        const std::string& subset = name;  // clang 14 cannot capture a structured binding (CAPTURE is a lambda)
        CAPTURE(subset);
        REQUIRE(medians.count(name) == 1);
        CHECK(medians[name] <= guard);
    }
}
