#include "explore/context_series.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::explore {

Eigen::ArrayXd decode_step_times(const engine::Evaluator& evaluator, double batch, const Eigen::ArrayXd& contexts) {
    return contexts.unaryExpr([&](double context) { return evaluator.decode_step_time(batch, context).value; });
}

ContextSeries context_series(const engine::Evaluator& evaluator, double batch, double last_context) {
    ContextSeries series;
    series.batch = batch;
    const double step = std::pow(2.0, 0.25);
    for (double context = 128.0; context <= last_context; context *= step) series.contexts.push_back(std::round(context));
    const Eigen::ArrayXd steps = decode_step_times(
        evaluator, batch,
        Eigen::Map<const Eigen::ArrayXd>(series.contexts.data(), static_cast<Eigen::Index>(series.contexts.size())));
    for (Eigen::Index i = 0; i < steps.size(); ++i) {
        series.tokens_per_s_per_stream.push_back(1.0 / steps[i]);
        series.tokens_per_s_total.push_back(batch / steps[i]);
    }
    return series;
}

std::vector<ContextLevel> context_levels(const engine::Evaluator& evaluator, double batch, double output,
                                         std::optional<std::int64_t> model_max_context) {
    std::vector<ContextLevel> levels;
    for (double context : kContextLevels) {
        ContextLevel level;
        level.context = context;
        if (model_max_context && context + output > static_cast<double>(*model_max_context)) {
            level.requested = context;
            level.context = std::max(1.0, static_cast<double>(*model_max_context) - output);
        }
        const engine::Prediction prediction =
            evaluator.predict(engine::Workload::request(batch, level.context, output), engine::Detail::figures);
        level.ttft = prediction.ttft;
        level.tokens_per_s_per_stream = prediction.decode.tokens_per_s_per_stream;
        level.tokens_per_s_total = prediction.decode.tokens_per_s_total;
        level.time_to_last_token = prediction.request->end_to_end;
        level.fits = prediction.memory.fits;
        level.max_batch = prediction.memory.max_batch;
        levels.push_back(level);
    }
    return levels;
}

}  // namespace decodesim::explore
