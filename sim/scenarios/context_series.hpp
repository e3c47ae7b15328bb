#pragma once
// Decode step time along a vector of contexts, evaluated with Eigen array arithmetic: only the
// attention operators depend on the context, so the rest is computed once.

#include <Eigen/Core>

#include "engine/prediction.hpp"

namespace decodesim::scenarios {

// Predicted step time (s) for `batch` sequences at each context; equal to
// evaluator.decode_step(batch, c).time_s for every c.
Eigen::ArrayXd decode_step_times(const engine::Evaluator& evaluator, double batch, const Eigen::ArrayXd& contexts);

}  // namespace decodesim::scenarios
