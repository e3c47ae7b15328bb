#include "profiles/measurements.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/suggest.hpp"
#include "profiles/csv_record.hpp"
#include "core/units.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

const std::vector<std::string> kColumns{"id",     "hardware", "model",  "weights", "kv",    "engine", "batch",
                                        "prompt", "output",   "context", "metric", "value", "source", "notes"};

int devices_from_notes(const std::string& notes) {
    const auto at = notes.find("n_gpus=");
    if (at == std::string::npos) return 1;
    double devices = 0.0;
    std::size_t end = at + 7;
    while (end < notes.size() && std::isdigit(static_cast<unsigned char>(notes[end]))) ++end;
    if (!core::parse_number(notes.substr(at + 7, end - at - 7), devices) || devices < 1) return 1;
    return static_cast<int>(devices);
}

constexpr long long kMaxReplayedRequests = 100000;

// "QPS=R" in the notes, R a plain decimal; a QPS= without one is an error.
std::optional<double> request_rate_from_notes(const std::string& notes, std::string& problem) {
    const auto at = notes.find("QPS=");
    if (at == std::string::npos) return std::nullopt;
    std::size_t end = at + 4;
    while (end < notes.size() && (std::isdigit(static_cast<unsigned char>(notes[end])) != 0 || notes[end] == '.')) ++end;
    double rate = 0.0;
    // "QPS=1e-3" or "QPS=2x" would otherwise read as 1 or 2: a rate is plain digits.
    const bool runs_on = end < notes.size() && std::isalnum(static_cast<unsigned char>(notes[end])) != 0;
    if (runs_on || !core::parse_number(notes.substr(at + 4, end - at - 4), rate) || !(rate > 0.0)) {
        problem = "'QPS=' needs a request rate above zero, in requests per second (QPS=2.5)";
        return std::nullopt;
    }
    return rate;
}

// "N requests" or "N prompts" in the notes: the count before the word.
std::optional<long long> request_count_from_notes(const std::string& notes) {
    for (const std::string_view word : {" requests", " prompts"}) {
        for (std::size_t at = notes.find(word); at != std::string::npos; at = notes.find(word, at + 1)) {
            std::size_t start = at;
            while (start > 0 && std::isdigit(static_cast<unsigned char>(notes[start - 1])) != 0) --start;
            // "2.82 requests per second" is a rate, not a count.
            if (start == at || (start > 0 && notes[start - 1] == '.') || notes.compare(at + word.size(), 4, " per") == 0) continue;
            double count = 0.0;
            if (core::parse_number(notes.substr(start, at - start), count) && count >= 1.0) {
                return static_cast<long long>(count);
            }
        }
    }
    return std::nullopt;
}

bool sustained_from_notes(const std::string& notes, const std::string& engine) {
    if (notes.find("clocks=sustained") != std::string::npos) return true;
    if (notes.find("clocks=peak") != std::string::npos) return false;
    return engine.starts_with("mlperf-");
}

// "backend=NAME" in the notes: the backend the benchmark's build ran on, where it is not the
// device's native one (Vulkan on any vendor, SYCL builds). Unstated: empty, the device's default.
// A name that is not a backend is an error, not a silent default.
// The value of "KEY=VALUE" in the notes (letters and digits), when KEY is a word of its own:
// "moe_backend=TRTLLM" in a source's flags is not the key "backend=", nor "dp-attention=8" the key
// "attention=".
std::optional<std::string> notes_value(const std::string& notes, std::string_view key) {
    std::size_t at = notes.find(key);
    while (at != std::string::npos && at > 0 &&
           (std::isalnum(static_cast<unsigned char>(notes[at - 1])) != 0 || notes[at - 1] == '_' || notes[at - 1] == '-')) {
        at = notes.find(key, at + 1);
    }
    if (at == std::string::npos) return std::nullopt;
    std::size_t end = at + key.size();
    while (end < notes.size() && (std::isalnum(static_cast<unsigned char>(notes[end])) != 0)) ++end;
    return notes.substr(at + key.size(), end - at - key.size());
}

std::optional<core::Backend> backend_from_notes(const std::string& notes, std::string& problem) {
    const auto value = notes_value(notes, "backend=");
    if (!value) return std::nullopt;
    const std::string& name = *value;
    if (const auto backend = core::backend_of(name)) return backend;
    const auto names = core::names_of(core::kBackends);
    problem = fmt::format("unknown backend '{}' in 'backend='{}; expected one of {}", name,
                          core::suggestion_note(name, names), fmt::join(names, " "));
    return std::nullopt;
}

// A notes key with two values ("arrivals=staggered|together"): true for `on`, false for `off`
// or when the key is absent; any other value is a problem, named in `problem`.
bool notes_switch(const std::string& notes, std::string_view key, std::string_view on, std::string_view off,
                  std::string& problem) {
    const auto value = notes_value(notes, fmt::format("{}=", key));
    if (!value || *value == off) return false;
    if (*value == on) return true;
    problem = fmt::format("unknown {} '{}' in '{}='; expected {} or {}", key, *value, key, on, off);
    return false;
}

// "KEY=N" in the notes, N a whole number of devices that divides the row's `devices`; 1 when the
// key is absent, and a problem for anything else.
int degree_from_notes(const std::string& notes, std::string_view key, int devices, std::string& problem) {
    const auto value = notes_value(notes, fmt::format("{}=", key));
    if (!value) return 1;
    double degree = 0.0;
    const bool digits = !value->empty() && std::all_of(value->begin(), value->end(),
                                                      [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!digits || !core::parse_number(*value, degree) || degree < 1.0 || degree > devices ||
        devices % static_cast<int>(degree) != 0) {
        problem = fmt::format("'{}={}' must be a whole number of devices that divides n_gpus={} (1 when unstated)", key,
                              *value, devices);
        return 1;
    }
    return static_cast<int>(degree);
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
        row.batch = number_field(6, false);
        row.prompt = number_field(7, false);
        row.output = number_field(8, false);
        row.context = number_field(9, false);
        if (const auto* metric = core::find_named(kMetrics, fields[10])) {
            row.metric = metric->metric;
        } else {
            const auto metrics = core::names_of(kMetrics);
            problems.push_back({{path, number, 11}, "metric",
                                fmt::format("unknown metric '{}'{}", fields[10], core::suggestion_note(fields[10], metrics))});
        }
        row.value = number_field(11, true).value_or(0.0);
        if (row.value <= 0.0 && problems.empty()) problems.push_back({{path, number, 12}, "value", "must be greater than zero"});
        row.source = fields[12];
        row.notes = fields[13];
        if (row.source.empty()) problems.push_back({{path, number, 13}, "source", "every measurement needs its source"});
        row.devices = devices_from_notes(row.notes);
        std::string degree_problem;
        row.expert_parallel = degree_from_notes(row.notes, "ep", row.devices, degree_problem);
        if (!degree_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(degree_problem, {})});
        row.attention_data_parallel = degree_from_notes(row.notes, "dp-attention", row.devices, degree_problem);
        if (!degree_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(degree_problem, {})});
        row.sustained_clocks = sustained_from_notes(row.notes, row.engine);
        row.layer_split = row.notes.find("layer split") != std::string::npos;
        std::string switch_problem;
        row.staggered_arrivals = notes_switch(row.notes, "arrivals", "staggered", "together", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        row.whole_run_throughput = notes_switch(row.notes, "timed", "run", "decode", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        if (row.whole_run_throughput && row.metric != Metric::decode_tokens_per_s_total) {
            problems.push_back({{path, number, 14}, "notes",
                                "'timed=run' describes a decode_tokens_per_s_total row, not this metric"});
        }
        // A closed loop's passes already carry the prompts that replace finished requests: timing
        // its run again with a batch prefill would count them twice.
        if (row.whole_run_throughput && row.staggered_arrivals) {
            problems.push_back({{path, number, 14}, "notes",
                                "'timed=run' times one static batch; 'arrivals=staggered' is a closed loop "
                                "whose passes already carry its prompts: state one"});
        }
        row.unfused_attention = notes_switch(row.notes, "attention", "unfused", "fused", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        row.dequantized_block_matmul = notes_switch(row.notes, "block-matmul", "dequantized", "quantized", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        row.unfused_kernel_graph = notes_switch(row.notes, "kernel-graph", "unfused", "fused", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        row.row_split = notes_switch(row.notes, "split", "row", "layer", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        if (notes_value(row.notes, "split=") == "layer") row.layer_split = true;
        // Replicas split each replica's heads over the devices: a layer split has no heads to split.
        if (row.layer_split && row.attention_data_parallel > 1) {
            problems.push_back({{path, number, 14}, "notes",
                                "'dp-attention=' needs the devices to split each layer (tensor parallelism), not a layer split"});
        }
        row.eager_launch = notes_switch(row.notes, "graphs", "off", "on", switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        if (const auto method = notes_value(row.notes, "speculative=")) {
            if (method->empty()) {
                problems.push_back({{path, number, 14}, "notes",
                                    "'speculative=' names no method (mtp, eagle, draft, ...)"});
            }
            row.speculative = *method;
        }
        row.request_rate = request_rate_from_notes(row.notes, switch_problem);
        if (!switch_problem.empty()) problems.push_back({{path, number, 14}, "notes", std::exchange(switch_problem, {})});
        if (row.request_rate) {
            row.requests = request_count_from_notes(row.notes);
            // Each is simulated: a bound keeps a hostile file from asking for hours.
            if (row.requests && *row.requests > kMaxReplayedRequests) {
                problems.push_back({{path, number, 14}, "notes",
                                    fmt::format("{} requests: at most {} are replayed", *row.requests, kMaxReplayedRequests)});
            }
            std::string lower = row.notes;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            row.median_latency = lower.find("median") != std::string::npos;
        }
        std::string backend_problem;
        row.backend = backend_from_notes(row.notes, backend_problem);
        if (!backend_problem.empty()) problems.push_back({{path, number, 14}, "notes", backend_problem});
        rows.push_back(std::move(row));
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    return rows;
}

namespace {
constexpr std::string_view kAtRequestRate = "_at_request_rate";
}  // namespace

std::string metric_label(const Measurement& m) {
    std::string label(metric_info(m.metric).name);
    if (m.request_rate) label += kAtRequestRate;
    return label;
}

std::vector<std::string> metric_labels() {
    std::vector<std::string> labels;
    for (const std::string_view suffix : {std::string_view(), kAtRequestRate}) {
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
    if (m.eager_launch) conditions.push_back("kernels launched one by one from the host (no CUDA graphs)");
    return conditions;
}

}  // namespace decodesim::profiles
