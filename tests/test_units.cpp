// Units: every accepted spelling parses to its SI value, everything else is refused with a reason.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "core/fast_number.hpp"
#include "core/units.hpp"

using decodesim::core::Dimension;
using decodesim::core::parse_quantity;
using decodesim::core::UnitError;

TEST_CASE("decimal prefixes are decimal and binary prefixes binary") {
    CHECK(parse_quantity("80 GB", Dimension::bytes) == doctest::Approx(80e9));
    CHECK(parse_quantity("141 GB", Dimension::bytes) == doctest::Approx(141e9));
    CHECK(parse_quantity("16 GiB", Dimension::bytes) == doctest::Approx(16.0 * 1073741824.0));
    CHECK(parse_quantity("512 MiB", Dimension::bytes) == doctest::Approx(512.0 * 1048576.0));
    CHECK(parse_quantity("1 TB", Dimension::bytes) == doctest::Approx(1e12));
    CHECK(parse_quantity("3.35 TB/s", Dimension::bandwidth) == doctest::Approx(3.35e12));
    CHECK(parse_quantity("819.2 GB/s", Dimension::bandwidth) == doctest::Approx(819.2e9));
    CHECK(parse_quantity("800 GiB/s", Dimension::bandwidth) == doctest::Approx(800.0 * 1073741824.0));
    CHECK(parse_quantity("2765 GBps", Dimension::bandwidth) == doctest::Approx(2765e9));
    CHECK(parse_quantity("989.4 TFLOPS", Dimension::throughput) == doctest::Approx(989.4e12));
    CHECK(parse_quantity("1979 TOPS", Dimension::throughput) == doctest::Approx(1979e12));
    CHECK(parse_quantity("1.4 PFLOPS", Dimension::throughput) == doctest::Approx(1.4e15));
    CHECK(parse_quantity("2 us", Dimension::time) == doctest::Approx(2e-6));
    CHECK(parse_quantity("1.5 ms", Dimension::time) == doctest::Approx(1.5e-3));
    CHECK(parse_quantity("700 W", Dimension::power) == doctest::Approx(700.0));
    CHECK(parse_quantity("1.2 kW", Dimension::power) == doctest::Approx(1200.0));
}

TEST_CASE("the space between number and unit is optional, and exponents work") {
    CHECK(parse_quantity("80GB", Dimension::bytes) == doctest::Approx(80e9));
    CHECK(parse_quantity("1e3 GB/s", Dimension::bandwidth) == doctest::Approx(1e12));
}

TEST_CASE("bad quantities are refused with what was expected") {
    CHECK_THROWS_WITH_AS(parse_quantity("80", Dimension::bytes),
                         "'80' has no unit; expected a size such as '80 GB' (units: B, kB, KB, MB, GB, TB, KiB, MiB, "
                         "GiB, TiB)",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("80 Gb", Dimension::bytes),
                         "'Gb' is ambiguous: units are case-sensitive and a lower-case 'b' means bits; write 'GB' "
                         "(10^9-style decimal) or the binary KiB/MiB/GiB/TiB",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("3.35 tb/s", Dimension::bandwidth),
                         "'tb/s' is ambiguous: units are case-sensitive and a lower-case 'b' means bits; write 'TB/s'",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("80 GiBs", Dimension::bytes),
                         "unknown unit 'GiBs' (did you mean 'GiB'?); expected a size such as '80 GB' (units: B, kB, KB, "
                         "MB, GB, TB, KiB, MiB, GiB, TiB)",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("-3 TB/s", Dimension::bandwidth), "'-3 TB/s' must be greater than zero", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("0 W", Dimension::power), "'0 W' must be greater than zero", UnitError);
    CHECK_THROWS_AS(parse_quantity("nan GB", Dimension::bytes), UnitError);
    CHECK_THROWS_AS(parse_quantity("inf GB", Dimension::bytes), UnitError);
    CHECK_THROWS_AS(parse_quantity("1e400 GB", Dimension::bytes), UnitError);
    CHECK_THROWS_AS(parse_quantity("GB", Dimension::bytes), UnitError);
    CHECK_THROWS_AS(parse_quantity("", Dimension::bytes), UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("3.35 TB", Dimension::bandwidth),
                         doctest::Contains("'TB' is a size, not a bandwidth"), UnitError);
}

TEST_CASE("human formatting scales units and does not depend on the locale") {
    // Four significant digits everywhere, trailing zeros kept, so a column reads alike.
    CHECK(decodesim::core::format_bytes(16.06e9) == "16.06 GB");
    CHECK(decodesim::core::format_bandwidth(3.35e12) == "3.350 TB/s");
    CHECK(decodesim::core::format_throughput(989.4e12) == "989.4 TFLOPS");
    CHECK(decodesim::core::format_seconds(0.0062) == "6.200 ms");
    CHECK(decodesim::core::format_seconds(722e-6) == "722.0 us");
    CHECK(decodesim::core::format_bytes(999.97e9) == "1.000 TB");  // rounding moves it to the next prefix
    CHECK(decodesim::core::format_seconds(0.0) == "0 s");
    CHECK(decodesim::core::format_bytes(0.0) == "0 B");
}

TEST_CASE("one number format: four significant digits, SI prefixes up to E, never an exponent") {
    using decodesim::core::format_si;
    using decodesim::core::format_significant;
    CHECK(format_significant(52.4) == "52.40");
    CHECK(format_significant(67.6) == "67.60");
    CHECK(format_significant(0.0293) == "0.02930");
    CHECK(format_significant(17543.0) == "17540");   // four significant digits, no 1.754e+04
    CHECK(format_significant(9.9996) == "10.00");    // the carry takes a digit from the decimals
    CHECK(format_significant(-0.00001) == "-0.00001000");
    CHECK(format_significant(0.0) == "0");
    CHECK(format_significant(5e-324) == "4.941e-324");  // a subnormal: the only case with an exponent
    CHECK(format_si(17543.0, "tok/s") == "17.54 k tok/s");
    CHECK(format_si(999.96) == "1.000 k");
    CHECK(format_si(1.5e15) == "1.500 P");
    CHECK(format_si(2e18) == "2.000 E");
    CHECK(format_si(221.12, "tok/s") == "221.1 tok/s");
}

TEST_CASE("bulk number output: nine significant digits, whole numbers exact, JSON-compatible forms") {
    auto text = [](double value) {
        char buffer[decodesim::core::kMaxNumberChars];
        return std::string(buffer, decodesim::core::write_number(buffer, value));
    };
    CHECK(text(0.0) == "0");
    CHECK(text(-0.0) == "0");
    CHECK(text(16060522496.0) == "16060522496");          // bytes: exact
    CHECK(text(9007199254740991.0) == "9007199254740991");  // 2^53 - 1, the largest exact whole number
    CHECK(text(152.64601236674935) == "152.646012");      // 9 significant digits, rounded
    CHECK(text(0.006551104640698944) == "0.00655110464");
    CHECK(text(1.5) == "1.5");                            // trailing zeros dropped
    CHECK(text(-2.25) == "-2.25");
    CHECK(text(0.1) == "0.1");
    CHECK(text(9.9999999999) == "10");                     // rounding carries into a new digit
    CHECK(text(1.23456789e-7) == "1.23456789e-07");
    CHECK(text(6.02214076e23) == "6.02214076e+23");
    CHECK(text(1e300) == "1e+300");
    CHECK(text(4.9406564584124654e-324) == "4.94065646e-324");  // the smallest subnormal
    CHECK(text(1.7976931348623157e308) == "1.79769313e+308");
    CHECK(text(std::numeric_limits<double>::infinity()) == "inf");
    // Every output parses back to the value within half a unit of the ninth digit.
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> exponent(-300.0, 300.0);
    for (int i = 0; i < 100000; ++i) {
        const double value = std::pow(10.0, exponent(random)) * 1.2345;
        const double parsed = std::stod(text(value));
        CHECK(std::fabs(parsed - value) <= 5.0000001e-9 * value);
    }
}
