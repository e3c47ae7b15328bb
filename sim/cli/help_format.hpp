#pragma once
// --help within the 100 columns every text output keeps to. CLI11 prints each option's
// description on one line, up to 261 columns here; this formatter wraps it inside its column
// (CLI11 indents each line it is given to the column), and a command's description across the
// whole width.

#include <CLI/CLI.hpp>
#include <memory>

namespace decodesim::cli {

std::shared_ptr<CLI::Formatter> wrapping_help_formatter();

}  // namespace decodesim::cli
