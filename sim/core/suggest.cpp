#include "core/suggest.hpp"

#include <algorithm>
#include <numeric>

namespace decodesim::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
    std::iota(previous.begin(), previous.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
    const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = allowed + 1;
    for (const auto& candidate : candidates) {
        // The distance is at least the difference in length: a candidate that cannot beat the best
        // is not measured (a 10 MB id against 100 short ones would take seconds).
        const std::size_t longer = std::max(word.size(), candidate.size());
        const std::size_t shorter = std::min(word.size(), candidate.size());
        if (longer - shorter >= best_distance) continue;
        const std::size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    const auto match = closest_match(word, candidates);
    return match ? "; did you mean '" + *match + "'?" : std::string{};
}

std::string suggestion_note(std::string_view word, const std::vector<std::string>& candidates) {
    const auto match = closest_match(word, candidates);
    return match ? " (did you mean '" + *match + "'?)" : std::string{};
}

}  // namespace decodesim::core
