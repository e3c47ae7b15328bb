// The validation suite: predicts every public measurement in validation/measurements.csv and fails
// when the held-out error grows past the tolerances justified in docs/validation.md.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "profiles/measurements.hpp"
#include "test_support.hpp"

TEST_CASE("held-out error stays within the documented tolerances") {
    const auto result = decodesim::testing::run({"accuracy", "--json"});
    REQUIRE(result.exit_code == 0);
    const auto document = nlohmann::json::parse(result.out);
    std::map<std::string, bool> lower_is_better;
    for (const auto& m : decodesim::profiles::load_measurements(std::string(DECODESIM_ROOT) + "/validation/measurements.csv")) {
        lower_is_better[m.id] = decodesim::profiles::metric_info(m.metric).lower_is_better;
    }
    int evaluated = 0;
    for (const auto& row : document["rows"]) {
        if (!row.contains("error")) continue;
        ++evaluated;
        const double error = row["error"].get<double>();
        REQUIRE(std::isfinite(error));
        // The prediction is never better than the roofline bound: no faster rate, no shorter time.
        CAPTURE(row["id"].get<std::string>());
        const double predicted = row["predicted"].get<double>(), bound = row["bound"].get<double>();
        if (lower_is_better.at(row["id"].get<std::string>())) {
            CHECK(predicted >= bound * (1 - 1e-9));
        } else {
            CHECK(predicted <= bound * (1 + 1e-9));
        }
    }
    CHECK(evaluated >= 600);
    // Tolerances: docs/validation.md ("Tolerances"). Each subset must be there: a renamed subset
    // fails here instead of silently skipping its check.
    // Regression guards at the figures of 1639 rows from 62 publications, not targets: the rows
    // added in issue 10 (Strix Halo, Arc, DGX Spark prefill; vLLM-class engines) raised them; prefill came back
    // to 11.5% with the backend multipliers (docs/model.md, "Backends"), per stream to 13.7% with
    // the vllm preset fitted on its single-stream rows.
    const std::map<std::string, double> tolerances{{"test decode_tokens_per_s_per_stream", 0.15},
                                                   {"test prefill_tokens_per_s", 0.14},
                                                   {"test decode_tokens_per_s_total", 0.22}};
    std::map<std::string, double> medians;
    for (const auto& subset : document["by_split_and_metric"]) {
        medians[subset["subset"].get<std::string>()] = subset["median_absolute_error"].get<double>();
    }
    for (const auto& [name, tolerance] : tolerances) {
        CAPTURE(name);
        REQUIRE(medians.count(name) == 1);
        CHECK(medians[name] <= tolerance);
    }
}
