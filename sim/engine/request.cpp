#include "engine/request.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::engine {

double mean_over_contexts(const std::function<double(double)>& f, double first, double last,
                          std::vector<double> breakpoints) {
    if (last < first) return f(first);
    // A breakpoint b splits the integers into [.., floor(b)] and [floor(b) + 1, ..].
    std::vector<double> segment_ends;
    for (double b : breakpoints) {
        const double end = std::floor(b);
        if (end >= first && end < last) segment_ends.push_back(end);
    }
    segment_ends.push_back(last);
    std::sort(segment_ends.begin(), segment_ends.end());
    segment_ends.erase(std::unique(segment_ends.begin(), segment_ends.end()), segment_ends.end());

    double sum = 0.0;
    double start = first;
    for (double end : segment_ends) {
        const double count = end - start + 1.0;
        sum += count * (f(start) + f(end)) / 2.0;
        start = end + 1.0;
    }
    return sum / (last - first + 1.0);
}

}  // namespace decodesim::engine
