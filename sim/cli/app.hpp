#pragma once
// The command line: subcommands as data, and the one place where exceptions become messages
// and exit codes (docs/cli.md).

#include <string>
#include <vector>

#include "cli/io.hpp"

namespace decodesim::cli {

enum ExitCode : int {
    kSuccess = 0,
    kBadInput = 1,
    kBadCommandLine = 2,
    kInternalError = 3,
    // 4 and 5 belong to check-claim (docs/cli.md).
    kNothingComputed = 6,
};

// Runs `decodesim <args...>` (args excludes the program name). Never throws.
int run_cli(const std::vector<std::string>& args, Io io);

}  // namespace decodesim::cli
