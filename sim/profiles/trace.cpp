#include "profiles/trace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/units.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {

namespace {

constexpr const char* kColumns[] = {"arrival_s", "prompt_tokens", "output_tokens", "prefix_id", "prefix_tokens"};
constexpr std::size_t kRequiredColumns = 3;
constexpr std::size_t kMaxProblems = 20;
constexpr double kMaxTokens = 1e9;

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream stream(line);
    while (std::getline(stream, field, ',')) {
        while (!field.empty() && (field.back() == '\r' || field.back() == ' ')) field.pop_back();
        while (!field.empty() && field.front() == ' ') field.erase(field.begin());
        fields.push_back(field);
    }
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
}

}  // namespace

std::vector<TraceRow> load_trace(const std::string& path) {
    // The shared reader refuses folders, FIFOs, devices and oversized files with one message.
    std::istringstream stream(read_input_file(path, std::size_t{512} << 20, "a trace of 10 million requests is about 300 MiB"));
    std::vector<core::Diagnostic> problems;
    std::vector<TraceRow> rows;
    std::string line;
    int number = 0;
    std::size_t columns = 0;
    while (std::getline(stream, line) && problems.size() < kMaxProblems) {
        ++number;
        const auto fields = split(line);
        if (number == 1) {
            columns = fields.size();
            bool matches = columns >= kRequiredColumns && columns <= std::size(kColumns);
            for (std::size_t i = 0; matches && i < columns; ++i) matches = fields[i] == kColumns[i];
            if (!matches) {
                throw core::InputError(core::Diagnostic{
                    {path, 1, 1}, "", "expected the header arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]]"});
            }
            continue;
        }
        if (line.find_first_not_of(" \r") == std::string::npos) continue;
        if (fields.size() != columns) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", columns, fields.size())});
            continue;
        }
        auto field = [&](std::size_t index, bool whole, double minimum) -> double {
            double value = 0.0;
            if (!core::parse_number(fields[index], value) || !std::isfinite(value) || value < minimum ||
                value > (whole ? kMaxTokens : 1e12) || (whole && value != std::floor(value))) {
                problems.push_back({{path, number, static_cast<int>(index) + 1}, kColumns[index],
                                    fmt::format("'{}' is not {}", fields[index],
                                                whole ? fmt::format("a whole number from {:.0f} to 1e9", minimum)
                                                      : "a time in seconds from 0 to 1e12")});
                return minimum;
            }
            return value;
        };
        TraceRow row;
        row.arrival_s = field(0, false, 0.0);
        row.prompt_tokens = static_cast<long long>(field(1, true, 1.0));
        row.output_tokens = static_cast<long long>(field(2, true, 1.0));
        if (columns > 3) row.prefix_id = static_cast<long long>(field(3, true, 0.0));
        if (columns > 4) {
            row.prefix_tokens = static_cast<long long>(field(4, true, 0.0));
            if (row.prefix_tokens > row.prompt_tokens) {
                problems.push_back({{path, number, 5}, "prefix_tokens", "is longer than the prompt"});
            }
        }
        rows.push_back(row);
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    if (rows.empty()) throw core::InputError(core::Diagnostic{{path, 0, 0}, "", "the trace holds no requests"});
    return rows;
}

}  // namespace decodesim::profiles
