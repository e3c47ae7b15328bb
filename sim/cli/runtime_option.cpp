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
