#pragma once
// Decode speed along the context, at one batch: how long contexts slow every stream.

#include <Eigen/Core>
#include <vector>

#include "engine/prediction.hpp"

namespace decodesim::scenarios {

struct ContextSeries {
    double batch = 1.0;
    std::vector<double> contexts;
    std::vector<double> tokens_per_s_per_stream;
    std::vector<double> tokens_per_s_total;
};

// Predicted decode step time (s) for `batch` sequences at each context, column-wise: each entry
// is evaluator.decode_step_time(batch, context), the engine's one cost function.
Eigen::ArrayXd decode_step_times(const engine::Evaluator& evaluator, double batch, const Eigen::ArrayXd& contexts);

// Contexts from 128 tokens to `last_context`, four points per octave, at `batch`.
ContextSeries context_series(const engine::Evaluator& evaluator, double batch, double last_context);

}  // namespace decodesim::scenarios
