#include "profiles/trace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

constexpr const char* kTraceColumns[] = {"arrival_s", "prompt_tokens", "output_tokens", "prefix_id", "prefix_tokens"};
constexpr std::size_t kRequiredTraceColumns = 3;
constexpr std::size_t kMaxTraceProblems = 20;
constexpr std::int64_t kMaxTokens = 1'000'000'000;

}  // namespace

std::vector<TraceRow> load_trace(const std::string& path) {
    // The shared reader refuses folders, FIFOs, devices and oversized files with one message.
    std::istringstream stream(read_input_file(path, std::size_t{512} << 20, "a trace of 10 million requests is about 300 MiB"));
    std::vector<core::Diagnostic> problems;
    std::vector<TraceRow> rows;
    std::string line;
    int number = 0;
    std::size_t columns = 0;
    while (std::getline(stream, line) && problems.size() < kMaxTraceProblems) {
        ++number;
        // The CSV grammar every table shares (quoted fields, a trailing carriage return).
        bool well_formed = true;
        auto fields = split_csv_record(line, well_formed);
        for (auto& field : fields) {
            const auto first = field.find_first_not_of(' ');
            field = first == std::string::npos ? std::string() : field.substr(first, field.find_last_not_of(' ') - first + 1);
        }
        if (!well_formed) {
            if (number == 1) throw core::InputError(core::Diagnostic{{path, 1, 1}, "", "a quote is left open"});
            problems.push_back({{path, number, 1}, "", "a quote is left open"});
            continue;
        }
        if (number == 1) {
            columns = fields.size();
            bool matches = columns >= kRequiredTraceColumns && columns <= std::size(kTraceColumns);
            for (std::size_t i = 0; matches && i < columns; ++i) matches = fields[i] == kTraceColumns[i];
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
        // Token counts are whole numbers in digits (the grammar of every count decodesim reads: no
        // "1e3", no "100.0"); arrival times are any finite number of seconds.
        const auto refuse = [&](std::size_t index, const std::string& why) {
            problems.push_back({{path, number, static_cast<int>(index) + 1}, kTraceColumns[index], why});
        };
        const auto seconds = [&](std::size_t index) -> double {
            double value = 0.0;
            if (!core::parse_number(fields[index], value) || !std::isfinite(value) || value < 0.0 || value > 1e12) {
                refuse(index, fmt::format("'{}' is not a time in seconds from 0 to 1e12", core::printable(fields[index])));
                return 0.0;
            }
            return value;
        };
        const auto tokens = [&](std::size_t index, std::int64_t minimum) -> long long {
            std::int64_t value = 0;
            if (!core::parse_whole_number(fields[index], value)) {
                refuse(index, fmt::format("'{}' is {}", core::printable(fields[index]), core::why_not_whole_number(fields[index])));
                return minimum;
            }
            if (value < minimum || value > kMaxTokens) {
                refuse(index, fmt::format("'{}' is not a whole number from {} to 1000000000", fields[index], minimum));
                return minimum;
            }
            return static_cast<long long>(value);
        };
        if (rows.size() >= static_cast<std::size_t>(core::kMaxRequests)) {
            throw core::InputError(core::Diagnostic{{path, number, 1}, "",
                                                    fmt::format("the trace holds more than {} requests, the most one serving "
                                                                "run simulates (each keeps a record until its percentiles are taken)",
                                                                core::kMaxRequests)});
        }
        TraceRow row;
        row.arrival_s = seconds(0);
        row.prompt_tokens = tokens(1, 1);
        row.output_tokens = tokens(2, 1);
        if (columns > 3) row.prefix_id = tokens(3, 0);
        if (columns > 4) {
            row.prefix_tokens = tokens(4, 0);
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
