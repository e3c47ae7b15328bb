#include "scenarios/sweep.hpp"

#include "core/error.hpp"

namespace decodesim::scenarios {

double SweepGrid::points_per_deployment() const {
    return static_cast<double>(batch.size()) *
           (request_mode() ? static_cast<double>(prompt.size()) * static_cast<double>(output.size())
                           : static_cast<double>(context.size()));
}

void run_sweep(const SweepGrid& grid, const std::function<void(const SweepPoint&)>& on_point,
               const std::function<void(const SweepSkip&)>& on_skip) {
    const double points_per_deployment = grid.points_per_deployment();
    for (const auto& hardware : grid.hardware) {
        for (const auto& model : grid.models) {
            for (const core::WeightFormat* weights : grid.weights) {
                for (const core::KvFormat* kv : grid.kv) {
                    for (long long tp : grid.tensor_parallel) {
                        // Deployment-level work happens once here; the inner loops are arithmetic.
                        engine::Deployment deployment;
                        std::optional<engine::Evaluator> evaluator;
                        try {
                            deployment = engine::resolve_deployment(hardware, *weights, kv, static_cast<int>(tp));
                            evaluator.emplace(model, hardware, deployment);
                        } catch (const core::InputError& error) {
                            on_skip({hardware.id, model.id, tp, error.diagnostics().front().message,
                                     points_per_deployment});
                            continue;
                        }
                        SweepPoint point{&hardware, &model, &deployment, 0.0, 0.0, 0.0, 0.0, nullptr};
                        for (long long batch : grid.batch) {
                            point.batch = static_cast<double>(batch);
                            if (grid.request_mode()) {
                                for (long long prompt : grid.prompt) {
                                    for (long long output : grid.output) {
                                        point.prompt = static_cast<double>(prompt);
                                        point.output = static_cast<double>(output);
                                        const engine::Prediction prediction = evaluator->predict(
                                            engine::Workload::request(point.batch, point.prompt, point.output), false);
                                        point.prediction = &prediction;
                                        on_point(point);
                                    }
                                }
                            } else {
                                for (long long context : grid.context) {
                                    point.context = static_cast<double>(context);
                                    const engine::Prediction prediction =
                                        evaluator->predict(engine::Workload::step(point.batch, point.context), false);
                                    point.prediction = &prediction;
                                    on_point(point);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

}  // namespace decodesim::scenarios
