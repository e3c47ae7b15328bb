#pragma once
// Binary searches over integers for monotone predicates, shared by the scenarios that look for a
// knee, a smallest batch or a largest context.

#include <optional>

namespace decodesim::scenarios {

// Smallest n in [low, high] where `holds(n)`, for a predicate that stays true once true; empty when
// it does not hold at `high`.
template <typename Predicate>
std::optional<long long> first_true(long long low, long long high, Predicate holds) {
    if (!holds(high)) return std::nullopt;
    while (low < high) {
        const long long middle = low + (high - low) / 2;
        if (holds(middle)) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    return low;
}

// Largest n in [low, high] where `holds(n)`, for a predicate that stays false once false; empty
// when it does not hold at `low`.
template <typename Predicate>
std::optional<long long> last_true(long long low, long long high, Predicate holds) {
    if (!holds(low)) return std::nullopt;
    while (low < high) {
        const long long middle = low + (high - low + 1) / 2;
        if (holds(middle)) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    return low;
}

}  // namespace decodesim::scenarios
