#pragma once
// The command line run in-process, for the tests that check a command's output and exit code.

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"

namespace decodesim::testing {

struct CliResult {
    int exit_code;
    std::string out;
    std::string err;
};

inline CliResult run(std::vector<std::string> args) {
    std::ostringstream out, err;
    args.insert(args.begin(), {"--profiles-dir", DECODESIM_ROOT});
    const int code = cli::run_cli(args, {out, err});
    return {code, out.str(), err.str()};
}

}  // namespace decodesim::testing
