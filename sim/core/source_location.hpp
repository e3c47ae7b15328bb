#pragma once
// Where a value came from in an input file, so an error can point at it.

#include <string>

namespace decodesim::core {

struct SourceLocation {
    std::string file;  // path as the user gave it; empty for command-line values
    int line = 0;      // 1-based; 0 when unknown
    int column = 0;    // 1-based; 0 when unknown
};

}  // namespace decodesim::core
