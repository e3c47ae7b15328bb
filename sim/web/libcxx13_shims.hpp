#pragma once
// Temporary shims, force-included into decodesim_core for the web build only (sim/web/CMakeLists.txt).
// Debian's emscripten 3.1.6 ships libc++ 13, which lacks two C++20/17 pieces the core uses:
// - std::bit_cast (sim/core/fast_number.cpp, write_number): clang's __builtin_bit_cast is the same thing;
// - std::from_chars for double (sim/core/units.cpp, parse_number). The shim reads the same grammar as from_chars with
// chars_format::general (no leading '+', no whitespace, no hex) and converts the matched text with
// strtod, which emscripten's musl rounds correctly, as from_chars does.
// Remove them when emscripten's libc++ has both (bit_cast: libc++ 14; from_chars for double: libc++ 17).

#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <system_error>

#if defined(__EMSCRIPTEN__) && defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
namespace std {

#if !defined(__cpp_lib_bit_cast)
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
    return __builtin_bit_cast(To, from);
}
#endif

inline from_chars_result from_chars(const char* first, const char* last, double& value) {
    const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    const char* cursor = first;
    if (cursor != last && *cursor == '-') ++cursor;
    const char* mantissa = cursor;
    while (cursor != last && is_digit(*cursor)) ++cursor;
    std::size_t digits = static_cast<std::size_t>(cursor - mantissa);
    if (cursor != last && *cursor == '.') {
        const char* fraction = ++cursor;
        while (cursor != last && is_digit(*cursor)) ++cursor;
        digits += static_cast<std::size_t>(cursor - fraction);
    }
    if (digits == 0) {
        // Not a decimal number: only inf/infinity/nan remain, which strtod reads the same way.
        const std::string text(first, last);
        if (text.find_first_of("xX") != std::string::npos || text.empty() || text.front() == '+' ||
            std::isspace(static_cast<unsigned char>(text.front()))) {
            return {first, errc::invalid_argument};
        }
        char* end = nullptr;
        const double parsed = std::strtod(text.c_str(), &end);
        if (end == text.c_str()) return {first, errc::invalid_argument};
        value = parsed;
        return {first + (end - text.c_str()), errc{}};
    }
    if (cursor != last && (*cursor == 'e' || *cursor == 'E')) {
        const char* exponent = cursor + 1;
        if (exponent != last && (*exponent == '+' || *exponent == '-')) ++exponent;
        if (exponent != last && is_digit(*exponent)) {
            while (exponent != last && is_digit(*exponent)) ++exponent;
            cursor = exponent;
        }
    }
    const std::string matched(first, cursor);
    errno = 0;
    const double parsed = std::strtod(matched.c_str(), nullptr);
    if (errno == ERANGE) return {cursor, errc::result_out_of_range};
    value = parsed;
    return {cursor, errc{}};
}

}  // namespace std
#endif
