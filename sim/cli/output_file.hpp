#pragma once
// Writes a result file whole or not at all: a temporary file in the same folder, renamed into
// place, so an interrupted run never leaves a truncated file or clobbers a good one.

#include <string>

namespace decodesim::cli {

// Throws core::InputError naming the path when the folder is not writable.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace decodesim::cli
