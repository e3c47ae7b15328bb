#pragma once
// The process's standard streams, set up once in main (the CLI's edge) so that writing results
// follows one rule (docs/robustness.md, "Standard output"):
//  - a failed write to standard output (a full disk, a descriptor closed before start) is an error
//    with a message and a non-zero exit, even when the command itself succeeded;
//  - a reader that went away (`decodesim sweep ... | head`) is not: the rest of the output is
//    dropped quietly and the command's own exit code stands;
//  - descriptors 0-2 closed at start are reserved (on /dev/null) so that no file decodesim opens
//    can land on them and receive the results by mistake.

#include <ostream>

#include "cli/descriptor_stream.hpp"

namespace decodesim::cli {

class StandardOutput {
public:
    StandardOutput();  // reserves closed descriptors and ignores SIGPIPE (EPIPE is handled in finish)
    std::ostream& out() { return out_; }

    // Flushes the results; returns `exit_code`, or 1 with a message on `err` when writing failed.
    int finish(int exit_code, std::ostream& err);

private:
    DescriptorBuffer buffer_;
    std::ostream out_;
};

}  // namespace decodesim::cli
