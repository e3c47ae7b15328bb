#pragma once
// Everything a user should be told about an operating point before its figures, assembled once
// for every command: the model's own caveats, an unmeasured runtime build, a checkpoint whose files
// disagree with the shape or format the figures use, a context beyond the model's, and one stream
// that does not fit.

#include <string>
#include <vector>

#include "engine/operating_point.hpp"

namespace decodesim::engine {

// Whether the warnings include one stream that does not fit the device: not where the caller
// places part of the model elsewhere and says what fits itself (predict --gpu-layers).
enum class DeviceFit { checked, answered_by_caller };

// The warnings of `point`, each once, in the order a reader needs them.
std::vector<std::string> point_warnings(const OperatingPoint& point, DeviceFit fit = DeviceFit::checked);

}  // namespace decodesim::engine
