// Disaggregated prefill and decode (xPyD): the KV transfer against hand arithmetic, a lone request
// through both pools against the engine's own prefill and decode figures, the analytic pools
// against the simulation, the --disaggregate and --disaggregation flags (docs/serving.md).

#include <doctest/doctest.h>

#include "serving/disaggregation.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

using testing::fixed_stream;

// The H100 SXM's network as DGX H100 nodes have it, stated here so the test does not move when the
// profile's figures do: one ConnectX-7 (400 Gb/s = 50 GB/s per direction) per GPU, 5 us a message.
testing::Setup h100_with_network(const std::string& model, int tp = 1) {
    auto s = testing::setup("h100-sxm", model, "bf16", "", tp);
    profiles::ScaleOut network;
    network.bandwidth = core::Bandwidth(50e9);
    network.latency = core::Seconds(5e-6);
    network.kind = "InfiniBand NDR 400G";
    s.hardware.scale_out = network;
    return s;
}

}  // namespace

TEST_CASE("the KV transfer of a 2048-token prompt of Llama-3.1-8B over the H100's network, by hand") {
    // bf16 KV: 32 layers x 8 KV heads x 128 head_dim x 2 (K and V) x 2 bytes = 131,072 bytes a
    // token; 2048 tokens: 268,435,456 bytes. The link: 50 GB/s x 0.77 (the engine's default link
    // efficiency, the median NCCL bus bandwidth over peak) = 38.5 GB/s, plus 5 us:
    // 268,435,456 / 38.5e9 + 5e-6 = 6.977350 ms.
    const auto s = h100_with_network("llama-3.1-8b");
    const engine::Evaluator evaluator = s.realistic();
    CHECK(evaluator.cost_model().kv_bytes_per_sequence(2048.0).value == doctest::Approx(268'435'456.0));
    const serving::KvLink link = serving::kv_link(s.hardware, s.deployment.runtime_profile());
    CHECK(link.efficiency == doctest::Approx(0.77));
    CHECK(link.name == "scale-out (InfiniBand NDR 400G)");
    CHECK(serving::kv_transfer_seconds(evaluator.cost_model(), s.deployment, link, 2048.0) ==
          doctest::Approx(0.006977349506).epsilon(1e-9));

    // Tensor parallel 2: each device holds 4 of the 8 KV heads (134,217,728 bytes) and sends them
    // over its own NIC: the same 268,435,456 bytes over two NICs, 268,435,456 / (2 x 38.5e9) + 5e-6
    // = 3.491175 ms.
    const auto split = h100_with_network("llama-3.1-8b", 2);
    const engine::Evaluator split_evaluator = split.realistic();
    CHECK(split_evaluator.cost_model().kv_bytes_per_sequence(2048.0).value == doctest::Approx(134'217'728.0));
    CHECK(serving::kv_transfer_seconds(split_evaluator.cost_model(), split.deployment, link, 2048.0) ==
          doctest::Approx(0.003491174753).epsilon(1e-9));

    // No scale-out network in the profile: the scale-up interconnect, NVLink 4 at 450 GB/s per
    // direction and the default 2 us: 268,435,456 / (450e9 x 0.77) + 2e-6 = 776.7055 us.
    auto nvlink_only = s;
    nvlink_only.hardware.scale_out.reset();
    nvlink_only.hardware.interconnect->latency = core::Seconds(2e-6);
    const serving::KvLink nvlink = serving::kv_link(nvlink_only.hardware, s.deployment.runtime_profile());
    CHECK(nvlink.name.rfind("interconnect", 0) == 0);
    CHECK(serving::kv_transfer_seconds(evaluator.cost_model(), s.deployment, nvlink, 2048.0) ==
          doctest::Approx(0.0007767055007).epsilon(1e-9));

    // Neither: there is nothing to send the cache over.
    auto isolated = s;
    isolated.hardware.scale_out.reset();
    isolated.hardware.interconnect.reset();
    CHECK(testing::error_messages([&] { serving::kv_link(isolated.hardware, s.deployment.runtime_profile()); }) ==
          std::vector<std::string>{
              "error: disaggregation: NVIDIA H100 SXM5 80GB has neither a scale_out network nor an interconnect in "
              "its profile: there is no link to send the KV cache from a prefill to a decode instance over"});
    const auto requests = fixed_stream(1.0, 100, 10, 5);
    serving::ServeConfig config;
    config.disaggregation = serving::PoolShape{1, 1};
    const engine::Evaluator isolated_evaluator = isolated.realistic();
    CHECK_THROWS_AS(serving::simulate_serving(isolated_evaluator, requests, config, {}), core::InputError);
}

TEST_CASE("a lone request through 1P1D: TTFT is its prefill plus the KV transfer, TPOT the batch-1 decode") {
    // Arrivals 1000 s apart: each request is alone in both pools. Its prefill is one pass of the
    // 1000-token prompt (the engine's prefill(1, 1000), 22.8 ms on the shipped H100 profile); the
    // KV cache then crosses the network: 131,072 x 1000 = 131,072,000 bytes / 38.5e9 + 5e-6 =
    // 3.409468 ms; the first token is counted when it lands. The decode instance then runs
    // batch-1 decode passes at contexts 1001 .. 1199, exactly the steps `predict` averages into
    // its time per output token for one stream (6.56 ms here), with no prefill in any of them.
    const auto s = h100_with_network("llama-3.1-8b");
    const engine::Evaluator evaluator = s.realistic();
    const auto requests = fixed_stream(0.001, 1000, 200, 20);
    serving::ServeConfig config;
    config.disaggregation = serving::PoolShape{1, 1};
    const auto result = serving::simulate_serving(evaluator, requests, config, {});
    const auto alone = evaluator.predict(engine::Workload::request(1.0, 1000.0, 200.0));
    const double prefill = evaluator.prefill(1.0, 1000.0).time.value;
    const double transfer = 131'072'000.0 / 38.5e9 + 5e-6;
    REQUIRE(result.disaggregation.has_value());
    CHECK(result.disaggregation->mean_kv_transfer_s == doctest::Approx(transfer).epsilon(1e-9));
    CHECK(result.disaggregation->mean_kv_transfer_bytes == doctest::Approx(131'072'000.0));
    CHECK(result.disaggregation->mean_kv_transfer_wait_s == doctest::Approx(0.0));
    CHECK(result.disaggregation->transfers == 20);
    CHECK(prefill == doctest::Approx(alone.ttft.value).epsilon(1e-12));
    CHECK(result.ttft_s.p50 == doctest::Approx(prefill + transfer).epsilon(1e-9));
    CHECK(result.ttft_s.max == doctest::Approx(prefill + transfer).epsilon(1e-9));
    CHECK(result.tpot_s.p50 == doctest::Approx(alone.request->time_per_output_token.value).epsilon(1e-9));
    CHECK(result.e2e_s.p50 == doctest::Approx(alone.request->end_to_end.value + transfer).epsilon(1e-9));
    CHECK_FALSE(result.saturated);
    // The analytic pools at a trickle give the same TTFT and TPOT.
    const auto analytic =
        serving::disaggregated_state(evaluator, {0.001, 1000.0, 200.0, 1.0}, {}, serving::PoolShape{1, 1});
    CHECK(analytic.kv_transfer_s == doctest::Approx(transfer).epsilon(1e-9));
    CHECK(analytic.prefill_s == doctest::Approx(prefill).epsilon(1e-9));
    CHECK(analytic.overall.ttft_s.p50 == doctest::Approx(prefill + transfer).epsilon(1e-3).scale(0.0));
}

TEST_CASE("decode instances see no prefill: their inter-token gaps stay at the decode step under load") {
    // Colocated, a 2000-token prompt rides in some decode passes and stretches them (the p99 gap
    // is several decode steps: 45 ms against a 9 ms mean in this run); disaggregated, every decode
    // pass is decode-only, so the p99 gap moves only with the batch (9.7 ms against 8.3 ms).
    const auto s = h100_with_network("llama-3.1-8b");
    const engine::Evaluator evaluator = s.realistic();
    const auto requests = fixed_stream(10.0, 2000, 200, 1500, 3);
    serving::ServeConfig colocated;
    colocated.replicas = 2;
    serving::ServeConfig pools;
    pools.disaggregation = serving::PoolShape{1, 1};
    const auto mixed = serving::simulate_serving(evaluator, requests, colocated, {});
    const auto split = serving::simulate_serving(evaluator, requests, pools, {});
    CHECK_FALSE(split.saturated);
    CHECK(split.itl_s.p99 < 1.25 * split.itl_s.mean);
    CHECK(mixed.itl_s.p99 > 3.0 * mixed.itl_s.mean);
    CHECK(split.tpot_s.mean < mixed.tpot_s.mean);
    // Every request was served once, with one transfer each.
    CHECK(split.disaggregation->transfers == 1500);
    CHECK(split.rejected == 0);
}

TEST_CASE("the analytic pools agree with the simulated ones below saturation") {
    // Llama-3.1-70B at tp 4 on 1P2D, 4 requests/s, prompt 1000, output 200 (about a quarter of the
    // prefill pool's capacity): the decode batch, TPOT and TTFT means within 8%, the prefill
    // pool's load within 8%.
    const auto s = h100_with_network("llama-3.1-70b", 4);
    const engine::Evaluator evaluator = s.realistic();
    serving::ServeConfig config;
    config.disaggregation = serving::PoolShape{1, 2};
    const auto simulated = serving::simulate_serving(evaluator, fixed_stream(4.0, 1000, 200, 3000, 5), config, {});
    const auto analytic = serving::disaggregated_state(evaluator, {4.0, 1000.0, 200.0, 1.0}, {}, *config.disaggregation);
    REQUIRE(analytic.overall.stable);
    CHECK(analytic.overall.batch == doctest::Approx(simulated.disaggregation->mean_decode_batch).epsilon(0.08).scale(0.0));
    CHECK(analytic.overall.tpot_s.mean == doctest::Approx(simulated.tpot_s.mean).epsilon(0.08).scale(0.0));
    CHECK(analytic.overall.ttft_s.mean == doctest::Approx(simulated.ttft_s.mean).epsilon(0.08).scale(0.0));
    CHECK(analytic.prefill_utilization == doctest::Approx(simulated.disaggregation->prefill_utilization).epsilon(0.08).scale(0.0));
}

TEST_CASE("serve --disaggregate: pools in JSON, and a malformed shape is a usage error") {
    const auto run = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2",
                                   "--requests", "200", "--disaggregate", "1P2D", "--json"});
    REQUIRE(run.exit_code == 0);
    const auto document = nlohmann::json::parse(run.out);
    CHECK(document["conditions"]["disaggregation"] == "1P2D");
    CHECK(document["conditions"]["replicas"] == 3);
    CHECK(document["disaggregation"]["prefill_instances"] == 1);
    CHECK(document["disaggregation"]["decode_instances"] == 2);
    CHECK(document["disaggregation"]["transfers"] == 200);
    CHECK(document["disaggregation"]["mean_kv_transfer_s"].get<double>() > 0.0);
    CHECK(document["steady_state"]["kv_transfer_s"].get<double>() > 0.0);

    auto refused = [](const std::string& shape) {
        return testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--disaggregate", shape});
    };
    const auto no_decode = refused("2P");
    CHECK(no_decode.exit_code == 2);
    CHECK(no_decode.err == "decodesim: error: --disaggregate: '2P' is not of that form; expected xPyD, as 2P3D for 2 "
                           "prefill and 3 decode instances\n");
    const auto zero = refused("0P1D");
    CHECK(zero.exit_code == 2);
    CHECK(zero.err == "decodesim: error: --disaggregate: '0P1D' has a prefill count out of range 1 to 4096; expected "
                      "xPyD, as 2P3D for 2 prefill and 3 decode instances\n");
    CHECK(refused("1P1X").exit_code == 2);
    const auto both = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--replicas", "2",
                                    "--disaggregate", "1P1D"});
    CHECK(both.exit_code == 2);
}

TEST_CASE("plan --disaggregation only returns disaggregated pools, off none, and auto the cheaper") {
    auto plan = [](const std::string& mode) {
        const auto run = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--rate", "20",
                                       "--ttft-p99", "0.5", "--tpot-p99", "0.03", "--tp", "1",
                                       "--disaggregation", mode, "--verify-requests", "0", "--json"});
        REQUIRE(run.exit_code == 0);
        return nlohmann::json::parse(run.out);
    };
    const auto only = plan("only");
    REQUIRE(only["options"].size() == 1);
    const auto& pools = only["options"][0];
    CHECK(pools["disaggregated"] == true);
    CHECK(pools["prefill_instances"].get<int>() >= 1);
    CHECK(pools["decode_instances"].get<int>() >= 1);
    CHECK(pools["devices"].get<int>() == pools["prefill_instances"].get<int>() + pools["decode_instances"].get<int>());
    // 131,072 bytes x 1000 tokens over 38.5 GB/s + 5 us (the shipped profile's scale-out, or its
    // NVLink at 450 GB/s + 2 us where it has none).
    const double transfer = pools["kv_transfer_s"].get<double>();
    CHECK((transfer == doctest::Approx(0.003409467532).epsilon(1e-6) ||
           transfer == doctest::Approx(131'072'000.0 / (450e9 * 0.77) + 2e-6).epsilon(1e-6)));
    CHECK(pools["ttft_p99_s"].get<double>() <= 0.5);
    CHECK(pools["tpot_p99_s"].get<double>() <= 0.03);

    const auto off = plan("off");
    REQUIRE(off["options"].size() == 1);
    CHECK(off["options"][0]["disaggregated"] == false);
    CHECK_FALSE(off["options"][0].contains("prefill_instances"));

    const auto automatic = plan("auto");
    REQUIRE(automatic["options"].size() == 1);
    const double cheapest = std::min(off["options"][0]["cost_per_hour"].get<double>(), pools["cost_per_hour"].get<double>());
    CHECK(automatic["options"][0]["cost_per_hour"].get<double>() == doctest::Approx(cheapest));

    const auto users = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--users", "10",
                                     "--disaggregation", "only"});
    CHECK(users.exit_code == 2);
}

TEST_CASE("disaggregated pools whose fewest decode instances keep prompts waiting add decode instances") {
    // DeepSeek-V3 fp8 on H200s at TP8, 20 requests/s of 4,096 tokens in and 512 out, TPOT p99 50 ms
    // and TTFT p99 3 s. At the fast end of the efficiency band the fewest decode instances that meet
    // the TPOT target run close to their saturation, so a prompt waits for a decode slot whatever
    // the prefill pool; the search must then add decode instances, not give up. Faster kernels never
    // need more devices than the nominal ones, and slower ones never fewer.
    const auto run = testing::run({"plan", "--model", "deepseek-v3", "--formats", "fp8", "--hardware", "h200-sxm",
                                   "--tp", "8", "--rate", "20", "--prompt", "4096", "--output", "512", "--tpot-p99",
                                   "0.05", "--ttft-p99", "3", "--disaggregation", "only", "--verify-requests", "0",
                                   "--json"});
    REQUIRE(run.exit_code == 0);
    const auto plan = nlohmann::json::parse(run.out);
    REQUIRE(plan["options"].size() == 1);
    const auto& option = plan["options"][0];
    const int devices = option["devices"].get<int>();
    const int fast = option["devices_band"]["low"].get<int>();
    const int slow = option["devices_band"]["high"].get<int>();
    CHECK(fast > 0);
    CHECK(fast <= devices);
    CHECK(devices <= slow);
}
