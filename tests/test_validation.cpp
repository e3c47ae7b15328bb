// The validation suite: predicts every public measurement in validation/measurements.csv and fails
// when the held-out error grows past the tolerances justified in docs/validation.md.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "profiles/measurements.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

TEST_CASE("held-out error stays within the documented tolerances" * doctest::skip(decodesim::testing::kSanitized)) {
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
    // Regression guards, not targets: each sits a margin above the test split's median over the
    // 1678 rows from 67 publications (docs/validation.md, "Current figures"). The test split keeps
    // rows of one source on both sides, and several modelled effects fall unevenly on it, so its
    // guards stand apart from the held-out figures (the case below):
    // - Per stream (10.5%): the Ultras' ids hash into this split, which carries the cross-die
    //   per-kernel cost (docs/model.md, "Multi-die packages"). With llama.cpp's kernel graph
    //   (docs/model.md, "Kernel graphs") the training split's discrete llama.cpp rows fit a
    //   per-kernel time over 18 launches a layer, which suits this split's GeForce rows (llama.cpp,
    //   37, about 11% on them) less well while every held-out figure gains from it. Attention
    //   bandwidths are read off long contexts only: this split's discrete llama.cpp rows favour the
    //   0.50 a search over short contexts settles on, which the held-out figures gain nothing from.
    // - Decode total (19%): the 35 "GH200 480GB" rows run on the 96 GB profile, whose id hashes
    //   into this split, so the training split's TensorRT-LLM fit (with TensorRT-LLM's own KV-cache
    //   sizing) does not see them; the held-out figure is better for them. The static-batch
    //   benchmarks that time the whole run are predicted so ("timed=run", docs/validation.md).
    // - Prefill (11%): runs with flash attention off are predicted unfused (docs/model.md,
    //   "Unfused attention"), which this split's long prompts on GeForce cards need, and its many
    //   short rows follow the per-kernel costs fitted with them. The training split's MoE prompts
    //   set the expert tile at 80 rows, where most held-out folds find 12 (docs/model.md,
    //   "Expert tiles"), so this split's MoE prompts come out slower while the held-out prefill
    //   figure gains. A backend unmeasured on discrete GPUs takes the fraction of peak its kernels reach
    //   on unified memory (fit::share_backend_kernels).
    // The figures also rest on the backend multipliers (docs/model.md, "Backends"), the vllm preset
    // fitted on its single-stream rows, measured rows run on the part that ran them (binned Apple
    // GPUs, the A100 PCIe board without NVLink bridge), the attention tiles, and the issue-bound
    // quantized matmuls and dequantized block matmuls of llama.cpp's 2023-24 CUDA builds
    // (docs/model.md, "Issue-bound quantized matmuls", "Dequantized block matmuls").
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
    // predicted by presets fitted without that source. Each guard sits a point or two above its
    // figure, so that a change which destabilises a fit fails here: fitting the attention
    // bandwidth on short contexts sends TPOT from 6% to 31%.
    const auto result = decodesim::testing::run({"accuracy", "--held-out", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    // What the figures rest on: rows under a condition the engine does not model (llama.cpp's row
    // split, eager launches) are kept out of the fits; backends share their measured kernels
    // across memory families, and a backend measured nowhere runs at the typical measured
    // fraction; runs with flash attention off are predicted unfused; routed experts stage a
    // weight tile (docs/model.md, "Expert tiles"); prompts follow the attention tiles
    // (docs/model.md, "Attention tiles"), llama.cpp's kernel graph ("Kernel graphs"), the
    // issue-bound quantized matmuls ("Issue-bound quantized matmuls") and the dequantized block
    // matmuls of the runs that use them ("Dequantized block matmuls"). The 90 rows of binned Apple
    // parts, MLC formats and 8-card PCIe rigs are easy ones that lower the per-stream and prefill
    // medians (docs/validation.md). Static-batch benchmarks that time the whole run, prefill
    // included, are predicted so ("timed=run": gptSessionBenchmark, lmdeploy's
    // profile_generation, optimum-habana), and a prompt after a cached context is one pass. Rows
    // of builds before llama.cpp's 2025 fusions run their unfused kernel graph
    // ("kernel-graph=unfused"), which puts the fitted per-kernel time at 2 us; the held-out prompt
    // fits, which no other physics touches, follow it (docs/validation.md).
    // The prefill guard rests on published CUDA tables: three llama.cpp pull requests (#4766 of
    // 2024-01, #7860 of 2024-06, #24216 of 2026-06), whose 16-bit and dequantized prompts measure
    // the cuBLAS path when XiongjieDai's rows, its other measurement, are held out (about 10.6% on
    // them); and two 2025 CUDA publications (lhl's RTX PRO 6000 page, jeffbolznv's RTX 5090 sweep
    // in ik_llama.cpp discussion #562), which measure the MMQ rate beside #15013 (about 11% with
    // #15013 held out). The RTX PRO 6000's single streams are predicted 7% to 15% low.
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
