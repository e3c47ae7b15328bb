#pragma once
// Random draws that are the same numbers under every C++ standard library. The standard fixes the
// sequence of std::mt19937_64 but not what its distributions make of it: libstdc++ (Linux),
// libc++ (macOS, and the browser explorer's WebAssembly) and MSVC each draw a different normal,
// gamma or uniform real from the same engine state. A seeded `serve` run must replay the same
// requests wherever it runs, so every draw goes through these, built on the engine's raw bits.

#include <random>

namespace decodesim::core {

// Uniform on [0, 1): the top 53 bits of one output, scaled.
double uniform_unit(std::mt19937_64& random);

// Standard normal: Box-Muller over two uniform draws (the cosine branch; the sine is not kept, so
// each call uses exactly two outputs).
double standard_normal(std::mt19937_64& random);

// Exponential with this mean: -mean ln(1 - u).
double exponential(std::mt19937_64& random, double mean);

// Gamma with this shape and scale (mean shape x scale): Marsaglia and Tsang's method (ACM TOMS 26,
// 2000), with shape < 1 drawn as Gamma(shape + 1) x u^(1/shape). Shape 1 is the exponential.
double gamma(std::mt19937_64& random, double shape, double scale);

}  // namespace decodesim::core
