// The throughput-interactivity frontier (serving/frontier.hpp, `decodesim frontier`).

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "serving/frontier.hpp"

using namespace decodesim;

namespace {

serving::FrontierPoint frontier_point(long long clients, double per_user, double per_device) {
    serving::FrontierPoint point;
    point.concurrency = clients;
    point.tokens_per_s_per_user = per_user;
    point.tokens_per_s_per_device = per_device;
    return point;
}

}  // namespace

TEST_CASE("the frontier's knee is the last step that gains the machine at least what it costs the user") {
    // 1 -> 2 clients: throughput x1.96 (ln 0.673), users' speed x0.98 (ln 0.020): worth it.
    // 2 -> 4: x1.837 (ln 0.608) against x0.918 (ln 0.085): worth it.
    // 4 -> 8: x1.111 (ln 0.105) against x0.556 (ln 0.588): not worth it. The knee is 4 clients.
    const std::vector<serving::FrontierPoint> points{frontier_point(1, 100, 100), frontier_point(2, 98, 196),
                                                     frontier_point(4, 90, 360), frontier_point(8, 50, 400),
                                                     frontier_point(16, 48, 800)};
    const auto knee = serving::frontier_knee(points);
    REQUIRE(knee.has_value());
    CHECK(*knee == 2);  // the step 8 -> 16 would pay again, but the frontier is read from its start
}

TEST_CASE("a plateau of queued clients does not move the knee") {
    // Past the scheduler's limit more clients only queue: throughput +0.5% (below the 1% a step
    // must gain) while users lose nothing. The knee stays at the last step that gained.
    const std::vector<serving::FrontierPoint> points{frontier_point(1, 100, 100), frontier_point(2, 99, 190),
                                                     frontier_point(4, 99, 190.95), frontier_point(8, 99, 191.9)};
    CHECK(serving::frontier_knee(points) == std::optional<std::size_t>(1));
    // One point has no steps; a first step that costs more than it gains leaves the first point.
    CHECK_FALSE(serving::frontier_knee({frontier_point(1, 100, 100)}).has_value());
    CHECK(serving::frontier_knee({frontier_point(1, 100, 100), frontier_point(2, 40, 110)}) ==
          std::optional<std::size_t>(0));
}

TEST_CASE("frontier: per device is the deployment's throughput over its devices, and the price follows from it") {
    const auto result = testing::run({"frontier", "--hardware", "h100-sxm,h100-sxm:2", "--model", "llama-3.1-8b",
                                      "--concurrency", "1,4,16", "--requests-per-client", "2", "--price",
                                      "h100-sxm=2.0", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    const auto& deployments = document["deployments"];
    REQUIRE(deployments.size() == 2);
    CHECK(deployments[0]["devices"] == 1);
    CHECK(deployments[1]["devices"] == 2);
    CHECK(deployments[1]["label"] == "h100-sxm tp2");
    CHECK(deployments[0]["price_basis"] == "given");
    for (const auto& deployment : deployments) {
        const double devices = deployment["devices"].get<double>();
        REQUIRE(deployment["points"].size() == 3);
        for (const auto& point : deployment["points"]) {
            const double total = point["output_tokens_per_s"].get<double>();
            CHECK(point["tokens_per_s_per_device"].get<double>() == doctest::Approx(total / devices));
            // $2.00 a device-hour: devices x 2.0 USD over total x 3,600 tokens, a million of them.
            CHECK(point["usd_per_million_output_tokens"].get<double>() ==
                  doctest::Approx(devices * 2.0 / (total * 3600.0) * 1e6));
            // 1 / the median TPOT.
            CHECK(point["tokens_per_s_per_user"].get<double>() == doctest::Approx(1.0 / point["tpot_s"]["p50"].get<double>()));
            // At least 200 requests, or 2 a client.
            CHECK(point["requests"].get<long long>() == std::max(200LL, 2 * point["concurrency"].get<long long>()));
        }
        // More clients: more throughput, each user slower (bandwidth-bound Llama-3.1-8B at <= 16).
        const auto& points = deployment["points"];
        for (std::size_t i = 1; i < points.size(); ++i) {
            CHECK(points[i]["tokens_per_s_per_device"].get<double>() > points[i - 1]["tokens_per_s_per_device"].get<double>());
            CHECK(points[i]["tokens_per_s_per_user"].get<double>() < points[i - 1]["tokens_per_s_per_user"].get<double>());
        }
    }
}

TEST_CASE("frontier: bad concurrency lists and unknown devices are refused with the flag named") {
    const auto zero = testing::run({"frontier", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--concurrency", "0,4"});
    CHECK(zero.exit_code == 2);
    CHECK(zero.err.find("--concurrency") != std::string::npos);
    const auto devices = testing::run({"frontier", "--hardware", "h100-sxm:0", "--model", "llama-3.1-8b"});
    CHECK(devices.exit_code == 2);
    CHECK(devices.err.find("--hardware") != std::string::npos);
    const auto unknown = testing::run({"frontier", "--hardware", "h100-sxn", "--model", "llama-3.1-8b"});
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.err.find("h100-sxm") != std::string::npos);  // did you mean
}
