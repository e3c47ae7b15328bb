#include "explore/sweep.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace decodesim::explore {

double SweepGrid::points_per_deployment() const {
    return static_cast<double>(batch.size()) *
           (request_mode() ? static_cast<double>(prompt.size()) * static_cast<double>(output.size())
                           : static_cast<double>(context.size()));
}

double SweepGrid::points(std::size_t hardware_count, std::size_t model_count) const {
    double count = points_per_deployment();
    for (std::size_t size : {hardware_count, model_count, weights.size(), kv.size(), activations.size(), runtimes_per_device(),
                             tensor_parallel.size(), clocks.size()}) {
        count *= static_cast<double>(size);
    }
    return count;
}

double SweepGrid::longest_context() const {
    double longest = 0.0;
    for (long long tokens : context) longest = std::max(longest, static_cast<double>(tokens));
    if (request_mode() && !output.empty()) {
        longest = static_cast<double>(*std::max_element(prompt.begin(), prompt.end()) +
                                      *std::max_element(output.begin(), output.end()));
    }
    return longest;
}

namespace {

// Every operating point of one deployment, in batch-major order.
void sweep_deployment(const SweepGrid& grid, const engine::Evaluator& evaluator, SweepPoint point,
                      const std::function<void(const SweepPoint&)>& on_point) {
    // One request's prefill at each context does not depend on the batch: computed once per
    // context, by the same function predict would call, and reused across the batch axis.
    std::vector<engine::PrefillResult> prefills;
    if (!grid.request_mode()) {
        prefills.reserve(grid.context.size());
        for (long long context : grid.context) prefills.push_back(evaluator.prefill(1.0, static_cast<double>(context)));
    }
    for (long long batch : grid.batch) {
        point.batch = static_cast<double>(batch);
        if (grid.request_mode()) {
            point.axis_index = 0;
            for (long long prompt : grid.prompt) {
                for (long long output : grid.output) {
                    point.prompt = static_cast<double>(prompt);
                    point.output = static_cast<double>(output);
                    const engine::Prediction prediction = evaluator.predict(
                        engine::Workload::request(point.batch, point.prompt, point.output), engine::Detail::figures);
                    point.prediction = &prediction;
                    on_point(point);
                    ++point.axis_index;
                }
            }
        } else {
            for (std::size_t i = 0; i < grid.context.size(); ++i) {
                point.context = static_cast<double>(grid.context[i]);
                const engine::Prediction prediction = evaluator.predict(
                    engine::Workload::step(point.batch, point.context), engine::Detail::figures, &prefills[i]);
                point.prediction = &prediction;
                point.axis_index = i;
                on_point(point);
            }
        }
    }
}

}  // namespace

void run_sweep(const SweepGrid& grid, const std::function<void(const SweepPoint&)>& on_point,
               const std::function<void(const SweepSkip&)>& on_skip) {
    const double points_per_deployment = grid.points_per_deployment();
    std::size_t deployment_index = 0;
    for (const auto& hardware : grid.hardware) {
        for (const auto& model : grid.models) {
            for (const core::WeightFormat* weights : grid.weights) {
                for (const core::KvFormat* kv : grid.kv) {
                    for (const auto& activation : grid.activations) {
                        for (std::size_t r = 0; r < grid.runtimes_per_device(); ++r) {
                            const auto runtime = grid.runtimes.empty() ? grid.default_runtime(hardware) : grid.runtimes[r];
                            for (long long tp : grid.tensor_parallel) {
                              for (const engine::ClockChoice& clocks : grid.clocks) {
                                // Deployment-level work happens once here; the inner loops are arithmetic.
                                const engine::DeploymentChoice choice{weights, kv, activation, runtime, std::nullopt,
                                                                      engine::Parallelism{static_cast<int>(tp)}, clocks, false, {},
                                                                      std::nullopt};
                                engine::Deployment deployment;
                                std::optional<engine::Evaluator> evaluator;
                                try {
                                    deployment = engine::resolve_deployment(hardware, model, choice);
                                    evaluator.emplace(model, hardware, deployment);
                                } catch (const core::InputError& error) {
                                    on_skip({hardware.id, model.id, runtime->id, tp,
                                             error.diagnostics().front().message, points_per_deployment});
                                    continue;
                                }
                                const SweepPoint first{deployment_index++, &hardware, &model, &deployment,
                                                       0.0, 0.0, 0.0, 0.0, 0, nullptr};
                                sweep_deployment(grid, *evaluator, first, on_point);
                              }
                            }
                        }
                    }
                }
            }
        }
    }
}

}  // namespace decodesim::explore
