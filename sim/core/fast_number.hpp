#pragma once
// Numbers for bulk text output (sweeps write millions of rows): nine significant digits, plain
// decimal where that is short and exponent form otherwise, locale-independent, about ten
// nanoseconds a number. Nine digits resolve a relative difference of 5e-10, far finer than any
// figure decodesim predicts; whole numbers below 2^53 are written exactly.

#include <cstddef>

namespace decodesim::core {

// The most characters write_number emits ("-1.23456789e-123" and the like fit in 24).
inline constexpr std::size_t kMaxNumberChars = 24;

// Writes `value` at `out` and returns the end. Non-finite values are written as "nan", "inf" or
// "-inf"; callers that need JSON check std::isfinite first.
char* write_number(char* out, double value);

}  // namespace decodesim::core
