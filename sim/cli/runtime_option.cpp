#include "cli/runtime_option.hpp"

#include "core/error.hpp"

namespace decodesim::cli {

std::shared_ptr<const engine::RuntimeProfile> runtime_named(const profiles::Catalog& catalog, const std::string& name) {
    const bool path = name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
    try {
        return catalog.runtime(name);
    } catch (const core::InputError& problem) {
        // A name that resolves to nothing is a mistake on the command line; a file's problems are the file's.
        if (path || problem.diagnostics().size() != 1 || !problem.diagnostics().front().location.file.empty()) throw;
        throw core::UsageError("--runtime: " + problem.diagnostics().front().message);
    }
}

}  // namespace decodesim::cli

namespace decodesim::cli {

std::string default_runtime_name(const profiles::HardwareProfile& hardware) {
    return hardware.native_backend == core::Backend::metal ? kDefaultMetalRuntime : kDefaultRuntime;
}

std::shared_ptr<const engine::RuntimeProfile> runtime_for(const profiles::Catalog& catalog,
                                                          const std::optional<std::string>& name,
                                                          const profiles::HardwareProfile& hardware) {
    return runtime_named(catalog, name ? *name : default_runtime_name(hardware));
}

engine::RuntimeChooser runtime_chooser(const profiles::Catalog& catalog, const std::optional<std::string>& name) {
    if (name) {
        auto runtime = runtime_named(catalog, *name);  // a bad name is refused before any device is read
        return [runtime](const profiles::HardwareProfile&) { return runtime; };
    }
    return [&catalog](const profiles::HardwareProfile& hardware) { return runtime_for(catalog, std::nullopt, hardware); };
}

}  // namespace decodesim::cli
