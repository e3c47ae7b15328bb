#pragma once
// "did you mean" for misspelt keys, ids and format names.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decodesim::core {

// Levenshtein distance, case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate when it is close enough to be a plausible typo
// (distance at most a third of the word's length, at least 1); otherwise nothing.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — for messages that go on after the word.
std::string suggestion_note(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace decodesim::core
