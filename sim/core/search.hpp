#pragma once
// Searches for the boundary of a monotone predicate: over integers (a knee, a smallest batch, a
// largest context) and over reals (a saturation rate, a quantile of a distribution, a rate that
// meets targets). Every such search in the engine and above goes through these.

#include <optional>

namespace decodesim::core {

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

// A real interval that holds a predicate's boundary: the predicate is true at `low` and false at
// `high` (or `high` was never tested).
struct Bracket {
    double low = 0.0;
    double high = 0.0;
};

// Narrows [low, high] around the boundary of `below_boundary`, a predicate true below some x* and
// false from x* up, by halving: at most `steps` times, and no further once the interval is within
// `relative_width` of `high` (0: all `steps`).
template <typename Predicate>
Bracket bisect(double low, double high, Predicate below_boundary, int steps = 60, double relative_width = 0.0) {
    for (int i = 0; i < steps && high - low > relative_width * high; ++i) {
        const double middle = (low + high) / 2.0;
        (below_boundary(middle) ? low : high) = middle;
    }
    return {low, high};
}

}  // namespace decodesim::core
