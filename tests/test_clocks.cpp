// Clocks: peak versus sustained, power limits, and the clock condition in check-claim
// (docs/clocks.md). Expected figures are derived by hand from the profiles' clocks in comments.

#include <doctest/doctest.h>

#include <cmath>

#include "engine/clocks.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/measurements.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using decodesim::testing::run;
using nlohmann::json;

namespace {

json predict_json(std::vector<std::string> extra) {
    std::vector<std::string> args{"predict", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = run(args);
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    return json::parse(result.out);
}

// A minimal profile with a clocks block, for loader errors.
std::string profile_with(const std::string& extra) {
    return "name: Test GPU\nsource: test\nmemory:\n  type: HBM3\n  capacity: 80 GB\n  bandwidth: 3 TB/s\n"
           "compute:\n  bf16: 1000 TFLOPS\npower: 700 W\n" +
           extra + "vendor: nvidia\narchitecture: hopper\n";
}

}  // namespace

TEST_CASE("the power law: cube root down to 75% of the default power, linear below") {
    using decodesim::engine::clock_share_at_power;
    CHECK(clock_share_at_power(1.0) == doctest::Approx(1.0));
    // 0.857^(1/3) = 0.9499 (by hand: 0.95^3 = 0.857)
    CHECK(clock_share_at_power(600.0 / 700.0) == doctest::Approx(0.9499).epsilon(1e-3).scale(0.0));
    // At the knee both pieces agree: 0.75^(1/3) = 0.90856
    CHECK(clock_share_at_power(0.75) == doctest::Approx(0.90856).epsilon(1e-4).scale(0.0));
    CHECK(clock_share_at_power(0.7499999) == doctest::Approx(0.90856).epsilon(1e-4).scale(0.0));
    // Below: proportional to power, 0.90856 x 0.5 / 0.75 = 0.60571
    CHECK(clock_share_at_power(0.5) == doctest::Approx(0.60571).epsilon(1e-4).scale(0.0));
}

TEST_CASE("sustained clocks lengthen MI300X prefill and leave the roofline bound alone") {
    // hardware_profiles/mi300x.yaml: peak 2100 MHz, sustained 1207 MHz under BF16 GEMMs at 750 W
    // (AMD's measurement), a share of 1207 / 2100 = 0.5748.
    const std::vector<std::string> point{"--hardware", "mi300x", "--model", "llama-3.1-8b", "--prompt", "4000", "--output", "200"};
    auto with = [&](const char* clocks) {
        auto args = point;
        args.insert(args.end(), {"--clocks", clocks});
        return predict_json(args);
    };
    const json peak = with("peak");
    const json sustained = with("sustained");
    CHECK(sustained["conditions"]["clocks"] == "sustained");
    CHECK(peak["conditions"]["clocks"] == "peak");
    CHECK(sustained["conditions"]["compute_clock_share"].get<double>() == doctest::Approx(1207.0 / 2100.0));
    // A 4,000-token prefill is compute-bound, so its time grows by up to 2100 / 1207 = 1.740x (all of
    // it compute); the fixed kernel overheads and memory-bound operators keep it somewhat below.
    const double ratio = sustained["ttft_s"].get<double>() / peak["ttft_s"].get<double>();
    CHECK(ratio > 1.5);
    CHECK(ratio <= 2100.0 / 1207.0 + 1e-9);
    // The bound is the datasheet's, whatever the clocks.
    CHECK(sustained["prefill"]["roofline_time_s"].get<double>() == peak["prefill"]["roofline_time_s"].get<double>());
    CHECK(sustained["decode"]["roofline_tokens_per_s_per_stream"].get<double>() ==
          peak["decode"]["roofline_tokens_per_s_per_stream"].get<double>());
    // Batch-1 decode streams weights: the memory clock does not move, and neither does decode much
    // (its few compute-bound pieces aside): within 1%.
    CHECK(sustained["decode"]["tokens_per_s_per_stream"].get<double>() ==
          doctest::Approx(peak["decode"]["tokens_per_s_per_stream"].get<double>()).epsilon(0.01).scale(0.0));
}

TEST_CASE("a power limit scales the sustained clock by the power law, within the profile's range") {
    // h100-sxm: peak 1830, sustained 1575 MHz (share 0.86066) at its 700 W board power; range 200-700 W.
    const double sustained_share = 1575.0 / 1830.0;
    const json at_600 = predict_json({"--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--power-limit", "600"});
    CHECK(at_600["conditions"]["clocks"] == "sustained at 600 W");
    CHECK(at_600["conditions"]["compute_clock_share"].get<double>() ==
          doctest::Approx(sustained_share * std::cbrt(600.0 / 700.0)));
    const json at_350 = predict_json({"--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--power-limit", "350"});
    // 350 / 700 = 0.5, below the 0.75 knee: 0.86066 x 0.90856 x 0.5 / 0.75 = 0.52131
    CHECK(at_350["conditions"]["compute_clock_share"].get<double>() == doctest::Approx(0.52131).epsilon(1e-4).scale(0.0));

    const auto below = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--power-limit", "100"});
    CHECK(below.exit_code != 0);
    CHECK(below.err.find("outside") != std::string::npos);
    CHECK(below.err.find("200-700 W") != std::string::npos);
    // A device whose profile lists no configurable power.
    const auto none = run({"predict", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--power-limit", "500"});
    CHECK(none.exit_code != 0);
    CHECK(none.err.find("no configurable power limit") != std::string::npos);
    const auto with_peak =
        run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--clocks", "peak", "--power-limit", "500"});
    CHECK(with_peak.exit_code == 2);
    const auto misspelt = run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--clocks", "sustaned"});
    CHECK(misspelt.exit_code == 2);
    CHECK(misspelt.err.find("sustained") != std::string::npos);
}

TEST_CASE("a vendor base clock is a floor, not a prediction") {
    // hardware_profiles/l4.yaml lists only the base clock (795 of 2040 MHz): the prediction runs at
    // the peak share and says so.
    const json l4 = predict_json({"--hardware", "l4", "--model", "llama-3.1-8b"});
    CHECK(l4["conditions"]["compute_clock_share"].get<double>() == 1.0);
    CHECK(l4["conditions"]["clocks"] == "sustained (not measured; peak used)");
}

TEST_CASE("the clocks block is checked when a profile loads") {
    using decodesim::profiles::parse_hardware_profile;
    using decodesim::testing::error_messages;
    const auto good = parse_hardware_profile(
        profile_with("clocks:\n  peak: 2.1 GHz\n  sustained: 1500 MHz\n  basis: measured\n  source: x\n"
                     "power_limit:\n  min: 300 W\n  max: 750 W\n  source: y\n"),
        "good.yaml");
    REQUIRE(good.clocks);
    CHECK(good.clocks->peak.value == doctest::Approx(2.1e9));
    CHECK(good.clocks->sustained.value == doctest::Approx(1.5e9));
    REQUIRE(good.power_limit);
    CHECK(good.power_limit->min.value == 300.0);

    auto first_error = [](const std::string& text) {
        return error_messages([&] { parse_hardware_profile(profile_with(text), "bad.yaml"); }).front();
    };
    // MHz for GHz: 1500 GHz against a 2.1 GHz peak.
    CHECK(first_error("clocks:\n  peak: 2.1 GHz\n  sustained: 1500 GHz\n  basis: measured\n  source: x\n")
              .find("clocks.sustained") != std::string::npos);
    CHECK(first_error("clocks:\n  peak: 2100 MHz\n  sustained: 1500 MHz\n  basis: measurd\n  source: x\n")
              .find("did you mean 'measured'") != std::string::npos);
    CHECK(first_error("clocks:\n  peak: 2100 W\n  sustained: 1500 MHz\n  basis: measured\n  source: x\n")
              .find("clocks.peak") != std::string::npos);
    CHECK(first_error("power_limit:\n  min: 800 W\n  max: 750 W\n  source: y\n").find("power_limit.min") !=
          std::string::npos);
    // The board's 700 W must lie in the configurable range.
    CHECK(first_error("power_limit:\n  min: 100 W\n  max: 400 W\n  source: y\n").find("outside") != std::string::npos);
    CHECK(first_error("power_modes:\n  source: z\n  modes:\n    - {name: A, power: 15 W, compute_fraction: 1.5, "
                      "memory_bandwidth: 1 TB/s}\n")
              .find("power_modes.modes[0].compute_fraction") != std::string::npos);
    // The error names the file and the line.
    CHECK(first_error("clocks:\n  peak: 2100 MHz\n  sustained: 1500 MHz\n  basis: measured\n  source: x\n  boost: 1 GHz\n")
              .find("bad.yaml:") != std::string::npos);
}

TEST_CASE("check-claim names the clock condition for a prefill claim reachable only at peak clocks") {
    // MI300X, Llama-3.1-8B, one 4,000-token prompt: the prediction at sustained clocks is about
    // 0.575x-0.6x of the one at peak (the test above). A claim between the two needs peak clocks.
    const json peak = predict_json({"--hardware", "mi300x", "--model", "llama-3.1-8b", "--context", "4000", "--clocks", "peak"});
    const json sustained = predict_json({"--hardware", "mi300x", "--model", "llama-3.1-8b", "--context", "4000"});
    const double at_peak = 4000.0 / peak["ttft_s"].get<double>();
    const double at_sustained = 4000.0 / sustained["ttft_s"].get<double>();
    REQUIRE(at_sustained < at_peak);
    const double claimed = std::sqrt(at_peak * at_sustained);  // between the two
    const auto result = run({"check-claim", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--per", "prefill",
                             "--context", "4000", "--batch", "1", "--tokens-per-s", std::to_string(claimed), "--json"});
    REQUIRE(result.exit_code == 0);
    const json check = json::parse(result.out);
    CHECK(check["needs_peak_clocks"] == true);
    CHECK(check["predicted_tokens_per_s"].get<double>() == doctest::Approx(at_sustained));
    CHECK(check["predicted_at_peak_clocks_tokens_per_s"].get<double>() == doctest::Approx(at_peak));
    CHECK(check["conditions"]["clocks"] == "sustained");
    // Below the sustained prediction, no clock condition.
    const auto easy = run({"check-claim", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--per", "prefill",
                           "--context", "4000", "--batch", "1", "--tokens-per-s", std::to_string(0.9 * at_sustained), "--json"});
    CHECK(json::parse(easy.out)["needs_peak_clocks"] == false);
}

TEST_CASE("check-claim searches conditions in combination when none explains a claim alone") {
    // Llama-3.1-70B on one H100 at 4,096 tokens: bf16 weights (141 GB) bound batch-1 decode near
    // 3.35 TB/s / 141 GB = 24 tokens/s. 400 tokens/s per stream is 16.8x that: neither a narrower
    // format alone (q2_k at about 2.6 bits is about 6x) nor speculative decoding alone (at most
    // 4.26x) explains it, both together may.
    const auto result = run({"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--tokens-per-s", "400",
                             "--per", "stream", "--context", "4096", "--batch", "1", "--json"});
    CHECK(result.exit_code == 5);
    const json check = json::parse(result.out);
    CHECK_FALSE(check.contains("precision_needed"));
    CHECK(check["speculative_decoding_could_explain"] == false);
    REQUIRE(check["combination"].size() == 2);
    CHECK(check["combination"][1].get<std::string>().starts_with("speculative decoding"));
}

TEST_CASE("validation rows run at the clocks their benchmark ran at") {
    // MLPerf runs last at least ten minutes: their rows state clocks=sustained. A llama-bench row,
    // unstated: peak. Any row may state clocks=sustained.
    const auto rows = decodesim::profiles::load_measurements(decodesim::testing::test_data("clock_rows.csv"));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].sustained_clocks == true);
    CHECK(rows[1].sustained_clocks == false);
    CHECK(rows[2].sustained_clocks == true);
}

TEST_CASE("sweep takes clock conditions as a list and records them") {
    const auto result = run({"sweep", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--clocks", "peak,sustained",
                             "--context", "4000", "--quiet"});
    REQUIRE(result.exit_code == 0);
    std::istringstream lines(result.out);
    std::string header, peak_row, sustained_row;
    std::getline(lines, header);
    std::getline(lines, peak_row);
    std::getline(lines, sustained_row);
    CHECK(header.starts_with("hardware,model,weights,kv,activation,runtime,tensor_parallel,clocks,"));
    CHECK(peak_row.find(",peak,") != std::string::npos);
    CHECK(sustained_row.find(",sustained,") != std::string::npos);
}

TEST_CASE("versus walks from the vendor's conditions to the user's, and its ends are predict's points") {
    const auto result = run({"versus", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--vendor-weights", "fp8",
                             "--weights", "bf16", "--batch", "64", "--context", "4096", "--json"});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    const json ladder = json::parse(result.out);
    const json& steps = ladder["steps"];
    REQUIRE(steps.size() == 5);  // the vendor's, then weights, context, concurrency, clocks
    CHECK(steps[1]["change"] == "weights fp8 -> bf16");
    CHECK(steps[4]["change"] == "clocks peak -> sustained");
    // The first step is predict at the vendor's conditions, the last at the user's.
    const json vendor = predict_json({"--hardware", "mi300x", "--model", "llama-3.1-8b", "--weights", "fp8", "--context",
                                      "128", "--clocks", "peak"});
    const json mine = predict_json({"--hardware", "mi300x", "--model", "llama-3.1-8b", "--batch", "64", "--context", "4096"});
    CHECK(steps[0]["tokens_per_s_per_stream"].get<double>() ==
          doctest::Approx(vendor["decode"]["tokens_per_s_per_stream"].get<double>()));
    CHECK(steps[4]["tokens_per_s_per_stream"].get<double>() ==
          doctest::Approx(mine["decode"]["tokens_per_s_per_stream"].get<double>()));
    CHECK(steps[4]["ttft_s"].get<double>() == doctest::Approx(mine["ttft_s"].get<double>()));
    CHECK(steps[4]["conditions"]["clocks"] == "sustained");
    // bf16 weights are twice fp8's bytes; batch-1 decode streams them once per token, so the speed
    // falls, but by less than half (fixed kernel time and KV reads do not double).
    const double ratio = steps[1]["tokens_per_s_per_stream"].get<double>() / steps[0]["tokens_per_s_per_stream"].get<double>();
    CHECK(ratio > 0.5);
    CHECK(ratio < 0.75);
    // Clocks only move the compute-bound prefill here: TTFT by at most 2100 / 1207.
    const double ttft_ratio = steps[4]["ttft_s"].get<double>() / steps[3]["ttft_s"].get<double>();
    CHECK(ttft_ratio > 1.3);
    CHECK(ttft_ratio <= 2100.0 / 1207.0 + 1e-9);

    // Identical conditions on both sides: one step.
    const auto same = run({"versus", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "128",
                           "--clocks", "peak", "--json"});
    REQUIRE(same.exit_code == 0);
    CHECK(json::parse(same.out)["steps"].size() == 1);
}

TEST_CASE("why says what peak clocks would change") {
    // MI300X at 4,096 tokens: TTFT is compute-bound, so peak clocks shorten it by up to 1207 / 2100
    // (all of it compute); batch-1 decode streams weights and barely moves.
    const auto result = run({"why", "--hardware", "mi300x", "--model", "llama-3.1-8b", "--context", "4096", "--json"});
    REQUIRE(result.exit_code == 0);
    const json why = json::parse(result.out);
    const double ttft = why["what_if"]["peak_clocks_ttft"].get<double>();
    CHECK(ttft >= 1207.0 / 2100.0 - 1e-9);
    CHECK(ttft < 0.7);
    CHECK(why["what_if"]["peak_clocks"].get<double>() == doctest::Approx(1.0).epsilon(0.02).scale(0.0));
    // A device predicted at its peak share (only a base clock in its profile): no change.
    const json l4 = json::parse(run({"why", "--hardware", "l4", "--model", "llama-3.1-8b", "--json"}).out);
    CHECK(l4["what_if"]["peak_clocks"].get<double>() == 1.0);
    CHECK(l4["what_if"]["peak_clocks_ttft"].get<double>() == 1.0);
}
