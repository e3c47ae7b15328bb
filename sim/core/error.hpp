#pragma once
// Errors carry their location and key path; the CLI turns them into one-line messages.

#include <stdexcept>
#include <string>
#include <vector>

#include "core/source_location.hpp"

namespace decodesim::core {

// One problem in an input: "file:line:col: error: key: message".
struct Diagnostic {
    Diagnostic() = default;
    // Out of line: GCC 12 warns falsely about inlined std::string moves in brace-initialized temporaries.
    Diagnostic(SourceLocation where, std::string key, std::string what);

    SourceLocation location;
    std::string key_path;  // e.g. "memory.bandwidth"; may be empty
    std::string message;   // what was wrong and what was expected

    std::string to_string() const;
};

// A problem with no position in a file (a command-line value, an unknown id).
Diagnostic unlocated(std::string key_path, std::string message);

// Bad input from a file or a value (exit code 1 at the CLI). Holds every problem found.
class InputError;

// Throws an InputError about the whole file at `path` (no line: a binary header, a folder), naming
// `key` (a header entry or field; empty when none).
[[noreturn]] void refuse_file(const std::string& path, const std::string& key, std::string message);

class InputError : public std::runtime_error {
public:
    explicit InputError(Diagnostic diagnostic);
    explicit InputError(std::vector<Diagnostic> diagnostics);

    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

private:
    std::vector<Diagnostic> diagnostics_;
};

// Valid input from which nothing could be computed: every deployment of a sweep skipped, no device
// in a comparison able to run the model, no usable row in a measurement file (exit code 6 at the
// CLI). The message says why; the per-case reasons have been printed as warnings before it.
class NothingComputed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad command line (exit code 2 at the CLI).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace decodesim::core
