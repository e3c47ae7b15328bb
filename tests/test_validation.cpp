// The validation suite: predicts every public measurement in validation/measurements.csv and fails
// when the held-out error grows past the tolerances justified in docs/validation.md.

#include <doctest/doctest.h>

#include <cmath>

#include "test_support.hpp"

TEST_CASE("held-out error stays within the documented tolerances") {
    const auto result = decodesim::testing::run({"accuracy", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    int evaluated = 0;
    for (const auto& row : document["rows"]) {
        if (!row.contains("error")) continue;
        ++evaluated;
        const double error = row["error"].get<double>();
        REQUIRE(std::isfinite(error));
        // The prediction never exceeds the roofline bound.
        CHECK(row["predicted"].get<double>() <= row["bound"].get<double>() * (1 + 1e-9));
    }
    CHECK(evaluated >= 600);
    for (const auto& subset : document["by_split_and_metric"]) {
        const std::string name = subset["subset"];
        const double median = subset["median_absolute_error"];
        CAPTURE(name);
        // Tolerances: docs/validation.md ("Tolerances").
        if (name == "test decode_tokens_per_s_per_stream") CHECK(median <= 0.11);
        if (name == "test prefill_tokens_per_s") CHECK(median <= 0.12);
        if (name == "test decode_tokens_per_s_total") CHECK(median <= 0.31);
    }
}
