#pragma once
// Decode speed along the context, at one batch: how long contexts slow every stream.

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/prediction.hpp"

namespace decodesim::explore {

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

// The "we support 128k" question: one request of `context` prompt tokens and `output` tokens at
// `batch` concurrent streams, side by side at several contexts.
struct ContextLevel {
    double context = 0.0;              // prompt tokens
    // The level asked for, when prompt + output would exceed the model's maximum context and the
    // prompt was shortened to fit (128k on a 131,072-token model).
    std::optional<double> requested;
    core::Seconds ttft;                // one request's prefill, idle server
    double tokens_per_s_per_stream = 0.0;
    double tokens_per_s_total = 0.0;
    core::Seconds time_to_last_token;  // TTFT plus the output's decode steps
    bool fits = false;                 // `batch` streams at this context fit in memory
    long long max_batch = 0;           // streams that fit at this context
};
inline constexpr std::array<double, 3> kContextLevels{8192.0, 32768.0, 131072.0};
std::vector<ContextLevel> context_levels(const engine::Evaluator& evaluator, double batch, double output,
                                         std::optional<std::int64_t> model_max_context);

}  // namespace decodesim::explore
