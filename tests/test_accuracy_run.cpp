// The accuracy question on a hand-made measurement list, and the profile summaries, with the
// expected figures derived in the comments.

#include <doctest/doctest.h>

#include <map>

#include "profiles/measurements.hpp"
#include "fit/accuracy_run.hpp"
#include "explore/profile_summary.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// Llama-3.1-8B bf16 at batch 1, context 1, runtime ideal on an H100 SXM: the step streams every
// weight but the input embedding table, 2 x (8,030,261,248 - 525,336,576) = 15,009,849,344 B, plus
// two tokens of KV (read and written, 131,072 B each) and a few MB of activations (under 0.05%).
// It is memory-bound (16 GFLOP at 989 TFLOPS is 16 us against 4.5 ms), so at 3.35 TB/s and no
// overheads it runs 3.35e12 / 15.01e9 = 223.2 tokens/s.
constexpr double kIdealTokensPerS = 3.35e12 / 15009849344.0;

profiles::Measurement decode_row(std::string id, double measured) {
    auto m = testing::h100_llama8b_row(std::move(id), profiles::Metric::decode_tokens_per_s_per_stream, measured);
    m.batch = 1.0;
    m.context = 1.0;
    return m;
}

}  // namespace

TEST_CASE("accuracy: a hand-made list is predicted, explained and skipped row by row") {
    std::vector<profiles::Measurement> measurements;
    measurements.push_back(decode_row("slower", 200.0));
    auto faster = decode_row("faster than physics", 250.0);
    faster.kv.clear();  // unstated: defaults to the bf16 activations, so the same prediction
    faster.line = 3;
    measurements.push_back(faster);
    auto unknown = decode_row("unknown device", 100.0);
    unknown.hardware = "no-such-gpu";
    measurements.push_back(unknown);
    auto unstated = decode_row("no weights", 100.0);
    unstated.weights.clear();
    measurements.push_back(unstated);

    const auto catalog = testing::shipped_catalog();
    std::map<std::string, int> asked;
    const fit::ProfileLookup lookup{
        [&](const std::string& id) {
            ++asked[id];
            if (id == "no-such-gpu") throw core::InputError(core::unlocated("", "no profile named no-such-gpu"));
            return catalog.hardware(id);
        },
        [&](const std::string& id) {
            ++asked[id];
            return catalog.model(id);
        },
        [&](const std::string& id) { return catalog.runtime(id); }};
    fit::AccuracySettings settings;
    settings.runtime = testing::shipped_runtime("ideal");
    const auto result = fit::evaluate_accuracy(measurements, lookup, settings);

    // Each id is looked up once, however many rows name it.
    CHECK(asked == std::map<std::string, int>{{"h100-sxm", 1}, {"llama-3.1-8b", 1}, {"no-such-gpu", 1}});
    REQUIRE(result.rows.size() == 4);
    const auto& slower = result.rows[0];
    REQUIRE(slower.skipped.empty());
    // Under the ideal runtime the prediction is the roofline bound itself.
    CHECK(slower.predicted == slower.bound);
    CHECK(slower.predicted == doctest::Approx(kIdealTokensPerS).epsilon(0.001).scale(0.0));
    // error = predicted / measured - 1 = 223.1 / 200 - 1 = +11.5%.
    CHECK(slower.error == doctest::Approx(slower.predicted / 200.0 - 1.0));
    CHECK(slower.error == doctest::Approx(kIdealTokensPerS / 200.0 - 1.0).epsilon(0.01).scale(0.0));
    CHECK_FALSE(slower.beats_bound);

    // 250 measured against a 223 bound: -10.8%, better than physics.
    const auto& beating = result.rows[1];
    CHECK(beating.beats_bound);
    CHECK(beating.error == doctest::Approx(slower.predicted / 250.0 - 1.0));
    REQUIRE(result.beating_bound.size() == 1);
    CHECK(result.beating_bound[0].row == 1);
    CHECK(result.beating_bound[0].explanation == "hidden condition: KV precision not stated");

    // |+11.5%| > |-10.8%|: the slower row is the worst.
    CHECK(result.worst_first == std::vector<std::size_t>{0, 1});
    CHECK(result.evaluated() == 2);
    CHECK(result.rows[2].skipped == "no profile named no-such-gpu");
    CHECK(result.rows[3].skipped == "weight precision not stated");
    CHECK(result.skip_reasons ==
          std::map<std::string, int>{{"no profile named no-such-gpu", 1}, {"weight precision not stated", 1}});

    // Both evaluated rows are one split of one subset (the split is the hardware's).
    const std::string split = fit::split_name(fit::split_of("h100-sxm"));
    REQUIRE(result.by_split_and_metric.size() == 1);
    CHECK(result.by_split_and_metric[0].name == split + " decode_tokens_per_s_per_stream");
    CHECK(result.by_split_and_metric[0].rows == 2);
    CHECK(result.by_split_and_metric[0].beats_bound == 1);
    REQUIRE(result.by_subset.size() == 1);
    CHECK(result.by_subset[0].name == split + " | vllm | hbm | decode_tokens_per_s_per_stream");
    CHECK(result.fits.empty());  // not asked for
}

TEST_CASE("accuracy: every row names a shipped runtime build, and a build is measured exactly when rows name it") {
    // The runtime column is an id the catalog resolves exactly (never a bare name, whose meaning
    // moves when a newer build is added); `measured: true` in a profile is a claim this file backs.
    const auto catalog = testing::shipped_catalog();
    const auto rows = profiles::load_measurements(std::string(DECODESIM_ROOT) + "/validation/measurements.csv");
    std::map<std::string, int> by_runtime;
    for (const auto& row : rows) ++by_runtime[row.runtime];
    const auto ids = catalog.runtime_ids();
    for (const auto& [runtime, count] : by_runtime) {
        const std::string& id = runtime;  // clang 14 cannot capture a structured binding (CAPTURE is a lambda)
        CAPTURE(id);
        CHECK(std::find(ids.begin(), ids.end(), runtime) != ids.end());
    }
    CHECK(ids.size() >= 10);
    for (const auto& id : ids) {
        CAPTURE(id);
        const auto profile = catalog.runtime(id);
        CHECK(profile->id == id);
        if (profile->ideal) continue;
        CHECK(profile->measured == (by_runtime.count(id) > 0));
    }
}

TEST_CASE("profile summaries: H100 SXM and Llama-3.1-8B by hand") {
    const auto catalog = testing::shipped_catalog();
    const auto hardware = explore::summarize_hardware(catalog.hardware("h100-sxm"), *catalog.runtime("vllm"));
    // 989.4 TFLOPS bf16 dense over 3.35 TB/s = 295.3 FLOP/byte.
    CHECK(hardware.bf16_peak.value == doctest::Approx(989.4e12));
    CHECK(hardware.machine_balance_bf16 == doctest::Approx(989.4e12 / 3.35e12));

    const auto model = explore::summarize_model(catalog.model("llama-3.1-8b"));
    CHECK(model.attention == "GQA 32:8");
    CHECK(model.mlp == "dense");
    // KV per token: 2 (K and V) x 32 layers x 8 heads x 128 dims x 2 bytes = 131,072 B.
    CHECK(model.kv_bytes_per_token_bf16.value == doctest::Approx(131072.0));
    CHECK(model.parameters.total == doctest::Approx(8030261248.0));
    CHECK(model.weights_bf16.value == doctest::Approx(2.0 * 8030261248.0));
}
