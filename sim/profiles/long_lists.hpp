#pragma once
// yaml-cpp builds a node for every element it reads, about 3 us each: a config.json carrying a
// list of a million numbers no reader uses (a tokenizer's merges, a vocabulary, a calibration
// table) took seconds to load. No input decodesim reads needs a list of scalars that long, so
// before a document is parsed each such list is replaced by a string that says what stood there,
// with the list's line breaks kept: every other key keeps its line and column, and a reader that
// does look at the key finds a string, not a list, and names it.

#include <string>

namespace decodesim::profiles {

// Lists of more scalars than this are replaced; lists holding objects or lists are kept whole.
inline constexpr std::size_t kMaxScalarListEntries = 65536;

// `text` with every JSON or YAML flow list ([...]) of more than kMaxScalarListEntries scalars
// replaced by "<a list of N entries, not read>" and the list's newlines; unchanged when there is
// none. Linear in the text; strings (with their escapes) are skipped whole.
std::string elide_long_scalar_lists(const std::string& text);

}  // namespace decodesim::profiles
