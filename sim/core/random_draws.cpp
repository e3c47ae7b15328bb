#include "core/random_draws.hpp"

#include <cmath>
#include <numbers>

namespace decodesim::core {

double uniform_unit(std::mt19937_64& random) { return static_cast<double>(random() >> 11) * 0x1.0p-53; }

double standard_normal(std::mt19937_64& random) {
    // 1 - u lies in (0, 1], so its logarithm is finite.
    const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform_unit(random)));
    return radius * std::cos(2.0 * std::numbers::pi * uniform_unit(random));
}

double exponential(std::mt19937_64& random, double mean) { return -mean * std::log1p(-uniform_unit(random)); }

double gamma(std::mt19937_64& random, double shape, double scale) {
    if (shape == 1.0) return exponential(random, scale);
    if (shape < 1.0) {
        // Gamma(shape) = Gamma(shape + 1) x U^(1/shape); 1 - u keeps the power away from zero.
        return gamma(random, shape + 1.0, scale) * std::pow(1.0 - uniform_unit(random), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
        double x = 0.0;
        double v = 0.0;
        do {
            x = standard_normal(random);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = 1.0 - uniform_unit(random);  // in (0, 1]
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * scale;
        if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * scale;
    }
}

}  // namespace decodesim::core
