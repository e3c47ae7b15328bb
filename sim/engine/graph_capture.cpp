#include "engine/graph_capture.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::engine {

GraphReplay graph_replay(const std::vector<long long>& captured, bool padding, double batch) {
    if (captured.empty() || !(batch > 0.0)) return {true, batch};
    // Above the largest size (a steady-state solver's probe may be far above it): no graph. Checked
    // first, so the lookup below converts only batches the list bounds.
    if (batch > static_cast<double>(captured.back()) + 1e-9) return {false, batch};
    // A mean of 14.3 sequences is steps of 14 and 15: the larger decides the graph. The tolerance
    // keeps a whole batch summed in floating point (15.000000001) from looking up the next size.
    const double nearest = std::round(batch);
    const bool whole = std::abs(batch - nearest) < 1e-9;
    const auto steps_of = static_cast<long long>(whole ? nearest : std::ceil(batch));
    const auto next = std::lower_bound(captured.begin(), captured.end(), steps_of);
    if (next == captured.end()) return {false, batch};
    if (*next == steps_of && whole) return {true, batch};
    if (!padding) return *next == steps_of ? GraphReplay{true, batch} : GraphReplay{false, batch};
    if (whole) return {true, static_cast<double>(*next)};
    // A mean batch (the steady state's) is a spread of whole ones over the sizes that replay the
    // same graph: it pays their mean padding, (next - previous - 1) / 2 rows, not the padding of
    // one of them, so the time stays rising with the batch as a fixed point needs it to.
    const double previous = next == captured.begin() ? 0.0 : static_cast<double>(*(next - 1));
    return {true, batch + (static_cast<double>(*next) - previous - 1.0) / 2.0};
}

}  // namespace decodesim::engine
