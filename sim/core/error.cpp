#include "core/error.hpp"

#include <fmt/format.h>

namespace decodesim::core {

Diagnostic::Diagnostic(SourceLocation where, std::string key, std::string what)
    : location(std::move(where)), key_path(std::move(key)), message(std::move(what)) {}

std::string Diagnostic::to_string() const {
    std::string where;
    if (!location.file.empty()) {
        if (location.line > 0 && location.column > 0) {
            where = fmt::format("{}:{}:{}: ", location.file, location.line, location.column);
        } else if (location.line > 0) {
            where = fmt::format("{}:{}: ", location.file, location.line);
        } else {
            where = fmt::format("{}: ", location.file);
        }
    }
    return fmt::format("{}error: {}{}", where, key_path.empty() ? "" : key_path + ": ", message);
}

Diagnostic unlocated(std::string key_path, std::string message) {
    Diagnostic diagnostic;
    diagnostic.key_path = std::move(key_path);
    diagnostic.message = std::move(message);
    return diagnostic;
}

namespace {
std::string join_messages(const std::vector<Diagnostic>& diagnostics) {
    std::string text;
    for (const auto& diagnostic : diagnostics) {
        if (!text.empty()) text += "\n";
        text += diagnostic.to_string();
    }
    return text;
}
}  // namespace

InputError::InputError(Diagnostic diagnostic) : InputError(std::vector<Diagnostic>{std::move(diagnostic)}) {}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_messages(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace decodesim::core
