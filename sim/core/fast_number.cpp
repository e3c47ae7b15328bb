#include "core/fast_number.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace decodesim::core {

namespace {

constexpr int kDigits = 9;

// Powers of ten for every decimal exponent a double can have; scales below 1e-308 are subnormal
// or 0, and those above 1e308 are infinite (power_of_ten), only ever compared against.
constexpr int kLowestPower = -340;
constexpr int kHighestPower = 308;  // the largest power of ten a double holds

constexpr std::array<double, kHighestPower - kLowestPower + 1> make_powers() {
    std::array<double, kHighestPower - kLowestPower + 1> powers{};
    powers[-kLowestPower] = 1.0;
    for (int k = 1; k <= kHighestPower; ++k) powers[static_cast<std::size_t>(k - kLowestPower)] = powers[static_cast<std::size_t>(k - 1 - kLowestPower)] * 10.0;
    for (int k = -1; k >= kLowestPower; --k) powers[static_cast<std::size_t>(k - kLowestPower)] = powers[static_cast<std::size_t>(k + 1 - kLowestPower)] / 10.0;
    return powers;
}
constexpr auto kPowers = make_powers();

double power_of_ten(int exponent) {
    if (exponent > kHighestPower) return std::numeric_limits<double>::infinity();
    return kPowers[static_cast<std::size_t>(exponent - kLowestPower)];
}

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Four digits of a value below 10^4, two table lookups; then eight, from two fours. Straight-line
// code with constant divisors (compiled to multiplications): the loop this replaced, a pair per
// turn, was the single hottest spot of a sweep.
void write_four(char* out, std::uint32_t value) {
    std::memcpy(out, kPairs + 2 * (value / 100), 2);
    std::memcpy(out + 2, kPairs + 2 * (value % 100), 2);
}

void write_eight(char* out, std::uint32_t value) {
    write_four(out, value / 10000);
    write_four(out + 4, value % 10000);
}

int digit_count(std::uint32_t value) {  // of a value below 10^8
    int count = 1;
    for (std::uint32_t limit = 10; count < 8 && value >= limit; limit *= 10) ++count;
    return count;
}

char* write_unsigned(char* out, std::uint64_t value) {
    // Above 1e8, one 64-bit division splits off the last eight digits, written at full width; the
    // digits below 1e8 are written as eight and the leading zeros skipped.
    if (value >= 100'000'000ULL) {
        out = write_unsigned(out, value / 100'000'000ULL);
        write_eight(out, static_cast<std::uint32_t>(value % 100'000'000ULL));
        return out + 8;
    }
    const auto small = static_cast<std::uint32_t>(value);
    char digits[8];
    write_eight(digits, small);
    const int count = digit_count(small);
    std::memcpy(out, digits + 8 - count, static_cast<std::size_t>(count));
    return out + count;
}

}  // namespace

char* write_number(char* out, double value) {
    if (std::isnan(value)) return static_cast<char*>(std::memcpy(out, "nan", 3)) + 3;
    if (value < 0.0 || (value == 0.0 && std::signbit(value))) {
        if (value == 0.0) {
            *out = '0';
            return out + 1;
        }
        *out++ = '-';
        value = -value;
    }
    if (std::isinf(value)) return static_cast<char*>(std::memcpy(out, "inf", 3)) + 3;
    if (value == 0.0) {
        *out = '0';
        return out + 1;
    }
    // Whole numbers that fit exactly: all their digits.
    // (A round trip through an integer, not std::floor: without SSE4.1 floor is a library call.)
    if (value < 9007199254740992.0) {
        const auto whole = static_cast<std::uint64_t>(value);
        if (static_cast<double>(whole) == value) return write_unsigned(out, whole);
    }
    // The decimal exponent, estimated from the binary one and corrected by one comparison each way.
    // frexp's exponent, read from the bits for normal numbers (value = f 2^e, f in [0.5, 1)).
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto biased = static_cast<int>((bits >> 52) & 0x7FF);
    int binary_exponent = biased - 1022;
    if (biased == 0) std::frexp(value, &binary_exponent);  // subnormal
    // floor((e - 1) log10 2) in integers: 78913 / 2^18 = 0.301029968 is log10 2 to 7 digits, exact
    // over every exponent a double has, and the shift of a negative number rounds down.
    int exponent = ((binary_exponent - 1) * 78913) >> 18;
    if (value >= power_of_ten(exponent + 1)) ++exponent;
    if (value < power_of_ten(exponent)) --exponent;
    // Nine significant digits as an integer in [1e8, 1e9).
    const int scale = kDigits - 1 - exponent;
    // Subnormal values need a scale beyond the largest double: apply it in two steps.
    const double scaled = scale > 300 ? value * 1e300 * power_of_ten(scale - 300) : value * power_of_ten(scale);
    auto mantissa = static_cast<std::uint64_t>(scaled + 0.5);  // positive: rounds half up
    if (mantissa >= 1'000'000'000ULL) {  // rounding carried into a tenth digit
        mantissa /= 10;
        ++exponent;
    }
    char digits[kDigits];
    const auto nine = static_cast<std::uint32_t>(mantissa);
    digits[0] = static_cast<char>('0' + nine / 100'000'000U);
    write_eight(digits + 1, nine % 100'000'000U);
    int kept = kDigits;  // trailing zeros are dropped
    while (kept > 1 && digits[kept - 1] == '0') --kept;
    if (exponent >= 0 && exponent < 15) {
        // 123.456: the integer part, then the fraction if any digits are left.
        const int integer_digits = exponent + 1;
        if (kept <= integer_digits) {
            std::memcpy(out, digits, static_cast<std::size_t>(kept));
            out += kept;
            for (int i = kept; i < integer_digits; ++i) *out++ = '0';
            return out;
        }
        std::memcpy(out, digits, static_cast<std::size_t>(integer_digits));
        out += integer_digits;
        *out++ = '.';
        std::memcpy(out, digits + integer_digits, static_cast<std::size_t>(kept - integer_digits));
        return out + (kept - integer_digits);
    }
    if (exponent < 0 && exponent >= -5) {
        // 0.00123: leading zeros, then the digits.
        *out++ = '0';
        *out++ = '.';
        for (int i = -1; i > exponent; --i) *out++ = '0';
        std::memcpy(out, digits, static_cast<std::size_t>(kept));
        return out + kept;
    }
    // 1.2345e-07, 6.02e+23
    *out++ = digits[0];
    if (kept > 1) {
        *out++ = '.';
        std::memcpy(out, digits + 1, static_cast<std::size_t>(kept - 1));
        out += kept - 1;
    }
    *out++ = 'e';
    *out++ = exponent < 0 ? '-' : '+';
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) *out++ = '0';
    return write_unsigned(out, static_cast<std::uint64_t>(magnitude));
}

}  // namespace decodesim::core
