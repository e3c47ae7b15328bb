#pragma once
// A user's own benchmark output read into measurement rows (profiles/measurement.hpp), for
// `decodesim calibrate` (docs/cli.md, "calibrate"). The format is detected from the content:
// llama-bench CSV, JSON or JSON lines; `vllm bench serve` result JSON (one per run); SGLang
// `bench_serving` JSON lines (one run a line); an AIPerf or GenAI-Perf profile export JSON (one run
// a file; the server's engine is not stated); or a table with the columns of
// validation/measurements.csv.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiles/measurement.hpp"

namespace decodesim::profiles {

enum class BenchmarkFormat {
    llama_bench_csv,
    llama_bench_json,
    llama_bench_jsonl,
    vllm_bench_serve,
    sglang_bench_serving,
    profile_export,  // AIPerf profile_export_aiperf.json, GenAI-Perf profile_export_genai_perf.json
    measurements_csv
};
std::string_view benchmark_format_name(BenchmarkFormat format);

// What the text is; nullopt when it is none of the formats.
std::optional<BenchmarkFormat> detect_benchmark_format(std::string_view text);

struct BenchmarkResults {
    BenchmarkFormat format = BenchmarkFormat::llama_bench_csv;
    // Rows with the engine, weights, KV, workload, metric and value set; hardware and model are
    // left empty for the caller, except in a measurements table, whose rows name their own.
    std::vector<Measurement> rows;
    std::vector<std::string> skipped;  // one line per row that measures nothing a fit can use
};

// The weight format of a llama-bench `model_type` ("llama 8B Q4_K - Medium" gives q4_k_m): the
// text after the architecture and the size, looked up in kLlamaBenchWeightFormats; nullopt when
// the table does not have it.
struct LlamaBenchWeightFormat {
    std::string_view file_type;  // as llama.cpp names it (llama_model_ftype_name)
    std::string_view weights;    // decodesim's --weights name
};
inline constexpr LlamaBenchWeightFormat kLlamaBenchWeightFormats[]{
    {"all F32", "fp32"}, {"F16", "fp16"},         {"BF16", "bf16"},
    {"Q8_0", "q8_0"},    {"Q6_K", "q6_k"},        {"Q5_K - Medium", "q5_k_m"},
    {"Q4_K - Medium", "q4_k_m"}, {"Q4_0", "q4_0"}, {"Q2_K - Medium", "q2_k"},
    {"MXFP4 MoE", "mxfp4"},
};
std::optional<std::string_view> llama_bench_weight_format(std::string_view model_type);

// Reads `paths` (files, or folders whose *.json files are read in name order; several files must
// share one format). `weights`, when set, replaces every row's weight format (--weights).
// Throws core::InputError naming the file, line and field of the first problems found.
BenchmarkResults load_benchmark_results(const std::vector<std::string>& paths, const std::optional<std::string>& weights);

}  // namespace decodesim::profiles
