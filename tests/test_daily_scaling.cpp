// A plan scaled over a day's load (serving/daily_scaling.hpp, plan --load-curve) and the curve's
// reader (profiles/load_curve_reader.hpp).

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "profiles/load_curve_reader.hpp"
#include "serving/daily_scaling.hpp"
#include "test_support.hpp"

using namespace decodesim;

TEST_CASE("a day's steps run the replicas their rate needs, new ones started a lag early") {
    // Peak 12/s on 3 replicas of 2 devices: 4/s a replica. 0-8 h at 3/s: ceil(0.75) = 1 replica;
    // 8-20 h at 12/s: 3 replicas; 20-24 h at 5/s: ceil(1.25) = 2. The two replicas added at 8 h
    // start 15 min early, charged to 0-8 h: 1 x 2 x 8 + 2 x 2 x 0.25 = 17 device-hours. 8-20 h:
    // 3 x 2 x 12 = 72; 20-24 h: 2 x 2 x 4 = 16. A day: 105 device-hours, at 2.5 USD 262.5; the
    // peak all day: 3 x 2 x 24 = 144 device-hours, 360 USD.
    const std::vector<profiles::LoadStep> curve{{0.0, 3.0}, {8.0, 12.0}, {20.0, 5.0}};
    serving::DailyScaling scaling;
    scaling.peak_rate_per_s = 12.0;
    scaling.peak_replicas = 3;
    scaling.devices_per_replica = 2;
    scaling.price_per_device_hour = 2.5;
    scaling.scale_up_lag_hours = 0.25;
    const serving::ScaledDay day = serving::scale_over_day(curve, scaling);
    REQUIRE(day.steps.size() == 3);
    CHECK(day.steps[0].replicas == 1);
    CHECK(day.steps[1].replicas == 3);
    CHECK(day.steps[2].replicas == 2);
    CHECK(day.steps[0].device_hours == doctest::Approx(17.0));
    CHECK(day.steps[1].device_hours == doctest::Approx(72.0));
    CHECK(day.steps[2].device_hours == doctest::Approx(16.0));
    CHECK(day.device_hours == doctest::Approx(105.0));
    REQUIRE(day.cost_usd.has_value());
    CHECK(*day.cost_usd == doctest::Approx(262.5));
    CHECK(day.peak_device_hours == doctest::Approx(144.0));
    CHECK(*day.peak_cost_usd == doctest::Approx(360.0));
    // A rate of zero still keeps one replica up; a rate that is the peak's exact multiple rounds
    // to its own count (8/s = 2 replicas of 4/s, not 3).
    const serving::ScaledDay quiet = serving::scale_over_day({{0.0, 0.0}, {12.0, 8.0}}, scaling);
    CHECK(quiet.steps[0].replicas == 1);
    CHECK(quiet.steps[1].replicas == 2);
}

TEST_CASE("plan --load-curve: the plan is the peak's, each hour scaled from it, the day cheaper than the peak's") {
    const std::string curve = testing::test_data("load_curves/diurnal_10_per_s.csv");
    const auto result = testing::run({"plan", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--formats", "fp8",
                                      "--load-curve", curve, "--prompt", "1000", "--output", "200", "--ttft-p99", "1",
                                      "--tpot-p99", "0.05", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    const auto& best = document["options"][0];
    const auto& day = document["load_curve"];
    // The curve's peak is 10.00/s at hour 14 (the file's highest row).
    CHECK(best["rate_per_s"].get<double>() == doctest::Approx(10.0));
    const int replicas = best["replicas"].get<int>();
    const int per_replica = best["devices"].get<int>() / replicas;
    CHECK(day["peak_replicas"] == replicas);
    // Hour 3 runs 1.15/s: ceil(1.15 / (10 / replicas)) replicas.
    const auto& hour3 = day["steps"][3];
    CHECK(hour3["rate_per_s"].get<double>() == doctest::Approx(1.15));
    CHECK(hour3["replicas"].get<int>() == static_cast<int>(std::ceil(1.15 / (10.0 / replicas))));
    CHECK(hour3["devices"].get<int>() == hour3["replicas"].get<int>() * per_replica);
    double hours = 0.0;
    for (const auto& step : day["steps"]) hours += step["device_hours"].get<double>();
    CHECK(day["device_hours"].get<double>() == doctest::Approx(hours));
    CHECK(day["peak_device_hours"].get<double>() == doctest::Approx(replicas * per_replica * 24.0));
    CHECK(day["cost_usd"].get<double>() < day["peak_cost_usd"].get<double>());
}

TEST_CASE("a load curve file is read strictly, each problem at its line and column") {
    const auto write = [](const std::string& text) { return testing::write_temp("curve.csv", text); };
    const auto messages = [](const std::string& path) {
        return testing::error_messages([&] { profiles::load_load_curve(path); });
    };
    const auto late = messages(write("hour,rate_per_s\n2,5\n"));
    REQUIRE(late.size() == 1);
    CHECK(late[0].find("curve.csv:2:1: error: hour: the first row starts the day: hour 0") != std::string::npos);
    const auto values = messages(write("hour,rate_per_s\n0,5\n6,-1\n25,1\n"));
    REQUIRE(values.size() == 2);
    CHECK(values[0].find(":3:2: error: rate_per_s: '-1' is not a rate") != std::string::npos);
    CHECK(values[1].find(":4:1: error: hour: '25' is not an hour from 0 to under 24") != std::string::npos);
    const auto order = messages(write("hour,rate_per_s\n0,5\n6,1\n4,2\n"));
    REQUIRE(order.size() == 1);
    CHECK(order[0].find(":4:1: error: hour: hour 4 does not follow hour 6") != std::string::npos);
    const auto column = messages(write("hour,rps\n0,5\n"));
    REQUIRE(column.size() == 1);
    CHECK(column[0].find(":1:2: error: rps: unknown column; expected hour,rate_per_s") != std::string::npos);
    const auto idle = messages(write("hour,rate_per_s\n0,0\n12,0\n"));
    REQUIRE(idle.size() == 1);
    CHECK(idle[0].find("no row has a rate above zero") != std::string::npos);
    const auto both = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "3", "--load-curve",
                                    testing::test_data("load_curves/diurnal_10_per_s.csv")});
    CHECK(both.exit_code == 2);
}

TEST_CASE("plan --trace plans for a recorded load and replays it to check each option") {
    // 41 requests half a second apart: 40 gaps over 20 s, 2 requests/s, perfectly regular. Prompts
    // alternate 1,000 and 3,000 tokens, 21 and 20 of them: a mean of 81,000 / 41 = 1,975.6.
    std::string text = "arrival_s,prompt_tokens,output_tokens\n";
    for (int i = 0; i < 41; ++i) text += fmt::format("{},{},200\n", i * 0.5, i % 2 == 0 ? 1000 : 3000);
    const std::string trace = testing::write_temp("plan_trace.csv", text);
    const auto result = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--trace", trace,
                                      "--ttft-p99", "1", "--tpot-p99", "0.05", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    CHECK(document["conditions"]["rate_per_s"].get<double>() == doctest::Approx(2.0));
    CHECK(document["conditions"]["prompt_tokens"].get<double>() == doctest::Approx(81000.0 / 41.0));
    CHECK(document["conditions"]["output_tokens"].get<double>() == doctest::Approx(200.0));
    const auto& best = document["options"][0];
    // The check replayed the trace itself: its 41 requests, not a generated stream of 2,000.
    CHECK(best["verified_by_serve"]["requests"] == 41);
    const auto lengths = testing::run({"plan", "--model", "llama-3.1-8b", "--trace", trace, "--prompt", "500"});
    CHECK(lengths.exit_code == 2);
    const auto one = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--trace",
                                   testing::write_temp("one.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,10\n")});
    CHECK(one.exit_code == 1);
    CHECK(one.err.find("two requests or more") != std::string::npos);
}
