#pragma once
// Averages over a request's decode phase, exactly and without a loop over tokens.
//
// Every per-step figure (time, bytes, FLOPs) is piecewise affine in the context C: attention
// grows linearly with C up to a sliding window and each operator's max(compute, memory) switches
// branch at most once per piece. Between consecutive breakpoints the mean over integer contexts
// is the mean of the two end values, so the exact average needs only a few evaluations.

#include <functional>
#include <vector>

namespace decodesim::engine {

// Mean of f(c) over the integers c in [first, last], given every real c where f may stop being
// affine (`breakpoints`, in any order). f is evaluated O(breakpoints) times.
double mean_over_contexts(const std::function<double(double)>& f, double first, double last,
                          std::vector<double> breakpoints);

}  // namespace decodesim::engine
