// The shipped fit's figures, pinned: every evaluated row of validation/measurements.csv against
// tests/data/golden/accuracy.csv, which scripts/update-accuracy-golden.py writes from
// `decodesim accuracy --json`. A refit or a new row is then one command and one data diff; the
// physics tests elsewhere state the factors they use and do not move with it.

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "profiles/measurements.hpp"
#include "fit/accuracy_run.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

std::map<std::string, double> golden_predictions() {
    std::ifstream file(std::string(DECODESIM_TEST_DATA) + "/golden/accuracy.csv");
    std::map<std::string, double> golden;
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#' || line == "id,predicted") continue;
        const auto comma = line.find(',');
        golden[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
    }
    return golden;
}

}  // namespace

TEST_CASE("every row's prediction is the golden file's: the shipped profiles and fit, pinned") {
    const auto catalog = testing::shipped_catalog();
    auto measurements = profiles::load_measurements(std::string(DECODESIM_ROOT) + "/validation/measurements.csv");
    // Under the sanitizers every third row: the figures are pinned by the release build's run of
    // every row; this one walks the same paths for memory errors in a third of the time.
    const std::size_t stride = testing::kSanitized ? 3 : 1;
    if (stride > 1) {
        std::vector<profiles::Measurement> every_third;
        for (std::size_t i = 0; i < measurements.size(); i += stride) every_third.push_back(measurements[i]);
        measurements = std::move(every_third);
    }
    const fit::ProfileLookup lookup{[&](const std::string& id) { return catalog.hardware(id); },
                                          [&](const std::string& id) { return catalog.model(id); },
                                          [&](const std::string& id) { return catalog.runtime(id); }};
    const auto result = fit::evaluate_accuracy(measurements, lookup, {});
    const auto golden = golden_predictions();
    REQUIRE(golden.size() > 1000);
    int compared = 0, llama_cpp_builds = 0;
    for (const auto& row : result.rows) {
        if (!row.skipped.empty()) continue;
        CAPTURE(row.measurement->id);
        const auto expected = golden.find(row.measurement->id);
        REQUIRE(expected != golden.end());
        CHECK(row.predicted == doctest::Approx(expected->second).epsilon(1e-9));
        ++compared;
        if (row.measurement->runtime.starts_with("llama.cpp@")) ++llama_cpp_builds;
    }
    // Every golden row among those evaluated was compared (all of them in the release build).
    const auto in_golden = std::count_if(measurements.begin(), measurements.end(),
                                         [&](const profiles::Measurement& m) { return golden.contains(m.id); });
    CHECK(compared == static_cast<int>(in_golden));
    if (stride == 1) CHECK(compared == static_cast<int>(golden.size()));
    // The three llama.cpp builds are all exercised: 628 rows when the file was written.
    CHECK(llama_cpp_builds * static_cast<int>(stride) >= 600);
}
