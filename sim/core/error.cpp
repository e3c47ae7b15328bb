#include "core/error.hpp"

#include <fmt/format.h>

#include "core/text_escape.hpp"

namespace decodesim::core {

Diagnostic::Diagnostic(SourceLocation where, std::string key, std::string what)
    : location(std::move(where)), key_path(std::move(key)), message(std::move(what)) {}

std::string Diagnostic::to_string() const {
    // One line whatever the names hold: a file name with a newline or a terminal escape is shown escaped.
    const std::string file = printable(location.file);
    std::string where;
    if (!file.empty()) {
        if (location.line > 0 && location.column > 0) {
            where = fmt::format("{}:{}:{}: ", file, location.line, location.column);
        } else if (location.line > 0) {
            where = fmt::format("{}:{}: ", file, location.line);
        } else {
            where = fmt::format("{}: ", file);
        }
    }
    return fmt::format("{}error: {}{}", where, key_path.empty() ? "" : printable(key_path) + ": ", printable(message));
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

void refuse_file(const std::string& path, const std::string& key, std::string message) {
    throw InputError(Diagnostic{{path, 0, 0}, key, std::move(message)});
}

}  // namespace decodesim::core
