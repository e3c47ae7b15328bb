#include "profiles/measurements.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/suggest.hpp"
#include "profiles/csv_record.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

const std::vector<std::string> kColumns{"id",     "hardware", "model",   "weights", "kv",     "engine",
                                        "runtime", "batch",   "prompt",  "output",  "context", "metric",
                                        "value",  "source",   "conditions", "notes"};
constexpr int kConditionsColumn = 15;  // 1-based, for messages

// The keys of the `conditions` column, in the order docs/validation.md lists them.
const std::vector<std::string> kConditionKeys{"devices", "ep",     "dp-attention", "clocks",   "backend",
                                              "split",   "speculative", "arrivals", "timed",  "graphs",
                                              "attention", "qps",  "requests",     "latency", "lengths", "gpu-cores",
                                              "client"};

bool runtime_id_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_' || c == '@';
}

// The `conditions` field split into its pairs, each key once; a problem for each malformed pair,
// unknown key or repeated key. The values are checked by the caller.
std::map<std::string, std::string> condition_pairs(const std::string& field, std::vector<std::string>& problems) {
    std::map<std::string, std::string> pairs;
    if (field.empty()) return pairs;
    constexpr std::string_view kSeparator = "; ";
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = field.find(kSeparator, begin);
        const std::string pair = field.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        const std::size_t equals = pair.find('=');
        const bool well_formed =
            equals != std::string::npos && equals > 0 && equals + 1 < pair.size() &&
            pair.find('=', equals + 1) == std::string::npos &&
            std::none_of(pair.begin(), pair.end(), [](unsigned char c) { return std::isspace(c) != 0 || c == ';'; });
        if (!well_formed) {
            problems.push_back(fmt::format("'{}' is not a key=value pair; pairs are separated by '; ' (devices=8; ep=2)", pair));
        } else {
            const std::string key = pair.substr(0, equals);
            if (std::find(kConditionKeys.begin(), kConditionKeys.end(), key) == kConditionKeys.end()) {
                problems.push_back(fmt::format("unknown key '{}'{}; expected one of {}", key,
                                               core::suggestion_note(key, kConditionKeys), fmt::join(kConditionKeys, " ")));
            } else if (!pairs.emplace(key, pair.substr(equals + 1)).second) {
                problems.push_back(fmt::format("'{}' is stated twice", key));
            }
        }
        if (end == std::string::npos) break;
        begin = end + kSeparator.size();
    }
    return pairs;
}

// A whole number from `least` up; nullopt for anything else (signs, decimals, exponents).
std::optional<long long> whole_number(const std::string& text, long long least, long long most) {
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
        return std::nullopt;
    }
    std::int64_t value = 0;
    if (!core::parse_whole_number(text, value) || value < least || value > most) return std::nullopt;
    return value;
}

// The conditions of one row, read into `row` (whose metric is set); a problem for each bad value.
void read_conditions(const std::string& field, Measurement& row, std::vector<std::string>& problems) {
    const auto pairs = condition_pairs(field, problems);
    const auto value_of = [&](const std::string& key) -> const std::string* {
        const auto found = pairs.find(key);
        return found == pairs.end() ? nullptr : &found->second;
    };
    // A key with two values: true for `on`, false for `off`; nullopt when unstated or bad.
    const auto choice = [&](const std::string& key, std::string_view on, std::string_view off) -> std::optional<bool> {
        const std::string* value = value_of(key);
        if (value == nullptr) return std::nullopt;
        if (*value == on) return true;
        if (*value == off) return false;
        problems.push_back(fmt::format("unknown {} '{}' in '{}='; expected {} or {}", key, *value, key, on, off));
        return std::nullopt;
    };

    if (const std::string* value = value_of("devices")) {
        if (const auto devices = whole_number(*value, 1, std::numeric_limits<int>::max())) {
            row.devices = static_cast<int>(*devices);
        } else {
            problems.push_back(fmt::format("'devices={}' must be a whole number of devices, at least 1", *value));
        }
    }
    // A whole number of devices that divides the row's `devices`.
    const auto degree = [&](const std::string& key) {
        const std::string* value = value_of(key);
        if (value == nullptr) return 1;
        const auto degree = whole_number(*value, 1, row.devices);
        if (!degree || row.devices % *degree != 0) {
            problems.push_back(fmt::format("'{}={}' must be a whole number of devices that divides devices={} (1 when unstated)",
                                           key, *value, row.devices));
            return 1;
        }
        return static_cast<int>(*degree);
    };
    row.expert_parallel = degree("ep");
    row.attention_data_parallel = degree("dp-attention");
    row.sustained_clocks = choice("clocks", "sustained", "peak").value_or(false);
    if (const std::string* value = value_of("backend")) {
        if (const auto backend = core::backend_of(*value)) {
            row.backend = backend;
        } else {
            const auto names = core::names_of(core::kBackends);
            problems.push_back(fmt::format("unknown backend '{}' in 'backend='{}; expected one of {}", *value,
                                           core::suggestion_note(*value, names), fmt::join(names, " ")));
        }
    }
    if (const auto row_split = choice("split", "row", "layer")) {
        row.row_split = *row_split;
        row.layer_split = !*row_split;
    }
    // Replicas split each replica's heads over the devices: a layer split has no heads to split.
    if (row.layer_split && row.attention_data_parallel > 1) {
        problems.push_back("'dp-attention=' needs the devices to split each layer (tensor parallelism), not 'split=layer'");
    }
    if (const std::string* value = value_of("speculative")) {
        if (std::all_of(value->begin(), value->end(), [](unsigned char c) { return std::isalnum(c) != 0 || c == '-' || c == '_'; })) {
            row.speculative = *value;
        } else {
            problems.push_back(fmt::format("'speculative={}' must name a method in letters and digits (mtp, eagle, draft, ...)", *value));
        }
    }
    if (const std::string* value = value_of("arrivals"); value != nullptr && *value == "closed") {
        row.closed_loop = true;
        if (!row.batch) problems.push_back("'arrivals=closed' replays a number of clients: state the concurrency (batch column)");
    } else if (value != nullptr && *value != "staggered" && *value != "together") {
        problems.push_back(fmt::format("unknown arrivals '{}' in 'arrivals='; expected staggered, together or closed", *value));
    } else {
        row.staggered_arrivals = choice("arrivals", "staggered", "together").value_or(false);
    }
    row.whole_run_throughput = choice("timed", "run", "decode").value_or(false);
    if (row.whole_run_throughput && row.metric != Metric::decode_tokens_per_s_total) {
        problems.push_back("'timed=run' describes a decode_tokens_per_s_total row, not this metric");
    }
    // A closed loop's passes already carry the prompts that replace finished requests: timing its
    // run again with a batch prefill would count them twice.
    if (row.whole_run_throughput && (row.staggered_arrivals || row.closed_loop)) {
        problems.push_back("'timed=run' times one static batch; 'arrivals=staggered' is a closed loop whose passes already "
                           "carry its prompts: state one");
    }
    row.eager_launch = choice("graphs", "off", "on").value_or(false);
    if (const std::string* value = value_of("gpu-cores")) {
        // A GPU of a few cores to a few hundred (Apple's 7-core M1 to an 80-core M3 Ultra).
        if (const auto cores = whole_number(*value, 1, 1024)) {
            row.gpu_cores = static_cast<int>(*cores);
        } else {
            problems.push_back(fmt::format("'gpu-cores={}' must be a whole number of GPU cores from 1 to 1024", *value));
        }
    }
    row.flash_attention = choice("attention", "fused", "unfused");
    if (const std::string* value = value_of("qps")) {
        // "qps=1e-3" or "qps=2x": a rate is plain digits and a decimal point.
        double rate = 0.0;
        const bool plain = std::all_of(value->begin(), value->end(), [](unsigned char c) { return std::isdigit(c) != 0 || c == '.'; });
        if (plain && core::parse_number(*value, rate) && rate > 0.0) {
            row.request_rate = rate;
        } else {
            problems.push_back(fmt::format("'qps={}' must be a request rate above zero, in requests per second (qps=2.5)", *value));
        }
    }
    if (const std::string* value = value_of("requests")) {
        // Each is simulated: a bound keeps a hostile file from asking for hours.
        if (const auto count = whole_number(*value, 1, kMaxReplayedRequests)) {
            row.requests = *count;
        } else {
            problems.push_back(fmt::format("'requests={}' must be a whole number of requests from 1 to {} (at most {} are replayed)",
                                           *value, kMaxReplayedRequests, kMaxReplayedRequests));
        }
    }
    row.median_latency = choice("latency", "median", "mean").value_or(false);
    row.in_process = choice("client", "in_process", "http").value_or(false);
    if (row.closed_loop && pairs.contains("qps")) {
        problems.push_back("'qps=' is an open loop at a rate; 'arrivals=closed' is a closed loop of clients: state one");
    }
    if (!row.request_rate && !pairs.contains("qps") && !row.closed_loop) {
        for (const std::string key : {"requests", "latency"}) {
            if (pairs.contains(key)) {
                problems.push_back(fmt::format("'{}=' describes a replayed serving run: state its 'qps=' or 'arrivals=closed' too", key));
            }
        }
    }
    if (const std::string* value = value_of("lengths")) {
        if (*value == "fixed") {
            row.fixed_lengths = true;
        } else if (*value == "dataset") {
            row.dataset_lengths = true;
        } else {
            problems.push_back(fmt::format("unknown lengths '{}' in 'lengths='; expected fixed or dataset", *value));
        }
    }
}

}  // namespace

std::vector<Measurement> load_measurements(const std::string& path) {
    std::istringstream stream(read_input_file(path, std::size_t{256} << 20, "a measurement table is a few MB"));
    std::vector<core::Diagnostic> problems;
    std::vector<Measurement> rows;
    std::string line;
    int number = 0;
    while (std::getline(stream, line)) {
        ++number;
        bool well_formed = true;
        const auto fields = split_csv_record(line, well_formed);
        if (number == 1) {
            if (fields != kColumns) {
                throw core::InputError(core::Diagnostic{
                    {path, 1, 1}, "", fmt::format("expected the header {}", fmt::join(kColumns, ","))});
            }
            continue;
        }
        if (line.empty()) continue;
        if (!well_formed || fields.size() != kColumns.size()) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", kColumns.size(), fields.size())});
            continue;
        }
        // Column positions are 1-based field indices, close enough to point a reader at the cell.
        auto number_field = [&](std::size_t index, bool required) -> std::optional<double> {
            if (fields[index].empty()) {
                if (required) problems.push_back({{path, number, static_cast<int>(index) + 1}, kColumns[index], "missing"});
                return std::nullopt;
            }
            double value = 0.0;
            if (!core::parse_number(fields[index], value) || value < 0.0) {
                problems.push_back({{path, number, static_cast<int>(index) + 1}, kColumns[index],
                                    fmt::format("'{}' is not a non-negative number", fields[index])});
                return std::nullopt;
            }
            return value;
        };
        Measurement row;
        row.line = number;
        row.id = fields[0];
        row.hardware = fields[1];
        row.model = fields[2];
        row.weights = fields[3];
        row.kv = fields[4];
        row.engine = fields[5];
        row.runtime = fields[6];
        if (row.runtime.empty()) {
            problems.push_back({{path, number, 7}, "runtime", "missing: every measurement names the runtime profile that prices it"});
        } else if (!std::all_of(row.runtime.begin(), row.runtime.end(), runtime_id_char)) {
            problems.push_back({{path, number, 7}, "runtime",
                                fmt::format("'{}' is not a runtime id (letters, digits, '.', '-', '_' and '@')", row.runtime)});
        }
        // Counts are whole numbers in digits, from 1 to the bounds every flag has (core::kMaxBatch,
        // kMaxTokens): a batch of 0 or 10^20 is a typo, never a condition to evaluate.
        auto count_field = [&](std::size_t index, std::int64_t maximum) -> std::optional<double> {
            if (fields[index].empty()) return std::nullopt;
            std::int64_t value = 0;
            if (!core::parse_whole_number(fields[index], value)) {
                problems.push_back({{path, number, static_cast<int>(index) + 1}, kColumns[index],
                                    fmt::format("'{}' is {}", core::printable(fields[index]), core::why_not_whole_number(fields[index]))});
                return std::nullopt;
            }
            if (value < 1 || value > maximum) {
                problems.push_back({{path, number, static_cast<int>(index) + 1}, kColumns[index],
                                    fmt::format("{} is out of range 1 to {}", value, maximum)});
                return std::nullopt;
            }
            return static_cast<double>(value);
        };
        row.batch = count_field(7, core::kMaxBatch);
        row.prompt = count_field(8, core::kMaxTokens);
        row.output = count_field(9, core::kMaxTokens);
        row.context = count_field(10, core::kMaxTokens);
        if (const auto* metric = core::find_named(kMetrics, fields[11])) {
            row.metric = metric->metric;
        } else {
            const auto metrics = core::names_of(kMetrics);
            problems.push_back({{path, number, 12}, "metric",
                                fmt::format("unknown metric '{}'{}", fields[11], core::suggestion_note(fields[11], metrics))});
        }
        row.value = number_field(12, true).value_or(0.0);
        if (row.value <= 0.0 && problems.empty()) problems.push_back({{path, number, 13}, "value", "must be greater than zero"});
        row.source = fields[13];
        if (row.source.empty()) problems.push_back({{path, number, 14}, "source", "every measurement needs its source"});
        std::vector<std::string> condition_problems;
        read_conditions(fields[14], row, condition_problems);
        for (std::string& problem : condition_problems) {
            problems.push_back({{path, number, kConditionsColumn}, "conditions", std::move(problem)});
        }
        row.notes = fields[15];
        rows.push_back(std::move(row));
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    return rows;
}

namespace {
constexpr std::string_view kAtRequestRate = "_at_request_rate";
constexpr std::string_view kInClosedLoop = "_in_closed_loop";
}  // namespace

std::string metric_label(const Measurement& m) {
    std::string label(metric_info(m.metric).name);
    if (m.request_rate) label += kAtRequestRate;
    if (m.closed_loop) label += kInClosedLoop;
    return label;
}

std::vector<std::string> metric_labels() {
    std::vector<std::string> labels;
    for (const std::string_view suffix : {std::string_view(), kAtRequestRate, kInClosedLoop}) {
        for (const MetricInfo& info : kMetrics) labels.push_back(std::string(info.name) + std::string(suffix));
    }
    return labels;
}

std::vector<std::string> unmodelled_conditions(const Measurement& m) {
    std::vector<std::string> conditions;
    if (!m.speculative.empty()) {
        conditions.push_back(fmt::format("speculative decoding ({}), acceptance not stated", m.speculative));
    }
    if (m.row_split) conditions.push_back("llama.cpp row split (partial results gathered after every matrix product)");
    return conditions;
}

}  // namespace decodesim::profiles
