#include "cli/shared_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/quantization.hpp"
#include "core/suggest.hpp"
#include "engine/efficiency.hpp"
#include "engine/prediction.hpp"

namespace decodesim::cli {

const core::WeightFormat& weight_format_named(const std::string& name) {
    const core::WeightFormat* format = core::find_weight_format(name);
    if (format == nullptr) {
        throw core::UsageError(fmt::format("--weights: unknown format '{}'{}; expected one of {}", name,
                                           core::suggestion_note(name, core::weight_format_names()),
                                           fmt::join(core::weight_format_names(), " ")));
    }
    return *format;
}

const core::KvFormat* kv_format_named(const std::string& name) {
    if (name.empty()) return nullptr;
    const core::KvFormat* format = core::find_kv_format(name);
    if (format == nullptr) {
        throw core::UsageError(fmt::format("--kv: unknown format '{}'{}; expected one of {}", name,
                                           core::suggestion_note(name, core::kv_format_names()),
                                           fmt::join(core::kv_format_names(), " ")));
    }
    return format;
}

const engine::RuntimePreset& runtime_named(const std::string& name) {
    const engine::RuntimePreset* runtime = engine::find_runtime(name);
    if (runtime == nullptr) {
        throw core::UsageError(fmt::format("--runtime: unknown runtime '{}'{}; expected one of {}", name,
                                           core::suggestion_note(name, engine::runtime_names()),
                                           fmt::join(engine::runtime_names(), " ")));
    }
    return *runtime;
}

OperatingPoint resolve_operating_point(const profiles::Catalog& catalog, const std::string& hardware,
                                       const std::string& model, const std::string& weights, const std::string& kv,
                                       int tensor_parallel, const std::string& runtime, Io io) {
    const core::WeightFormat& weight_format = weight_format_named(weights);
    const core::KvFormat* kv_format = kv_format_named(kv);
    const engine::RuntimePreset& preset = runtime_named(runtime);
    OperatingPoint point{catalog.hardware(hardware), catalog.model(model), {}};
    point.deployment = engine::resolve_deployment(point.hardware, weight_format, kv_format, tensor_parallel, preset);
    if (io.log != nullptr) {
        const engine::Efficiency efficiency = engine::default_efficiency(point.hardware, preset);
        io.log->info("hardware {} from {}", point.hardware.id, catalog.hardware_path(hardware));
        io.log->info("model {} from {}", point.model.id, catalog.model_path(model));
        io.log->info("weights {} ({:.4g} bits base), KV {}, activations {}, tp {}, runtime {}", weight_format.name,
                     weight_format.bits_per_weight, point.deployment.kv->name,
                     core::datatype_name(point.deployment.activation), tensor_parallel, preset.name);
        io.log->info("efficiency: bandwidth {:.3f}, compute {:.3f}, kernel overhead {:.1f} us, usable memory {:.2f}",
                     efficiency.memory_bandwidth, efficiency.compute, efficiency.kernel_overhead_s * 1e6,
                     engine::usable_memory_fraction(point.hardware));
    }
    return point;
}

OperatingPoint resolve_operating_point(const profiles::Catalog& catalog, const WorkloadOptions& options, Io io) {
    return resolve_operating_point(catalog, options.hardware, options.model, options.weights, options.kv,
                                   options.tensor_parallel, options.runtime, io);
}

report::Conditions conditions_of(const OperatingPoint& point) {
    return {point.hardware.id,
            point.model.id,
            std::string(point.deployment.weights->name),
            std::string(point.deployment.kv->name),
            std::string(core::datatype_name(point.deployment.activation)),
            point.deployment.tensor_parallel,
            std::string(point.deployment.runtime->name)};
}

void warn(Io io, const std::string& message) {
    if (io.log != nullptr) {
        io.log->warn("{}", message);
    } else {
        io.err << "decodesim: warning: " << message << "\n";
    }
}

}  // namespace decodesim::cli
