#include "profiles/trace.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

constexpr const char* kTraceColumns[] = {"arrival_s", "prompt_tokens", "output_tokens", "prefix_id", "prefix_tokens"};
constexpr std::size_t kRequiredTraceColumns = 3;
// The Azure LLM inference traces (Azure/AzurePublicDataset, AzureLLMInferenceTrace_{code,conv}.csv
// of 2023 and AzureLLMInferenceTrace_{code,conv}_1week.csv of 2024) and BurstGPT
// (HPMLL/BurstGPT, BurstGPT_*.csv), by their header lines.
constexpr const char* kAzureColumns[] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
constexpr const char* kBurstColumns[] = {"Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type"};
constexpr std::size_t kMaxTraceProblems = 20;
constexpr std::int64_t kMaxTokens = 1'000'000'000;
// Hash ids are JSON numbers: whole numbers a double holds exactly.
constexpr std::int64_t kMaxBlockId = std::int64_t{1} << 53;

enum class Layout { decodesim, azure, burst, mooncake };

template <std::size_t N>
bool header_is(const std::vector<std::string>& fields, const char* const (&columns)[N]) {
    if (fields.size() != N) return false;
    for (std::size_t i = 0; i < N; ++i) {
        if (fields[i] != columns[i]) return false;
    }
    return true;
}

// Days from 1970-01-01 to a civil date (the proleptic Gregorian calendar; H. Hinnant's
// days_from_civil algorithm, "chrono-Compatible Low-Level Date Algorithms").
long long days_from_civil(long long year, unsigned month, unsigned day) {
    year -= month <= 2 ? 1 : 0;
    const long long era = (year >= 0 ? year : year - 399) / 400;
    const auto year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<long long>(day_of_era) - 719468;
}

// The days of a month of the Gregorian calendar: a date past them (2023-02-30) is no date, not a
// day of the next month.
int days_in_month(int year, int month) {
    constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
}

// "2023-11-16 18:15:46.6805900" (Azure's TIMESTAMP) as seconds since 1970; false when it is not one,
// or names a time before 1970 (arrivals are never negative: no service logged LLM requests then).
bool parse_timestamp(std::string_view text, double& seconds) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0;
    double second = 0.0;
    if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') || text[13] != ':' ||
        text[16] != ':') {
        return false;
    }
    const auto digits = [&](std::size_t from, std::size_t count, int& value) {
        value = 0;
        for (std::size_t i = from; i < from + count; ++i) {
            if (text[i] < '0' || text[i] > '9') return false;
            value = value * 10 + (text[i] - '0');
        }
        return true;
    };
    if (!digits(0, 4, year) || !digits(5, 2, month) || !digits(8, 2, day) || !digits(11, 2, hour) ||
        !digits(14, 2, minute) || !core::parse_number(text.substr(17), second)) {
        return false;
    }
    if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
        minute > 59 || second < 0.0 || second >= 61.0) {
        return false;
    }
    seconds = static_cast<double>(days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))) * 86400.0 +
              hour * 3600.0 + minute * 60.0 + second;
    return true;
}

// Collects the problems of a trace, each at its line, column and key.
class Problems {
public:
    explicit Problems(const std::string& path) : path_(path) {}

    void add(int line, int column, const std::string& key, std::string message) {
        problems_.push_back({{path_, line, column}, key, std::move(message)});
    }
    bool full() const { return problems_.size() >= kMaxTraceProblems; }
    bool empty() const { return problems_.empty(); }
    std::vector<core::Diagnostic> take() { return std::move(problems_); }

    // A token count in digits from `minimum` to 10^9.
    long long tokens(const std::string& text, long long minimum, int line, int column, const char* key) {
        std::int64_t value = 0;
        if (!core::parse_whole_number(text, value)) {
            add(line, column, key, fmt::format("'{}' is {}", core::printable(text), core::why_not_whole_number(text)));
            return minimum;
        }
        if (value < minimum || value > kMaxTokens) {
            add(line, column, key, fmt::format("'{}' is not a whole number from {} to 1000000000", text, minimum));
            return minimum;
        }
        return static_cast<long long>(value);
    }

    // Seconds, any finite number from 0 to 10^12.
    double seconds(const std::string& text, int line, int column, const char* key) {
        double value = 0.0;
        if (!core::parse_number(text, value) || !std::isfinite(value) || value < 0.0 || value > 1e12) {
            add(line, column, key, fmt::format("'{}' is not a time in seconds from 0 to 1e12", core::printable(text)));
            return 0.0;
        }
        return value;
    }

private:
    const std::string& path_;
    std::vector<core::Diagnostic> problems_;
};

void refuse_too_many(const std::string& path, int line, std::size_t rows) {
    if (rows < static_cast<std::size_t>(core::kMaxRequests)) return;
    throw core::InputError(core::Diagnostic{{path, line, 1}, "",
                                            fmt::format("the trace holds more than {} requests, the most one serving "
                                                        "run simulates (each keeps a record until its percentiles are taken)",
                                                        core::kMaxRequests)});
}

// A JSON number that is a whole number a signed 64-bit integer holds.
bool as_whole(const nlohmann::json& value, std::int64_t& out) {
    if (value.is_number_unsigned()) {
        const auto unsigned_value = value.get<std::uint64_t>();
        if (unsigned_value > static_cast<std::uint64_t>(INT64_MAX)) return false;
        out = static_cast<std::int64_t>(unsigned_value);
        return true;
    }
    if (!value.is_number_integer()) return false;
    out = value.get<std::int64_t>();
    return true;
}

// A JSON value as an error message quotes it: cut short, so a line of a million ids (or a value
// nested as deep as kMaxMooncakeDepth allows) gives a one-line message, not the whole line.
std::string quoted(const nlohmann::json& value) {
    constexpr std::size_t kQuotedChars = 40;
    std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() > kQuotedChars) {
        std::size_t cut = kQuotedChars;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        text = text.substr(0, cut) + "...";
    }
    return core::printable(text);
}

// A line refused while it is parsed: at its top-level key (empty before the first), with why.
struct LineRefusal {
    std::string key;
    std::string message;
};

// One Mooncake line as a JSON value. nlohmann's parser keeps its own stack, but printing a value
// recurses, so a line nested past kMaxMooncakeDepth is refused while it is parsed, before anything
// could print it; a key given twice is refused too (nlohmann would keep the last one silently).
nlohmann::json parse_mooncake_line(const std::string& line) {
    // An object holding a list of ids nests two levels; sixteen leave room and bound the recursion.
    constexpr int kMaxMooncakeDepth = 16;
    using Event = nlohmann::json::parse_event_t;
    std::string key;
    std::set<std::string> keys;
    const auto check = [&](int depth, Event event, nlohmann::json& parsed) {
        if (event == Event::key && depth == 1) {
            key = parsed.get<std::string>();
            if (!keys.insert(key).second) throw LineRefusal{key, "duplicate key; each key may appear once"};
        }
        if ((event == Event::object_start || event == Event::array_start) && depth >= kMaxMooncakeDepth) {
            throw LineRefusal{key, fmt::format("nested deeper than {} levels (a Mooncake line nests two: an object "
                                               "holding a list of block ids)",
                                               kMaxMooncakeDepth)};
        }
        return true;
    };
    return nlohmann::json::parse(line, check, false);
}

// Mooncake's JSONL: one request a line.
void read_mooncake(std::istringstream& stream, const std::string& path, Trace& trace, Problems& problems) {
    std::string line;
    int number = 0;
    while (std::getline(stream, line) && !problems.full()) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        refuse_too_many(path, number, trace.rows.size());
        nlohmann::json object;
        try {
            object = parse_mooncake_line(line);
        } catch (const LineRefusal& refusal) {
            problems.add(number, 1, refusal.key, refusal.message);
            continue;
        }
        if (object.is_discarded() || !object.is_object()) {
            problems.add(number, 1, "", "not a JSON object (Mooncake traces hold one request object a line)");
            continue;
        }
        // A whole number in a JSON field, from `minimum` to `maximum`; the message names the key.
        const auto whole = [&](const char* key, std::int64_t minimum, std::int64_t maximum) -> std::int64_t {
            const auto found = object.find(key);
            if (found == object.end()) {
                problems.add(number, 1, key, "missing");
                return minimum;
            }
            std::int64_t value = 0;
            if (!as_whole(*found, value) || value < minimum || value > maximum) {
                problems.add(number, 1, key,
                             fmt::format("{} is not a whole number from {} to {}", quoted(*found), minimum, maximum));
                return minimum;
            }
            return value;
        };
        TraceRow row;
        // Mooncake's timestamps are milliseconds from the trace's start.
        row.arrival_s = static_cast<double>(whole("timestamp", 0, std::int64_t{1} << 50)) / 1000.0;
        row.prompt_tokens = whole("input_length", 1, kMaxTokens);
        row.output_tokens = whole("output_length", 1, kMaxTokens);
        row.block_tokens = kMooncakeBlockTokens;
        const auto ids = object.find("hash_ids");
        if (ids == object.end() || !ids->is_array()) {
            problems.add(number, 1, "hash_ids", ids == object.end() ? "missing" : "not an array of block ids");
            continue;
        }
        const std::size_t blocks =
            static_cast<std::size_t>((row.prompt_tokens + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens);
        if (ids->size() > blocks) {
            problems.add(number, 1, "hash_ids",
                         fmt::format("{} block ids for an input of {} tokens, which fills {} blocks of {}", ids->size(),
                                     row.prompt_tokens, blocks, kMooncakeBlockTokens));
            continue;
        }
        for (const auto& id : *ids) {
            std::int64_t value = 0;
            if (!as_whole(id, value) || value < 0 || value > kMaxBlockId) {
                problems.add(number, 1, "hash_ids",
                             fmt::format("{} is not a block id (a whole number from 0 to 2^53)", quoted(id)));
                break;
            }
            row.block_ids.push_back(value);
        }
        trace.rows.push_back(std::move(row));
    }
}

void read_csv(std::istringstream& stream, const std::string& path, Trace& trace, Problems& problems) {
    std::string line;
    int number = 0;
    std::size_t columns = 0;
    Layout layout = Layout::decodesim;
    while (std::getline(stream, line) && !problems.full()) {
        ++number;
        // The CSV grammar every table shares (quoted fields, a trailing carriage return).
        bool well_formed = true;
        const auto fields = split_trimmed_csv_record(line, well_formed);
        if (!well_formed) {
            if (number == 1) throw core::InputError(core::Diagnostic{{path, 1, 1}, "", "a quote is left open"});
            problems.add(number, 1, "", "a quote is left open");
            continue;
        }
        if (number == 1) {
            columns = fields.size();
            if (header_is(fields, kAzureColumns)) {
                layout = Layout::azure;
                trace.layout = "Azure";
                continue;
            }
            if (header_is(fields, kBurstColumns)) {
                layout = Layout::burst;
                trace.layout = "BurstGPT";
                continue;
            }
            bool matches = columns >= kRequiredTraceColumns && columns <= std::size(kTraceColumns);
            for (std::size_t i = 0; matches && i < columns; ++i) matches = fields[i] == kTraceColumns[i];
            if (!matches) {
                throw core::InputError(core::Diagnostic{
                    {path, 1, 1}, "",
                    "expected the header arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]], an Azure LLM "
                    "inference trace's TIMESTAMP,ContextTokens,GeneratedTokens, BurstGPT's Timestamp,Model,Request "
                    "tokens,Response tokens,Total tokens,Log Type, or Mooncake JSONL (one object a line)"});
            }
            trace.layout = "decodesim";
            continue;
        }
        if (line.find_first_not_of(" \r") == std::string::npos) continue;
        if (fields.size() != columns) {
            problems.add(number, 1, "", fmt::format("expected {} fields, found {}", columns, fields.size()));
            continue;
        }
        refuse_too_many(path, number, trace.rows.size());
        TraceRow row;
        if (layout == Layout::azure || layout == Layout::burst) {
            const bool azure = layout == Layout::azure;
            const std::size_t prompt_column = azure ? 1 : 2, output_column = azure ? 2 : 3;
            const char* prompt_key = azure ? "ContextTokens" : "Request tokens";
            const char* output_key = azure ? "GeneratedTokens" : "Response tokens";
            if (azure) {
                if (!parse_timestamp(fields[0], row.arrival_s)) {
                    problems.add(number, 1, "TIMESTAMP",
                                 fmt::format("'{}' is not a date and time YYYY-MM-DD HH:MM:SS[.fraction] from 1970 on",
                                             core::printable(fields[0])));
                }
            } else {
                row.arrival_s = problems.seconds(fields[0], number, 1, "Timestamp");
            }
            row.prompt_tokens = problems.tokens(fields[prompt_column], 0, number, static_cast<int>(prompt_column) + 1, prompt_key);
            row.output_tokens = problems.tokens(fields[output_column], 0, number, static_cast<int>(output_column) + 1, output_key);
            // A request the traced service failed (no response, or no prompt) served nothing.
            if (row.prompt_tokens == 0 || row.output_tokens == 0) {
                ++trace.failed_rows;
                continue;
            }
        } else {
            // Token counts are whole numbers in digits (the grammar of every count decodesim reads:
            // no "1e3", no "100.0"); arrival times are any finite number of seconds.
            row.arrival_s = problems.seconds(fields[0], number, 1, kTraceColumns[0]);
            row.prompt_tokens = problems.tokens(fields[1], 1, number, 2, kTraceColumns[1]);
            row.output_tokens = problems.tokens(fields[2], 1, number, 3, kTraceColumns[2]);
            if (columns > 3) row.prefix_id = problems.tokens(fields[3], 0, number, 4, kTraceColumns[3]);
            if (columns > 4) {
                row.prefix_tokens = problems.tokens(fields[4], 0, number, 5, kTraceColumns[4]);
                if (row.prefix_tokens > row.prompt_tokens) problems.add(number, 5, "prefix_tokens", "is longer than the prompt");
            }
        }
        trace.rows.push_back(row);
    }
}

}  // namespace

Trace load_trace(const std::string& path) {
    // The shared reader refuses folders, FIFOs, devices and oversized files with one message.
    const std::string text = read_input_file(path, std::size_t{1} << 30, "a trace of 10 million requests is under 1 GiB");
    std::istringstream stream(text);
    Problems problems(path);
    Trace trace;
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        trace.layout = "Mooncake";
        read_mooncake(stream, path, trace, problems);
    } else {
        read_csv(stream, path, trace, problems);
    }
    if (!problems.empty()) throw core::InputError(problems.take());
    if (trace.rows.empty()) {
        throw core::InputError(core::Diagnostic{
            {path, 0, 0}, "",
            trace.failed_rows > 0 ? fmt::format("the trace holds no served request ({} failed ones)", trace.failed_rows)
                                  : std::string("the trace holds no requests")});
    }
    return trace;
}

}  // namespace decodesim::profiles
