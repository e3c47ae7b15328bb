#include "engine/point_warnings.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/units.hpp"
#include "engine/memory.hpp"
#include "engine/model_shape.hpp"
#include "engine/prediction.hpp"

namespace decodesim::engine {

namespace {

// A checkpoint's stored total may differ from the shape's count by tied or untied embeddings, a
// vision tower or quantization scales: beyond 5% the config or the format describes another file.
constexpr double kCheckpointTolerance = 0.05;

// A checkpoint read from its files (a model folder or a .gguf) checked against the shape and the
// format the figures use.
void add_checkpoint_warnings(const OperatingPoint& point, const MemoryFootprint& one_stream,
                             std::vector<std::string>& warnings) {
    const profiles::ModelProfile& model = point.model;
    if (model.checkpoint_parameters && *model.checkpoint_parameters > 0.0) {
        const double derived = count_parameters(model).total;
        if (std::fabs(derived / *model.checkpoint_parameters - 1.0) > kCheckpointTolerance) {
            warnings.push_back(fmt::format("the checkpoint's files hold {} weights, the model's shape gives {}; the figures "
                                           "use the shape's",
                                           core::format_count(*model.checkpoint_parameters), core::format_count(derived)));
        }
    }
    // Per device under tensor parallelism replicates some tensors; compared on one device only.
    if (model.checkpoint_bytes && point.deployment.weights == model.checkpoint_weights &&
        point.deployment.parallelism.tensor == 1) {
        const double derived = one_stream.weights.value;
        if (std::fabs(derived / *model.checkpoint_bytes - 1.0) > kCheckpointTolerance) {
            warnings.push_back(fmt::format(
                "the checkpoint's files hold {} of weights{}; the {} format's rules give {}, which the figures use "
                "(docs/quantization.md)",
                core::format_bytes(*model.checkpoint_bytes),
                model.checkpoint_bits_per_weight
                    ? fmt::format(" ({} bits per weight)", core::format_significant(*model.checkpoint_bits_per_weight))
                    : std::string(),
                point.deployment.weights->name, core::format_bytes(derived)));
        }
    }
}

// A decode batch the runtime captured no graph for: every op of its steps is dispatched from the
// host (engine/graph_capture.hpp), which a reader would otherwise take for a slow device.
std::optional<std::string> uncaptured_batch_warning(const OperatingPoint& point, const Evaluator& evaluator) {
    const CostModel& cost = evaluator.cost_model();
    if (point.workload.batch < 1.0 || !decode_without_graph(cost, point.workload.batch)) return std::nullopt;
    const std::vector<long long>& sizes = cost.captured_batches;
    return fmt::format("{} captures decode graphs {} {}: a batch of {:g} replays none, so each decode step "
                       "dispatches its {:.0f} ops from the host ({}), whatever the device (docs/model.md, "
                       "\"Captured batch sizes\")",
                       runtime_label(point.deployment),
                       cost.graph_padding ? "for batches up to" : "for some batch sizes, without padding between them, up to",
                       sizes.back(),
                       point.workload.batch, cost.eager_pass_ops,
                       core::format_seconds((evaluator.rates().eager_op_time * cost.eager_pass_ops).value));
}

}  // namespace

std::vector<std::string> point_warnings(const OperatingPoint& point, DeviceFit fit) {
    std::vector<std::string> warnings = model_warnings(point.model);
    if (auto warning = runtime_warning(point.deployment.runtime_profile())) warnings.push_back(*warning);
    Workload one = point.workload;
    one.batch = 1.0;
    const Evaluator evaluator(point);
    const MemoryFootprint one_stream = evaluator.predict(one, Detail::figures).memory;
    add_checkpoint_warnings(point, one_stream, warnings);
    if (auto warning = context_warning(point.model, point.workload.max_context())) warnings.push_back(*warning);
    if (fit == DeviceFit::checked) {
        if (auto problem = memory_problem(one_stream, 1.0)) warnings.push_back(*problem);
    }
    if (auto warning = uncaptured_batch_warning(point, evaluator)) warnings.push_back(*warning);
    return warnings;
}

}  // namespace decodesim::engine
