#pragma once
// Everything a user should be told about an operating point before its figures, assembled once
// for every command: the model's own caveats, an unmeasured runtime build, a checkpoint whose files
// disagree with the shape or format the figures use, a context beyond the model's, and one stream
// that does not fit.

#include <string>
#include <vector>

#include "engine/operating_point.hpp"

namespace decodesim::engine {

// The warnings of `point`, each once, in the order a reader needs them.
std::vector<std::string> point_warnings(const OperatingPoint& point);

}  // namespace decodesim::engine
