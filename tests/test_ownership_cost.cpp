// The cost of owning a bought device (serving/ownership_cost.hpp) and the `purchase:` block it reads.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "profiles/hardware_loader.hpp"
#include "serving/ownership_cost.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

constexpr double kThreeYearsOfHours = 3.0 * 365.0 * 24.0;  // 26,280

}  // namespace

TEST_CASE("ownership of a datacenter board: device, host, network and energy at the datacenter's PUE") {
    // gaudi3: bought at 15,625 USD, 900 W, a board in a datacenter.
    // device  15,625 / 26,280 h                         = 0.594559 USD/h
    // host    0.64 x 15,625 / 26,280                    = 0.380518
    // network 0.19 / 0.81 x (0.594559 + 0.380518)       = 0.228723
    // energy  (900 + 0.8 x 900) W x 1.58 x 0.15 USD/kWh = 0.383940
    // total                                               1.587740
    const auto catalog = testing::shipped_catalog();
    const auto cost = serving::ownership_cost(catalog.hardware("gaudi3"), serving::OwnershipAssumptions{});
    REQUIRE(cost.has_value());
    CHECK(cost->device == doctest::Approx(15625.0 / kThreeYearsOfHours));
    CHECK(cost->host == doctest::Approx(0.380518).epsilon(1e-5));
    CHECK(cost->network == doctest::Approx(0.228723).epsilon(1e-5));
    CHECK(cost->energy == doctest::Approx(0.383940).epsilon(1e-5));
    CHECK(cost->wall_power_w == doctest::Approx(1620.0));
    CHECK(cost->total() == doctest::Approx(1.587740).epsilon(1e-5));

    // Five years, 0.10 USD/kWh, PUE 1.2: device 15,625 / 43,800 = 0.356735; host 0.228311;
    // network 0.19/0.81 x 0.585046 = 0.137233; energy 1,620 W x 1.2 x 0.10 = 0.194400.
    serving::OwnershipAssumptions longer;
    longer.years = 5.0;
    longer.usd_per_kwh = 0.10;
    longer.pue = 1.2;
    const auto five = serving::ownership_cost(catalog.hardware("gaudi3"), longer);
    REQUIRE(five.has_value());
    CHECK(five->total() == doctest::Approx(0.356735 + 0.228311 + 0.137233 + 0.194400).epsilon(1e-5));
}

TEST_CASE("ownership of a desk-side board and of a whole machine") {
    const auto catalog = testing::shipped_catalog();
    // rtx-5080: 999 USD, 360 W, a consumer board: a desktop host of 1,300 USD and 100 W, no network,
    // PUE 1: 999/26,280 + 1,300/26,280 + 460 W x 0.15 USD/kWh = 0.038014 + 0.049467 + 0.069.
    const auto board = serving::ownership_cost(catalog.hardware("rtx-5080"), serving::OwnershipAssumptions{});
    REQUIRE(board.has_value());
    CHECK(board->network == 0.0);
    CHECK(board->pue == 1.0);
    CHECK(board->total() == doctest::Approx(0.038014 + 0.049467 + 0.069).epsilon(1e-5));
    // apple-m5: a MacBook Pro at 1,599 USD and 65 W: the host is in the price. 1,599/26,280 +
    // 65 W x 0.15 = 0.060845 + 0.00975 = 0.070595, which is the profile's own purchase-basis price
    // (0.071), the same convention.
    const auto machine = serving::ownership_cost(catalog.hardware("apple-m5"), serving::OwnershipAssumptions{});
    REQUIRE(machine.has_value());
    CHECK(machine->host == 0.0);
    CHECK(machine->total() == doctest::Approx(0.070595).epsilon(1e-5));
    // A rental has no cost of ownership.
    CHECK_FALSE(serving::ownership_cost(catalog.hardware("h100-sxm"), serving::OwnershipAssumptions{}).has_value());
}

TEST_CASE("every shipped purchase price states what was bought, and agrees with its hourly price") {
    // The loader checks each price_per_hour against its purchase block (3 years plus power at
    // 0.15 USD/kWh); here: every purchase-basis profile has the block.
    const auto catalog = testing::shipped_catalog();
    int bought = 0;
    for (const auto& id : catalog.hardware_ids()) {
        const auto hardware = catalog.hardware(id);
        if (hardware.price_basis != profiles::PriceBasis::purchase) continue;
        CAPTURE(id);
        CHECK(hardware.purchase.has_value());
        ++bought;
    }
    CHECK(bought >= 38);
}

TEST_CASE("a purchase block that disagrees with its hourly price, or buys something unknown, is refused where it is") {
    const std::string base = R"(name: Test board
vendor: nvidia
architecture: test
source: "test"
memory:
  type: GDDR7
  capacity: 16 GiB
  bandwidth: 500 GB/s
compute:
  bf16: 100 TFLOPS
power: 200 W
price_per_hour: 0.5
price_basis: purchase
purchase:
  price_usd: 1000
  covers: board
)";
    // 1,000 / 26,280 + 200 W x 0.15 USD/kWh = 0.068 USD/h, not 0.5.
    const auto wrong = testing::error_messages([&] { profiles::parse_hardware_profile(base, "board.yaml"); });
    REQUIRE(wrong.size() == 1);
    CHECK(wrong[0].find("board.yaml:15") != std::string::npos);
    CHECK(wrong[0].find("purchase.price_usd") != std::string::npos);
    CHECK(wrong[0].find("0.06805") != std::string::npos);
    std::string unknown = base;
    unknown.replace(unknown.find("price_per_hour: 0.5"), 19, "price_per_hour: 0.068");
    unknown.replace(unknown.find("covers: board"), 13, "covers: rack");
    const auto rack = testing::error_messages([&] { profiles::parse_hardware_profile(unknown, "board.yaml"); });
    REQUIRE(rack.size() == 1);
    CHECK(rack[0].find("purchase.covers") != std::string::npos);
}

TEST_CASE("plan --basis purchase costs bought devices whole, itemized a month") {
    const auto result = testing::run({"plan", "--model", "llama-3.1-8b", "--hardware", "gaudi3,rtx-5080", "--rate", "2",
                                      "--prompt", "1000", "--output", "200", "--ttft-p99", "2", "--tpot-p99", "0.05",
                                      "--basis", "purchase", "--verify-requests", "0", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    for (const auto& option : document["options"]) {
        CAPTURE(option["hardware"].get<std::string>());
        const auto& month = option["ownership"]["per_month_usd"];
        const double parts = month["devices"].get<double>() + month["hosts"].get<double>() + month["network"].get<double>() +
                             month["energy"].get<double>();
        CHECK(month["total"].get<double>() == doctest::Approx(parts));
        // The plan's hourly cost is the same total: 730 hours a month.
        CHECK(option["cost_per_hour"].get<double>() * 730.0 == doctest::Approx(month["total"].get<double>()));
    }
    const auto loose = testing::run({"plan", "--model", "llama-3.1-8b", "--rate", "2", "--years", "5"});
    CHECK(loose.exit_code == 2);
    CHECK(loose.err.find("--basis purchase") != std::string::npos);
}
