#include "cli/shared_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/quantization.hpp"
#include "core/suggest.hpp"
#include "engine/prediction.hpp"

namespace decodesim::cli {

OperatingPoint resolve_operating_point(const profiles::Catalog& catalog, const std::string& hardware,
                                       const std::string& model, const std::string& weights, const std::string& kv,
                                       int tensor_parallel) {
    const core::WeightFormat* weight_format = core::find_weight_format(weights);
    if (weight_format == nullptr) {
        throw core::UsageError(fmt::format("--weights: unknown format '{}'{}; expected one of {}", weights,
                                           core::suggestion_note(weights, core::weight_format_names()),
                                           fmt::join(core::weight_format_names(), " ")));
    }
    const core::KvFormat* kv_format = nullptr;
    if (!kv.empty()) {
        kv_format = core::find_kv_format(kv);
        if (kv_format == nullptr) {
            throw core::UsageError(fmt::format("--kv: unknown format '{}'{}; expected one of {}", kv,
                                               core::suggestion_note(kv, core::kv_format_names()),
                                               fmt::join(core::kv_format_names(), " ")));
        }
    }
    OperatingPoint point{catalog.hardware(hardware), catalog.model(model), {}};
    point.deployment = engine::resolve_deployment(point.hardware, *weight_format, kv_format, tensor_parallel);
    return point;
}

report::Conditions conditions_of(const OperatingPoint& point) {
    return {point.hardware.id,
            point.model.id,
            std::string(point.deployment.weights->name),
            std::string(point.deployment.kv->name),
            std::string(core::datatype_name(point.deployment.activation)),
            point.deployment.tensor_parallel};
}

void warn(Io io, const std::string& message) { io.err << "decodesim: warning: " << message << "\n"; }

}  // namespace decodesim::cli
