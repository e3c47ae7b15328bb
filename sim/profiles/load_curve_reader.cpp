#include "profiles/load_curve_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

constexpr const char* kLoadCurveColumns[] = {"hour", "rate_per_s"};
constexpr std::size_t kMaxLoadCurveProblems = 20;
// A minute's resolution over a day is more than any autoscaler acts on.
constexpr std::size_t kMaxLoadSteps = 24 * 60;
constexpr double kMaxLoadRate = 1e9;

}  // namespace

std::vector<LoadStep> load_load_curve(const std::string& path) {
    std::istringstream stream(read_input_file(path, std::size_t{1} << 20, "a day's load curve is a few hundred rows"));
    std::vector<core::Diagnostic> problems;
    std::vector<LoadStep> steps;
    int hour_column = -1;
    int rate_column = -1;
    std::size_t columns = 0;
    std::string line;
    int number = 0;
    while (std::getline(stream, line) && problems.size() < kMaxLoadCurveProblems) {
        ++number;
        bool well_formed = true;
        const auto fields = split_trimmed_csv_record(line, well_formed);
        if (!well_formed) {
            problems.push_back({{path, number, 1}, "", "a quote is left open"});
            continue;
        }
        if (number == 1) {
            const std::vector<int> column_of = header_columns(
                fields, {std::begin(kLoadCurveColumns), std::end(kLoadCurveColumns)}, {0, 1}, path, "hour,rate_per_s");
            hour_column = static_cast<int>(std::find(column_of.begin(), column_of.end(), 0) - column_of.begin());
            rate_column = static_cast<int>(std::find(column_of.begin(), column_of.end(), 1) - column_of.begin());
            columns = fields.size();
            continue;
        }
        if (line.find_first_not_of(" \r") == std::string::npos) continue;
        if (fields.size() != columns) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", columns, fields.size())});
            continue;
        }
        if (steps.size() == kMaxLoadSteps) {
            problems.push_back({{path, number, 1}, "", fmt::format("more than {} rows: a day at one a minute", kMaxLoadSteps)});
            break;
        }
        LoadStep step;
        const std::string& hour = fields[static_cast<std::size_t>(hour_column)];
        const std::string& rate = fields[static_cast<std::size_t>(rate_column)];
        if (!core::parse_number(hour, step.start_hour) || step.start_hour < 0.0 || step.start_hour >= 24.0) {
            problems.push_back({{path, number, hour_column + 1}, "hour",
                                fmt::format("'{}' is not an hour from 0 to under 24", core::printable(hour))});
            continue;
        }
        if (!core::parse_number(rate, step.rate_per_s) || step.rate_per_s < 0.0 || step.rate_per_s > kMaxLoadRate) {
            problems.push_back({{path, number, rate_column + 1}, "rate_per_s",
                                fmt::format("'{}' is not a rate from 0 to {:g} requests/s", core::printable(rate), kMaxLoadRate)});
            continue;
        }
        if (steps.empty() && step.start_hour != 0.0) {
            problems.push_back({{path, number, hour_column + 1}, "hour", "the first row starts the day: hour 0"});
        } else if (!steps.empty() && step.start_hour <= steps.back().start_hour) {
            problems.push_back({{path, number, hour_column + 1}, "hour",
                                fmt::format("hour {:g} does not follow hour {:g}: rows go in order of hour", step.start_hour,
                                            steps.back().start_hour)});
        }
        steps.push_back(step);
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    if (std::none_of(steps.begin(), steps.end(), [](const LoadStep& step) { return step.rate_per_s > 0.0; })) {
        throw core::InputError(core::Diagnostic{{path, 0, 0}, "rate_per_s", "no row has a rate above zero: nothing to plan"});
    }
    return steps;
}

}  // namespace decodesim::profiles
