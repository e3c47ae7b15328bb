#include "core/units.hpp"

#include "core/suggest.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace decodesim::core {
namespace {

struct UnitEntry {
    std::string_view symbol;
    Dimension dimension;
    double factor;  // SI value of one unit
};

constexpr double kKibi = 1024.0;
constexpr double kMebi = kKibi * 1024.0;
constexpr double kGibi = kMebi * 1024.0;
constexpr double kTebi = kGibi * 1024.0;

// Case-sensitive on purpose: "Gb" (gigabit) must not pass for "GB".
constexpr std::array kUnits{
    UnitEntry{"B", Dimension::bytes, 1.0},
    UnitEntry{"kB", Dimension::bytes, 1e3},
    UnitEntry{"KB", Dimension::bytes, 1e3},
    UnitEntry{"MB", Dimension::bytes, 1e6},
    UnitEntry{"GB", Dimension::bytes, 1e9},
    UnitEntry{"TB", Dimension::bytes, 1e12},
    UnitEntry{"KiB", Dimension::bytes, kKibi},
    UnitEntry{"MiB", Dimension::bytes, kMebi},
    UnitEntry{"GiB", Dimension::bytes, kGibi},
    UnitEntry{"TiB", Dimension::bytes, kTebi},
    UnitEntry{"B/s", Dimension::bandwidth, 1.0},
    UnitEntry{"kB/s", Dimension::bandwidth, 1e3},
    UnitEntry{"MB/s", Dimension::bandwidth, 1e6},
    UnitEntry{"GB/s", Dimension::bandwidth, 1e9},
    UnitEntry{"TB/s", Dimension::bandwidth, 1e12},
    UnitEntry{"KiB/s", Dimension::bandwidth, kKibi},
    UnitEntry{"MiB/s", Dimension::bandwidth, kMebi},
    UnitEntry{"GiB/s", Dimension::bandwidth, kGibi},
    UnitEntry{"TiB/s", Dimension::bandwidth, kTebi},
    UnitEntry{"GBps", Dimension::bandwidth, 1e9},
    UnitEntry{"TBps", Dimension::bandwidth, 1e12},
    UnitEntry{"GiBps", Dimension::bandwidth, kGibi},
    UnitEntry{"FLOPS", Dimension::throughput, 1.0},
    UnitEntry{"GFLOPS", Dimension::throughput, 1e9},
    UnitEntry{"TFLOPS", Dimension::throughput, 1e12},
    UnitEntry{"PFLOPS", Dimension::throughput, 1e15},
    UnitEntry{"OPS", Dimension::throughput, 1.0},
    UnitEntry{"GOPS", Dimension::throughput, 1e9},
    UnitEntry{"TOPS", Dimension::throughput, 1e12},
    UnitEntry{"POPS", Dimension::throughput, 1e15},
    UnitEntry{"s", Dimension::time, 1.0},
    UnitEntry{"ms", Dimension::time, 1e-3},
    UnitEntry{"us", Dimension::time, 1e-6},
    UnitEntry{"ns", Dimension::time, 1e-9},
    UnitEntry{"W", Dimension::power, 1.0},
    UnitEntry{"kW", Dimension::power, 1e3},
    UnitEntry{"Hz", Dimension::frequency, 1.0},
    UnitEntry{"kHz", Dimension::frequency, 1e3},
    UnitEntry{"MHz", Dimension::frequency, 1e6},
    UnitEntry{"GHz", Dimension::frequency, 1e9},
};

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

const UnitEntry* find_unit(std::string_view symbol) {
    for (const auto& entry : kUnits) {
        if (entry.symbol == symbol) return &entry;
    }
    return nullptr;
}

// Scales value into the largest prefix that keeps it >= 1, printing 4 significant digits.
std::string scaled(double value, const std::array<std::pair<double, std::string_view>, 6>& prefixes) {
    for (const auto& [factor, suffix] : prefixes) {
        // Compared after rounding, so that 999.97 GB reads "1.000 TB", not "1000 GB".
        if (std::fabs(round_significant(value / factor, 4)) >= 1.0) {
            return format_significant(value / factor) + " " + std::string(suffix);
        }
    }
    return format_significant(value / prefixes.back().first) + " " + std::string(prefixes.back().second);
}

}  // namespace

std::string_view dimension_name(Dimension dimension) {
    switch (dimension) {
        case Dimension::bytes: return "a size";
        case Dimension::bandwidth: return "a bandwidth";
        case Dimension::throughput: return "a compute rate";
        case Dimension::time: return "a time";
        case Dimension::power: return "a power";
        case Dimension::frequency: return "a clock frequency";
    }
    return "a quantity";
}

std::string accepted_units(Dimension dimension) {
    std::string list;
    for (const auto& entry : kUnits) {
        if (entry.dimension != dimension) continue;
        if (!list.empty()) list += ", ";
        list += entry.symbol;
    }
    return list;
}

bool parse_number(std::string_view text, double& value) {
    text = trim(text);
    if (text.empty()) return false;
    if (text.front() == '+') text.remove_prefix(1);
    // from_chars reads decimal only (no "0x"), but accepts "inf" and "nan": the text must start like a number.
    const std::size_t first_digit = !text.empty() && text.front() == '-' ? 1 : 0;
    if (first_digit >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[first_digit])) || text[first_digit] == '.')) {
        return false;
    }
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return false;
    if (value == 0.0) value = 0.0;  // -0 reads as 0
    return true;
}

bool parse_whole_number(std::string_view text, std::int64_t& value) {
    text = trim(text);
    const bool negative = !text.empty() && text.front() == '-';
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
    if (text.empty()) return false;
    std::int64_t magnitude = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        magnitude = magnitude * 10 + (c - '0');
        if (magnitude > kMaxExactWhole) return false;
    }
    value = negative ? -magnitude : magnitude;
    return true;
}

std::string why_not_whole_number(std::string_view text) {
    text = trim(text);
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    return digits ? "not a whole number (too large: the limit is 2^53 = 9007199254740992)"
                  : "not a whole number (decimal digits only: no fraction, exponent, hex or spaces inside)";
}

PlausibleRange plausible_range(Dimension dimension) {
    // Wide enough for every device from a Raspberry Pi to a rack-scale accelerator; beyond them a
    // value is a typo or a wrong unit, and would turn into absurd or non-finite figures downstream.
    switch (dimension) {
        case Dimension::bytes: return {1e6, 100e12, "1 MB", "100 TB"};
        case Dimension::bandwidth: return {100e6, 1e15, "100 MB/s", "1 PB/s"};
        case Dimension::throughput: return {100e6, 1e18, "100 MFLOPS", "1 EFLOPS"};
        case Dimension::time: return {1e-9, 1.0, "1 ns", "1 s"};
        case Dimension::power: return {0.1, 100e3, "100 mW", "100 kW"};
        case Dimension::frequency: return {1e6, 100e9, "1 MHz", "100 GHz"};
    }
    return {0.0, 0.0, "", ""};
}

double parse_quantity(std::string_view text, Dimension dimension) {
    const std::string_view trimmed = trim(text);
    std::size_t split = 0;
    while (split < trimmed.size()) {
        const char c = trimmed[split];
        const bool numeric = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' ||
                             ((c == 'e' || c == 'E') && split > 0 && split + 1 < trimmed.size() &&
                              (std::isdigit(static_cast<unsigned char>(trimmed[split + 1])) ||
                               trimmed[split + 1] == '-' || trimmed[split + 1] == '+'));
        if (!numeric) break;
        ++split;
    }
    const std::string_view number_text = trim(trimmed.substr(0, split));
    const std::string_view unit_text = trim(trimmed.substr(split));
    const std::string expectation =
        fmt::format("expected {} such as '{}' (units: {})", dimension_name(dimension),
                    dimension == Dimension::bytes       ? "80 GB"
                    : dimension == Dimension::bandwidth ? "3.35 TB/s"
                    : dimension == Dimension::throughput ? "989.4 TFLOPS"
                    : dimension == Dimension::time       ? "2 us"
                    : dimension == Dimension::frequency  ? "1755 MHz"
                                                          : "700 W",
                    accepted_units(dimension));
    double number = 0.0;
    if (number_text.empty()) {
        throw UnitError(fmt::format("'{}' does not start with a finite number; {}", text, expectation));
    }
    if (!parse_number(number_text, number)) {
        throw UnitError(fmt::format("'{}' is not a finite number; {}", number_text, expectation));
    }
    if (unit_text.empty()) throw UnitError(fmt::format("'{}' has no unit; {}", text, expectation));
    const UnitEntry* unit = find_unit(unit_text);
    if (unit == nullptr) {
        // "Gb", "gb", "tb/s": units are case-sensitive, and a lower-case b would mean bits.
        for (const auto& entry : kUnits) {
            if (entry.dimension != dimension || entry.symbol.size() != unit_text.size()) continue;
            bool same_letters = true;
            for (std::size_t i = 0; i < unit_text.size(); ++i) {
                same_letters = same_letters && std::tolower(static_cast<unsigned char>(unit_text[i])) ==
                                                   std::tolower(static_cast<unsigned char>(entry.symbol[i]));
            }
            if (same_letters) {
                // The bits hint only where a 'b' stands for a 'B' (Gb, tb/s); "tflops" is only a matter of case.
                bool bits = false;
                for (std::size_t i = 0; i < unit_text.size(); ++i) bits = bits || (unit_text[i] == 'b' && entry.symbol[i] == 'B');
                if (!bits) {
                    throw UnitError(fmt::format("unknown unit '{}': units are case-sensitive; write '{}'", unit_text,
                                                entry.symbol));
                }
                throw UnitError(fmt::format("'{}' is ambiguous: units are case-sensitive and a lower-case 'b' means bits; "
                                            "write '{}'{}",
                                            unit_text, entry.symbol,
                                            dimension == Dimension::bytes ? " (10^9-style decimal) or the binary KiB/MiB/GiB/TiB" : ""));
            }
        }
        std::vector<std::string> same_dimension;
        for (const auto& entry : kUnits) {
            if (entry.dimension == dimension) same_dimension.emplace_back(entry.symbol);
        }
        throw UnitError(fmt::format("unknown unit '{}'{}; {}", unit_text, suggestion_note(unit_text, same_dimension),
                                    expectation));
    }
    if (unit->dimension != dimension) {
        throw UnitError(fmt::format("'{}' is {}, not {}; {}", unit_text, dimension_name(unit->dimension),
                                    dimension_name(dimension), expectation));
    }
    if (number <= 0.0) throw UnitError(fmt::format("'{}' must be greater than zero", text));
    const double value = number * unit->factor;
    if (!std::isfinite(value)) throw UnitError(fmt::format("'{}' is too large", text));
    const PlausibleRange range = plausible_range(dimension);
    if (value < range.low || value > range.high) {
        throw UnitError(fmt::format("'{}' is outside the plausible range for {} of one device, {} to {}; check the "
                                    "number and the unit",
                                    text, dimension_name(dimension), range.low_text, range.high_text));
    }
    return value;
}

std::string format_bytes(double bytes) {
    return scaled(bytes, {{{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}, {1.0, "B"}}});
}

std::string format_bandwidth(double bytes_per_second) {
    return scaled(bytes_per_second,
                  {{{1e15, "PB/s"}, {1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}, {1.0, "B/s"}}});
}

std::string format_throughput(double ops_per_second) {
    return scaled(ops_per_second, {{{1e18, "EFLOPS"},
                                    {1e15, "PFLOPS"},
                                    {1e12, "TFLOPS"},
                                    {1e9, "GFLOPS"},
                                    {1e6, "MFLOPS"},
                                    {1.0, "FLOPS"}}});
}

std::string format_seconds(double seconds) {
    if (seconds == 0.0) return "0 s";  // not "0 fs", the smallest prefix
    return scaled(seconds, {{{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}, {1e-15, "fs"}}});
}

double round_significant(double value, int digits) {
    if (value == 0.0 || !std::isfinite(value)) return value;
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    const double scale = std::pow(10.0, digits - 1 - magnitude);
    return std::round(value * scale) / scale;
}

std::string format_significant(double value, int digits) {
    if (!std::isfinite(value)) return value != value ? "nan" : value > 0 ? "inf" : "-inf";
    // Rounded first, so that 9.9996 gives "10.00" and not "10.000".
    const double rounded = round_significant(value, digits);
    if (rounded == 0.0) return "0";
    // Subnormals overflow the scale in round_significant; no figure a person reads is one.
    if (!std::isfinite(rounded)) return fmt::format("{:.{}g}", value, digits);
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
    return fmt::format("{:.{}f}", rounded, std::max(0, digits - 1 - magnitude));
}

std::string format_si(double value, std::string_view unit, int digits) {
    static constexpr std::pair<double, std::string_view> kPrefixes[] = {
        {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    const std::string space = unit.empty() ? "" : " ";
    for (const auto& [factor, prefix] : kPrefixes) {
        if (std::fabs(round_significant(value / factor, digits)) >= 1.0) {
            return format_significant(value / factor, digits) + " " + std::string(prefix) + space + std::string(unit);
        }
    }
    return format_significant(value, digits) + space + std::string(unit);
}

std::string format_flops(double flops) {
    return scaled(flops, {{{1e18, "EFLOP"}, {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1.0, "FLOP"}}});
}

std::string format_percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

std::string format_count(double count) {
    // Parameter counts as the field writes them: B for billions.
    if (count >= 1e12) return format_significant(count / 1e12) + " T";
    if (count >= 1e9) return format_significant(count / 1e9) + " B";
    if (count >= 1e6) return format_significant(count / 1e6) + " M";
    if (count >= 1e3) return format_significant(count / 1e3) + " k";
    return format_significant(count);
}

}  // namespace decodesim::core
