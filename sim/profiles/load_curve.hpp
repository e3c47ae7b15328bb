#pragma once
// A day's load as a CSV of `hour,rate_per_s` rows (docs/serving.md, "A day's load"): each rate
// holds from its hour until the next row's, the last until hour 24.

#include <vector>

namespace decodesim::profiles {

struct LoadStep {
    double start_hour = 0.0;  // in [0, 24)
    double rate_per_s = 0.0;  // requests per second, at least 0
};

}  // namespace decodesim::profiles
