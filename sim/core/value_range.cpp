#include <algorithm>
#include "core/value_range.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/error.hpp"
#include "core/units.hpp"

namespace decodesim::core {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return parts;
}

long long parse_whole(std::string_view text, std::string_view flag, std::string_view whole_item) {
    std::int64_t value = 0;
    if (!parse_whole_number(text, value)) {
        throw UsageError(fmt::format("{}: '{}' in '{}' is {}", flag, text, whole_item, why_not_whole_number(text)));
    }
    return value;
}

}  // namespace

std::vector<long long> parse_integer_list(std::string_view text, std::string_view flag, long long minimum,
                                          std::size_t limit, long long maximum) {
    std::vector<long long> values;
    auto add = [&](long long value, std::string_view item) {
        if (value < minimum) {
            throw UsageError(fmt::format("{}: {} in '{}' is below the minimum of {}", flag, value, item, minimum));
        }
        if (value > maximum) {
            throw UsageError(fmt::format("{}: {} in '{}' is above the maximum of {}", flag, value, item, maximum));
        }
        if (values.size() >= limit) {
            throw UsageError(fmt::format("{}: '{}' has more than {} values", flag, text, limit));
        }
        values.push_back(value);
    };
    for (std::string_view item : split(text, ',')) {
        if (item.empty()) throw UsageError(fmt::format("{}: empty item in '{}'", flag, text));
        const auto fields = split(item, ':');
        if (fields.size() == 1) {
            add(parse_whole(item, flag, item), item);
            continue;
        }
        if (fields.size() != 3) {
            throw UsageError(fmt::format("{}: '{}' is not a range start:stop:step (e.g. 1:256:x2 or 1:131072:+4096)",
                                         flag, item));
        }
        const long long start = parse_whole(fields[0], flag, item);
        const long long stop = parse_whole(fields[1], flag, item);
        std::string_view step_text = fields[2];
        const bool multiply = !step_text.empty() && step_text.front() == 'x';
        if (!step_text.empty() && (step_text.front() == 'x' || step_text.front() == '+')) step_text.remove_prefix(1);
        const long long step = parse_whole(step_text, flag, item);
        if (stop < start) throw UsageError(fmt::format("{}: range '{}' is empty (stop below start)", flag, item));
        if (multiply ? step < 2 : step < 1) {
            throw UsageError(fmt::format("{}: range '{}' needs a step of {} ", flag, item,
                                         multiply ? "at least x2" : "at least +1"));
        }
        if (multiply && start < 1) {
            throw UsageError(fmt::format("{}: multiplicative range '{}' must start at 1 or more", flag, item));
        }
        for (long long value = start; value <= stop;) {
            add(value, item);
            if (multiply ? value > stop / step : value > stop - step) break;  // the next step would pass stop
            value = multiply ? value * step : value + step;
        }
    }
    return values;
}

std::vector<std::string> parse_name_list(std::string_view text, std::string_view flag) {
    std::vector<std::string> names;
    for (std::string_view item : split(text, ',')) {
        if (item.empty()) throw UsageError(fmt::format("{}: empty item in '{}'", flag, text));
        // A name given twice adds nothing; it is refused like any flag that has no effect.
        if (std::find(names.begin(), names.end(), item) != names.end()) {
            throw UsageError(fmt::format("{}: '{}' is listed twice in '{}'", flag, item, text));
        }
        names.emplace_back(item);
    }
    return names;
}

}  // namespace decodesim::core
