#pragma once
// Lists and ranges on the command line: "a,b,c", "1:256:x2" (multiply), "1:131072:+4096" (add).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace decodesim::core {

// Parses a comma-separated list whose items are numbers or ranges start:stop:step, where step is
// "xK" (multiply by K > 1) or "+K" / "K" (add K > 0); stop is included when reached. Throws
// UsageError naming `flag` for malformed text, non-integers, values below `minimum` or above
// `maximum` (the same caps the single-valued flag has in other commands), and lists longer than `limit`.
std::vector<long long> parse_integer_list(std::string_view text, std::string_view flag, long long minimum,
                                          std::size_t limit, long long maximum = std::int64_t{1} << 53);

// Splits "a,b,c" into its items; empty items are an error.
std::vector<std::string> parse_name_list(std::string_view text, std::string_view flag);

}  // namespace decodesim::core
