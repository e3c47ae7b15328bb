#pragma once
// Physical quantities: strong types that name their unit, and strict parsing of "3.35 TB/s".
//
// All values are stored in SI base units (bytes, seconds, FLOP/s, W). Decimal prefixes are
// decimal (1 GB = 1e9 B) and binary prefixes are binary (1 GiB = 2^30 B), as vendors state them.

#include <stdexcept>
#include <string>
#include <string_view>

namespace decodesim::core {

// A value of one dimension; Tag keeps Bytes and Seconds from mixing.
template <typename Tag>
struct Quantity {
    double value = 0.0;  // SI base unit

    constexpr Quantity() = default;
    constexpr explicit Quantity(double si_value) : value(si_value) {}

    constexpr Quantity operator+(Quantity other) const { return Quantity(value + other.value); }
    constexpr Quantity operator-(Quantity other) const { return Quantity(value - other.value); }
    constexpr Quantity operator*(double factor) const { return Quantity(value * factor); }
    constexpr Quantity operator/(double divisor) const { return Quantity(value / divisor); }
    constexpr double operator/(Quantity other) const { return value / other.value; }
    constexpr Quantity& operator+=(Quantity other) {
        value += other.value;
        return *this;
    }
    constexpr auto operator<=>(const Quantity&) const = default;
};

struct BytesTag {};
struct SecondsTag {};
struct BandwidthTag {};
struct ThroughputTag {};
struct PowerTag {};

using Bytes = Quantity<BytesTag>;             // B
using Seconds = Quantity<SecondsTag>;         // s
using Bandwidth = Quantity<BandwidthTag>;     // B/s
using Throughput = Quantity<ThroughputTag>;   // FLOP/s or OP/s
using Watts = Quantity<PowerTag>;             // W

constexpr Seconds operator/(Bytes bytes, Bandwidth bandwidth) { return Seconds(bytes.value / bandwidth.value); }

enum class Dimension { bytes, bandwidth, throughput, time, power };

// The name of a dimension and the units it accepts, for messages.
std::string_view dimension_name(Dimension dimension);
std::string accepted_units(Dimension dimension);

// Thrown by parse_quantity with a message that says what was expected; the caller adds the location.
class UnitError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Parses "<number> <unit>" (space optional) into the SI value of `dimension`.
// Rejects a missing or unknown unit, a unit of another dimension, and zero, negative,
// non-finite or overflowing numbers.
double parse_quantity(std::string_view text, Dimension dimension);

// Parses a plain finite number (no unit) strictly: the whole text must be the number.
// Returns false when it is not one.
bool parse_number(std::string_view text, double& value);

// Human-readable, auto-scaled, locale-independent: "16.06 GB", "3.35 TB/s", "989.4 TFLOPS", "6.21 ms".
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);
std::string format_throughput(double ops_per_second);
std::string format_seconds(double seconds);
std::string format_count(double count);  // 8.03e9 -> "8.03 B"
std::string format_flops(double flops);  // 1.6e10 -> "16 GFLOP"

}  // namespace decodesim::core
