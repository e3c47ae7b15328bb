// The band: the spread of held-out ratios (measured / predicted as a rate) per device class,
// runtime and pass, and the share of each source's rows it holds when derived without them.
// Every expected figure is derived by hand in the comments.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "engine/efficiency.hpp"
#include "profiles/residual_band_table.hpp"
#include "fit/residual_bands.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// 25 decode rows on an H100 under vllm, one source each, predicted 100 tok/s and measured
// 88, 89, ..., 112: ratios 0.88 to 1.12 in steps of 0.01.
struct TwentyFiveSources {
    profiles::Catalog catalog = testing::shipped_catalog();
    profiles::HardwareProfile hardware = catalog.hardware("h100-sxm");
    profiles::ModelProfile model = catalog.model("llama-3.1-8b");
    std::vector<profiles::Measurement> measurements;
    std::vector<fit::CalibrationCase> cases;
    fit::HeldOutErrors by_source;

    TwentyFiveSources() {
        measurements.resize(25);
        by_source.rows.resize(25);
        for (int i = 0; i < 25; ++i) {
            auto& m = measurements[i];
            m.id = fmt::format("r{}", i);
            m.metric = profiles::Metric::decode_tokens_per_s_per_stream;
            m.value = 88.0 + i;
        }
        engine::Deployment deployment;
        deployment.runtime = testing::shipped_runtime("vllm");
        for (int i = 0; i < 25; ++i) {
            cases.push_back({&measurements[i], &model, &hardware, deployment});
            by_source.rows[i].measurement = &measurements[i];
            by_source.rows[i].predicted = 100.0;
            by_source.group_of_row.push_back(fmt::format("source {}", i));
        }
    }
};

}  // namespace

TEST_CASE("band: the central 90% of the held-out ratios, interpolated between neighbours") {
    const TwentyFiveSources data;
    const auto derived = fit::derive_residual_bands(data.cases, data.by_source);
    // Pooled decode band and the (hbm, vllm, decode) class: the same 25 ratios. The 5th percentile
    // sits at position 0.05 x 24 = 1.2 of the sorted ratios: 0.89 + 0.2 x 0.01 = 0.892; the 95th at
    // 0.95 x 24 = 22.8: 1.10 + 0.8 x 0.01 = 1.108.
    REQUIRE(derived.bands.size() == 2);
    for (const auto& entry : derived.bands) {
        CHECK(entry.band.kind == engine::PassKind::decode);
        CHECK(entry.band.low == doctest::Approx(0.892));
        CHECK(entry.band.high == doctest::Approx(1.108));
        CHECK(entry.band.rows == 25);
    }
    CHECK(derived.bands[0].pooled);
    CHECK_FALSE(derived.bands[1].pooled);
}

TEST_CASE("band: nested coverage holds each source's rows against the band of the others") {
    const TwentyFiveSources data;
    const auto derived = fit::derive_residual_bands(data.cases, data.by_source);
    // Without row i the other 24 ratios give the band; the 5th percentile is at position
    // 0.05 x 23 = 1.15. Row 0 (0.88): the others start 0.89, 0.90: low = 0.8915, outside. Row 1
    // (0.89): the others start 0.88, 0.90, 0.91: low = 0.9015, outside. Row 2 (0.90): the others
    // start 0.88, 0.89, 0.91: low = 0.893, inside. The top end mirrors it: rows 23 and 24 fall
    // outside, row 22 inside. 21 of 25 rows inside: 84%.
    REQUIRE_FALSE(derived.nested.empty());
    const auto all = std::find_if(derived.nested.begin(), derived.nested.end(), [](const auto& c) { return c.name == "all"; });
    REQUIRE(all != derived.nested.end());
    CHECK(all->rows == 25);
    CHECK(all->inside == doctest::Approx(21.0 / 25.0));
}

TEST_CASE("band: a time's ratio is predicted over measured, so above 1 is always faster than predicted") {
    profiles::Measurement m;
    m.metric = profiles::Metric::tpot_s;
    m.value = 0.020;  // measured 20 ms per token
    fit::AccuracyRow row;
    row.measurement = &m;
    row.predicted = 0.025;  // predicted 25 ms: the measurement is 1.25x faster
    CHECK(fit::rate_ratio(row) == doctest::Approx(1.25));
    CHECK(fit::pass_kind(profiles::Metric::ttft_s) == engine::PassKind::prefill);
    CHECK(fit::pass_kind(profiles::Metric::e2e_latency_s) == engine::PassKind::decode);
}

TEST_CASE("band: the ideal runtime has none, a class without enough rows takes its pass's pooled band") {
    const auto catalog = testing::shipped_catalog();
    const auto ideal = catalog.runtime("ideal")->band(core::MemoryFamily::hbm, engine::PassKind::decode);
    CHECK(ideal.low == 1.0);
    CHECK(ideal.high == 1.0);
    // The shipped table lists no (unified, tensorrt-llm) class: its band is the pooled decode band.
    const auto table = profiles::load_residual_bands(std::string(DECODESIM_ROOT) + "/validation/residual_bands.csv");
    double pooled_low = 0.0, pooled_high = 0.0;
    for (const auto& entry : table) {
        if (entry.pooled && entry.band.kind == engine::PassKind::decode) {
            pooled_low = entry.band.low;
            pooled_high = entry.band.high;
        }
        // Every class row rests on enough held-out rows, and spans 1 or lies to one side of it.
        CHECK(entry.band.low < entry.band.high);
        if (!entry.pooled) CHECK(entry.band.rows >= engine::kBandMinimumRows);
    }
    REQUIRE(pooled_low > 0.0);
    const auto unlisted = catalog.runtime("tensorrt-llm")->band(core::MemoryFamily::unified, engine::PassKind::decode);
    CHECK(unlisted.low == pooled_low);
    CHECK(unlisted.high == pooled_high);
    // A build carries its fit group's band: SGLang's is vLLM's.
    const auto vllm = catalog.runtime("vllm")->band(core::MemoryFamily::hbm, engine::PassKind::decode);
    const auto sglang = catalog.runtime("sglang")->band(core::MemoryFamily::hbm, engine::PassKind::decode);
    CHECK(sglang.low == vllm.low);
    CHECK(sglang.high == vllm.high);
}

TEST_CASE("band: the table is data, read strictly, and what accuracy --held-out writes reads back") {
    const auto table = profiles::load_residual_bands(std::string(DECODESIM_ROOT) + "/validation/residual_bands.csv");
    const std::string copy = testing::write_temp("decodesim_bands_copy.csv", profiles::residual_bands_csv(table));
    const auto again = profiles::load_residual_bands(copy);
    REQUIRE(again.size() == table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
        CHECK(again[i].band.fit_group == table[i].band.fit_group);
        CHECK(again[i].band.low == table[i].band.low);
        CHECK(again[i].band.rows == table[i].band.rows);
    }
    const std::string header = "memory,fit_group,pass,low,high,rows\n";
    const auto messages = [&](const std::string& rows) {
        return testing::error_messages(
            [&] { profiles::load_residual_bands(testing::write_temp("decodesim_bands_bad.csv", header + rows)); });
    };
    const std::string pooled = "all,all,decode,0.5,1.5,100\nall,all,prefill,0.5,1.5,100\n";
    CHECK(messages(pooled) == std::vector<std::string>{"(no error)"});
    const auto unknown = messages(pooled + "ddr,vllm,decode,0.5,1.5,30\n");
    REQUIRE(unknown.size() == 1);
    CHECK(unknown[0].find(":4:1: error: memory: unknown memory family 'ddr'") != std::string::npos);
    const auto inverted = messages(pooled + "hbm,vllm,decode,1.5,0.5,30\n");
    REQUIRE(inverted.size() == 1);
    CHECK(inverted[0].find(":4:4: error: low: expected ratios with 0.01 <= low < high <= 100") != std::string::npos);
    const auto no_pooled = messages("hbm,vllm,decode,0.5,1.5,30\n");
    REQUIRE(no_pooled.size() == 1);
    CHECK(no_pooled[0].find("needs a pooled row") != std::string::npos);
}

TEST_CASE("predict --band: at batch 1 the ends are the device class's held-out ratios") {
    // Llama-3.1-8B on an H100 at batch 1 under vllm: every operator is bandwidth-bound, so the step
    // is bytes / bandwidth plus fixed costs. The low end scales the bandwidth by r and the fixed
    // costs by 1 / r, so its tokens/s are exactly r times the nominal, r = the (hbm, vllm, decode)
    // band's low ratio; the high end likewise, unless the bandwidth reaches the datasheet (it does).
    const auto band = testing::shipped_runtime("vllm")->band(core::MemoryFamily::hbm, engine::PassKind::decode);
    const auto result = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", "vllm",
                                      "--band", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    const double nominal = json["decode"]["tokens_per_s_per_stream"];
    const double low = json["band"]["low"]["tokens_per_s_per_stream"];
    const double high = json["band"]["high"]["tokens_per_s_per_stream"];
    CHECK(low / nominal == doctest::Approx(band.low).epsilon(1e-6));
    // The high end scales the bandwidth by the band's high ratio, capped at the datasheet (3.35
    // TB/s), and the fixed costs by 1 / high. Under the vllm preset the step is 15.01e9 B of
    // weights at 0.82 x 3.35 TB/s (5.464 ms) + 1024 x 131,072 B of KV at the same rate (0.049 ms)
    // + vLLM's 32 x (9 + 4) + 3 = 419 launches x 6 us (2.514 ms; docs/model.md, "Kernel graphs");
    // at the high end the bytes move at min(0.82 x high, 1) x 3.35 TB/s and the launches cost
    // 2.514 ms / high.
    REQUIRE(band.high > 1.0);
    const double weights = 15009849344.0, kv = 1024 * 131072.0, fixed = 419 * 6e-6, peak = 3.35e12;
    const double nominal_step = weights / (0.82 * peak) + kv / (0.82 * peak) + fixed;
    const double high_rate = std::min(0.82 * band.high, 1.0) * peak;
    const double high_step = weights / high_rate + kv / high_rate + fixed / band.high;
    CHECK(high / nominal == doctest::Approx(nominal_step / high_step).epsilon(2e-3).scale(0.0));
}
