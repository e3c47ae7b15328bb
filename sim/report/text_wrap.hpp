#pragma once
// Human-readable text within a terminal's width: every command's text output passes through
// wrap_text, so a long verdict or note never runs past the 100 columns that tables keep to.

#include <cstddef>
#include <string>

#include "report/text_table.hpp"

namespace decodesim::report {

// Lines longer than `width` are broken at their last space that fits; the continuation lines are
// indented two spaces past the line's own indent. A word longer than the width stays whole.
std::string wrap_text(const std::string& text, std::size_t width = TextTable::kMaxWidth);

}  // namespace decodesim::report
