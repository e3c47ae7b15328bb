#pragma once
// Where a command writes: results to `out`, everything else (warnings, progress) to `err`.

#include <spdlog/logger.h>

#include <functional>
#include <ostream>
#include <set>
#include <string>

namespace decodesim::explore {
struct SweepPoint;
}

namespace decodesim::cli {

// `log` writes to `err`; at info level only with --verbose (what was loaded and assumed).
// `warned` holds the warnings already given in this run, so a warning reached by several paths
// (a resolver and a prediction, or every point of a sweep) is printed once; run_cli owns it.
struct Io {
    std::ostream& out;
    std::ostream& err;
    spdlog::logger* log = nullptr;
    std::set<std::string>* warned = nullptr;
    // When set, `sweep` hands each point here instead of writing text (the Python module's
    // arrays are filled this way, with the command line's parsing, checks and messages).
    const std::function<void(const explore::SweepPoint&)>* sweep_points = nullptr;
    // When set, a long command's progress goes here instead of a bar on `err`: what is counted
    // ("devices searched", "requests"), how many are done and of how many. The browser explorer
    // runs the CLI in a worker and shows this on its page.
    const std::function<void(const std::string& what, double done, double total)>* progress = nullptr;
};

}  // namespace decodesim::cli
