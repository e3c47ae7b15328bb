#pragma once
// Where a command writes: results to `out`, everything else (warnings, progress) to `err`.

#include <ostream>

namespace decodesim::cli {

struct Io {
    std::ostream& out;
    std::ostream& err;
};

}  // namespace decodesim::cli
