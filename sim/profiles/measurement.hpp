#pragma once
// One public measurement (validation/measurements.csv) as plain data: what was measured, under
// which stated conditions, from which source.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"

namespace decodesim::profiles {

// What a row measured.
enum class Metric {
    decode_tokens_per_s_per_stream,
    decode_tokens_per_s_total,
    prefill_tokens_per_s,
    ttft_s,
    tpot_s,
    e2e_latency_s,
};

struct MetricInfo {
    Metric metric;
    std::string_view name;  // as written in the CSV
    bool lower_is_better;   // a time, not a rate
};

inline constexpr std::array kMetrics{
    MetricInfo{Metric::decode_tokens_per_s_per_stream, "decode_tokens_per_s_per_stream", false},
    MetricInfo{Metric::decode_tokens_per_s_total, "decode_tokens_per_s_total", false},
    MetricInfo{Metric::prefill_tokens_per_s, "prefill_tokens_per_s", false},
    MetricInfo{Metric::ttft_s, "ttft_s", true},
    MetricInfo{Metric::tpot_s, "tpot_s", true},
    MetricInfo{Metric::e2e_latency_s, "e2e_latency_s", true},
};

constexpr const MetricInfo& metric_info(Metric metric) { return kMetrics[static_cast<std::size_t>(metric)]; }

struct Measurement {
    int line = 0;  // in the CSV file, for messages
    std::string id;
    std::string hardware;
    std::string model;
    std::string weights;  // empty: not stated
    std::string kv;       // empty: not stated
    std::string engine;
    std::optional<double> batch;
    std::optional<double> prompt;
    std::optional<double> output;
    std::optional<double> context;
    Metric metric = Metric::decode_tokens_per_s_per_stream;
    double value = 0.0;
    std::string source;
    std::string notes;
    int devices = 1;      // "n_gpus=N" in the notes
    // "ep=N" in the notes: the routed experts spread over N of the devices (expert parallelism);
    // unset: 1, each expert split over the tensor-parallel devices.
    int expert_parallel = 1;
    // "dp-attention=N" in the notes: N attention replicas, each with its share of the batch (DP
    // attention, which MLA models run because their one latent head cannot be split); the
    // devices divided by N split each replica's heads. Unset: 1, attention split over every device.
    int attention_data_parallel = 1;
    // The clocks the benchmark ran at: a short run (llama-bench, one request, a few hundred
    // iterations) sits near the peak clock; a run of minutes settles at the sustained one. Peak
    // unless the notes say "clocks=sustained" or the row is an MLPerf result, whose runs last at
    // least ten minutes by rule (docs/validation.md).
    bool sustained_clocks = false;
    // "backend=NAME" in the notes (vulkan, sycl, ...); unset: the device's native backend.
    std::optional<core::Backend> backend;
    // "layer split" in the notes: the devices each hold a contiguous block of layers and a token
    // passes through them in turn (llama.cpp's default --split-mode layer): pipeline stages, not
    // tensor parallelism.
    bool layer_split = false;
    // "speculative=METHOD" in the notes (mtp, eagle, draft): the run decoded speculatively, with
    // an acceptance the source does not state per row. Predicted as plain decoding (reported, and
    // named when it beats the bound), never read by a fit: its rate is not the kernels' rate.
    std::string speculative;
    // "arrivals=staggered" in the notes: a closed-loop benchmark whose many requests keep the
    // stated concurrency, so a request arrives as another finishes and its first token waits for
    // its own prefill; unset: the stated concurrency's requests arrived together, and each first
    // token waits for the whole batch's prefill.
    bool staggered_arrivals = false;
    // "timed=run" in the notes of a total-throughput row: the figure is the stated
    // batch's output tokens over the time of the whole run, its prefill included, as a static
    // batch benchmark times it (TensorRT-LLM's gptSessionBenchmark, lmdeploy's profile_generation,
    // optimum-habana's run_generation); unset or "timed=decode": the generation rate of the
    // decode passes alone (llama-batched-bench's S_TG). Without a stated batch (offline) the
    // figure is always the whole run's.
    bool whole_run_throughput = false;
    // "attention=unfused" in the notes: the run's attention wrote its score matrix to memory
    // (llama.cpp with flash attention off, llama-bench's default before it became "auto"); unset
    // or "attention=fused": one fused flash-attention kernel (engine::AttentionKernels).
    bool unfused_attention = false;
    // "block-matmul=dequantized" in the notes: llama.cpp's CUDA backend of a build before PR #8075
    // (2024-06) multiplied block-format weights by passes of more than 32 tokens through 16-bit
    // copies and cuBLAS (engine::BlockMatmul); unset or "block-matmul=quantized": its MMQ kernels.
    bool dequantized_block_matmul = false;
    // "kernel-graph=unfused" in the notes: a llama.cpp build of 2023 to the summer of 2025, whose
    // graph launched one kernel per node (engine::KernelGraphGeneration); unset or
    // "kernel-graph=fused": the graph after the fusions of late 2025.
    bool unfused_kernel_graph = false;
    // "split=row" in the notes: llama.cpp's --split-mode row, each matrix split by rows across the
    // devices and the partial results gathered to the main device after every product (the default
    // before llama.cpp PR #4606, 2023-12). Not modelled: predicted as tensor parallelism.
    bool row_split = false;
    // "graphs=off" in the notes: the run launched every kernel from the host one by one, without
    // capturing them in CUDA (or HIP) graphs (vLLM before PR #1926 of 2023-12, or with
    // --enforce-eager, where each launch passes through Python), so a small batch waits on the
    // host. Not modelled: predicted at the runtime's per-kernel cost under graphs.
    bool eager_launch = false;
    // "QPS=R" in the notes: requests arrived at R per second, Poisson (as `vllm bench serve`,
    // sglang.bench_serving and Triton's load generators draw them), not at a fixed concurrency.
    // Predicted by the serving simulation (scenarios/serving.hpp), never read by a fit.
    std::optional<double> request_rate;
    // "N requests" or "N prompts" in the notes: how many the benchmark sent; unset: 1000.
    std::optional<long long> requests;
    // "median" in the notes of a request-rate row: the latency reported is the median over the
    // requests; otherwise the mean.
    bool median_latency = false;
};

// The metric's name, with "_at_request_rate" appended for a row measured at a request rate: the
// summaries keep such rows apart, because throughput below saturation is the offered load and
// latency includes queueing, neither what a stated concurrency measures.
std::string metric_label(const Measurement& m);
// Every label metric_label gives, in report order: each metric at a stated operating point, then
// each at a request rate.
std::vector<std::string> metric_labels();

// The conditions a row states that the engine does not model (speculative decoding, a row
// split, eager launches), each as a phrase for a report; empty when the engine models the run.
// Such a row is predicted and its error reported, but no fit reads it: its rate is not the rate
// of the kernels the presets describe.
std::vector<std::string> unmodelled_conditions(const Measurement& m);

}  // namespace decodesim::profiles
