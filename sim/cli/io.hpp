#pragma once
// Where a command writes: results to `out`, everything else (warnings, progress) to `err`.

#include <spdlog/logger.h>

#include <ostream>

namespace decodesim::cli {

// `log` writes to `err`; at info level only with --verbose (what was loaded and assumed).
struct Io {
    std::ostream& out;
    std::ostream& err;
    spdlog::logger* log = nullptr;
};

}  // namespace decodesim::cli
