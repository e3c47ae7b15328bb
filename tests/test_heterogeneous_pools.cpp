// Disaggregated pools on two kinds of device (serve --prefill-hardware; docs/serving.md,
// "Disaggregated prefill and decode"): each pool runs at its own device's speed, and the KV cache
// crosses both sides' scale-out networks.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>

#include "cli_runner.hpp"
#include "serving/simulation.hpp"
#include "test_support.hpp"

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

TEST_CASE("plan --prefill-hardware with several devices takes, for each decode device, the cheapest of them") {
    // The definition: each candidate's option over two prefill devices is the cheaper of its options
    // with either alone (ties aside), so its cost is the minimum of the two single-device plans'.
    // A layout whose weights leave the prefill device no room for the cache (Llama-3.1-70B in bf16
    // on one H200, 141 GB of weights in 136 GB usable, beside a B200 that holds them) is skipped,
    // not a failed plan.
    const auto plan_with = [](const std::string& prefill) {
        const auto result = testing::run({"plan", "--model", "llama-3.1-70b", "--rate", "4", "--prompt", "2000",
                                          "--output", "300", "--hardware", "h100-sxm,b200", "--prefill-hardware", prefill,
                                          "--ttft-p99", "2", "--tpot-p99", "0.05", "--json"});
        REQUIRE(result.exit_code == 0);
        std::map<std::string, std::pair<double, std::string>> by_device;
        const auto document = nlohmann::json::parse(result.out);
        for (const auto& option : document["options"]) {
            by_device[option["hardware"].get<std::string>()] = {option["cost_per_hour"].get<double>(),
                                                                option["prefill_hardware"].get<std::string>()};
        }
        return by_device;
    };
    const auto h200 = plan_with("h200-sxm");
    const auto mi300x = plan_with("mi300x");
    const auto either = plan_with("h200-sxm,mi300x");
    REQUIRE(either.size() == 2);
    for (const auto& entry : either) {
        const std::string& device = entry.first;
        const auto& option = entry.second;
        CAPTURE(device);
        REQUIRE(h200.count(device) == 1);
        REQUIRE(mi300x.count(device) == 1);
        const double cheapest = std::min(h200.at(device).first, mi300x.at(device).first);
        CHECK(option.first == doctest::Approx(cheapest));
        CHECK(option.second == (h200.at(device).first < mi300x.at(device).first ? "h200-sxm" : "mi300x"));
    }
}

TEST_CASE("a mixed fleet runs each replica at its own device's speed behind one router") {
    // An H100 replica and an A100 replica, two requests sent together: the first goes to replica 0
    // (both idle: ties go to the lowest index), the second to replica 1 (the H100 has one). Each is
    // alone on its replica, so each sees exactly one stream's figures on its own device: predict's.
    const auto h100 = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto a100 = testing::setup("a100-sxm-80gb", "llama-3.1-8b");
    const auto fast = h100.realistic();
    const auto slow = a100.realistic();
    std::vector<workload::Request> requests(2);
    for (auto& request : requests) {
        request.prompt_tokens = 1000;
        request.output_tokens = 200;
    }
    serving::ServeConfig config;
    config.added_replicas = {&slow};
    const auto result = serving::simulate_serving(fast, requests, config, {});
    REQUIRE(result.requests.size() == 2);
    CHECK(result.requests[0].replica == 0);
    CHECK(result.requests[1].replica == 1);
    const auto on_h100 = fast.predict(engine::Workload::request(1.0, 1000.0, 200.0));
    const auto on_a100 = slow.predict(engine::Workload::request(1.0, 1000.0, 200.0));
    CHECK(result.requests[0].ttft() == doctest::Approx(on_h100.ttft.value).epsilon(1e-9));
    CHECK(result.requests[1].ttft() == doctest::Approx(on_a100.ttft.value).epsilon(1e-9));
    CHECK(result.requests[1].tpot() == doctest::Approx(on_a100.request->time_per_output_token.value).epsilon(1e-9));
    CHECK(result.requests[1].tpot() > 1.3 * result.requests[0].tpot());  // 2.0 against 3.35 TB/s
    REQUIRE(result.replica_loads.size() == 2);
    CHECK(result.replica_loads[0].requests == 1);
    CHECK(result.replica_loads[1].requests == 1);
}

TEST_CASE("serve --add-replicas reports each device's part of a mixed fleet and refuses what it cannot mean") {
    const auto ok = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "10",
                                  "--requests", "300", "--add-replicas", "a100-sxm-80gb:2", "--json"});
    REQUIRE(ok.exit_code == 0);
    const auto document = nlohmann::json::parse(ok.out);
    CHECK(document["conditions"]["replicas"] == 3);
    REQUIRE(document["fleet"].size() == 2);
    CHECK(document["fleet"][0]["hardware"] == "h100-sxm");
    CHECK(document["fleet"][1]["hardware"] == "a100-sxm-80gb");
    CHECK(document["fleet"][1]["replicas"] == 2);
    // Every request goes to one replica or another.
    CHECK(document["fleet"][0]["requests"].get<long long>() + document["fleet"][1]["requests"].get<long long>() == 300);
    for (const char* bad : {"a100-sxm-80gb", "a100-sxm-80gb:0", "a100-sxm-80gb:1:2:3", ":2"}) {
        CAPTURE(bad);
        const auto refused = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                           "--add-replicas", bad});
        CHECK(refused.exit_code == 2);
        CHECK(refused.err.find("--add-replicas") != std::string::npos);
    }
    const auto unknown = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--add-replicas",
                                       "a100-sxm4-80gb:1"});
    CHECK(unknown.exit_code != 0);
    CHECK(unknown.err.find("a100-sxm-80gb") != std::string::npos);  // the id meant
}
