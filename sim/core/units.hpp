#pragma once
// Physical quantities: strong types that name their unit, and strict parsing of "3.35 TB/s".
//
// All values are stored in SI base units (bytes, seconds, FLOP/s, W, Hz). Decimal prefixes are
// decimal (1 GB = 1e9 B) and binary prefixes are binary (1 GiB = 2^30 B), as vendors state them.

#include <stdexcept>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace decodesim::core {

// A value of one dimension; Tag keeps Bytes and Seconds from mixing. Plain double inside, so
// arithmetic costs what it would on doubles; `.value` is the SI figure, read only at the edges.
template <typename Tag>
struct Quantity {
    double value = 0.0;  // SI base unit

    constexpr Quantity() = default;
    constexpr explicit Quantity(double si) : value(si) {}

    constexpr Quantity operator+(Quantity other) const { return Quantity(value + other.value); }
    constexpr Quantity operator-(Quantity other) const { return Quantity(value - other.value); }
    constexpr Quantity operator*(double factor) const { return Quantity(value * factor); }
    constexpr Quantity operator/(double divisor) const { return Quantity(value / divisor); }
    constexpr double operator/(Quantity other) const { return value / other.value; }
    constexpr Quantity& operator+=(Quantity other) {
        value += other.value;
        return *this;
    }
    constexpr Quantity& operator-=(Quantity other) {
        value -= other.value;
        return *this;
    }
    constexpr auto operator<=>(const Quantity&) const = default;
};

template <typename Tag>
constexpr Quantity<Tag> operator*(double factor, Quantity<Tag> quantity) {
    return quantity * factor;
}
template <typename Tag>
constexpr Quantity<Tag> max(Quantity<Tag> a, Quantity<Tag> b) {
    return a.value < b.value ? b : a;
}

struct BytesTag {};
struct FlopsTag {};
struct SecondsTag {};
struct BandwidthTag {};
struct FlopRateTag {};
struct PowerTag {};
struct FrequencyTag {};
struct SecondsPerByteTag {};
struct SecondsPerFlopTag {};

using Bytes = Quantity<BytesTag>;                    // B
using Flops = Quantity<FlopsTag>;                    // FLOP (or integer OP)
using Seconds = Quantity<SecondsTag>;                // s
using Bandwidth = Quantity<BandwidthTag>;            // B/s
using FlopRate = Quantity<FlopRateTag>;              // FLOP/s or OP/s
using Watts = Quantity<PowerTag>;                    // W
using Hertz = Quantity<FrequencyTag>;                // Hz (clocks)
using SecondsPerByte = Quantity<SecondsPerByteTag>;  // s/B: a bandwidth's reciprocal, precomputed once
using SecondsPerFlop = Quantity<SecondsPerFlopTag>;  // s/FLOP

constexpr Seconds operator/(Bytes bytes, Bandwidth bandwidth) { return Seconds(bytes.value / bandwidth.value); }
constexpr Seconds operator/(Flops flops, FlopRate rate) { return Seconds(flops.value / rate.value); }
constexpr Seconds operator*(Bytes bytes, SecondsPerByte cost) { return Seconds(bytes.value * cost.value); }
constexpr Seconds operator*(Flops flops, SecondsPerFlop cost) { return Seconds(flops.value * cost.value); }
constexpr Bytes operator*(Bandwidth bandwidth, Seconds time) { return Bytes(bandwidth.value * time.value); }
// FLOP per byte: arithmetic intensity, and machine balance (a FLOP rate over a bandwidth).
constexpr double operator/(Flops flops, Bytes bytes) { return flops.value / bytes.value; }
constexpr double operator/(FlopRate rate, Bandwidth bandwidth) { return rate.value / bandwidth.value; }
// The reciprocal of a rate, for per-call multiplication instead of division; 0 for a zero rate
// (nothing can run at it, and an operator with no work costs nothing).
constexpr SecondsPerByte reciprocal(Bandwidth bandwidth) {
    return SecondsPerByte(bandwidth.value > 0.0 ? 1.0 / bandwidth.value : 0.0);
}
constexpr SecondsPerFlop reciprocal(FlopRate rate) { return SecondsPerFlop(rate.value > 0.0 ? 1.0 / rate.value : 0.0); }

enum class Dimension { bytes, bandwidth, throughput, time, power, frequency };

// The name of a dimension and the units it accepts, for messages.
std::string_view dimension_name(Dimension dimension);
std::string accepted_units(Dimension dimension);

// Thrown by parse_quantity with a message that says what was expected; the caller adds the location.
class UnitError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// The values of a dimension that can describe one device (docs/robustness.md, "Plausibility of
// profiles"); parse_quantity refuses the rest with this range in its message.
struct PlausibleRange {
    double low;   // SI
    double high;  // SI
    std::string_view low_text;
    std::string_view high_text;
};
PlausibleRange plausible_range(Dimension dimension);

// Parses "<number> <unit>" (space optional) into the SI value of `dimension`.
// Rejects a missing or unknown unit, a unit of another dimension, zero, negative, non-finite or
// overflowing numbers, and values outside plausible_range(dimension).
double parse_quantity(std::string_view text, Dimension dimension);

// The one grammar for numbers, in files and on the command line alike (docs/robustness.md, "Numbers
// at the edge"): surrounding spaces are ignored; an optional sign, decimal digits, an optional
// fraction and exponent. Leading zeros are decimal ("010" is ten, never octal); hexadecimal, NaN and
// infinities are not numbers; negative zero reads as zero.
//
// parse_number: a finite number. Returns false when the text is not one.
bool parse_number(std::string_view text, double& value);

// The largest whole number every caller can hold exactly (2^53: a double's integer range).
inline constexpr std::int64_t kMaxExactWhole = std::int64_t{1} << 53;

// The largest batch and token count any input may state, a flag or a table's cell alike: far beyond
// any deployment, and small enough that their products stay exact in a double.
inline constexpr std::int64_t kMaxBatch = 1'000'000'000;
inline constexpr std::int64_t kMaxTokens = 1'000'000'000;
// The most requests one serving run simulates, generated or from a trace: each keeps a record of
// about 200 bytes until the run's percentiles are taken (a million requests: 211 MB resident,
// 9 s, measured with serve on this project's build machine), so ten million stay near 2 GB.
inline constexpr std::int64_t kMaxRequests = 10'000'000;

// parse_whole_number: a whole number written in digits (no fraction, no exponent) of magnitude at
// most kMaxExactWhole, so that no value is rounded or narrowed on its way in. Returns false otherwise.
bool parse_whole_number(std::string_view text, std::int64_t& value);

// Why parse_whole_number refused `text`, for messages: "not a whole number (too large: ...)" or
// "not a whole number (decimal digits only)".
std::string why_not_whole_number(std::string_view text);

// One number format for every figure a person reads: four significant digits, trailing zeros
// kept, never an exponent ("52.40", "722.0", "17540", "0.02930"), so that a column of figures
// reads alike whatever their size.
std::string format_significant(double value, int digits = 4);
// `value` rounded to `digits` significant digits.
double round_significant(double value, int digits);
// With an SI prefix (k, M, G, T, P, E) from 1,000 up, apart from the unit, which is rarely an SI
// one ("17.54 k tok/s", "1.979 P"); `unit` may be empty.
std::string format_si(double value, std::string_view unit = "", int digits = 4);

// Human-readable, auto-scaled, locale-independent: "16.06 GB", "3.350 TB/s", "989.4 TFLOPS", "6.210 ms".
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);
std::string format_throughput(double ops_per_second);
std::string format_seconds(double seconds);
std::string format_count(double count);  // 8.03e9 -> "8.03 B"
std::string format_flops(double flops);  // 1.6e10 -> "16 GFLOP"
// A fraction as a percentage with one decimal: 0.1234 -> "12.3%".
std::string format_percent(double fraction);

inline std::string format(Bytes bytes) { return format_bytes(bytes.value); }
inline std::string format(Flops flops) { return format_flops(flops.value); }
inline std::string format(Seconds seconds) { return format_seconds(seconds.value); }
inline std::string format(Bandwidth bandwidth) { return format_bandwidth(bandwidth.value); }
inline std::string format(FlopRate rate) { return format_throughput(rate.value); }

}  // namespace decodesim::core

// fmt prints a quantity with its unit, auto-scaled: fmt::format("{}", Bytes(16e9)) == "16 GB".
template <typename Tag>
struct fmt::formatter<decodesim::core::Quantity<Tag>> : fmt::formatter<std::string> {
    auto format(decodesim::core::Quantity<Tag> quantity, format_context& context) const {
        return fmt::formatter<std::string>::format(decodesim::core::format(quantity), context);
    }
};
