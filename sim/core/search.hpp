#pragma once
// Searches for the boundary of a monotone predicate: over integers (a knee, a smallest batch, a
// largest context) and over reals (a saturation rate, a quantile of a distribution, a rate that
// meets targets), and for the fixed point of an increasing map (a steady state's pass time).
// Every such search in the engine and above goes through these.

#include <algorithm>
#include <cmath>
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

// The fixed point x = g(x) that iterating an increasing map g from `start` approaches (the
// iterates move monotonically toward the nearest fixed point on their side and never pass it),
// found in far fewer evaluations of g than the iteration's linear creep takes near a tangency.
// While the residual r(x) = g(x) - x keeps its sign, each step tries the zero of the secant
// through the last two points, a bounded number of plain steps ahead; the try is kept when it is
// finite and within the limits or when its residual changes sign, and otherwise the step is the
// plain iteration's. Once the sign changes, the root is narrowed inside that bracket (regula
// falsi, Illinois variant). `admissible` is true below some x and false above it (a limit the
// fixed point must stay within): the search gives up when a plain iterate passes it with the
// residual still rising, or when the fixed point found is inadmissible; also when g is not
// finite or exceeds `largest` at a plain iterate, or after `evaluations` of g. Otherwise the
// point, within `relative_tolerance` of x, and g's slope there.
struct FixedPoint {
    double x = 0.0;
    double slope = 0.0;  // g'(x), a forward difference: near 1, g barely holds the point
};
template <typename Map, typename Admissible>
std::optional<FixedPoint> increasing_fixed_point(double start, Map g, Admissible admissible, double relative_tolerance,
                                             int evaluations, double largest) {
    // A try reaches at most this many plain steps ahead, four times further after each try that
    // was kept without crossing the root, back to the start when one is refused.
    constexpr double kFirstReach = 4.0, kFarthestReach = 1e6;
    double reach_steps = kFirstReach;
    int used = 0;
    auto residual = [&](double x) {
        ++used;
        const double value = g(x);
        return std::isfinite(value) && value <= largest ? value - x : std::nan("");
    };
    auto settled = [&](double x, double r) { return std::fabs(r) <= relative_tolerance * std::fabs(x); };
    if (!admissible(start)) return std::nullopt;
    double x0 = start, r0 = residual(x0);
    if (std::isnan(r0)) return std::nullopt;
    // g's slope at the point, from one more evaluation a small step above it.
    auto found = [&](double x) -> std::optional<FixedPoint> {
        if (!admissible(x)) return std::nullopt;
        const double step = std::max(1e-4 * std::fabs(x), 1e-300);
        const double above = g(x + step);
        if (!std::isfinite(above)) return std::nullopt;
        return FixedPoint{x, (above - g(x)) / step};
    };
    if (settled(x0, r0)) return found(x0 + r0);
    double x1 = x0 + r0, r1 = residual(x1);  // one plain iteration
    // Extend while the residual keeps the sign of the first step.
    while (!std::isnan(r1) && !settled(x1, r1) && std::signbit(r1) == std::signbit(r0)) {
        if (!admissible(x1) && r1 > 0.0) return std::nullopt;  // the root lies past the limit
        if (used >= evaluations) return std::nullopt;
        const double plain = x1 + r1;
        const double slope = (r1 - r0) / (x1 - x0);
        x0 = x1, r0 = r1;
        if (slope < 0.0) {
            const double reach = x1 + reach_steps * r1;
            const double secant = std::clamp(x1 - r1 / slope, std::min(plain, reach), std::max(plain, reach));
            if (secant != plain) {
                const double tried = residual(secant);
                const bool crossed = !std::isnan(tried) && std::signbit(tried) != std::signbit(r1);
                if (crossed || (!std::isnan(tried) && admissible(secant))) {
                    if (!crossed) reach_steps = std::min(kFarthestReach, 4.0 * reach_steps);
                    x1 = secant, r1 = tried;
                    continue;
                }
                reach_steps = kFirstReach;
            }
        }
        x1 = plain, r1 = residual(plain);
    }
    if (std::isnan(r1)) return std::nullopt;
    double root = x1 + r1;
    if (!settled(x1, r1)) {
        // r0 and r1 differ in sign: narrow [x0, x1].
        double a = x0, ra = r0, b = x1, rb = r1;
        int kept = 0;  // which end stayed put last (Illinois halves its residual when it stays twice)
        while (true) {
            if (used >= evaluations) return std::nullopt;
            const double c = (a * rb - b * ra) / (rb - ra);
            const double rc = residual(c);
            if (std::isnan(rc)) return std::nullopt;
            if (settled(c, rc) || std::fabs(b - a) <= relative_tolerance * std::fabs(c)) {
                root = c + rc;
                break;
            }
            if (std::signbit(rc) == std::signbit(rb)) {
                b = c, rb = rc;
                if (kept == -1) ra /= 2.0;
                kept = -1;
            } else {
                a = c, ra = rc;
                if (kept == 1) rb /= 2.0;
                kept = 1;
            }
        }
    }
    return found(root);
}

}  // namespace decodesim::core
