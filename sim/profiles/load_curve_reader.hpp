#pragma once
// Reads a day's load curve file (profiles/load_curve.hpp holds what it gives).

#include <string>
#include <vector>

#include "profiles/load_curve.hpp"

namespace decodesim::profiles {

// The steps in order of hour, the first at hour 0. Throws core::InputError naming the file, line
// and column of each problem: unknown or missing columns, hours out of order or outside [0, 24),
// a first row not at hour 0, negative or non-numeric rates, no row with a rate above zero.
std::vector<LoadStep> load_load_curve(const std::string& path);

}  // namespace decodesim::profiles
