// Disaggregated pools on two kinds of device (serve --prefill-hardware; docs/serving.md,
// "Disaggregated prefill and decode"): each pool runs at its own device's speed, and the KV cache
// crosses both sides' scale-out networks.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using namespace decodesim;

namespace {

nlohmann::json serve_pools(const std::string& decode, const std::string& prefill) {
    std::vector<std::string> args{"serve",    "--hardware", decode,  "--model",    "llama-3.1-70b", "--weights", "fp8",
                                  "--kv",     "fp8",        "--tp",  "2",          "--disaggregate", "2P3D",    "--rate",
                                  "4",        "--requests", "200",   "--prompt",   "2000",          "--output",  "300",
                                  "--json"};
    if (!prefill.empty()) {
        args.emplace_back("--prefill-hardware");
        args.emplace_back(prefill);
    }
    const auto result = testing::run(args);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out);
}

}  // namespace

TEST_CASE("prefill on H200s and decode on MI300Xs: each pool at its own device's speed, the cache over both NICs") {
    const auto mixed = serve_pools("mi300x", "h200-sxm");
    const auto all_h200 = serve_pools("h200-sxm", "");
    const auto all_mi300x = serve_pools("mi300x", "");
    CHECK(mixed["conditions"]["prefill_hardware"] == "h200-sxm");
    CHECK(mixed["conditions"]["prefill_tensor_parallel"] == 2);
    // A prompt's prefill is the H200 pool's, the decode step the MI300X pool's.
    CHECK(mixed["steady_state"]["prefill_s"].get<double>() ==
          doctest::Approx(all_h200["steady_state"]["prefill_s"].get<double>()).epsilon(1e-12));
    CHECK(mixed["steady_state"]["prefill_s"].get<double>() != doctest::Approx(all_mi300x["steady_state"]["prefill_s"].get<double>()));
    CHECK(mixed["steady_state"]["step_s"].get<double>() ==
          doctest::Approx(all_mi300x["steady_state"]["step_s"].get<double>()).epsilon(1e-12));
    // The cache by hand: Llama-3.1-70B keeps 80 layers x 2 (K, V) x 8 heads x 128 x 1 byte (fp8)
    // = 163,840 B a token; a 2,000-token prompt is 327.68 MB, 163.84 MB on each of the two devices
    // of an instance, each over its own 400 Gb/s NIC (50 GB/s, both profiles) at the engine's link
    // efficiency 0.77 (the median NCCL bus bandwidth over peak, docs/model.md), after 5 us:
    // 5e-6 + 163.84e6 / (50e9 x 0.77) = 4.2608 ms.
    const auto& pools = mixed["disaggregation"];
    CHECK(pools["mean_kv_transfer_bytes"].get<double>() == doctest::Approx(327.68e6));
    CHECK(pools["mean_kv_transfer_s"].get<double>() == doctest::Approx(5e-6 + 163.84e6 / (50e9 * 0.77)).epsilon(1e-9));
    CHECK(pools["link"].get<std::string>().find(" to ") != std::string::npos);
    CHECK(pools["transfers"] == 200);
    // The text names both devices.
    const auto text = testing::run({"serve", "--hardware", "mi300x", "--prefill-hardware", "h200-sxm", "--model",
                                    "llama-3.1-70b", "--weights", "fp8", "--tp", "2", "--disaggregate", "1P1D", "--rate",
                                    "1", "--requests", "20"});
    REQUIRE(text.exit_code == 0);
    const std::string header = text.out.substr(0, text.out.find("formats"));
    CHECK(header.find("1 prefill instance on h200-sxm") != std::string::npos);
    CHECK(header.find("1 decode instance on") != std::string::npos);
    CHECK(header.find("mi300x") != std::string::npos);
}

TEST_CASE("pools on two kinds of device need a scale-out network on each and --disaggregate") {
    const auto no_nic = testing::run({"serve", "--hardware", "mi300x", "--prefill-hardware", "rtx-4090", "--model",
                                      "llama-3.1-8b", "--disaggregate", "1P1D", "--rate", "1", "--requests", "20"});
    CHECK(no_nic.exit_code != 0);
    CHECK(no_nic.err.find("prefill-hardware") != std::string::npos);
    CHECK(no_nic.err.find("scale_out") != std::string::npos);
    const auto alone = testing::run({"serve", "--hardware", "mi300x", "--prefill-hardware", "h200-sxm", "--model",
                                     "llama-3.1-8b", "--rate", "1", "--requests", "20"});
    CHECK(alone.exit_code != 0);
    CHECK(alone.err.find("--disaggregate") != std::string::npos);
    const auto tp_alone = testing::run({"serve", "--hardware", "mi300x", "--prefill-tp", "2", "--model", "llama-3.1-8b",
                                        "--disaggregate", "1P1D", "--rate", "1", "--requests", "20"});
    CHECK(tp_alone.exit_code != 0);
}

TEST_CASE("plan --prefill-hardware prices each pool at its own device and verifies the pools it plans") {
    const auto result = testing::run({"plan", "--model", "llama-3.1-70b", "--rate", "4", "--prompt", "2000", "--output",
                                      "300", "--hardware", "mi300x", "--prefill-hardware", "h200-sxm", "--ttft-p99", "2",
                                      "--tpot-p99", "0.05", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto plan = nlohmann::json::parse(result.out);
    REQUIRE(!plan["options"].empty());
    const auto& best = plan["options"][0];
    CHECK(best["hardware"] == "mi300x");
    CHECK(best["prefill_hardware"] == "h200-sxm");
    CHECK(best["disaggregated"] == true);
    const int per_instance = best["devices_per_instance"].get<int>();
    const int prefill = best["prefill_instances"].get<int>() * per_instance;
    const int decode = best["decode_instances"].get<int>() * per_instance;
    CHECK(best["devices"].get<int>() == prefill + decode);
    // Each pool at its device's price in its profile: H200 $6.35 and MI300X $1.85 a device-hour,
    // both cloud on-demand rates.
    CHECK(best["cost_per_hour"].get<double>() == doctest::Approx(prefill * 6.35 + decode * 1.85));
    CHECK(best["price_basis"] == "cloud");
    CHECK(best["verified_by_serve"]["share_on_target"].get<double>() >= 0.99);
    CHECK(best["kv_link"].get<std::string>().find(" to ") != std::string::npos);
    // A closed loop of users has no disaggregated plan.
    const auto users = testing::run({"plan", "--model", "llama-3.1-70b", "--users", "50", "--hardware", "mi300x",
                                     "--prefill-hardware", "h200-sxm"});
    CHECK(users.exit_code != 0);
    CHECK(users.err.find("--prefill-hardware") != std::string::npos);
}
