#include "profiles/benchmark_results.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/input_file.hpp"
#include "profiles/measurements.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

constexpr std::size_t kMaxBenchmarkBytes = std::size_t{64} << 20;
constexpr std::string_view kExpectedSize = "a benchmark result is a few MB at most";
// A serving run this long has settled at the sustained clock (profiles/measurement.hpp).
constexpr double kSustainedRunSeconds = 60.0;

// One record of any format: its fields as text, and where it starts. A JSON object's nested
// objects are flattened into dotted keys ("time_to_first_token.avg"), each with its own line.
struct Record {
    int line = 0;
    std::map<std::string, std::string> fields;  // a JSON null is left out
    std::map<std::string, int> field_lines;     // where a JSON field stands, when not on `line`
    // A JSON object's arrays of scalars at its top level (per-request lists: input_lens, output_lens).
    std::map<std::string, std::vector<std::string>> lists;
    // What each key that holds no scalar holds ("a list", "an object"), so that a number found in
    // another shape is an error rather than a field silently missing.
    std::map<std::string, std::string> shapes;
    // Keys a JSON object gives twice, each at the line of its second use: refused, as in every
    // profile (a parser would keep one of the two values unsaid).
    std::map<std::string, int> duplicates;

    const std::string* find(const std::string& key) const {
        const auto found = fields.find(key);
        return found == fields.end() || found->second.empty() ? nullptr : &found->second;
    }
    // A key the record does not hold stands where its object does ("ttft.unit" at "ttft"), else at the record.
    int line_of(const std::string& key) const {
        for (std::string at = key;;) {
            if (const auto found = field_lines.find(at); found != field_lines.end()) return found->second;
            const auto dot = at.rfind('.');
            if (dot == std::string::npos) return line;
            at.resize(dot);
        }
    }
};

// A record as llama-bench writes it; an open quote is reported by the field count that follows.
std::vector<std::string> split_csv(const std::string& line) {
    bool well_formed = true;
    return split_csv_record(line, well_formed);
}

std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

std::vector<Record> csv_records(const std::string& text, const std::string& path, std::vector<core::Diagnostic>& problems) {
    std::istringstream stream(text);
    std::string line;
    std::vector<std::string> header;
    std::vector<Record> records;
    for (int number = 1; std::getline(stream, line); ++number) {
        if (line.empty() || line == "\r") continue;
        auto fields = split_csv(line);
        if (header.empty()) {
            header = std::move(fields);
            continue;
        }
        if (fields.size() != header.size()) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", header.size(), fields.size())});
            continue;
        }
        Record record{number, {}, {}, {}, {}, {}};
        for (std::size_t i = 0; i < header.size(); ++i) record.fields[header[i]] = fields[i];
        records.push_back(std::move(record));
    }
    return records;
}

// The scalars of a JSON object and of the objects inside it, under dotted keys, and its top-level
// arrays of scalars (per-request lists); other arrays are not read.
void flatten_into(Record& record, const YAML::Node& node, const std::string& path, const std::string& prefix) {
    for (const auto& entry : node) {
        const std::string key = prefix + entry.first.Scalar();
        if (record.fields.contains(key) || record.shapes.contains(key)) {
            record.duplicates.emplace(key, location_of_node(path, entry.first).line);
            continue;
        }
        if (entry.second.IsSequence()) record.shapes[key] = "a list";
        if (entry.second.IsMap()) record.shapes[key] = "an object";
        if (entry.second.IsScalar()) {
            record.fields[key] = entry.second.Scalar();
            record.field_lines[key] = location_of_node(path, entry.second).line;
        } else if (entry.second.IsMap()) {
            record.field_lines[key] = location_of_node(path, entry.second).line;
            flatten_into(record, entry.second, path, key + ".");
        } else if (entry.second.IsSequence() && prefix.empty()) {
            std::vector<std::string> items;
            bool scalars = true;
            for (const auto& item : entry.second) {
                if (!item.IsScalar()) {
                    scalars = false;
                    break;
                }
                items.push_back(item.Scalar());
            }
            if (scalars) {
                record.lists[key] = std::move(items);
                record.field_lines[key] = location_of_node(path, entry.second).line;
            }
        }
    }
}

// Each key `record` gives twice, at its second use.
void refuse_duplicates(const Record& record, const std::string& path, std::vector<core::Diagnostic>& problems) {
    for (const auto& [key, line] : record.duplicates) {
        problems.push_back({{path, line, 1}, key, "duplicate key; each key may appear once"});
    }
}

Record json_record(const YAML::Node& node, const std::string& path, std::vector<core::Diagnostic>& problems) {
    Record record{location_of_node(path, node).line, {}, {}, {}, {}, {}};
    if (!node.IsMap()) {
        problems.push_back({location_of_node(path, node), "", "expected an object of benchmark fields"});
        return record;
    }
    flatten_into(record, node, path, "");
    return record;
}

std::vector<Record> json_records(const std::string& text, const std::string& path, bool lines,
                                 std::vector<core::Diagnostic>& problems) {
    std::vector<Record> records;
    if (lines) {
        std::istringstream stream(text);
        std::string line;
        for (int number = 1; std::getline(stream, line); ++number) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            YAML::Node document;
            try {
                document = parse_document(line, path);
            } catch (core::InputError& error) {
                // The line was parsed alone: its positions are within it, on the file's line `number`.
                std::vector<core::Diagnostic> located = error.diagnostics();
                for (core::Diagnostic& diagnostic : located) diagnostic.location.line = number;
                throw core::InputError(std::move(located));
            }
            Record record = json_record(document, path, problems);
            // The line was parsed alone: every field of it stands on the file's line `number`.
            record.line = number;
            record.field_lines.clear();
            for (auto& duplicate : record.duplicates) duplicate.second = number;
            refuse_duplicates(record, path, problems);
            records.push_back(std::move(record));
        }
        return records;
    }
    const YAML::Node document = parse_document(text, path);
    if (document.IsSequence()) {
        for (const auto& item : document) records.push_back(json_record(item, path, problems));
    } else {
        records.push_back(json_record(document, path, problems));
    }
    for (const Record& record : records) refuse_duplicates(record, path, problems);
    return records;
}

// Reads the number a field holds, or records why not.
class FieldReader {
public:
    FieldReader(const Record& record, const std::string& path, std::vector<core::Diagnostic>& problems)
        : record_(record), path_(path), problems_(problems) {}

    std::optional<double> number(const std::string& key, bool required) {
        const std::string* text = record_.find(key);
        if (const auto shape = record_.shapes.find(key); text == nullptr && shape != record_.shapes.end()) {
            error(key, fmt::format("expected a number, found {}", shape->second));
            return std::nullopt;
        }
        if (text == nullptr) {
            if (required) error(key, "missing");
            return std::nullopt;
        }
        double value = 0.0;
        if (!core::parse_number(*text, value) || value < 0.0) {
            error(key, fmt::format("'{}' is not a non-negative number", *text));
            return std::nullopt;
        }
        return value;
    }
    const std::string* text(const std::string& key) const { return record_.find(key); }
    void error(const std::string& key, const std::string& message) {
        problems_.push_back({{path_, record_.line_of(key), 1}, key, message});
    }

private:
    const Record& record_;
    const std::string& path_;
    std::vector<core::Diagnostic>& problems_;
};

std::optional<std::string> kv_of_llama_type(const std::string& type) {
    static const std::map<std::string, std::string> kTypes{
        {"f16", "fp16"}, {"bf16", "bf16"}, {"f32", "fp32"}, {"q8_0", "q8_0"}, {"q4_0", "q4_0"}};
    const auto found = kTypes.find(type);
    return found == kTypes.end() ? std::nullopt : std::optional<std::string>(found->second);
}

// llama-bench writes a comma-separated list of ggml backends in its own spelling ("Metal,BLAS",
// "HIP" for ROCm, "CUDA", "Vulkan"), so the GPU backend is found by substring in this table rather
// than by core::backend_of, which takes one whole decodesim name. The first GPU name found wins;
// the CPU helpers (BLAS, CPU) name none.
std::optional<core::Backend> backend_of_llama_bench(std::string backends) {
    std::transform(backends.begin(), backends.end(), backends.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::array<std::pair<std::string_view, core::Backend>, 6> kNames{{{"vulkan", core::Backend::vulkan},
                                                                            {"sycl", core::Backend::sycl},
                                                                            {"metal", core::Backend::metal},
                                                                            {"rocm", core::Backend::rocm},
                                                                            {"hip", core::Backend::rocm},
                                                                            {"cuda", core::Backend::cuda}}};
    for (const auto& [name, backend] : kNames) {
        if (backends.find(name) != std::string::npos) return backend;
    }
    return std::nullopt;
}

void add_llama_bench_row(const Record& record, const std::string& path, const std::optional<std::string>& weights,
                         BenchmarkResults& results, std::vector<core::Diagnostic>& problems) {
    FieldReader fields(record, path, problems);
    const auto prompt = fields.number("n_prompt", true);
    const auto generated = fields.number("n_gen", true);
    const auto depth = fields.number("n_depth", false);  // absent before llama.cpp added -d
    const auto rate = fields.number("avg_ts", true);
    Measurement row;
    row.line = record.line;
    row.id = fmt::format("{}:{}", path, record.line);
    row.engine = "llama.cpp";
    row.batch = 1.0;
    row.source = path;
    if (weights) {
        row.weights = *weights;
    } else if (const std::string* type = fields.text("model_type")) {
        if (const auto format = llama_bench_weight_format(*type)) {
            row.weights = std::string(*format);
        } else {
            fields.error("model_type", fmt::format("row {}: no weight format known for '{}'; pass --weights", record.line, *type));
        }
    } else {
        fields.error("model_type", fmt::format("row {}: missing; pass --weights", record.line));
    }
    if (const std::string* type = fields.text("type_k")) {
        if (const auto kv = kv_of_llama_type(*type)) {
            row.kv = *kv;
        } else {
            fields.error("type_k", fmt::format("row {}: unknown KV-cache type '{}'; expected f16, bf16, f32, q8_0 or q4_0",
                                               record.line, *type));
        }
    }
    // llama-bench's "backends" names the ggml backends the build registered ("CUDA", "ROCm",
    // "Metal,BLAS", "Vulkan", "SYCL"); the GPU one decides the kernels. Unnamed: the device's own.
    if (const std::string* backends = fields.text("backends")) row.backend = backend_of_llama_bench(*backends);
    // llama-bench's "flash_attn": 0/false/off ran attention unfused (its default until it became
    // "auto"); 1/true/on and auto (flash attention wherever the backend has it) ran it fused.
    // Unstated: the runtime's own default.
    if (const std::string* flash = fields.text("flash_attn")) {
        if (*flash == "0" || *flash == "false" || *flash == "off") {
            row.flash_attention = false;
        } else if (*flash == "1" || *flash == "true" || *flash == "on" || *flash == "auto" || *flash == "-1") {
            row.flash_attention = true;
        } else {
            fields.error("flash_attn", fmt::format("row {}: unknown value '{}'; expected 0, 1, on, off or auto",
                                                   record.line, *flash));
        }
    }
    if (!prompt || !generated || !rate) return;
    if (*rate <= 0.0) {
        fields.error("avg_ts", fmt::format("row {}: a rate of 0 tokens/s measures nothing", record.line));
        return;
    }
    row.value = *rate;
    const double context = depth.value_or(0.0);
    if (*prompt > 0.0 && *generated == 0.0) {
        // pp: a prompt after `context` tokens already in the cache.
        row.metric = Metric::prefill_tokens_per_s;
        row.prompt = *prompt;
        if (context > 0.0) row.context = context;
    } else if (*generated > 0.0 && *prompt == 0.0) {
        row.metric = Metric::decode_tokens_per_s_per_stream;
        row.output = *generated;
        // tg after -d tokens: the step time grows linearly with the context, so the run's mean step
        // is the one at its middle.
        if (context > 0.0) row.context = context + *generated / 2.0;
    } else {
        results.skipped.push_back(fmt::format("{}:{}: a combined prompt and generation test (pg) is not used", path, record.line));
        return;
    }
    results.rows.push_back(std::move(row));
}

// Whether a stated count of a run's requests or clients is one a replay takes (1 to `most`): each
// is simulated, so a count beyond the bound would ask for hours, or overflow. False: reported.
bool within_replay_bounds(FieldReader& fields, const std::string& key, std::optional<double> count, long long most,
                          std::string_view what) {
    if (!count || (*count >= 1.0 && *count <= static_cast<double>(most) && *count == std::floor(*count))) return true;
    fields.error(key, fmt::format("'{}' {}: expected a whole number from 1 to {} (each is replayed)", *count, what, most));
    return false;
}

// Latencies no benchmark measures: a token an hour after the one before it, a first token a day
// after the request. Such a figure is a wrong unit or a damaged file; read as measured it would
// pin the fit at the edge of its search range (the host times it fits go to seconds, not hours).
struct LatencyBound {
    double seconds;
    const char* meaning;
};
constexpr LatencyBound kMaxTpot{3600.0, "an hour a token"};
constexpr LatencyBound kMaxTtft{86400.0, "a day to the first token"};

// A latency in seconds (from the field `key`, `written` as the file gives it), or nothing after an
// error when it passes `most`.
std::optional<double> plausible_latency(FieldReader& fields, const std::string& key, std::optional<double> seconds,
                                        LatencyBound most, std::string_view written) {
    if (!seconds || *seconds <= most.seconds) return seconds;
    fields.error(key, fmt::format("'{}' is {:g} s, beyond any benchmark's (at most {:g} s: {})", written, *seconds,
                                  most.seconds, most.meaning));
    return std::nullopt;
}

// A run's mean length `mean` at `key`, or nothing after an error when it is under a token: every
// request sends a prompt of a token or more and gets a token or more back. `what` names the length
// ("prompt "), `how` what the mean came from.
std::optional<double> mean_of_a_token_or_more(FieldReader& fields, const std::string& key, double mean,
                                              std::string_view what, std::string_view how) {
    if (mean >= 1.0) return mean;
    fields.error(key, fmt::format("a mean {}length of {:g} tokens{}; each request has 1 token or more", what, mean, how));
    return std::nullopt;
}

// A run's mean length from `tokens` over `requests` requests (above): a mean under one token is a
// damaged total (rounding it up to 1 would calibrate on requests never sent).
std::optional<double> mean_length(FieldReader& fields, const std::string& key, double tokens, double requests,
                                  std::string_view what) {
    return mean_of_a_token_or_more(fields, key, tokens / requests, fmt::format("{} ", what),
                                   fmt::format(" ({:g} over {:g} requests)", tokens, requests));
}

// A closed-loop run's three rows: its output throughput, TPOT and TTFT (seconds), each stated. A
// figure of zero measures nothing (a TPOT of 0 is a run whose outputs were one token long): it is
// left out and counted among the skipped, never dropped unsaid.
void add_closed_loop_rows(const Measurement& base, const std::string& path, std::optional<double> throughput,
                          std::optional<double> tpot_s, std::optional<double> ttft_s, BenchmarkResults& results) {
    auto add = [&](Metric metric, std::optional<double> value) {
        if (!value) return;
        if (*value <= 0.0) {
            results.skipped.push_back(fmt::format("{}:{}: its {} is 0, which measures nothing (with one-token outputs "
                                                  "there is no time per output token)",
                                                  path, base.line, metric_info(metric).name));
            return;
        }
        Measurement row = base;
        row.metric = metric;
        row.value = *value;
        row.id = fmt::format("{} {}", path, metric_info(metric).name);
        results.rows.push_back(std::move(row));
    };
    add(Metric::decode_tokens_per_s_total, throughput);
    add(Metric::tpot_s, tpot_s);
    add(Metric::ttft_s, ttft_s);
}

// How a serving run's lengths varied, for its replay: each request's, where the result lists them
// (input_lens and output_lens: SGLang's --output-details, vLLM's --save-detailed); else, for
// SGLang's random dataset, the range its draws span (sample_random_requests: each length from
// randint(max(int(N x ratio), 1), N + 1), N the nominal length, the ratio 0 by default, so 1 to
// N); for another dataset (sharegpt), that dataset's own lengths about the means; else fixed.
// vLLM's random dataset draws about the nominal length in a way its builds changed, and its result
// states no ratio: its lengths are replayed fixed at the means.
constexpr std::int64_t kMaxListedTokens = 1'000'000'000;  // a length past this is no request (serve's --prompt bound)

void replayed_lengths(const Record& record, FieldReader& fields, const std::string& engine, Measurement& row) {
    const auto prompts = record.lists.find("input_lens");
    const auto outputs = record.lists.find("output_lens");
    if (prompts != record.lists.end() && outputs != record.lists.end()) {
        if (prompts->second.size() > static_cast<std::size_t>(kMaxReplayedRequests)) {
            fields.error("input_lens", fmt::format("lists {} requests; at most {} are replayed", prompts->second.size(),
                                                   kMaxReplayedRequests));
            return;
        }
        if (prompts->second.size() != outputs->second.size() || prompts->second.empty()) {
            fields.error("input_lens", fmt::format("lists {} prompt lengths against {} output lengths; expected one "
                                                   "of each a request",
                                                   prompts->second.size(), outputs->second.size()));
            return;
        }
        // Item i of a list as tokens from `least`, or nothing after an error naming the list and the item.
        auto tokens = [&](const auto& list, std::size_t i, std::int64_t least) -> std::optional<std::int64_t> {
            std::int64_t value = 0;
            if (core::parse_whole_number(list.second[i], value) && value >= least && value <= kMaxListedTokens)
                return value;
            fields.error(list.first,
                         fmt::format("item {} '{}' is not a whole number of tokens up to 1e9{}", i + 1,
                                     core::printable(list.second[i]), least > 0 ? " (a prompt has 1 or more)" : ""));
            return std::nullopt;
        };
        // A prompt holds a token or more; an output may be 0 (vLLM lists a failed request's as 0), but
        // their mean is a token or more, as for the totals.
        double output_sum = 0.0;
        for (std::size_t i = 0; i < prompts->second.size(); ++i) {
            const auto prompt = tokens(*prompts, i, 1);
            const auto output = prompt ? tokens(*outputs, i, 0) : std::nullopt;
            if (!prompt || !output) return;
            output_sum += static_cast<double>(*output);
            row.request_lengths.emplace_back(*prompt, *output);
        }
        if (!mean_length(fields, outputs->first, output_sum, static_cast<double>(outputs->second.size()), "output")) {
            row.request_lengths.clear();
        }
        return;
    }
    const std::string* dataset = fields.text("dataset_name");
    if (dataset == nullptr) return;
    if (!dataset->starts_with("random")) {
        row.dataset_lengths = true;
        return;
    }
    const auto ratio = fields.number("random_range_ratio", false);
    const auto prompt = fields.number("random_input_len", false);
    const auto output = fields.number("random_output_len", false);
    if (engine != "sglang" || !ratio || *ratio >= 1.0 || !prompt || !output) return;
    row.prompt_range = std::pair{std::max(1.0, std::floor(*prompt * *ratio)), *prompt};
    row.output_range = std::pair{std::max(1.0, std::floor(*output * *ratio)), *output};
}

// One run of a serving benchmark at a fixed concurrency (`vllm bench serve --max-concurrency`, SGLang
// `bench_serving --max-concurrency`: the same field names): its output throughput, TPOT and TTFT,
// each a closed-loop row the serving simulation replays with the run's request count and lengths.
void add_serving_rows(const Record& record, const std::string& path, const std::optional<std::string>& weights,
                      const char* engine, BenchmarkResults& results, std::vector<core::Diagnostic>& problems) {
    FieldReader fields(record, path, problems);
    const auto concurrency = fields.number("max_concurrency", false);
    const auto completed = fields.number("completed", true);
    const auto input_tokens = fields.number("total_input_tokens", true);
    const auto output_tokens = fields.number("total_output_tokens", true);
    const auto throughput = fields.number("output_throughput", true);
    const auto duration = fields.number("duration", false);
    // The median where the run states it (both tools do), else the mean; the row says which.
    const bool median = record.find("median_ttft_ms") != nullptr;
    // The statistic's milliseconds as seconds, within `most` (after an error, nothing); `ms` says
    // whether the run stated it at all.
    auto latency_of = [&](const std::string& what, LatencyBound most, bool& ms) {
        const std::string key = (median ? "median_" : "mean_") + what;
        const auto value = fields.number(key, false);
        ms = value.has_value();
        return plausible_latency(fields, key, value ? std::optional(*value / 1e3) : std::nullopt, most,
                                 value ? fmt::format("{:g} ms", *value) : "");
    };
    bool ttft_stated = false, tpot_stated = false;
    const auto ttft_s = latency_of("ttft_ms", kMaxTtft, ttft_stated);
    const auto tpot_s = latency_of("tpot_ms", kMaxTpot, tpot_stated);
    if (!concurrency) {
        fields.error("max_concurrency", "not stated: a run without --max-concurrency measures a request rate, not a "
                                        "concurrency; rerun with --max-concurrency N");
    }
    std::string weight_format;
    if (weights) {
        weight_format = *weights;
    } else if (const std::string* stated = fields.text("weights")) {
        weight_format = *stated;
    } else {
        fields.error("weights", "the result does not state the weight format; pass --weights (or run vllm bench serve "
                                "with --metadata weights=NAME)");
    }
    if (!within_replay_bounds(fields, "completed", completed, kMaxReplayedRequests, "requests") ||
        !within_replay_bounds(fields, "max_concurrency", concurrency, kMaxReplayedClients, "clients")) {
        return;
    }
    if (!concurrency || !completed || !input_tokens || !output_tokens || !throughput) return;
    const auto prompt_mean = mean_length(fields, "total_input_tokens", *input_tokens, *completed, "prompt");
    const auto output_mean = mean_length(fields, "total_output_tokens", *output_tokens, *completed, "output");
    if (!prompt_mean || !output_mean || (ttft_stated && !ttft_s) || (tpot_stated && !tpot_s)) return;
    Measurement base;
    base.line = record.line;
    base.engine = engine;
    base.weights = weight_format;
    base.batch = *concurrency;
    // The means the run sent, from its totals; how the lengths varied about them, from what the
    // result says (replayed_lengths).
    base.prompt = std::round(*prompt_mean);
    base.output = std::round(*output_mean);
    replayed_lengths(record, fields, engine, base);
    base.source = path;
    base.sustained_clocks = duration && *duration >= kSustainedRunSeconds;
    base.closed_loop = true;
    base.requests = static_cast<long long>(std::llround(*completed));
    base.median_latency = median;
    add_closed_loop_rows(base, path, throughput, tpot_s, ttft_s, results);
}

// The multiplier that turns a time in `unit` into seconds (AIPerf and GenAI-Perf state "ms").
std::optional<double> seconds_per(const std::string& unit) {
    if (unit == "ms") return 1e-3;
    if (unit == "s" || unit == "sec") return 1.0;
    if (unit == "us") return 1e-6;
    if (unit == "ns") return 1e-9;
    return std::nullopt;
}

// One AIPerf `profile_export_aiperf.json` or GenAI-Perf `profile_export_genai_perf.json`: each
// metric an object of its unit and statistics ("time_to_first_token": {"unit": "ms", "avg": ..,
// "p50": ..}), the run's settings under input_config (AIPerf: input_config.loadgen.concurrency;
// GenAI-Perf: input_config.concurrency). Their inter_token_latency is, per request, (latency -
// TTFT) / (output tokens - 1): vLLM's TPOT. Neither names the server, so the rows carry no engine
// and calibrate asks for --runtime.
void add_profile_export_rows(const Record& record, const std::string& path, const std::optional<std::string>& weights,
                             BenchmarkResults& results, std::vector<core::Diagnostic>& problems) {
    FieldReader fields(record, path, problems);
    auto first_stated = [&](std::initializer_list<const char*> keys) -> std::optional<std::string> {
        for (const char* key : keys) {
            if (record.find(key) != nullptr) return std::string(key);
        }
        return std::nullopt;
    };
    const auto concurrency_key = first_stated({"input_config.loadgen.concurrency", "input_config.concurrency"});
    if (const auto rate_key = first_stated({"input_config.loadgen.request_rate", "input_config.request_rate"})) {
        fields.error(*rate_key, "the run sent requests at a rate, not from a fixed number of clients; calibrate reads "
                                "concurrency runs (--concurrency N)");
        return;
    }
    if (!concurrency_key) {
        fields.error("input_config.loadgen.concurrency",
                     "not stated: calibrate reads runs at a fixed concurrency (aiperf or genai-perf --concurrency N)");
        return;
    }
    const auto concurrency = fields.number(*concurrency_key, true);
    if (!within_replay_bounds(fields, *concurrency_key, concurrency, kMaxReplayedClients, "clients")) return;
    // The median where the export states it (both tools do), else the mean; the row says which.
    const bool median = record.find("time_to_first_token.p50") != nullptr;
    // Whether the export holds `metric` at all; in a shape other than an object of its unit and
    // statistics it is an error, not a metric dropped unsaid.
    auto holds = [&](const std::string& metric) {
        const auto shape = record.shapes.find(metric);
        if (record.find(metric) == nullptr && shape == record.shapes.end()) return false;
        if (shape != record.shapes.end() && shape->second == "an object") return true;
        fields.error(metric,
                     fmt::format("expected an object of its unit and statistics ({{\"unit\": ..., \"avg\": ...}}), "
                                 "found {}",
                                 shape != record.shapes.end() ? shape->second : "a single value"));
        return false;
    };
    // A statistic of `metric` (nothing when the export does not hold the metric), times the scale of
    // its unit; the unit must be stated and one of `units`.
    using Scale = std::optional<double> (*)(const std::string&);
    auto statistic = [&](const std::string& metric, const std::string& stat, bool required, Scale scale_of,
                         std::string_view units) -> std::optional<double> {
        if (!holds(metric)) {
            if (required) fields.error(metric + "." + stat, "missing");
            return std::nullopt;
        }
        const auto value = fields.number(metric + "." + stat, required);
        if (!value) return std::nullopt;
        const std::string* unit = fields.text(metric + ".unit");
        if (unit == nullptr) {
            fields.error(metric + ".unit", fmt::format("missing; expected {}", units));
            return std::nullopt;
        }
        const auto scale = scale_of(*unit);
        if (!scale) {
            fields.error(metric + ".unit",
                         fmt::format("unknown unit '{}'; expected {}", core::printable(*unit), units));
            return std::nullopt;
        }
        return *value * *scale;
    };
    const Scale tokens_per_s = [](const std::string& unit) {
        return unit == "tokens/sec" || unit == "tokens/s" ? std::optional<double>(1.0) : std::nullopt;
    };
    const Scale tokens = [](const std::string& unit) {
        return unit == "tokens" ? std::optional<double>(1.0) : std::nullopt;
    };
    const Scale request_units = [](const std::string& unit) {
        return unit == "requests" ? std::optional<double>(1.0) : std::nullopt;
    };
    const std::string stat = median ? "p50" : "avg";
    auto time_of = [&](const std::string& metric, LatencyBound most) {
        const auto seconds = statistic(metric, stat, false, seconds_per, "a time unit: ms, s, us or ns");
        return plausible_latency(fields, metric + "." + stat, seconds, most,
                                 seconds ? *fields.text(metric + "." + stat) : std::string());
    };
    const auto ttft = time_of("time_to_first_token", kMaxTtft);
    const auto tpot = time_of("inter_token_latency", kMaxTpot);
    const auto throughput = statistic("output_token_throughput", "avg", true, tokens_per_s, "tokens/sec");
    // Measured, else configured; every request has a token or more each way, so must their mean.
    auto mean_tokens = [&](const char* measured,
                           std::initializer_list<const char*> configured) -> std::optional<double> {
        std::optional<double> value;
        std::string key = std::string(measured) + ".avg";
        if (holds(measured)) {
            value = statistic(measured, "avg", true, tokens, "tokens");
        } else if (const auto stated = first_stated(configured)) {
            key = *stated;
            value = fields.number(key, true);
        } else {
            fields.error(key, "missing: the run's mean length is needed (neither measured nor configured)");
        }
        return value ? mean_of_a_token_or_more(fields, key, *value, "", "") : std::nullopt;
    };
    const auto prompt = mean_tokens("input_sequence_length", {"input_config.input.prompt.input_tokens.mean",
                                                              "input_config.synthetic_input_tokens_mean"});
    const auto output = mean_tokens(
        "output_sequence_length", {"input_config.input.prompt.output_tokens.mean", "input_config.output_tokens_mean"});
    std::optional<double> requests;
    if (holds("request_count")) {
        requests = statistic("request_count", "avg", true, request_units, "requests");
        if (!within_replay_bounds(fields, "request_count.avg", requests, kMaxReplayedRequests, "requests")) return;
    } else if (const auto key = first_stated({"input_config.loadgen.request_count", "input_config.request_count"})) {
        requests = fields.number(*key, true);
        if (!within_replay_bounds(fields, *key, requests, kMaxReplayedRequests, "requests")) return;
    }
    const auto duration = statistic("benchmark_duration", "avg", false, seconds_per, "a time unit: ms, s, us or ns");
    if (!weights) {
        fields.error("", "an AIPerf or GenAI-Perf export does not state the weight format; pass --weights");
    }
    if (!concurrency || !throughput || !prompt || !output || !weights) return;
    Measurement base;
    base.line = record.line;
    base.weights = *weights;
    base.batch = std::round(*concurrency);
    base.prompt = std::max(1.0, std::round(*prompt));
    base.output = std::max(1.0, std::round(*output));
    base.source = path;
    base.sustained_clocks = duration && *duration >= kSustainedRunSeconds;
    base.closed_loop = true;
    if (requests) base.requests = static_cast<long long>(std::llround(*requests));
    base.median_latency = median;
    add_closed_loop_rows(base, path, throughput, tpot, ttft, results);
}

std::vector<std::string> expand_paths(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const std::string& path : paths) {
        if (path_kind(path) != PathKind::folder) {
            files.push_back(path);
            continue;
        }
        require_folder(path, "calibrate");
        std::vector<std::string> found;
        for (const auto& entry : std::filesystem::directory_iterator(path)) {
            if (entry.path().extension() == ".json") found.push_back(entry.path().string());
        }
        if (found.empty()) {
            throw core::InputError(core::Diagnostic{{path, 0, 0}, "", "the folder holds no *.json benchmark result"});
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

}  // namespace

std::string_view benchmark_format_name(BenchmarkFormat format) {
    switch (format) {
        case BenchmarkFormat::llama_bench_csv: return "llama-bench CSV";
        case BenchmarkFormat::llama_bench_json: return "llama-bench JSON";
        case BenchmarkFormat::llama_bench_jsonl: return "llama-bench JSON lines";
        case BenchmarkFormat::vllm_bench_serve: return "vllm bench serve JSON";
        case BenchmarkFormat::sglang_bench_serving: return "SGLang bench_serving JSON lines";
        case BenchmarkFormat::profile_export: return "AIPerf / GenAI-Perf profile export JSON";
        case BenchmarkFormat::measurements_csv: return "measurements CSV";
    }
    return "?";
}

std::optional<BenchmarkFormat> detect_benchmark_format(std::string_view text) {
    const std::size_t start = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (start == std::string_view::npos) return std::nullopt;
    const bool llama = text.find("\"avg_ts\"") != std::string_view::npos;
    if (text[start] == '[') return llama ? std::optional(BenchmarkFormat::llama_bench_json) : std::nullopt;
    if (text[start] == '{') {
        if (llama) return BenchmarkFormat::llama_bench_jsonl;
        // AIPerf and GenAI-Perf give each metric as an object with its unit.
        const bool export_metrics = text.find("\"inter_token_latency\"") != std::string_view::npos &&
                                    text.find("\"output_token_throughput\"") != std::string_view::npos &&
                                    text.find("\"unit\"") != std::string_view::npos;
        if (export_metrics) return BenchmarkFormat::profile_export;
        const bool serving = text.find("\"output_throughput\"") != std::string_view::npos ||
                             text.find("\"max_concurrency\"") != std::string_view::npos;
        if (!serving) return std::nullopt;
        // SGLang's bench_serving names its backend sglang (or sglang-oai, sglang-native).
        const bool sglang = text.find("\"backend\": \"sglang") != std::string_view::npos ||
                            text.find("\"backend\":\"sglang") != std::string_view::npos;
        return sglang ? BenchmarkFormat::sglang_bench_serving : BenchmarkFormat::vllm_bench_serve;
    }
    const auto header = split_csv(first_line(text.substr(start)));
    auto has = [&](std::string_view column) { return std::find(header.begin(), header.end(), column) != header.end(); };
    if (has("avg_ts") && has("n_prompt") && has("n_gen")) return BenchmarkFormat::llama_bench_csv;
    if (!header.empty() && header.front() == "id" && has("metric") && has("value")) return BenchmarkFormat::measurements_csv;
    return std::nullopt;
}

std::optional<std::string_view> llama_bench_weight_format(std::string_view model_type) {
    // "<architecture> <size> <file type>": the file type may hold spaces ("Q4_K - Medium").
    const std::size_t first = model_type.find(' ');
    const std::size_t second = first == std::string_view::npos ? first : model_type.find(' ', first + 1);
    const std::string_view file_type = second == std::string_view::npos ? model_type : model_type.substr(second + 1);
    for (const auto& row : kLlamaBenchWeightFormats) {
        if (row.file_type == file_type) return row.weights;
    }
    return std::nullopt;
}

BenchmarkResults load_benchmark_results(const std::vector<std::string>& paths, const std::optional<std::string>& weights) {
    BenchmarkResults results;
    std::optional<BenchmarkFormat> format;
    std::vector<core::Diagnostic> problems;
    for (const std::string& path : expand_paths(paths)) {
        const std::string text = read_input_file(path, kMaxBenchmarkBytes, kExpectedSize);
        const auto detected = detect_benchmark_format(text);
        if (!detected) {
            throw core::InputError(core::Diagnostic{
                {path, 1, 1}, "",
                "not a benchmark result decodesim reads: expected llama-bench -o csv/json/jsonl output, a vllm bench serve "
                "result JSON, SGLang bench_serving JSON lines, an AIPerf or GenAI-Perf profile export JSON, or a table with "
                "the columns of validation/measurements.csv"});
        }
        if (format && *format != *detected) {
            throw core::InputError(core::Diagnostic{{path, 1, 1}, "",
                                                    fmt::format("a {} among {} files; give files of one format",
                                                                benchmark_format_name(*detected),
                                                                benchmark_format_name(*format))});
        }
        format = detected;
        switch (*detected) {
            case BenchmarkFormat::measurements_csv:
                for (Measurement& row : load_measurements(path)) {
                    if (weights) row.weights = *weights;
                    results.rows.push_back(std::move(row));
                }
                break;
            case BenchmarkFormat::llama_bench_csv:
                for (const Record& record : csv_records(text, path, problems)) {
                    add_llama_bench_row(record, path, weights, results, problems);
                }
                break;
            case BenchmarkFormat::llama_bench_json:
            case BenchmarkFormat::llama_bench_jsonl:
                for (const Record& record :
                     json_records(text, path, *detected == BenchmarkFormat::llama_bench_jsonl, problems)) {
                    add_llama_bench_row(record, path, weights, results, problems);
                }
                break;
            case BenchmarkFormat::vllm_bench_serve:
            case BenchmarkFormat::sglang_bench_serving: {
                // SGLang appends one run a line; vLLM writes one document, on one line or indented.
                const bool lines = *detected == BenchmarkFormat::sglang_bench_serving;
                const char* engine = lines ? "sglang" : "vllm";
                for (const Record& record : json_records(text, path, lines, problems)) {
                    add_serving_rows(record, path, weights, engine, results, problems);
                }
                break;
            }
            case BenchmarkFormat::profile_export:
                for (const Record& record : json_records(text, path, false, problems)) {
                    add_profile_export_rows(record, path, weights, results, problems);
                }
                break;
        }
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    results.format = format.value_or(BenchmarkFormat::llama_bench_csv);
    return results;
}

}  // namespace decodesim::profiles
