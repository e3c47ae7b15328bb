// The one median, quantile, bisection and fixed-point search (core/statistics.hpp, core/search.hpp), against values
// worked by hand and NumPy's documented results; and the one name table of each enum
// (core/enum_names.hpp).

#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/memory_family.hpp"
#include "core/search.hpp"
#include "core/statistics.hpp"
#include "engine/roofline.hpp"
#include "explore/claim_check.hpp"
#include "explore/compare.hpp"
#include "report/explore/sweep_writer.hpp"
#include "serving/plan.hpp"
#include "workload/request_stream.hpp"

using namespace decodesim;

TEST_CASE("the median is the middle value, or the mean of the two middle values") {
    CHECK(core::median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(core::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
    CHECK(core::median({7.0}) == 7.0);
    CHECK(core::median({}) == 0.0);
}

TEST_CASE("a quantile interpolates between ranks as numpy.percentile does") {
    // np.percentile([1, 2, 3, 4], 50) = 2.5: position 0.5 x 3 = 1.5, halfway from 2 to 3.
    CHECK(core::quantile_of_sorted({1.0, 2.0, 3.0, 4.0}, 0.5) == doctest::Approx(2.5));
    // np.percentile(range(1, 101), 99) = 99.01: position 0.99 x 99 = 98.01, from 99 toward 100.
    std::vector<double> hundred;
    for (int i = 1; i <= 100; ++i) hundred.push_back(i);
    CHECK(core::quantile_of_sorted(hundred, 0.99) == doctest::Approx(99.01));
    CHECK(core::quantile_of_sorted(hundred, 0.0) == 1.0);
    CHECK(core::quantile_of_sorted(hundred, 1.0) == 100.0);
    CHECK(core::quantile_of_sorted({5.0}, 0.9) == 5.0);
}

TEST_CASE("bisection narrows to a monotone predicate's boundary") {
    // x^2 < 2 holds below sqrt(2) = 1.41421356...; 60 halvings of [0, 2] leave 2^-59.
    const core::Bracket root = core::bisect(0.0, 2.0, [](double x) { return x * x < 2.0; });
    CHECK(root.low <= std::sqrt(2.0));
    CHECK(root.high >= std::sqrt(2.0));
    CHECK(root.high - root.low < 1e-15);
    // With a relative width of 1e-3 it stops once the interval is that narrow: 2 / 2^11 < 1.414e-3.
    int calls = 0;
    const core::Bracket coarse = core::bisect(0.0, 2.0, [&](double x) { ++calls; return x * x < 2.0; }, 60, 1e-3);
    CHECK(coarse.high - coarse.low <= 1e-3 * coarse.high);
    CHECK(calls == 11);
}

TEST_CASE("the integer searches find the first and last n where a predicate holds") {
    CHECK(core::first_true(1, 100, [](long long n) { return n * n >= 50; }) == 8);  // 7^2 = 49, 8^2 = 64
    CHECK(core::last_true(1, 100, [](long long n) { return n * n <= 50; }) == 7);
    CHECK_FALSE(core::first_true(1, 5, [](long long n) { return n > 5; }).has_value());
    CHECK_FALSE(core::last_true(1, 5, [](long long) { return false; }).has_value());
}

TEST_CASE("the fixed-point search finds the point an increasing map's iteration approaches") {
    // g(x) = c + x^2 / 4 rises for x > 0; x = g(x) gives x^2 - 4x + 4c = 0, x = 2 -+ 2 sqrt(1 - c).
    // At c = 0.75: x = 1 (g'(1) = 1/2, where iteration from below or between settles) and 3.
    const auto map = [](double c) { return [c](double x) { return c + x * x / 4.0; }; };
    const auto anywhere = [](double) { return true; };
    const auto from_zero = core::increasing_fixed_point(0.0, map(0.75), anywhere, 1e-12, 200, 1e6);
    REQUIRE(from_zero.has_value());
    CHECK(std::fabs(from_zero->x - 1.0) < 1e-9);
    CHECK(std::fabs(from_zero->slope - 0.5) < 1e-3);  // g'(1) = 1/2
    // From between the two points the iterates fall to the lower one, as iteration's do.
    const auto from_between = core::increasing_fixed_point(2.0, map(0.75), anywhere, 1e-12, 200, 1e6);
    REQUIRE(from_between.has_value());
    CHECK(std::fabs(from_between->x - 1.0) < 1e-9);
    // Above the upper point g(x) > x: the iterates run off past `largest`.
    CHECK_FALSE(core::increasing_fixed_point(4.0, map(0.75), anywhere, 1e-12, 200, 1e6).has_value());
    // A limit below the point: none that it admits.
    CHECK_FALSE(core::increasing_fixed_point(0.0, map(0.75), [](double x) { return x < 0.9; }, 1e-12, 200, 1e6)
                    .has_value());
    // Past the tangency (c > 1) there is no fixed point at all.
    CHECK_FALSE(core::increasing_fixed_point(0.0, map(1.01), anywhere, 1e-12, 200, 1e6).has_value());
    // Near it, c = 0.9999: x = 2 - 2 x 0.01 = 1.98 with g' = 0.99, where plain iteration closes
    // 1% of the gap a step (about 2,000 steps to 1e-9); the search needs well under 200 evaluations.
    int evaluations = 0;
    const auto near_tangency = core::increasing_fixed_point(
        0.0, [&](double x) { ++evaluations; return 0.9999 + x * x / 4.0; }, anywhere, 1e-12, 200, 1e6);
    REQUIRE(near_tangency.has_value());
    CHECK(std::fabs(near_tangency->x - 1.98) < 1e-6);
    CHECK(std::fabs(near_tangency->slope - 0.99) < 1e-3);
    CHECK(evaluations < 200);
}


namespace {

// Every row names a distinct value with a distinct, non-empty name, and `count` values are named.
template <typename Table>
void check_name_table(const Table& table, std::size_t count) {
    std::set<std::string> names;
    std::set<int> values;
    for (const auto& row : table) {
        CHECK_FALSE(row.name.empty());
        names.emplace(row.name);
        values.insert(static_cast<int>(row.value));
        CHECK(core::name_of(table, row.value) == row.name);
    }
    CHECK(names.size() == count);
    CHECK(values.size() == count);
}

}  // namespace

TEST_CASE("every enum's name table names each of its values once") {
    // The counts are the enumerators of each enum, read off its declaration.
    check_name_table(engine::kBoundNames, 4);                          // memory compute communication overhead
    check_name_table(explore::kVerdictNames, 4);                       // impossible ... conservative
    check_name_table(explore::kCompareOrderNames, 4);                  // total stream ttft cost
    check_name_table(serving::kPlanOrderNames, 3);                     // cost devices power
    check_name_table(serving::kPlanDisaggregationNames, 3);            // automatic off only
    check_name_table(workload::Arrivals::kKindNames, 2);               // poisson gamma
    check_name_table(workload::LengthDistribution::kKindNames, 4);     // fixed uniform normal lognormal
    check_name_table(core::kMemoryFamilyNames, core::kMemoryFamilies.size());
    check_name_table(report::kSweepFormatNames, 2);                   // csv jsonl
}
